package llm

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

func TestLoadCustomYAML(t *testing.T) {
	cat := NewCatalog()
	e, err := cat.AddFile("testdata/helpful.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if e.Name != "helpful" || !e.NeedsModel || e.PerCriterion || e.Source != "testdata/helpful.yaml" {
		t.Errorf("entry = %+v", e)
	}
	if got := strings.Join(e.Inputs, ","); got != "question,gold,prediction,doc.title" {
		t.Errorf("inputs = %s", got)
	}
	if len(e.Dimensions) != 2 || e.Dimensions[0].Scale != judge.Binary || e.Dimensions[1].Scale != judge.Likert {
		t.Errorf("dimensions = %+v", e.Dimensions)
	}
	d, _ := cat.resolve("helpful")
	it := testItem("1")
	it.Fields = json.RawMessage(`{"doc": {"title": "Space"}}`)
	msgs, err := d.messages(judge.Task{Item: it}, Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if msgs[0].Role != "system" || msgs[0].Content != "You are a strict grader." {
		t.Errorf("system = %+v", msgs[0])
	}
	if !strings.Contains(msgs[1].Content, "Topic: Space\nReply with JSON {\"helpful\":") {
		t.Errorf("user = %q", msgs[1].Content)
	}
	if !d.json {
		t.Error("a json judge is not asked for JSON")
	}

	runParserCases(t, d.parse, []parserCase{
		{name: "clean", out: `{"helpful": "PASS", "quality": 4, "why": "good", "topic": "space"}`, want: map[string]float64{"helpful": 1, "quality": 4}, reason: "good"},
		{name: "case and fence", out: "```json\n{\"Helpful\": \"fail\", \"quality\": \"2\"}\n```", want: map[string]float64{"helpful": 0, "quality": 2}},
		{name: "unknown word", out: `{"helpful": "YES", "quality": 4}`, errHas: `"helpful" is "YES", not one of FAIL, PASS`},
		{name: "out of scale", out: `{"helpful": "PASS", "quality": 6}`, errHas: "not on the likert scale"},
		{name: "missing", out: `{"helpful": "PASS"}`, errHas: `no "quality" field`},
	})
	p, _ := readOutput(d.parse, `{"helpful": "PASS", "quality": 4, "topic": "space"}`)
	if p.extra["topic"] != "space" {
		t.Errorf("extra = %v", p.extra)
	}
}

func TestLoadCustomJSONLine(t *testing.T) {
	cat := NewCatalog()
	e, err := cat.AddFile("testdata/verdict-line.json")
	if err != nil {
		t.Fatal(err)
	}
	if !e.PerCriterion {
		t.Error("a judge whose template uses {criterion} is not per criterion")
	}
	d, _ := cat.resolve("verdict-line")
	met := func(x float64) map[string]float64 { return map[string]float64{"met": x} }
	runParserCases(t, d.parse, []parserCase{
		{name: "clean", out: "why: it names NASA\nverdict: YES", want: met(1), reason: "it names NASA", answer: "YES"},
		{name: "bold true", out: "**Verdict:** true", want: met(1), answer: "true"},
		{name: "missing", out: "YES", errHas: `no "verdict:" line`},
		{name: "both", out: "verdict: YES/NO", errHas: `the "verdict" line says`},
	})
}

func TestCustomWordFormat(t *testing.T) {
	src := "name: grade\nuser: \"Grade {prediction}: A, B or C\"\noutput: {format: word}\ndimensions:\n  - {name: grade, scale: ternary, values: {A: 1, B: 0.5, C: 0}}\n"
	_, d, err := parseCustom([]byte(src), "grade.yaml")
	if err != nil {
		t.Fatal(err)
	}
	g := func(x float64) map[string]float64 { return map[string]float64{"grade": x} }
	runParserCases(t, d.parse, []parserCase{
		{name: "bare", out: "B", want: g(0.5)},
		{name: "bold with text", out: "**A** — excellent", want: g(1)},
		{name: "other", out: "D", errHas: "no answer word"},
	})
	if d.format != "a bare word: A, B, C" {
		t.Errorf("format = %q", d.format)
	}
}

func TestCustomErrors(t *testing.T) {
	base := map[string]string{
		"name":       "name: my-judge",
		"user":       "user: \"Q: {question} A: {prediction}\"",
		"output":     "output: {format: json}",
		"dimensions": "dimensions: [{name: ok, scale: binary}]",
	}
	build := func(change map[string]string) string {
		m := maps.Clone(base)
		maps.Copy(m, change)
		var parts []string
		for _, k := range []string{"name", "description", "system", "user", "output", "dimensions", "extra"} {
			if m[k] != "" {
				parts = append(parts, m[k])
			}
		}
		return strings.Join(parts, "\n") + "\n"
	}
	if _, err := ParseCustom([]byte(build(nil)), "ok.yaml"); err != nil {
		t.Fatalf("the base file is refused: %v", err)
	}
	tests := []struct {
		name   string
		change map[string]string
		errHas string
	}{
		{"no name", map[string]string{"name": ""}, "name is missing"},
		{"bad name", map[string]string{"name": "name: My Judge"}, `name "My Judge": use lower-case`},
		{"built-in name", map[string]string{"name": "name: docqa"}, `name "docqa" is a built-in judge's`},
		{"match is taken", map[string]string{"name": "name: match"}, "built-in"},
		{"no user", map[string]string{"user": ""}, "user template is missing"},
		{"bad brace", map[string]string{"user": "user: 'Reply {\"ok\": true} to {question}'"}, "user template: line 1"},
		{"bad system", map[string]string{"system": "system: 'a }'"}, "system template"},
		{"no placeholder", map[string]string{"user": "user: hello"}, "use no item field"},
		{"no format", map[string]string{"output": "output: {reason: why}"}, "output.format is missing"},
		{"bad format", map[string]string{"output": "output: {format: xml}"}, `output.format "xml"`},
		{"word with fields", map[string]string{"output": "output: {format: word, reason: why}"}, "need format json or line"},
		{"bad extra field", map[string]string{"output": "output: {format: json, extra: ['a b']}"}, `output: field "a b"`},
		{"bad reason key", map[string]string{"output": "output: {format: line, reason: 'why?'}"}, `output: key "why?"`},
		{"no dimensions", map[string]string{"dimensions": "dimensions: []"}, "dimensions are missing"},
		{"bad scale", map[string]string{"dimensions": "dimensions: [{name: ok, scale: binar}]"}, `dimensions[0] (ok): scale "binar": unknown kind "binar"; write binary`},
		{"value off scale", map[string]string{"dimensions": "dimensions: [{name: ok, scale: binary, values: {PASS: 2}}]"}, `"PASS" maps to 2, which is not on the binary scale`},
		{"duplicate dimension", map[string]string{"dimensions": "dimensions: [{name: ok, scale: binary}, {name: ok, scale: likert}]"}, "used twice"},
		{"shared field", map[string]string{"dimensions": "dimensions: [{name: a, scale: binary, field: x}, {name: b, scale: likert, field: x}]"}, `field "x" is read by another`},
		{"word with two dimensions", map[string]string{"output": "output: {format: word}", "dimensions": "dimensions: [{name: a, scale: binary}, {name: b, scale: binary}]"}, "format word allows one dimension"},
		{"unknown key", map[string]string{"extra": "temprature: 0"}, `line 5: unknown key "temprature" (known here: name,`},
		{"not yaml", map[string]string{"extra": "\t- ["}, "not a valid judge definition"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseCustom([]byte(build(tc.change)), "judges/x.yaml")
			if err == nil {
				t.Fatalf("accepted:\n%s", build(tc.change))
			}
			if !strings.HasPrefix(err.Error(), "judge file judges/x.yaml: ") || !strings.Contains(err.Error(), tc.errHas) {
				t.Errorf("error %q, want the file and %q", err, tc.errHas)
			}
		})
	}
	if _, err := ParseCustom(nil, "empty.yaml"); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty file: %v", err)
	}
	if _, err := ParseCustom([]byte(`{"name": "x", "usr": "{question}"}`), "typo.json"); err == nil || !strings.Contains(err.Error(), `unknown field "usr"`) {
		t.Errorf("JSON typo: %v", err)
	}
	if _, err := LoadCustom("testdata/does-not-exist.yaml"); err == nil || !strings.Contains(err.Error(), "judge file testdata/does-not-exist.yaml: no such file") {
		t.Errorf("missing file: %v", err)
	}
}

func TestCatalogNamesAndFiles(t *testing.T) {
	cat := NewCatalog()
	var names []string
	for _, e := range cat.List() {
		names = append(names, e.Name)
		if !e.NeedsModel || e.Source != "built-in" || len(e.Dimensions) == 0 || len(e.Inputs) == 0 || e.Description == "" || e.Output == "" {
			t.Errorf("entry %+v is incomplete", e)
		}
	}
	if got := strings.Join(names, ","); got != "docqa,rubric,same-event,bbh,quality,pairwise" {
		t.Errorf("built-ins = %s", got)
	}
	if _, err := cat.Entry("nope"); err == nil || !strings.Contains(err.Error(), "docqa, rubric, same-event, bbh, quality, pairwise") {
		t.Errorf("unknown judge: %v", err)
	}
	p, err := cat.Prompt("same-event")
	if err != nil || !strings.HasSuffix(p, "Second snippet: {second_paragraph}") {
		t.Errorf("Prompt(same-event) = %q, %v", p, err)
	}
	// A path works as a name, and the judge stays listed.
	e, err := cat.Entry("testdata/helpful.yaml")
	if err != nil || e.Name != "helpful" {
		t.Fatalf("Entry(path) = %+v, %v", e, err)
	}
	if _, err := cat.Entry("helpful"); err != nil {
		t.Error(err)
	}
	// Another file with the same name is refused.
	dir := t.TempDir()
	data, _ := os.ReadFile("testdata/helpful.yaml")
	other := filepath.Join(dir, "copy.yaml")
	os.WriteFile(other, data, 0o644)
	if _, err := cat.AddFile(other); err == nil || !strings.Contains(err.Error(), "already taken by testdata/helpful.yaml") {
		t.Errorf("duplicate name: %v", err)
	}
	// The same file again replaces the judge.
	if _, err := cat.AddFile("testdata/helpful.yaml"); err != nil {
		t.Errorf("reloading: %v", err)
	}
}

func FuzzParseCustom(f *testing.F) {
	for _, p := range []string{"testdata/helpful.yaml", "testdata/verdict-line.json"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, filepath.Ext(p))
	}
	f.Add([]byte("name: g\nuser: '{prediction}'\noutput: {format: word}\ndimensions: [{name: g, scale: ternary, values: {A: 1, B: 0.5}}]"), ".yaml")
	f.Add([]byte("name: p\nuser: '{response_a} {response_b}'\noutput: {format: line}\ndimensions: [{name: w, scale: pairwise, values: {'1': A}}]"), ".yaml")
	f.Add([]byte("name: n\nuser: '{prediction}'\noutput: {format: word}\ndimensions: [{name: g, scale: 'nominal:CORRECT,INCORRECT'}]"), ".yaml")
	f.Add([]byte("name: [\n"), ".yaml")
	f.Add([]byte("name: e\ninstructions: 'be {fair}'\nsystem: '{instructions}'\nuser: '{examples}{#gold} G {gold}{/gold} {prediction}'\nexamples: {count: 2, format: '{n} {label} {label.ok} {reason} {question}'}\noutput: {format: word}\ndimensions: [{name: ok, scale: binary}]\nmodel: m\ntemperature: 0.5\nmax_tokens: 9\n"), ".yaml")
	f.Add([]byte("name: docqa\nuser: '{question} {gold} {prediction}'\noutput: {parser: docqa}\n"), ".yaml")
	f.Add([]byte(`{"name": "p", "user": "{response_a} {response_b}", "output": {"parser": "pairwise"}, "examples": {"count": 1}}`), ".json")
	for _, name := range builtinNames() {
		data, err := ExportBuiltin(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, ".yaml")
	}
	f.Add([]byte(`{"name": "x", "dimensions": [{"name": "a", "scale": "likert", "values": {"": 9}}]}`), ".json")
	f.Fuzz(func(t *testing.T, data []byte, ext string) {
		cf, d, err := parseCustom(data, "fuzz"+ext)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "judge file fuzz"+ext+": ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if cf == nil || d.name == "" || len(d.dims) == 0 || d.parse == nil || d.messages == nil {
			t.Fatalf("accepted an incomplete judge: %+v", d)
		}
		for _, dim := range d.dims {
			if dim.Scale.Values() == nil {
				t.Fatalf("dimension %q has scale %q", dim.Name, dim.Scale)
			}
		}
		// The judge it builds must read outputs without panicking.
		for _, out := range []string{"YES", `{"a": 1}`, "result: 1", ""} {
			if p, err := readOutput(d.parse, out); err == nil {
				checkParsed(t, d.dims, p, out)
			}
		}
		ex := []judge.Example{{Item: testItem("e"), Labels: map[string]float64{}}}
		for _, dim := range d.dims {
			ex[0].Labels[dim.Name] = dim.Scale.Values()[0]
		}
		for _, swapped := range []bool{false, true} {
			for criterion := range 2 {
				task := judge.Task{Item: testItem("f"), Swapped: swapped, Criterion: criterion}
				for _, examples := range [][]judge.Example{nil, ex} {
					_, err := d.messages(task, Config{SwapSnippets: swapped}, examples)
					if err != nil && !strings.Contains(err.Error(), "has no field") && !strings.Contains(err.Error(), "one rubric criterion at a time") &&
						!(examples == nil && errors.Is(err, ErrNoExamples)) {
						t.Fatalf("messages: %v", err)
					}
				}
			}
		}
		// A file that loads can have its instructions replaced.
		if cf.Instructions != "" {
			out, err := ReplaceInstructions(data, "fuzz"+ext, "new\n  {text}  \n")
			if err != nil {
				t.Fatalf("ReplaceInstructions: %v", err)
			}
			if got, err := ParseCustom(out, "fuzz"+ext); err != nil || got.Instructions != "new\n  {text}  \n" {
				t.Fatalf("replaced file: %v\n%s", err, out)
			}
		}
	})
}
