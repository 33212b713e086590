package llm

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// Custom judges declare any scale, and their answers are read as the
// scale reads values: category names, labels, A/B/tie.
func TestCustomScales(t *testing.T) {
	tests := []struct {
		name  string
		file  string
		scale judge.Scale
		cases []parserCase
	}{
		{
			name:  "nominal, SimpleQA grader",
			file:  "name: simpleqa\nuser: 'Q: {question} Gold: {gold} Predicted: {prediction}'\noutput: {format: word}\ndimensions: [{name: grade, scale: 'nominal:CORRECT,INCORRECT,NOT_ATTEMPTED'}]\n",
			scale: "nominal:CORRECT,INCORRECT,NOT_ATTEMPTED",
			cases: []parserCase{
				{name: "bare", out: "NOT_ATTEMPTED", want: map[string]float64{"grade": 2}},
				{name: "case", out: "correct", want: map[string]float64{"grade": 0}},
				{name: "bold with text", out: "**INCORRECT** — it names Lyon.", want: map[string]float64{"grade": 1}},
				{name: "other", out: "PARTIAL", errHas: "no answer word"},
			},
		},
		{
			name:  "nominal in JSON keeps the case of the file",
			file:  "name: errtype\nuser: '{prediction}'\noutput: {format: json}\ndimensions: [{name: kind, scale: 'Nominal:Hallucination, Wrong_Logic, None'}]\n",
			scale: "nominal:Hallucination,Wrong_Logic,None",
			cases: []parserCase{
				{name: "name", out: `{"kind": "wrong_logic"}`, want: map[string]float64{"kind": 1}},
				{name: "off the scale", out: `{"kind": "typo"}`, errHas: `"kind" is "typo", not on the nominal:Hallucination,Wrong_Logic,None scale (Hallucination / Wrong_Logic / None)`},
				{name: "a number is no category", out: `{"kind": 1}`, errHas: "not on the nominal"},
			},
		},
		{
			name:  "ordinal 1-10",
			file:  "name: mtbench\nuser: 'Rate {prediction}'\noutput: {format: line}\ndimensions: [{name: rating, scale: 'ordinal:1-10'}]\n",
			scale: "ordinal:1-10",
			cases: []parserCase{
				{name: "number", out: "rating: 7", want: map[string]float64{"rating": 7}},
				{name: "bold", out: "**Rating:** 10", want: map[string]float64{"rating": 10}},
				{name: "off", out: "rating: 11", errHas: "not on the ordinal:1-10 scale"},
				{name: "word", out: "rating: good", errHas: "not a number"},
			},
		},
		{
			name:  "ordinal with labels",
			file:  "name: fourpt\nuser: 'Rate {prediction}'\noutput: {format: json}\ndimensions: [{name: q, scale: 'ordinal:1-4:poor,fair,good,excellent', values: {bad: poor}}]\n",
			scale: "ordinal:1-4:poor,fair,good,excellent",
			cases: []parserCase{
				{name: "mapped word", out: `{"q": "BAD"}`, want: map[string]float64{"q": 1}},
			},
		},
		{
			name:  "ordinal labels read without a values table",
			file:  "name: fourpt2\nuser: 'Rate {prediction}'\noutput: {format: json}\ndimensions: [{name: q, scale: 'ordinal:1-4:poor,fair,good,excellent'}]\n",
			scale: "ordinal:1-4:poor,fair,good,excellent",
			cases: []parserCase{
				{name: "label", out: `{"q": "Good"}`, want: map[string]float64{"q": 3}},
				{name: "number", out: `{"q": 4}`, want: map[string]float64{"q": 4}},
			},
		},
		{
			name:  "pairwise line",
			file:  "name: pref\nuser: '{question}\nA: {response_a}\nB: {response_b}'\noutput: {format: line}\ndimensions: [{name: winner, scale: pairwise}]\n",
			scale: judge.Pairwise,
			cases: []parserCase{
				{name: "A", out: "winner: A", want: pref2("winner", judge.PreferA)},
				{name: "named", out: "Winner: Assistant B", want: pref2("winner", judge.PreferB)},
				{name: "tie with note", out: "winner: tie (bothbad)", want: pref2("winner", judge.PreferTie)},
				{name: "marker", out: "winner: [[B]]", want: pref2("winner", judge.PreferB)},
				{name: "leading letter", out: "winner: A (fewer errors)", want: pref2("winner", judge.PreferA)},
				{name: "both", out: "winner: A/B", errHas: `the "winner" line says`},
			},
		},
		{
			name:  "pairwise without tie",
			file:  "name: pick\nuser: '{response_a} vs {response_b}'\noutput: {format: word}\ndimensions: [{name: pick, scale: 'Pairwise:NoTie'}]\n",
			scale: judge.PairwiseNoTie,
			cases: []parserCase{
				{name: "B", out: "B", want: pref2("pick", judge.PreferB)},
				{name: "tie refused", out: "tie", errHas: "no answer word"},
			},
		},
		{
			name:  "pairwise through values",
			file:  "name: pandalm\nuser: '{response_a} vs {response_b}'\noutput: {format: word}\ndimensions: [{name: p, scale: pairwise, values: {'1': A, '2': B, '0': tie}}]\n",
			scale: judge.Pairwise,
			cases: []parserCase{
				{name: "2", out: "2", want: pref2("p", judge.PreferB)},
				{name: "0", out: "0\nBoth fine.", want: pref2("p", judge.PreferTie)},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, d, err := parseCustom([]byte(tc.file), "j.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if d.dims[0].Scale != tc.scale {
				t.Errorf("scale %q, want %q", d.dims[0].Scale, tc.scale)
			}
			runParserCases(t, d.parse, tc.cases)
		})
	}
}

func pref2(name string, v float64) map[string]float64 { return map[string]float64{name: v} }

func TestCustomScaleErrors(t *testing.T) {
	tests := []struct{ dims, errHas string }{
		{"[{name: k, scale: 'nominal:A'}]", "at least two categories"},
		{"[{name: k, scale: 'nominal:A,a'}]", `the category "a" appears twice`},
		{"[{name: k, scale: 'ordinal:1-4:poor,fair'}]", "2 labels for 4 points"},
		{"[{name: k, scale: pairwise, values: {X: D}}]", `"X" maps to D, which is not on the pairwise scale (A / B / tie)`},
		{"[{name: k, scale: 'nominal:CORRECT,INCORRECT', values: {RIGHT: correct, WRONG: WRONG}}]", `"WRONG" maps to WRONG`},
		{"[{name: k, scale: binary, values: {PASS: [1]}}]", "a value is a number or a name"},
	}
	for _, tc := range tests {
		src := "name: x\nuser: '{prediction}'\noutput: {format: json}\ndimensions: " + tc.dims + "\n"
		_, err := ParseCustom([]byte(src), "x.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.errHas) {
			t.Errorf("%s: error %v, want %q", tc.dims, err, tc.errHas)
		}
	}
	// JSON files take numbers and names alike.
	src := `{"name": "j", "user": "{prediction}", "output": {"format": "word"}, "dimensions": [{"name": "ok", "scale": "binary", "values": {"PASS": 1, "FAIL": "NO"}}]}`
	_, d, err := parseCustom([]byte(src), "j.json")
	if err != nil {
		t.Fatal(err)
	}
	runParserCases(t, d.parse, []parserCase{
		{name: "PASS", out: "PASS", want: map[string]float64{"ok": 1}},
		{name: "FAIL", out: "fail", want: map[string]float64{"ok": 0}},
	})
	if _, err := ParseCustom([]byte(`{"name": "j", "user": "{prediction}", "output": {"format": "word"}, "dimensions": [{"name": "ok", "scale": "binary", "values": {"PASS": [1]}}]}`), "j.json"); err == nil {
		t.Error("a list as a value is accepted")
	}
}

// A custom pairwise judge judged in the swapped order: its template's
// {response_a} shows response B, and its answer comes back in the
// original terms.
func TestCustomPairwiseSwapped(t *testing.T) {
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
		u := req.Messages[len(req.Messages)-1].Content
		out := `{"winner": "A", "why": "first is right"}`
		if strings.HasPrefix(between(u, "FIRST: ", "\n"), "The capital") {
			out = `{"winner": "B", "why": "second is right"}`
		}
		writeCompletion(w, req.Model, completion{content: out})
	})
	path := filepath.Join(t.TempDir(), "pref.yaml")
	src := "name: pref\nuser: \"Q: {question}\\nFIRST: {response_a}\\nSECOND: {response_b}\\n\"\noutput: {format: json, reason: why}\ndimensions: [{name: winner, scale: pairwise}]\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := NewCatalog().New(path, testConfig(fs))
	if err != nil {
		t.Fatal(err)
	}
	if !j.Info().Prefers() {
		t.Fatal("a judge with a pairwise dimension does not prefer")
	}
	it := pairItem("1")
	vs := runAll(t, context.Background(), j, judge.TasksFor(j.Info(), it, true), 1)
	if len(vs) != 2 {
		t.Fatalf("%d verdicts", len(vs))
	}
	for _, v := range vs {
		if !v.OK() || v.Values["winner"] != judge.PreferA {
			t.Errorf("swapped=%v: %s %v %q, want A (Paris) in both orders", v.Swapped, v.Status, v.Values, v.Error)
		}
	}
	if !strings.Contains(fs.reqs[1].Messages[0].Content+fs.reqs[0].Messages[0].Content, "FIRST: The capital of France is Lyon") {
		t.Errorf("no request showed response B first")
	}
}
