package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/internal/pgtest"
	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/pg"
)

// runAssignCmd runs gavel as execute does, with `gavel assign`
// registered even while root.go does not list it yet.
func runAssignCmd(t *testing.T, argv ...string) (int, string, string) {
	t.Helper()
	e, out, errb, _ := testEnv(t)
	root := newRootCmd(e)
	if c, _, err := root.Find([]string{"assign"}); err != nil || c == root {
		root.AddCommand(newAssignCmd(e))
	}
	root.SetArgs(argv)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	cmd, err := root.ExecuteContextC(context.Background())
	if err != nil {
		fmt.Fprintf(e.stderr, "gavel: %v\n", err)
		if exitCode(err) == exitUsage {
			fmt.Fprintf(e.stderr, "Run `%s --help` for usage.\n", cmd.CommandPath())
		}
	}
	return exitCode(err), out.String(), errb.String()
}

// assignSession is a session file of n items.
func assignSession(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "team.gavel")
	s, err := sessions.Open(path, sessions.Options{Annotator: "lead"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	items := make([]judge.Item, n)
	for i := range items {
		items[i] = judge.Item{Index: i, ID: fmt.Sprintf("a%03d", i), Question: "q", Gold: "g", Prediction: "p"}
	}
	if err := s.InitDataset(sessions.DatasetInfo{Path: "team.jsonl", SHA256: "abc", Format: "jsonl"}, items); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestAssignFile(t *testing.T) {
	path := assignSession(t, 50)
	code, out, errs := runAssignCmd(t, "assign", path, "--annotators", "ana, bo,cy", "--overlap", "0.2", "--seed", "7", "--claim-timeout", "45m")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"Assigned the 50 items of " + path + " to 3 annotators (seed 7; a claim lasts 45m).",
		"10 items two people label (overlap 0.2)", "annotator  items  shared"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, a := range []string{"ana", "bo", "cy"} {
		if !regexp.MustCompile(`(?m)^\s*` + a + `\s+20\s+\d+\s*$`).MatchString(out) {
			t.Errorf("no row of 20 items for %s:\n%s", a, out)
		}
	}
	// Labels by ana show as her progress.
	s, err := sessions.Open(path, sessions.Options{Annotator: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := s.Claim("ana", 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Record([]sessions.Action{{Kind: sessions.KindLabel, ItemID: ids[0], Dimension: "correct", Value: 1, Via: "queue"}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	code, out, errs = runAssignCmd(t, "assign", path)
	if code != 0 {
		t.Fatalf("show: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, `50 items to 3 annotators (ana, bo, cy), 10 of them to two people (overlap 0.2); seed 7; a claim lasts 45m.`) ||
		!regexp.MustCompile(`(?m)^\s*ana\s+20\s+2\s+1\s*$`).MatchString(out) {
		t.Errorf("show:\n%s", out)
	}
	// A second deal needs --replace; it keeps ana's done item.
	code, _, errs = runAssignCmd(t, "assign", path, "--annotators", "bo,cy")
	if code != 1 || !strings.Contains(errs, "already has a queue") || !strings.Contains(errs, "--replace") {
		t.Errorf("second assign: exit %d: %s", code, errs)
	}
	code, out, errs = runAssignCmd(t, "assign", path, "--annotators", "bo,cy", "--replace")
	if code != 0 || !strings.Contains(out, "Kept the 1 place already done") || !regexp.MustCompile(`seed -?\d+;`).MatchString(out) {
		t.Errorf("replace with a random seed: exit %d: %s%s", code, out, errs)
	}
}

func TestAssignRefusals(t *testing.T) {
	path := assignSession(t, 5)
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"assign", path, "--annotators", "ana", "--overlap", "0.5"}, 2, "an overlap needs two annotators"},
		{[]string{"assign", path, "--annotators", "ana,bo", "--overlap", "1.5"}, 2, "not a share between 0 and 1"},
		{[]string{"assign", path, "--annotators", "ana,ana"}, 2, `"ana" is named twice`},
		{[]string{"assign", path, "--annotators", ","}, 2, "name the team's annotators"},
		{[]string{"assign", path, "--overlap", "0.3"}, 2, "--overlap deals a queue: name the team with --annotators"},
		{[]string{"assign", path, "--annotators", "ana", "--claim-timeout", "10ms"}, 2, "below a second"},
		{[]string{"assign", filepath.Join(t.TempDir(), "none.gavel"), "--annotators", "ana"}, 2, "no session"},
		{[]string{"assign", path}, 1, "has no queue yet: gavel assign"},
		{[]string{"assign"}, 2, "assign needs SESSION"},
	} {
		code, _, errs := runAssignCmd(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args[1:], code, errs, tc.code, tc.msg)
		}
	}
	// Names reach the terminal escaped.
	code, out, errs := runAssignCmd(t, "assign", path, "--annotators", "ana\u202e,bo", "--seed", "1")
	if code != 0 || strings.ContainsRune(out, '\u202e') || !strings.Contains(out, "ana") {
		t.Errorf("hostile name: exit %d %q %s", code, out, errs)
	}
}

func TestAssignPostgres(t *testing.T) {
	srv := pgtest.Shared(t)
	ctx := context.Background()
	name := pgtest.Name(t)
	raw := strings.Replace(srv.URL(name), "gavel@", "gavel:s3cret@", 1)
	st, err := pg.Connect(ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := pg.CopyFromSQLite(ctx, assignSession(t, 40), st, pg.CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runAssignCmd(t, "assign", raw, "--annotators", "ana,bo", "--overlap", "0.25", "--seed", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Contains(out+errs, "s3cret") || !strings.Contains(out, "xxxxx") || !strings.Contains(out, "10 items two people label") ||
		!regexp.MustCompile(`(?m)^\s*bo\s+25\s+10\s*$`).MatchString(out) {
		t.Errorf("output:\n%s", out)
	}
	if code, out, errs = runAssignCmd(t, "assign", raw); code != 0 || !regexp.MustCompile(`(?m)^\s*ana\s+25\s+0\s+0\s*$`).MatchString(out) {
		t.Errorf("show: exit %d: %s%s", code, out, errs)
	}
	wrong := strings.Replace(raw, "session="+name, "session=nosuch", 1)
	if code, _, errs = runAssignCmd(t, "assign", wrong, "--annotators", "ana"); code != 1 || !strings.Contains(errs, `no session "nosuch"`) ||
		!strings.Contains(errs, name) || strings.Contains(errs, "s3cret") {
		t.Errorf("wrong session: exit %d: %s", code, errs)
	}
}
