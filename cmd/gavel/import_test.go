package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/sessions"
)

const judgedCSV = `id,question,answer,prediction,gpt4_verdict,human_label
a,2+2?,4,four,True,yes
b,Capital of France?,Paris,Lyon,False,no
c,Largest planet?,Jupiter,Jupiter,maybe,yes
d,Boiling point?,100,212,True,no
`

// writeFile writes a file in dir and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// run executes gavel and returns the exit code, stdout and stderr.
func run(t *testing.T, argv ...string) (int, string, string) {
	t.Helper()
	e, out, errb, _ := testEnv(t)
	code := execute(context.Background(), e, argv)
	return code, out.String(), errb.String()
}

func TestImportThenStats(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "judged.csv", judgedCSV)
	session := filepath.Join(dir, "judged.gavel")
	code, out, errs := run(t, "import", data, "--session", session)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := "judged.csv -> " + session + ": 4 items, 1 run created, 4 verdicts, 4 labels\n" +
		"  run imported · gpt4_verdict: 4 verdicts (1 parse error)\n" +
		"  annotator human_label: 4 labels\n"
	if out != want {
		t.Errorf("stdout\n got %q\nwant %q", out, want)
	}
	if !strings.Contains(errs, "mapped ") || !strings.Contains(errs, "gavel stats "+session) {
		t.Errorf("stderr %q should show the mapping and what to run next", errs)
	}

	// Again: nothing new.
	code, out, _ = run(t, "import", data, "--session", session)
	if code != 0 || !strings.Contains(out, "0 runs created, 0 verdicts, 0 labels") || !strings.Contains(out, "4 already there") {
		t.Errorf("second import: exit %d, %q", code, out)
	}

	code, out, errs = run(t, "stats", session, "--format", "json", "--resamples", "0")
	if code != 0 {
		t.Fatalf("stats: exit %d: %s", code, errs)
	}
	for _, s := range []string{`"imported · gpt4_verdict"`, `"human_label"`} {
		if !strings.Contains(out, s) {
			t.Errorf("stats JSON lacks %s", s)
		}
	}
}

func TestImportDefaultSessionAndChangedFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	data := writeFile(t, dir, "judged.csv", judgedCSV)
	if code, _, errs := run(t, "import", data); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "judged.gavel")); err != nil {
		t.Fatalf("no default session: %v", err)
	}
	writeFile(t, dir, "judged.csv", judgedCSV+"e,New?,x,x,True,yes\n")
	code, out, errs := run(t, "import", data)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "judged.csv changed since this session began: 1 item added") {
		t.Errorf("stderr %q should report the change", errs)
	}
	if !strings.Contains(out, "5 items, 0 runs created, 1 verdict, 1 label") {
		t.Errorf("stdout %q", out)
	}
}

func TestImportErrors(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "judged.csv", judgedCSV)
	plain := writeFile(t, dir, "plain.jsonl", `{"id":"1","question":"q","answer":"a","prediction":"p"}`+"\n")
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no file", []string{"import"}, 2, "import needs DATASET; e.g. gavel import"},
		{"missing file", []string{"import", filepath.Join(dir, "nope.csv")}, 1, "does not exist"},
		{"unknown judge", []string{"import", data, "--judge", "nope"}, 2, "no judge called"},
		{"match is no parser", []string{"import", data, "--judge", "match"}, 2, "reads predictions, not a judge's output"},
		{"bad map", []string{"import", data, "--map", "gold"}, 2, "--map"},
		{"nothing to import", []string{"import", plain, "--session", filepath.Join(dir, "p.gavel")}, 0, "carries no verdicts or labels"},
		{"not a session", []string{"import", data, "--session", data}, 1, "not a Gavel session"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := run(t, tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.msg) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errs, tc.code, tc.msg)
			}
		})
	}
}

func TestImportRawOutputWithJudge(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "raw.jsonl",
		`{"id":"1","question":"q","answer":"a","prediction":"p","judge_output":"garbled"}`+"\n"+
			`{"id":"2","question":"q","answer":"a","prediction":"p","judge_output":"more garble"}`+"\n")
	session := filepath.Join(dir, "raw.gavel")
	code, out, errs := run(t, "import", data, "--session", session)
	if code != 0 || !strings.Contains(errs, "--judge NAME") || !strings.Contains(out, "0 runs created") {
		t.Fatalf("without --judge: exit %d, %q, %q", code, out, errs)
	}
	code, out, errs = run(t, "import", data, "--session", session, "--judge", "docqa")
	if code != 0 || !strings.Contains(out, "1 run created, 2 verdicts") {
		t.Fatalf("with --judge docqa: exit %d, %q, %q", code, out, errs)
	}
	s, err := sessions.Open(session, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, _ := s.Runs()
	if len(runs) != 1 || runs[0].Info.Params["parser"] != "docqa" {
		t.Errorf("runs %+v", runs)
	}
}
