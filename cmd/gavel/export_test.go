package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// importedSession imports judgedCSV into dir/judged.gavel.
func importedSession(t *testing.T, dir string) string {
	t.Helper()
	data := writeFile(t, dir, "judged.csv", judgedCSV)
	session := filepath.Join(dir, "judged.gavel")
	if code, _, errs := run(t, "import", data, "--session", session); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	return session
}

func TestExportCommand(t *testing.T) {
	dir := t.TempDir()
	session := importedSession(t, dir)

	code, out, errs := run(t, "export", session)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if lines := strings.Count(out, "\n"); lines != 4 || !strings.HasPrefix(out, `{"id":"a",`) {
		t.Errorf("JSONL on stdout: %d lines:\n%s", lines, out)
	}
	if !strings.Contains(errs, "Wrote 4 of 4 items (reviewed) to standard output.") {
		t.Errorf("stderr %q", errs)
	}

	csvPath := filepath.Join(dir, "calibration.csv")
	if code, _, errs := run(t, "export", session, "--output", csvPath, "--only", "disagreements"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	// a: YES/yes, b: NO/no, c: parse error, d: YES/no.
	if !strings.HasPrefix(lines[0], "id,question,gold,prediction,rubric,verdict:imported · gpt4_verdict:correct,") || len(lines) != 2 || !strings.HasPrefix(lines[1], "d,") {
		t.Errorf("CSV (format from the extension), disagreements only:\n%s", b)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestExportImportCommands(t *testing.T) {
	dir := t.TempDir()
	session := importedSession(t, dir)
	exported := filepath.Join(dir, "calibration.jsonl")
	if code, _, errs := run(t, "export", session, "-o", exported); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errs)
	}
	back := filepath.Join(dir, "back.gavel")
	code, out, errs := run(t, "import", exported, "--session", back)
	if code != 0 || !strings.Contains(out, "4 items, 1 run created, 4 verdicts, 4 labels") {
		t.Fatalf("re-import: exit %d, %q, %s", code, out, errs)
	}
	again := filepath.Join(dir, "again.jsonl")
	if code, _, errs := run(t, "export", back, "-o", again); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errs)
	}
	a, _ := os.ReadFile(exported)
	b, _ := os.ReadFile(again)
	if string(a) != string(b) {
		t.Errorf("export → import → export changed the file:\n%s\nvs\n%s", a, b)
	}
}

func TestExportErrors(t *testing.T) {
	dir := t.TempDir()
	session := importedSession(t, dir)
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no session", []string{"export"}, 2, "export needs SESSION; e.g. gavel export"},
		{"bad format", []string{"export", session, "--format", "xml"}, 2, `unknown --format "xml"`},
		{"bad only", []string{"export", session, "--only", "some"}, 2, `unknown --only "some"`},
		{"missing session", []string{"export", filepath.Join(dir, "nope.gavel")}, 1, "there is no session at"},
		{"output is a folder", []string{"export", session, "--output", dir}, 1, "is a folder"},
		{"unknown judge", []string{"export", session, "--judge", "gpt4"}, 2, `no judge "gpt4" in ` + session + `: its judges are "imported · gpt4_verdict"`},
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

// --judge writes one run's verdict columns, found as `gavel stats
// --judge` finds it; the item and label columns stay.
func TestExportJudge(t *testing.T) {
	path := statsSession(t)
	_, all, _ := run(t, "export", path, "--only", "all", "--format", "csv")
	tests := []struct {
		judge string
		kept  string
		gone  string
	}{
		{"gpt-4o", "docqa · gpt-4o", "match"},
		{"DocQA", "docqa · gpt-4o", "match"},
		{"docqa · gpt-4o", "docqa · gpt-4o", "match"},
		{"match", "match", "docqa · gpt-4o"},
	}
	for _, tc := range tests {
		code, out, errs := run(t, "export", path, "--judge", tc.judge, "--only", "all", "--format", "csv")
		if code != 0 {
			t.Fatalf("--judge %q: exit %d: %s", tc.judge, code, errs)
		}
		header, _, _ := strings.Cut(out, "\n")
		if !strings.Contains(header, ",verdict:"+tc.kept+":correct,verdict_status:"+tc.kept+",") || strings.Contains(header, ":"+tc.gone+",") {
			t.Errorf("--judge %q: header %s", tc.judge, header)
		}
		if !strings.Contains(header, ",label:ana:correct,label_via:ana,note:ana,label:bob:correct,") || !strings.HasPrefix(header, "id,question,gold,prediction,rubric,segment:category,") {
			t.Errorf("--judge %q: the item and label columns changed: %s", tc.judge, header)
		}
		if want := "Wrote 24 of 24 items (all, verdicts of " + tc.kept + ") to standard output."; !strings.Contains(errs, want) {
			t.Errorf("--judge %q: stderr %q lacks %q", tc.judge, errs, want)
		}
		if len(out) >= len(all) {
			t.Errorf("--judge %q wrote as much as every run", tc.judge)
		}
	}
	// Two runs of docqa: --judge docqa lists them, the model picks one.
	other := docqaRunInfo
	other.Model = "llama3"
	ok := func(i int) *judge.Verdict { return okVerdict("correct", 1) }
	two := buildSession(t, 3, []fixtureRun{{docqaRunInfo, ok}, {other, ok}}, nil, "correct")
	code, out, errs := run(t, "export", two, "--judge", "docqa")
	if want := `--judge "docqa" matches 2 judges in ` + two + `: "docqa · gpt-4o", "docqa · llama3"; pass the full label`; code != 2 || out != "" || !strings.Contains(errs, want) {
		t.Errorf("--judge docqa: exit %d, stdout %q, stderr %q; want 2 and %q", code, out, errs, want)
	}
	if code, out, errs := run(t, "export", two, "--judge", "LLAMA3", "--only", "all"); code != 0 || !strings.Contains(out, `"verdict:docqa · llama3:correct":"YES"`) || strings.Contains(out, "gpt-4o") {
		t.Errorf("--judge LLAMA3: exit %d: %s\n%s", code, errs, out)
	}
}

func TestMergeCommand(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	// Two files with the same rows, each with its own human column, as
	// two annotators' exports would be.
	ana := writeFile(t, dir, "ana.csv", "id,question,answer,prediction,annotator1\na,q,x,x,yes\nb,q,y,z,no\nc,q,z,z,yes\n")
	bo := writeFile(t, dir, "bo.csv", "id,question,answer,prediction,annotator2\na,q,x,x,yes\nb,q,y,z,yes\nc,q,z,z,yes\n")
	for _, f := range []string{ana, bo} {
		if code, _, errs := run(t, "import", f); code != 0 {
			t.Fatalf("import %s: exit %d: %s", f, code, errs)
		}
	}
	code, out, errs := run(t, "merge", "team.gavel", "ana.gavel", "bo.gavel")
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errs)
	}
	if out != "team.gavel: 2 sessions merged, 3 items, 0 runs, 0 verdicts, 6 actions by annotator1, annotator2\n" {
		t.Errorf("stdout %q", out)
	}
	if !strings.Contains(errs, "began from other file content") {
		t.Errorf("stderr %q should say the files differ", errs)
	}
	s, err := sessions.Open("team.gavel", sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	labels, _ := s.Labels("")
	if len(labels) != 6 {
		t.Errorf("%d current labels, want 6", len(labels))
	}

	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"merge", "x.gavel", "ana.gavel"}, 2, "at least two sessions"},
		{[]string{"merge", "team.gavel", "ana.gavel", "bo.gavel"}, 1, "already exists"},
	} {
		code, _, errs := run(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errs, tc.code, tc.msg)
		}
	}
}
