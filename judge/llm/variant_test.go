package llm

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

func TestTemplateSections(t *testing.T) {
	tests := []struct {
		in       string
		vals     map[string]string
		want     string
		optional string
		errHas   string
	}{
		{in: "A{#gold} gold={gold}{/gold}.", vals: map[string]string{"gold": "g"}, want: "A gold=g.", optional: "gold"},
		{in: "A{#gold} gold={gold}{/gold}.", vals: map[string]string{"gold": " \n"}, want: "A.", optional: "gold"},
		{in: "A{#doc.x}[{doc.x}]{/doc.x}", vals: map[string]string{}, want: "A", optional: "doc.x"},
		{in: "{gold}{#gold}again {gold}{/gold}", vals: map[string]string{"gold": "g"}, want: "gagain g"},
		{in: "{#gold}{question}{/gold}{question}", vals: map[string]string{"gold": "g", "question": "q"}, want: "qq", optional: "gold"},
		{in: "{# gold }x{/ gold }", vals: map[string]string{"gold": "g"}, want: "x", optional: "gold"},
		{in: "{#gold}{#id}{/id}{/gold}", errHas: "sections do not nest"},
		{in: "{#gold} open", errHas: "{#gold} is never closed"},
		{in: "x {/gold}", errHas: "{/gold} closes no section"},
		{in: "{#gold}x{/id}", errHas: "{/id} closes the section {#gold}: write {/gold}"},
		{in: "{#}x", errHas: "is not a section"},
	}
	for _, tc := range tests {
		tpl, err := parseTemplate(tc.in)
		if tc.errHas != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errHas) {
				t.Errorf("parseTemplate(%q) error = %v, want %q", tc.in, err, tc.errHas)
			}
			continue
		}
		if err != nil {
			t.Fatalf("parseTemplate(%q): %v", tc.in, err)
		}
		got, err := tpl.render(func(n string) (string, error) {
			v, ok := tc.vals[n]
			if !ok {
				return "", errors.New("no field " + n)
			}
			return v, nil
		})
		if err != nil || got != tc.want {
			t.Errorf("render(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		if opt := strings.Join(tpl.optionalNames(), ","); opt != tc.optional {
			t.Errorf("optionalNames(%q) = %q, want %q", tc.in, opt, tc.optional)
		}
	}
}

// judgeFile is a small valid judge file with extra lines appended.
func judgeFile(extra ...string) string {
	return "name: my-judge\nuser: \"Q: {question} A: {prediction}\"\noutput: {format: word}\ndimensions: [{name: ok, scale: binary}]\n" + strings.Join(extra, "\n") + "\n"
}

func TestJudgeFileNewKeysErrors(t *testing.T) {
	tests := []struct {
		name, file, errHas string
	}{
		{"instructions unused", judgeFile("instructions: be strict"), "no template uses {instructions}: put {instructions} in system or user"},
		{"instructions missing", "name: j\nuser: '{instructions} {prediction}'\noutput: {format: word}\ndimensions: [{name: ok, scale: binary}]\n", "the templates use {instructions}, but instructions is missing"},
		{"examples unused", judgeFile("examples: {count: 2}"), "no template uses {examples}"},
		{"examples missing", "name: j\nuser: '{examples} {prediction}'\noutput: {format: word}\ndimensions: [{name: ok, scale: binary}]\n", "add \"examples: {count: 3}\""},
		{"examples zero", "name: j\nuser: '{examples} {prediction}'\nexamples: {count: 0}\noutput: {format: word}\ndimensions: [{name: ok, scale: binary}]\n", "examples.count 0: give 1 to 50"},
		{"examples too many", "name: j\nuser: '{examples} {prediction}'\nexamples: {count: 51}\noutput: {format: word}\ndimensions: [{name: ok, scale: binary}]\n", "examples.count 51"},
		{"examples bad label", "name: j\nuser: '{examples} {prediction}'\nexamples: {count: 1, format: '{label.nope}'}\noutput: {format: word}\ndimensions: [{name: ok, scale: binary}]\n", `{label.nope}: the judge has no dimension "nope" (its dimensions: ok)`},
		{"examples in format", "name: j\nuser: '{examples} {prediction}'\nexamples: {count: 1, format: '{examples}'}\noutput: {format: word}\ndimensions: [{name: ok, scale: binary}]\n", "{examples} is the judge's, not an example's"},
		{"examples key typo", "name: j\nuser: '{examples} {prediction}'\nexamples: {cout: 1}\noutput: {format: word}\ndimensions: [{name: ok, scale: binary}]\n", `line 3: unknown key "cout" (known here: count, format)`},
		{"examples not a count", "name: j\nuser: '{examples} {prediction}'\nexamples: some\noutput: {format: word}\ndimensions: [{name: ok, scale: binary}]\n", `examples is a count (examples: 3) or {count: 3, format: …}, not "some"`},
		{"unknown parser", "name: j\nuser: '{prediction}'\noutput: {parser: docq}\n", `output.parser "docq": use a built-in judge's parser: docqa, rubric, same-event, bbh, quality, pairwise`},
		{"parser format differs", "name: j\nuser: '{prediction}'\noutput: {parser: docqa, format: json}\n", `the docqa parser reads line`},
		{"pairwise parser format", "name: j\nuser: '{response_a} {response_b}'\noutput: {parser: pairwise, format: word}\n", "reads its own format"},
		{"parser with reason", "name: j\nuser: '{prediction}'\noutput: {parser: bbh, reason: why}\n", "reads the reason and extra fields itself"},
		{"parser dims differ", "name: j\nuser: '{prediction}'\noutput: {parser: docqa}\ndimensions: [{name: ok, scale: binary}]\n", "the docqa parser gives correct (binary)"},
		{"parser dims values", "name: j\nuser: '{prediction}'\noutput: {parser: docqa}\ndimensions: [{name: correct, scale: binary, values: {Y: 1}}]\n", "field and values: the docqa parser reads the answer itself"},
		{"parser per_criterion", "name: j\nuser: '{prediction}'\noutput: {parser: rubric}\nper_criterion: false\n", "per_criterion false: the rubric parser's judge rates one rubric criterion at a time"},
		{"built-in name of another parser", "name: docqa\nuser: '{prediction}'\noutput: {parser: bbh}\n", `name "docqa" is a built-in judge's: choose another (or set output.parser: docqa`},
		{"match name with parser", "name: match\nuser: '{prediction}'\noutput: {parser: match}\n", `output.parser "match"`},
		{"temperature", judgeFile("temperature: 3"), "temperature 3: use 0 to 2"},
		{"max_tokens", judgeFile("max_tokens: -1"), "max_tokens -1: use 0"},
		{"empty model", judgeFile("model: ' '"), "model is empty"},
		{"unknown key lists new keys", judgeFile("instruction: x"), "known here: name, description, instructions, system, user, examples, output, dimensions, per_criterion, model, temperature, max_tokens"},
		{"output key lists parser", "name: j\nuser: '{prediction}'\noutput: {parsr: docqa}\n", "known here: format, reason, extra, parser"},
		{"bad section", judgeFile("system: '{#gold}x'"), "system template: the section {#gold} is never closed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseCustom([]byte(tc.file), "judges/x.yaml")
			if err == nil {
				t.Fatalf("accepted:\n%s", tc.file)
			}
			if !strings.Contains(err.Error(), tc.errHas) {
				t.Errorf("error %q\nlacks %q", err, tc.errHas)
			}
			if !strings.HasPrefix(err.Error(), "judge file judges/x.yaml: ") {
				t.Errorf("error does not name the file: %v", err)
			}
		})
	}
}

// examples: 3 is short for examples: {count: 3}, in YAML and JSON.
func TestExamplesBareCount(t *testing.T) {
	for _, tc := range []struct{ file, source string }{
		{"name: j\nuser: '{examples} {prediction}'\nexamples: 3\noutput: {format: word}\ndimensions: [{name: ok, scale: binary}]\n", "j.yaml"},
		{`{"name": "j", "user": "{examples} {prediction}", "examples": 3, "output": {"format": "word"}, "dimensions": [{"name": "ok", "scale": "binary"}]}`, "j.json"},
		{`{"name": "j", "user": "{examples} {prediction}", "examples": {"count": 3}, "output": {"format": "word"}, "dimensions": [{"name": "ok", "scale": "binary"}]}`, "j.json"},
	} {
		_, d, err := parseCustom([]byte(tc.file), tc.source)
		if err != nil || d.examples == nil || d.examples.count != 3 {
			t.Errorf("%s: %v", tc.file, err)
		}
	}
	_, err := ParseCustom([]byte(`{"name": "j", "user": "{examples} {prediction}", "examples": {"cont": 3}, "output": {"format": "word"}, "dimensions": [{"name": "ok", "scale": "binary"}]}`), "j.json")
	if err == nil || !strings.Contains(err.Error(), `unknown field "cont"`) {
		t.Errorf("json typo: %v", err)
	}
}

func TestJudgeFileParserVariants(t *testing.T) {
	for _, file := range []string{
		"name: docqa\nuser: 'Q {question} G {gold} P {prediction}'\noutput: {parser: docqa}\n",
		"name: strict-docqa\nuser: 'Q {question} G {gold} P {prediction}'\noutput: {parser: docqa, format: LINE}\ndimensions: [{name: correct, scale: binary, description: mine}]\n",
		"name: rubric\nuser: '{criterion}: {prediction}'\noutput: {parser: rubric}\nper_criterion: true\n",
	} {
		cf, d, err := parseCustom([]byte(file), "v.yaml")
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		base := builtinDef(cf.Output.Parser)
		if d.format != base.format || d.json != base.json || d.perCriterion != base.perCriterion || len(d.dims) != len(base.dims) || d.version == "" {
			t.Errorf("%s: loaded %+v", file, d.entry())
		}
	}
	_, d, _ := parseCustom([]byte("name: strict-docqa\nuser: '{gold} {prediction}'\noutput: {parser: docqa}\ndimensions: [{name: correct, scale: binary, description: mine}]\n"), "v.yaml")
	if d.dims[0].Description != "mine" || d.description != builtinDef("docqa").description {
		t.Errorf("dims %+v, description %q", d.dims, d.description)
	}
}

// {instructions} is inserted as written: braces and placeholders in it
// are text.
func TestInstructionsAreVerbatim(t *testing.T) {
	file := "name: j\ninstructions: |\n  Reply {\"ok\": true}; ignore {question} and }{.\nsystem: '{instructions}'\nuser: 'Q: {question}'\noutput: {format: json}\ndimensions: [{name: ok, scale: binary}]\n"
	_, d, err := parseCustom([]byte(file), "j.yaml")
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := d.messages(judge.Task{Item: testItem("1")}, Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if msgs[0].Content != "Reply {\"ok\": true}; ignore {question} and }{.\n" {
		t.Errorf("system = %q", msgs[0].Content)
	}
	if strings.Join(d.inputs, ",") != "question" {
		t.Errorf("inputs = %v: instructions is not an item field", d.inputs)
	}
}

func examplesJudge(t *testing.T, format string) *Judge {
	t.Helper()
	file := "name: ex\nuser: |\n  {examples}\n\n  Q: {question}\n  G: {gold}\n  P: {prediction}\nexamples:\n  count: 2\n"
	if format != "" {
		file += "  format: '" + format + "'\n"
	}
	file += "output: {format: line}\ndimensions: [{name: correct, scale: binary}, {name: style, scale: likert}]\n"
	cl, err := NewClient(Config{Model: "m", BaseURL: "http://127.0.0.1:1/v1"})
	if err != nil {
		t.Fatal(err)
	}
	j, err := NewVariant([]byte(file), "ex.yaml", cl)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func testExamples() []judge.Example {
	a, b, c := testItem("a"), testItem("b"), testItem("c")
	a.Question, b.Question, c.Question = "Qa", "Qb {x}", "Qc"
	b.Gold = ""
	return []judge.Example{
		{Item: a, Labels: map[string]float64{"correct": 1, "style": 4}, Note: "right"},
		{Item: b, Labels: map[string]float64{"correct": 0, "style": 2}},
		{Item: c, Labels: map[string]float64{"correct": 1, "style": 5}, Note: "also right"},
	}
}

func TestExamples(t *testing.T) {
	j := examplesJudge(t, "")
	if j.NeedsExamples() != 2 {
		t.Errorf("NeedsExamples = %d", j.NeedsExamples())
	}
	if k := mustJudge(t, "docqa", Config{Model: "m"}).NeedsExamples(); k != 0 {
		t.Errorf("docqa NeedsExamples = %d", k)
	}
	ex := testExamples()
	w := j.WithExamples(ex)
	msgs, err := w.Messages(judge.Task{Item: testItem("a")})
	if err != nil {
		t.Fatal(err)
	}
	// Item a is the task's own: the next two are shown; b has no gold.
	want := "Question: Qb {x}\nPrediction: " + testItem("b").Prediction + "\nHuman verdict: correct = NO\nHuman verdict: style = 2\nReason: (no note)\n\n" +
		"Question: Qc\nGold answer: " + testItem("c").Gold + "\nPrediction: " + testItem("c").Prediction + "\nHuman verdict: correct = YES\nHuman verdict: style = 5\nReason: also right\n\nQ: What"
	if !strings.HasPrefix(msgs[0].Content, want) {
		t.Errorf("user =\n%s\nwant prefix\n%s", msgs[0].Content, want)
	}
	msgs, _ = w.Messages(judge.Task{Item: testItem("z")})
	if !strings.HasPrefix(msgs[0].Content, "Question: Qa\n") || strings.Contains(msgs[0].Content, "Qc") {
		t.Errorf("another item's prompt shows the first two examples:\n%s", msgs[0].Content)
	}

	f := examplesJudge(t, "#{n} {id}: {label} / {label.style} ({reason})").WithExamples(ex)
	msgs, _ = f.Messages(judge.Task{Item: testItem("c")})
	if !strings.HasPrefix(msgs[0].Content, "#1 a: YES / 4 (right)\n\n#2 b: NO / 2 ((no note))\n\nQ:") {
		t.Errorf("formatted examples:\n%s", msgs[0].Content)
	}

	// The examples name the run; the same set the same run.
	if w.Info().Params["examples"] == nil || j.Info().Params["examples"] != nil {
		t.Errorf("params: with %v, without %v", w.Info().Params, j.Info().Params)
	}
	if a, b := w.Info().Params["examples"], j.WithExamples(testExamples()).Info().Params["examples"]; a != b {
		t.Errorf("the same examples hash %v and %v", a, b)
	}
	other := testExamples()
	other[0].Note = "changed"
	if a, b := w.Info().Params["examples"], j.WithExamples(other).Info().Params["examples"]; a == b {
		t.Error("another note, the same hash")
	}
	if j.Info().Params["examples"] != nil {
		t.Error("WithExamples changed the original judge")
	}
	// A judge without {examples} ignores them.
	d := mustJudge(t, "docqa", Config{Model: "m"})
	if d.WithExamples(ex) != d {
		t.Error("docqa.WithExamples made a copy")
	}
}

// A judge needing examples and given none fails each task with a clear
// api_error, sending nothing.
func TestExamplesMissing(t *testing.T) {
	fs := newFakeServer(t, answerWith(completion{content: "correct: YES\nstyle: 4"}))
	cl, err := NewClient(testConfig(fs))
	if err != nil {
		t.Fatal(err)
	}
	file := "name: ex\nuser: '{examples} {prediction}'\nexamples: {count: 1}\noutput: {format: line}\ndimensions: [{name: correct, scale: binary}]\n"
	j, err := NewVariant([]byte(file), "ex.yaml", cl)
	if err != nil {
		t.Fatal(err)
	}
	own := testExamples()[:1]
	for _, jj := range []*Judge{j, j.WithExamples(nil), j.WithExamples(own)} {
		v := jj.Judge(context.Background(), judge.Task{Item: own[0].Item})
		if v.Status != judge.StatusAPIError || !strings.Contains(v.Error, "judge ex uses {examples} and has none for this item: record a split (gavel split SESSION) and label calibration items") {
			t.Errorf("verdict %+v", v)
		}
	}
	if fs.hits.Load() != 0 {
		t.Errorf("%d requests sent", fs.hits.Load())
	}
	v := j.WithExamples(testExamples()).Judge(context.Background(), judge.Task{Item: testItem("x")})
	if v.Status != judge.StatusOK {
		t.Errorf("with examples: %+v", v)
	}
}

// A judge file's model, temperature and max_tokens are the judge's:
// sent, in its Info, and in its cache key.
func TestJudgeFileOverrides(t *testing.T) {
	fs := newFakeServer(t, answerWith(completion{content: "YES"}))
	cfg := testConfig(fs)
	cfg.Temperature, cfg.MaxTokens = 0.7, 100
	cl, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	j, err := NewVariant([]byte(judgeFile("model: other-model", "temperature: 0", "max_tokens: 64")), "o.yaml", cl)
	if err != nil {
		t.Fatal(err)
	}
	info := j.Info()
	if info.Model != "other-model" || info.Params["temperature"] != 0.0 || info.Params["max_tokens"] != 64 {
		t.Errorf("info = %+v", info)
	}
	if v := j.Judge(context.Background(), judge.Task{Item: testItem("1")}); v.Status != judge.StatusOK || v.Model != "other-model" {
		t.Errorf("verdict %+v", v)
	}
	fs.mu.Lock()
	req := fs.reqs[len(fs.reqs)-1]
	fs.mu.Unlock()
	if req.Model != "other-model" || req.Temperature == nil || *req.Temperature != 0 || req.MaxTokens != 64 {
		t.Errorf("request %+v (temperature %s): want other-model at 0 with 64 tokens", req, fmtPtr(req.Temperature))
	}
	body := fs.lastBody()
	// Only the temperature set: the rest is the run's.
	j2, _ := NewVariant([]byte(judgeFile("temperature: 1.5")), "o.yaml", cl)
	j2.Judge(context.Background(), judge.Task{Item: testItem("1")})
	body = fs.lastBody()
	for _, want := range []string{`"model":"judge-model"`, `"temperature":1.5`, `"max_tokens":100`} {
		if !strings.Contains(body, want) {
			t.Errorf("body %s lacks %s", body, want)
		}
	}
	if k1, k2 := cl.cacheKey(call{over: j.over}, cl.request(call{over: j.over})).String(), cl.cacheKey(call{}, cl.request(call{})).String(); k1 == k2 {
		t.Error("the override does not change the cache key")
	}
}

func TestReplaceInstructions(t *testing.T) {
	data, _ := ExportBuiltin("docqa")
	for _, instr := range []string{
		"Be strict.",
		"Line one  \n  indented {braces} }{ \"quotes\" # not a comment\n\nlast\n",
		"  starts with spaces\nand ends with lines\n\n\n",
		"tab\there: colon: yes",
	} {
		out, err := ReplaceInstructions(data, "docqa.yaml", instr)
		if err != nil {
			t.Fatalf("%q: %v", instr, err)
		}
		cf, err := ParseCustom(out, "docqa.yaml")
		if err != nil || cf.Instructions != instr {
			t.Fatalf("%q read back as %q (%v)", instr, cf.Instructions, err)
		}
		// Everything but the instructions is kept as written.
		before, _, _ := strings.Cut(string(data), "instructions: ")
		if !strings.HasPrefix(string(out), before+"instructions: |") || !strings.Contains(string(out), "\nuser: |") || !strings.HasSuffix(string(out), "\noutput:\n  parser: docqa\n") {
			t.Errorf("%q: the file around it changed:\n%s", instr, out)
		}
	}

	// A flow mapping is written again; JSON too.
	flow := "{name: j, instructions: old, user: '{instructions} {prediction}', output: {format: word}, dimensions: [{name: ok, scale: binary}]}\n"
	if out, err := ReplaceInstructions([]byte(flow), "j.yaml", "new\ntext"); err != nil {
		t.Error(err)
	} else if cf, _ := ParseCustom(out, "j.yaml"); cf == nil || cf.Instructions != "new\ntext" {
		t.Errorf("flow: %s", out)
	}
	js := `{"name": "j", "instructions": "old", "user": "{instructions} {prediction}", "output": {"format": "word"}, "dimensions": [{"name": "ok", "scale": "binary"}]}`
	if out, err := ReplaceInstructions([]byte(js), "j.json", "new {x}"); err != nil {
		t.Error(err)
	} else if cf, err := ParseCustom(out, "j.json"); err != nil || cf.Instructions != "new {x}" || strings.Contains(string(out), "null") {
		t.Errorf("json: %s (%v)", out, err)
	}

	for _, tc := range []struct{ data, instr, errHas string }{
		{judgeFile(), "x", "has no instructions: move the text to rewrite into \"instructions: |\" and write {instructions} where it was"},
		{string(data), " \n", "the new instructions are empty"},
		{"name: [", "x", "not a valid judge definition"},
	} {
		if _, err := ReplaceInstructions([]byte(tc.data), "t.yaml", tc.instr); err == nil || !strings.Contains(err.Error(), tc.errHas) {
			t.Errorf("error %v, want %q", err, tc.errHas)
		}
	}
}

// A variant named like a built-in runs beside it: the catalog finds it by
// its path, the built-in by its name.
func TestCatalogKeepsVariantsApart(t *testing.T) {
	dir := t.TempDir()
	data, _ := ExportBuiltin("docqa")
	edited, err := ReplaceInstructions(data, "docqa.yaml", "Be lenient.")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "docqa.yaml")
	if err := os.WriteFile(path, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	cat := NewCatalog()
	e, err := cat.Entry(path)
	if err != nil {
		t.Fatal(err)
	}
	if e.Name != "docqa" || e.Key != path || e.Source != path {
		t.Errorf("entry = %+v", e)
	}
	if b, _ := cat.Entry("docqa"); b.Source != builtinSource || b.Key != "docqa" {
		t.Errorf("docqa is now %+v", b)
	}
	v, err := cat.New(e.Key, Config{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if msgs, _ := v.Messages(judge.Task{Item: testItem("1")}); !strings.HasPrefix(msgs[0].Content, "Be lenient.") {
		t.Errorf("the variant's prompt: %q", clip(msgs[0].Content, 40))
	}
	if def, _ := cat.Definition(path); def != string(edited) {
		t.Error("Definition(path) is not the file's text")
	}
	if def, _ := cat.Definition("docqa"); def != string(data) {
		t.Error("Definition(docqa) is not the export")
	}
	if n := len(cat.List()); n != len(builtins())+1 {
		t.Errorf("%d judges listed", n)
	}
	// A second variant file, the same name: both are kept.
	path2 := filepath.Join(dir, "docqa2.yaml")
	if err := os.WriteFile(path2, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := cat.AddFile(path2); err != nil {
		t.Errorf("second variant: %v", err)
	}
}

// A same-event variant swaps the snippets as the built-in does, and says
// so in its parameters.
func TestSameEventVariantSwaps(t *testing.T) {
	cl, err := NewClient(Config{Model: "m", BaseURL: "http://127.0.0.1:1/v1", SwapSnippets: true})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := ExportBuiltin("same-event")
	edited, err := ReplaceInstructions(data, "se.yaml", "Same event? YES or NO.")
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewVariant(edited, "se.yaml", cl)
	if err != nil {
		t.Fatal(err)
	}
	if v.Info().Params["swap_snippets"] != true {
		t.Errorf("params = %v", v.Info().Params)
	}
	msgs, _ := v.Messages(judge.Task{Item: testItem("1")})
	if want := "Same event? YES or NO.\n\nFirst snippet: " + testItem("1").Prediction + "\n\nSecond snippet: " + testItem("1").Gold; msgs[0].Content != want {
		t.Errorf("user = %q, want %q", msgs[0].Content, want)
	}
}

// gavel judges FILE shows the instructions with the templates.
func TestPromptShowsInstructions(t *testing.T) {
	_, d, err := parseCustom([]byte("name: j\ninstructions: Be strict.\nsystem: '{instructions}'\nuser: 'P: {prediction}'\noutput: {format: word}\ndimensions: [{name: ok, scale: binary}]\n"), "j.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if want := "[instructions]\nBe strict.\n\n[system]\n{instructions}\n\n[user]\nP: {prediction}"; d.prompt != want {
		t.Errorf("prompt = %q, want %q", d.prompt, want)
	}
}

// A model only the judge file names, refused by the server, is named in
// the fatal error with the key to fix.
func TestJudgeFileModelRefused(t *testing.T) {
	fs := newFakeServer(t, func(w http.ResponseWriter, _ *http.Request, req chatRequest, _ int) {
		if req.Model == "no-such-model" {
			writeError(w, http.StatusNotFound, "invalid_request_error", "The model does not exist")
			return
		}
		writeCompletion(w, req.Model, completion{content: "YES"})
	})
	cl, err := NewClient(testConfig(fs))
	if err != nil {
		t.Fatal(err)
	}
	j, err := NewVariant([]byte(judgeFile("model: no-such-model")), "m.yaml", cl)
	if err != nil {
		t.Fatal(err)
	}
	v := j.Judge(context.Background(), judge.Task{Item: testItem("1")})
	if v.Status != judge.StatusAPIError || !strings.Contains(v.Error, `no model "no-such-model"`) || !strings.Contains(v.Error, "check the model the judge file names (model: no-such-model)") {
		t.Errorf("verdict %+v", v)
	}
}
