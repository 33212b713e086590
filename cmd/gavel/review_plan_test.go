package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/sessions"
)

// planReviewSession writes a dataset of 12 items, opens it once (the
// session and match's verdicts), and draws a uniform plan of 4.
func planReviewSession(t *testing.T) (data, session string, planned []string) {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	for i := range 12 {
		fmt.Fprintf(&b, `{"id":"p%02d","question":"q%d?","gold":"a","prediction":"%s"}`+"\n", i, i, []string{"a", "b", "a"}[i%3])
	}
	data = writeFile(t, dir, "pl.jsonl", b.String())
	session = filepath.Join(dir, "pl.gavel")
	e, _, errb, _ := testEnv(t)
	if code := execute(context.Background(), e, []string{"review", data, "--session", session, "--annotator", "ana"}); code != 0 {
		t.Fatalf("review: exit %d: %s", code, errb)
	}
	code, out, errs := run(t, "plan", session, "--design", "uniform", "-n", "4", "--seed", "2")
	if code != 0 {
		t.Fatalf("plan: exit %d: %s", code, errs)
	}
	for _, r := range planRows(t, out) {
		planned = append(planned, r.ID)
	}
	return data, session, planned
}

// reviewKeys runs gavel review with args, pressing keys on the screen,
// and returns its exit code, the header line at the end and stderr.
func reviewKeys(t *testing.T, args []string, keys ...string) (int, string, string) {
	t.Helper()
	e, _, errb, _ := testEnv(t)
	var header string
	e.runTUI = func(_ context.Context, m tea.Model) (tea.Model, error) {
		m, _ = m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
		m = runCommand(t, m, m.Init(), 0)
		for _, k := range keys {
			var cmd tea.Cmd
			m, cmd = m.Update(tea.KeyPressMsg{Code: rune(k[0]), Text: k})
			m = runCommand(t, m, cmd, 0)
		}
		header = strings.Split(ansi.Strip(m.View().Content), "\n")[0]
		return m, nil
	}
	code := execute(context.Background(), e, append([]string{"review"}, args...))
	return code, header, errb.String()
}

// gavel review follows the session's newest plan by default (labels via
// plan:1, its items first in its order), --plan 1 too; --plan none
// leaves the usual via; bad values are usage errors.
func TestReviewFollowsPlan(t *testing.T) {
	data, session, planned := planReviewSession(t)
	code, header, errs := reviewKeys(t, []string{data, "--session", session, "--annotator", "ana"}, "y", "n")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(header, "plan 1 · 2/4") {
		t.Errorf("header %q lacks the plan's progress", header)
	}
	rows := actionRows(t, session, "ana")
	if len(rows) != 2 || rows[0].Item != planned[0] || rows[1].Item != planned[1] || rows[0].Via != "plan:1" || rows[1].Via != "plan:1" {
		t.Fatalf("recorded %+v; want the plan's first two items (%v) via plan:1", rows, planned[:2])
	}
	if code, _, errs := reviewKeys(t, []string{data, "--session", session, "--annotator", "ana", "--plan", "1"}, "y"); code != 0 {
		t.Fatalf("--plan 1: exit %d: %s", code, errs)
	}
	if rows := actionRows(t, session, "ana"); len(rows) != 3 || rows[2].Item != planned[2] || rows[2].Via != "plan:1" {
		t.Errorf("--plan 1 recorded %+v", rows)
	}
	code, header, errs = reviewKeys(t, []string{data, "--session", session, "--annotator", "bo", "--plan", "none"}, "y")
	if code != 0 {
		t.Fatalf("--plan none: exit %d: %s", code, errs)
	}
	if rows := actionRows(t, session, "bo"); len(rows) != 1 || rows[0].Item != "p00" || rows[0].Via != "order" {
		t.Errorf("--plan none recorded %+v, want p00 via order", rows)
	}
	if strings.Contains(header, "plan") {
		t.Errorf("--plan none: header %q", header)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--plan", "7"}, "has no labelling plan 7: its plans are 1"},
		{[]string{"--plan", "x"}, `unknown --plan "x"`},
		{[]string{"--target-width", "0"}, "--target-width 0 is out of range"},
		{[]string{"--target-width", "1"}, "--target-width 1 is out of range"},
	} {
		code, _, errs := reviewKeys(t, append([]string{data, "--session", session}, c.args...))
		if code != 2 || !strings.Contains(errs, c.msg) {
			t.Errorf("%v: exit %d, %q; want 2 with %q", c.args, code, errs, c.msg)
		}
	}
	newSession := filepath.Join(t.TempDir(), "new.gavel")
	if code, _, errs := reviewKeys(t, []string{data, "--session", newSession, "--plan", "1"}); code != 2 || !strings.Contains(errs, "is new, so it has no labelling plan yet") {
		t.Errorf("--plan on a new session: exit %d, %q", code, errs)
	}
}

// --target-width reaches the plan's stop rule in gavel stats' JSON; out
// of range it is refused (exit 2) with what to give.
func TestStatsTargetWidth(t *testing.T) {
	_, session, planned := planReviewSession(t)
	for i, id := range planned {
		if code, _, errs := run(t, "label", session, id, []string{"YES", "NO"}[i%2], "--via", "plan:1", "--annotator", "ana"); code != 0 {
			t.Fatalf("label: exit %d: %s", code, errs)
		}
	}
	for _, c := range []struct {
		args []string
		want float64
	}{{nil, 0.05}, {[]string{"--target-width", "0.2"}, 0.2}} {
		code, out, errs := run(t, append([]string{"stats", session, "--format", "json"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		var rep struct {
			Plan *struct {
				Labelled int `json:"labelled"`
				Stop     struct {
					TargetWidth float64 `json:"target_width"`
				} `json:"stop"`
			} `json:"plan"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Plan == nil || rep.Plan.Labelled != 4 || rep.Plan.Stop.TargetWidth != c.want {
			t.Errorf("%v: plan %+v, want 4 labels and target width %v", c.args, rep.Plan, c.want)
		}
	}
	for _, w := range []string{"0", "-0.1", "1", "5", "NaN"} {
		for _, cmd := range []string{"stats", "report"} {
			code, _, errs := run(t, cmd, session, "--target-width", w)
			if code != 2 || !strings.Contains(errs, "is out of range: give the half-width as a number above 0 and below 1") {
				t.Errorf("%s --target-width %s: exit %d, %q", cmd, w, code, errs)
			}
		}
	}
}

// FuzzReviewPlanID: --plan never panics, and gives the newest plan, none,
// a plan's id (1 or more) or a usage error.
func FuzzReviewPlanID(f *testing.F) {
	for _, s := range []string{"", "none", " NONE ", "1", "42", "0", "-3", "x", "1e3", "９", "9223372036854775808"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := reviewPlanFlags{plan: s}.planID()
		switch {
		case err != nil:
			var u usageError
			if !errors.As(err, &u) {
				t.Errorf("%q: %v is not a usage error", s, err)
			}
		case id == sessions.PlanNewest:
			if strings.TrimSpace(s) != "" {
				t.Errorf("%q read as the newest plan", s)
			}
		case id == sessions.PlanNone:
			if !strings.EqualFold(strings.TrimSpace(s), "none") {
				t.Errorf("%q read as none", s)
			}
		case id < 1:
			t.Errorf("%q read as plan %d", s, id)
		}
	})
}
