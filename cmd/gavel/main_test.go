package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/tui"
)

// testEnv runs commands with captured output, a fake state directory and
// a screen that starts (reading its verdicts, judging what is left) and
// quits, handing back the model it ended with.
func testEnv(t *testing.T) (env, *bytes.Buffer, *bytes.Buffer, *[]tea.Model) {
	t.Helper()
	var out, errb bytes.Buffer
	var shown []tea.Model
	state := t.TempDir()
	e := env{
		stdout: &out,
		stderr: &errb,
		getenv: func(k string) string {
			if k == "XDG_STATE_HOME" {
				return state
			}
			return ""
		},
		runTUI: func(_ context.Context, m tea.Model) (tea.Model, error) {
			m = runCommand(t, m, m.Init(), 0) // read verdicts, judge
			shown = append(shown, m)
			return m, nil
		},
	}
	return e, &out, &errb, &shown
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"help", []string{"--help"}, 0, ""},
		{"judges", []string{"judges"}, 0, ""},
		{"review without a file", []string{"review"}, 2, "review needs DATASET; e.g. gavel review evals.jsonl"},
		{"unknown command", []string{"bogus"}, 2, "unknown command"},
		{"unknown flag", []string{"review", "x.jsonl", "--nope"}, 2, "unknown flag"},
		{"bad --map", []string{"review", "x.jsonl", "--map", "gold"}, 2, "--map"},
		{"unknown judge", []string{"judges", "nope"}, 2, "no judge called"},
		{"missing file", []string{"review", "does-not-exist.jsonl"}, 1, "does-not-exist.jsonl does not exist"},
		// A flag that names what the rows lack is a usage error, as a
		// --judge the session lacks is.
		{"--map to a missing field", []string{"run", "../../sessions/dataset/testdata/good/basic.jsonl", "--map", "gold=nosuch"}, 2, `no field "nosuch" (from --map gold=nosuch)`},
		{"--stratify by a missing field", []string{"sample", "../../sessions/dataset/testdata/good/basic.jsonl", "-n", "1", "--stratify", "nosuch"}, 2, `no row has a field "nosuch" to stratify by`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, _, errb, _ := testEnv(t)
			if code := execute(context.Background(), e, tc.args); code != tc.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tc.code, errb)
			}
			if !strings.Contains(errb.String(), tc.msg) {
				t.Errorf("stderr %q lacks %q", errb, tc.msg)
			}
			if tc.code == 2 && !strings.Contains(errb.String(), " --help` for usage") {
				t.Errorf("usage error without a pointer to --help: %q", errb)
			}
		})
	}
}

func TestJudgesListsMatch(t *testing.T) {
	e, out, _, _ := testEnv(t)
	if code := execute(context.Background(), e, []string{"judges"}); code != 0 {
		t.Fatal(code)
	}
	if !strings.Contains(out.String(), "match") || !strings.Contains(out.String(), "correct (binary)") {
		t.Errorf("judges output:\n%s", out)
	}
	out.Reset()
	execute(context.Background(), e, []string{"judges", "match"})
	if !strings.Contains(out.String(), "inputs:") || !strings.Contains(out.String(), "offline") {
		t.Errorf("judges match output:\n%s", out)
	}
}

func TestReviewCreatesTheSession(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "evals.jsonl")
	rows := `{"qid":"a","input":"2+2?","target":"4","output":"The answer is 4."}
{"qid":"b","input":"Capital of France?","target":"Paris","output":"Lyon"}
`
	if err := os.WriteFile(data, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	session := filepath.Join(dir, "evals.gavel")
	e, _, errb, shown := testEnv(t)
	code := execute(context.Background(), e, []string{"review", data, "--session", session, "--annotator", "ana"})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if len(*shown) != 1 {
		t.Fatal("the review screen was not shown")
	}
	s := (*shown)[0].(*tui.Model)
	if _, total := s.Progress(); total != 2 {
		t.Errorf("screen has %d items, want 2", total)
	}
	if !strings.Contains(errb.String(), "0 of 2 items reviewed") {
		t.Errorf("no summary on quit: %q", errb)
	}
	st, err := sessions.Open(session, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	info, ok, err := st.Dataset()
	if err != nil || !ok {
		t.Fatalf("no dataset in the session: %v", err)
	}
	if info.Mapping["question"] != "input" || info.Mapping["gold"] != "target" || info.Mapping["prediction"] != "output" {
		t.Errorf("mapping saved as %v", info.Mapping)
	}
	runs, err := st.Runs()
	if err != nil || len(runs) != 1 || runs[0].Info.Name != "match" {
		t.Errorf("runs: %+v, %v", runs, err)
	}
}

func TestDemoSessionLivesInTheStateDirectory(t *testing.T) {
	e, _, errb, shown := testEnv(t)
	if code := execute(context.Background(), e, nil); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if len(*shown) != 1 {
		t.Fatal("the demo was not shown")
	}
	path := filepath.Join(e.getenv("XDG_STATE_HOME"), "gavel", "demo.gavel")
	if _, err := os.Stat(path); err != nil {
		t.Errorf("no demo session at %s: %v", path, err)
	}
}

func TestDefaultSessionPath(t *testing.T) {
	for in, want := range map[string]string{
		"data/evals.jsonl":    "evals.gavel",
		"evals.jsonl.gz":      "evals.gavel",
		"/tmp/results.v2.csv": "results.v2.gavel",
		"noext":               "noext.gavel",
	} {
		if got := defaultSessionPath(in); got != want {
			t.Errorf("defaultSessionPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// A file that already carries a judge's verdicts and people's labels opens
// in review with the imported judge beside the one that runs, and the
// statistics compare it with the labels without any model call.
func TestReviewShowsImportedJudgments(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "judged.csv")
	csv := "id,question,answer,response,gpt4_verdict,human_label\n" +
		"a,2+2?,4,The answer is 4.,True,True\n" +
		"b,Capital of France?,Paris,Lyon,True,False\n" +
		"c,3*3?,9,nine,False,True\n"
	if err := os.WriteFile(data, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	session := filepath.Join(dir, "judged.gavel")
	e, _, errb, shown := testEnv(t)
	if code := execute(context.Background(), e, []string{"review", data, "--session", session}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	m := send(t, (*shown)[0], tea.WindowSizeMsg{Width: 120, Height: 40})
	if s := ansi.Strip(m.View().Content); !strings.Contains(s, "judge match (1/2)") || !strings.Contains(s, "mapped question=question,gold=answer,prediction=response") {
		t.Errorf("the screen does not show the judges and the mapping:\n%s", s)
	}
	m = send(t, m, keyPress("J"))
	if s := ansi.Strip(m.View().Content); !strings.Contains(s, "judge imported · gpt4_verdict (2/2)") || !strings.Contains(s, "judge YES") {
		t.Errorf("J does not show the imported judge's verdicts:\n%s", s)
	}
	st, err := sessions.Open(session, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	labels, _ := st.Labels("human_label")
	if len(labels) != 3 {
		t.Errorf("%d imported labels, want 3", len(labels))
	}
	// Reopening does not import twice.
	errb.Reset()
	if code := execute(context.Background(), e, []string{"review", data, "--session", session}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if labels, _ := st.Labels("human_label"); len(labels) != 3 {
		t.Errorf("%d labels after reopening", len(labels))
	}
}
