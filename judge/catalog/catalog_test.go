package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/llm"
)

func TestListHasEveryBuiltin(t *testing.T) {
	var names []string
	for _, e := range New().List() {
		names = append(names, e.Name)
	}
	if got := strings.Join(names, " "); got != "match docqa rubric same-event bbh quality pairwise" {
		t.Errorf("built-in judges: %s", got)
	}
}

func TestFindAndBuild(t *testing.T) {
	c := New()
	if _, err := c.Find("nope"); err == nil || !strings.Contains(err.Error(), "choose one of match, docqa") {
		t.Errorf("unknown judge error: %v", err)
	}
	j, err := c.Build("match", llm.Config{}, nil)
	if err != nil || j.Info().Name != "match" {
		t.Fatalf("Build(match) = %v, %v", j, err)
	}
	if _, err := c.Build("docqa", llm.Config{}, nil); err == nil {
		t.Error("an LLM judge without --model was built")
	}
	j, err = c.Build("docqa", llm.Config{Model: "m", BaseURL: "http://127.0.0.1:1/v1"}, nil)
	if err != nil || j.Info().Model != "m" {
		t.Fatalf("Build(docqa) = %v, %v", j, err)
	}
}

func TestCustomJudgeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "polite.yaml")
	yaml := `name: polite
description: Is the answer polite?
user: |
  Question: {question}
  Answer: {prediction}
  Is the answer polite? Reply YES or NO.
output:
  format: word
dimensions:
  - name: polite
    scale: binary
`
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	c := New()
	e, err := c.Find(path)
	if err != nil {
		t.Fatalf("Find(%s): %v", path, err)
	}
	if e.Name != "polite" {
		t.Errorf("custom judge entry: %+v", e)
	}
	if names := c.List(); names[len(names)-1].Name != "polite" {
		t.Errorf("custom judge not listed last: %+v", names)
	}
}

func TestParseOutput(t *testing.T) {
	v, err := ParseOutput("docqa", "reason: same\nresult: NO")
	if err != nil || !v.OK() || v.Values["correct"] != 0 {
		t.Errorf("ParseOutput(docqa) = %+v, %v", v, err)
	}
	if _, err := ParseOutput("match", "YES"); err == nil {
		t.Error("match parsed a judge output")
	}
	c := New()
	if v, err := c.ParseSwappedOutput("pairwise", "A is better.\n[[A]]"); err != nil || !v.Swapped || v.Values["preference"] != judge.PreferB {
		t.Errorf("ParseSwappedOutput(pairwise) = %+v, %v", v, err)
	}
	if _, err := c.ParseSwappedOutput("match", "A"); err == nil {
		t.Error("match parsed a swapped judge output")
	}
}

// Every entry's Key builds its judge again (gavel run builds by Key).
func TestEveryEntryBuildsByKey(t *testing.T) {
	c := New()
	for _, e := range c.List() {
		if e.Key == "" {
			t.Errorf("%s has no Key", e.Name)
			continue
		}
		j, err := c.Build(e.Key, llm.Config{Model: "m"}, nil)
		if err != nil || j.Info().Name != e.Name {
			t.Errorf("Build(%q) = %v, %v", e.Key, j, err)
		}
		if d, err := c.Definition(e.Key); e.NeedsModel && (err != nil || d == "") {
			t.Errorf("Definition(%q): %v", e.Key, err)
		}
	}
}
