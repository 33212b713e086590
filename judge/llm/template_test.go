package llm

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

func TestParseTemplate(t *testing.T) {
	tests := []struct {
		in, want, errHas string
	}{
		{in: "Q: {question}", want: "Q: <question>"},
		{in: "{{literal}} and {gold}", want: "{literal} and <gold>"},
		{in: "{{\n  \"a\": 0\n}}", want: "{\n  \"a\": 0\n}"},
		{in: "{ doc.title }", want: "<doc.title>"},
		{in: "{resps.0.0}", want: "<resps.0.0>"},
		{in: "no placeholders", want: "no placeholders"},
		{in: "", want: ""},
		{in: "open {question", errHas: "line 1: '{' is never closed"},
		{in: "a\nb }", errHas: "line 2: a lone '}'"},
		{in: `{"a": 1}`, errHas: "is not a placeholder"},
		{in: "{}", errHas: "is not a placeholder"},
		{in: "{.x}", errHas: "is not a placeholder"},
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
			t.Errorf("parseTemplate(%q): %v", tc.in, err)
			continue
		}
		got, _ := tpl.render(func(n string) (string, error) { return "<" + n + ">", nil })
		if got != tc.want {
			t.Errorf("render(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestItemLookup(t *testing.T) {
	it := testItem("row-7")
	it.Fields = json.RawMessage(`{"question": "raw q", "doc": {"title": "Hubble", "year": 1990, "tags": ["a", "b"]}, "resps": [["first"]], "a.b": "dotted key", "none": null, "ok": true}`)
	task := judge.Task{Item: it, Criterion: 1}
	tests := []struct{ name, want string }{
		{"id", "row-7"},
		{"question", it.Question},
		{"gold", it.Gold},
		{"prediction", it.Prediction},
		{"criterion", "Names NASA"},
		{"rubric", "1. Names NASA\n2. Gives the launch year"},
		{"fields.question", "raw q"},
		{"doc.title", "Hubble"},
		{"doc.year", "1990"},
		{"doc.tags", `["a","b"]`},
		{"doc.tags.1", "b"},
		{"resps.0.0", "first"},
		{"a.b", "dotted key"},
		{"none", ""},
		{"ok", "true"},
	}
	lookup := itemLookup(task)
	for _, tc := range tests {
		got, err := lookup(tc.name)
		if err != nil || got != tc.want {
			t.Errorf("{%s} = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	for _, missing := range []string{"nope", "doc.author", "resps.3", "doc.tags.x"} {
		_, err := lookup(missing)
		if err == nil || !strings.Contains(err.Error(), "has no field") || !strings.Contains(err.Error(), "doc") {
			t.Errorf("{%s}: err = %v, want a message listing the fields", missing, err)
		}
	}
}
