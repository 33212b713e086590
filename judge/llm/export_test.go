package llm

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// roundTripTasks are the tasks a built-in and its exported file must
// prompt for alike: plain items, braces and placeholder-like text in the
// item, no gold, row fields, each rubric criterion, both pair orders.
func roundTripTasks() []judge.Task {
	plain := testItem("q1")
	braces := judge.Item{
		ID:         "q{2}",
		Question:   "What does {gold} print? {{x}} <question>",
		Gold:       "It prints {prediction}.\n\n",
		Prediction: "  {examples} {instructions} }{ <llm_response>\n",
		Rubric:     []string{"Mentions {gold}", "<rubic_item>"},
		Fields:     json.RawMessage(`{"question": "row q", "doc": {"title": "T"}}`),
	}
	noGold := testItem("q3")
	noGold.Gold = ""
	spaceGold := testItem("q4")
	spaceGold.Gold = " \n "
	pair := judge.Item{ID: "p1", Question: "Write a haiku.", Gold: "Any haiku.", ResponseA: "Old pond / frog", ResponseB: "A poem {about} frogs"}
	pairNoGold := pair
	pairNoGold.ID, pairNoGold.Gold = "p2", ""
	var tasks []judge.Task
	for _, it := range []judge.Item{plain, braces, noGold, spaceGold} {
		tasks = append(tasks, judge.Task{Item: it}, judge.Task{Item: it, Criterion: 1}, judge.Task{Item: it, Criterion: 2})
	}
	for _, it := range []judge.Item{pair, pairNoGold} {
		tasks = append(tasks, judge.Task{Item: it}, judge.Task{Item: it, Swapped: true})
	}
	return tasks
}

// roundTripOutputs are outputs each parser must read alike: good ones,
// odd ones and unreadable ones.
var roundTripOutputs = map[string][]string{
	"docqa":      {"reason: fine\nresult: YES", "result: NO", "result: maybe", "", "YES"},
	"rubric":     {`{"score": 1.0, "reason": "ok"}`, `{"score": 0.5}`, `{"score": 2}`, "score: 1", "```json\n{\"score\": 0}\n```"},
	"same-event": {"YES", "no.", "**YES**", "maybe", "YES NO"},
	"bbh":        {`{"id": 1, "is_correct": true, "extracted_answer": "x", "reasoning_score": 4, "error_type": "none", "comment": "c"}`, `{"is_correct": "false"}`, `{}`, "true"},
	"quality":    {`{"completeness_score": 5, "correctness_score": 4, "completeness_reasoning": "a", "key_missing_info": [], "factual_errors": ["e"]}`, `{"completeness_score": 9, "correctness_score": 1}`, "{}"},
	"pairwise":   {"A is better.\n[[A]]", "[[C]]", "[[B]] then [[A]]", "Response B", "none"},
}

func TestExportBuiltinRoundTrip(t *testing.T) {
	for _, name := range builtinNames() {
		t.Run(name, func(t *testing.T) {
			data, err := ExportBuiltin(name)
			if err != nil {
				t.Fatal(err)
			}
			cf, got, err := parseCustom(data, "exported/"+name+".yaml")
			if err != nil {
				t.Fatalf("the exported file does not load: %v\n%s", err, data)
			}
			if cf.Instructions == "" {
				t.Error("no instructions: gavel tune has nothing to rewrite")
			}
			want := builtinDef(name)
			if got.name != want.name || got.description != want.description || got.perCriterion != want.perCriterion ||
				got.json != want.json || got.format != want.format || !reflect.DeepEqual(got.dims, want.dims) ||
				!slices.Equal(got.inputs, want.inputs) || !slices.Equal(got.optional, want.optional) {
				t.Errorf("loaded %+v\nwant  %+v", got.entry(), want.entry())
			}
			if got.version != "" {
				t.Errorf("the unchanged export is a new run (version %q), not the built-in's", got.version)
			}
			for _, cfg := range []Config{{}, {SwapSnippets: true}} {
				for _, task := range roundTripTasks() {
					w, werr := want.messages(task, cfg, nil)
					g, gerr := got.messages(task, cfg, nil)
					if fmt.Sprint(werr) != fmt.Sprint(gerr) && (werr == nil || gerr == nil) {
						t.Errorf("%s/%d swapped=%t: error %v, built-in %v", task.Item.ID, task.Criterion, task.Swapped, gerr, werr)
						continue
					}
					if !reflect.DeepEqual(g, w) {
						t.Errorf("%s/%d swapped=%t swap_snippets=%t: messages differ\n got %q\nwant %q", task.Item.ID, task.Criterion, task.Swapped, cfg.SwapSnippets, g, w)
					}
					if gm, wm := got.missingInput(task), want.missingInput(task); gm != wm {
						t.Errorf("%s: missing %q, built-in %q", task.Item.ID, gm, wm)
					}
				}
			}
			outs := roundTripOutputs[name]
			if len(outs) == 0 {
				t.Fatal("no outputs to compare")
			}
			for _, out := range outs {
				wp, werr := readOutput(want.parse, out)
				gp, gerr := readOutput(got.parse, out)
				if fmt.Sprint(werr) != fmt.Sprint(gerr) || !reflect.DeepEqual(wp, gp) {
					t.Errorf("%q read as %+v (%v), built-in %+v (%v)", out, gp, gerr, wp, werr)
				}
			}
		})
	}
}

// The exported file is readable: block text, not one quoted line.
func TestExportBuiltinIsReadable(t *testing.T) {
	for _, name := range builtinNames() {
		data, _ := ExportBuiltin(name)
		s := string(data)
		for _, want := range []string{"\nname: " + name + "\n", "\ninstructions: |", "\noutput:\n  parser: " + name + "\n"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s: the file lacks %q", name, want)
			}
		}
		if strings.Contains(s, `\n`) {
			t.Errorf("%s: the file holds an escaped line break (quoted text)", name)
		}
	}
	if _, err := ExportBuiltin("match"); err == nil || !strings.Contains(err.Error(), "docqa") {
		t.Errorf("ExportBuiltin(match) = %v, want an error listing the built-ins", err)
	}
}

// An edited export is a variant: its own run, the built-in's name.
func TestEditedExportIsAVariant(t *testing.T) {
	data, _ := ExportBuiltin("docqa")
	edited, err := ReplaceInstructions(data, "docqa.yaml", "Say YES when the prediction is right.")
	if err != nil {
		t.Fatal(err)
	}
	cl, err := NewClient(Config{Model: "m", BaseURL: "http://127.0.0.1:1/v1"})
	if err != nil {
		t.Fatal(err)
	}
	j, err := NewVariant(edited, "docqa.yaml", cl)
	if err != nil {
		t.Fatal(err)
	}
	b := newJudge(builtinDef("docqa"), cl)
	if j.Info().Name != "docqa" || j.Info().Params["definition"] == nil || j.Info().Definition != string(edited) {
		t.Errorf("variant info = %+v", j.Info())
	}
	if b.Info().Definition != string(data) || b.Info().Params["definition"] != nil {
		t.Errorf("built-in info = %+v", b.Info())
	}
	msgs, _ := j.Messages(judge.Task{Item: testItem("1")})
	if !strings.HasPrefix(msgs[0].Content, "Say YES when the prediction is right.\n\n## Output Format") {
		t.Errorf("variant prompt starts %q", clip(msgs[0].Content, 80))
	}
	// The unchanged export is the built-in's run.
	same, err := NewVariant(data, "docqa.yaml", cl)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(same.Info(), b.Info()) {
		t.Errorf("unchanged export info %+v\nbuilt-in %+v", same.Info(), b.Info())
	}
}

// A judge file's comments and layout do not make it another judge: the
// header of scores gavel tune writes above a candidate, or a comment added
// while editing, keep its run; a changed word does not.
func TestDefinitionVersionIgnoresComments(t *testing.T) {
	data, err := ExportBuiltin("docqa")
	if err != nil {
		t.Fatal(err)
	}
	edited, err := ReplaceInstructions(data, "v.yaml", "Be strict.")
	if err != nil {
		t.Fatal(err)
	}
	version := func(b []byte) string {
		t.Helper()
		_, d, err := parseCustom(b, "v.yaml")
		if err != nil {
			t.Fatal(err)
		}
		return d.version
	}
	base := version(edited)
	cases := []struct {
		name string
		text string
		same bool
	}{
		{"a header of scores", "# gavel tune: round 1\n# Validation part: 3/7 right.\n\n" + string(edited), true},
		{"a comment at a line's end", strings.Replace(string(edited), "name: docqa\n", "name: docqa # mine\n", 1), true},
		{"another word", strings.Replace(string(edited), "Be strict.", "Be lenient.", 1), false},
	}
	for _, c := range cases {
		if got := version([]byte(c.text)); (got == base) != c.same {
			t.Errorf("%s: version %q against %q, same run wanted: %v", c.name, got, base, c.same)
		}
	}
	commented := "# saved by gavel tune, round 0\n" + string(data)
	if v := version([]byte(commented)); v != "" {
		t.Errorf("the built-in's export under a comment is a new run (version %q), not the built-in's", v)
	}
}
