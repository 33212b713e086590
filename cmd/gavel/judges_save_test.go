package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge/llm"
)

// gavel judges NAME --save PATH writes the judge file; it loads back as
// the built-in's variant and never replaces a file unless --force.
func TestJudgesSave(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "docqa.yaml")
	code, out, errs := run(t, "judges", "docqa", "--save", path)
	if code != 0 || out != "" || !strings.Contains(errs, "Saved docqa to "+path+": edit it, then run it with --judge "+path) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	got, _ := os.ReadFile(path)
	want, _ := llm.ExportBuiltin("docqa")
	if string(got) != string(want) {
		t.Errorf("saved file differs from the export")
	}
	// The saved file is a judge gavel judges shows.
	if code, out, errs := run(t, "judges", path); code != 0 || !strings.HasPrefix(out, "docqa — ") || !strings.Contains(out, "source:   "+path) {
		t.Errorf("gavel judges FILE: exit %d, %q %q", code, out, errs)
	}

	// Not over an existing file, unless --force.
	os.WriteFile(path, []byte("mine"), 0o644)
	code, _, errs = run(t, "judges", "bbh", "--save", path)
	if code != 2 || !strings.Contains(errs, path+" exists: choose another path, or add --force to replace it") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if b, _ := os.ReadFile(path); string(b) != "mine" {
		t.Error("the existing file was changed")
	}
	if code, _, errs := run(t, "judges", "bbh", "--save", path, "--force"); code != 0 {
		t.Errorf("--force: exit %d, %q", code, errs)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "parser: bbh") {
		t.Error("--force did not replace the file")
	}

	// A custom file is copied as it is; - writes to stdout.
	custom := filepath.Join(dir, "polite.yaml")
	src := "name: polite\nuser: 'Is this polite? {prediction}'   # a comment\noutput: {format: word}\ndimensions: [{name: polite, scale: binary}]\n"
	os.WriteFile(custom, []byte(src), 0o644)
	if code, out, _ := run(t, "judges", custom, "--save", "-"); code != 0 || out != src {
		t.Errorf("--save -: exit %d, %q", code, out)
	}
	copyPath := filepath.Join(dir, "copy.yaml")
	if code, _, errs := run(t, "judges", custom, "--save", copyPath); code != 0 {
		t.Errorf("copy: exit %d, %q", code, errs)
	}
	if b, _ := os.ReadFile(copyPath); string(b) != src {
		t.Errorf("copy = %q", b)
	}
	// pairwise to stdout.
	if code, out, _ := run(t, "judges", "pairwise", "--save", "-"); code != 0 || !strings.Contains(out, "{#gold}[Reference answer]") {
		t.Errorf("pairwise: exit %d, %q", code, out)
	}
}

func TestJudgesSaveRefusals(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args   []string
		errHas string
	}{
		{[]string{"judges", "--save", "x.yaml"}, "--save writes one judge's file: name the judge too"},
		{[]string{"judges", "--force"}, "--force goes with --save PATH"},
		{[]string{"judges", "docqa", "--force"}, "--force goes with --save PATH"},
		{[]string{"judges", "match", "--save", filepath.Join(dir, "m.yaml")}, "the match judge is rules, not a prompt"},
		{[]string{"judges", "nope", "--save", filepath.Join(dir, "n.yaml")}, `there is no judge called "nope"`},
		{[]string{"judges", "docqa", "--save", filepath.Join(dir, "d.json")}, "a .json judge file is read as JSON, and docqa's file is YAML: save it with a .yaml extension"},
		{[]string{"judges", "docqa", "--save", "x.yaml", "--dataset", "d.jsonl"}, "run them one at a time"},
	}
	for _, tc := range tests {
		code, _, errs := run(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.errHas) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errs, tc.errHas)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "d.json")); err == nil {
		t.Error("a refused save wrote its file")
	}
}
