package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// gavel review hands the screen the other annotators' can't-judges: the
// label of somebody who then marked the item can't judge is not shown
// beside the verdict (nor compared on the screen), as the statistics leave
// it out; another person's label still is.
func TestReviewLeavesOutOthersCantJudge(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "ev.jsonl", `{"id":"a","question":"2+2?","gold":"4","prediction":"4"}`+"\n"+
		`{"id":"b","question":"3+3?","gold":"6","prediction":"6"}`+"\n")
	session := filepath.Join(dir, "ev.gavel")
	e, _, errb, _ := testEnv(t)
	if code := execute(context.Background(), e, []string{"review", data, "--session", session, "--annotator", "ana"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	for _, args := range [][]string{
		{"a", "YES", "--annotator", "bobby"},
		{"a", "--cant-judge", "gold-wrong", "--annotator", "bobby"},
		{"a", "NO", "--annotator", "cleo"},
	} {
		if code, _, errs := run(t, append([]string{"label", session}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
	}
	e, _, errb, _ = testEnv(t)
	var view string
	e.runTUI = func(_ context.Context, m tea.Model) (tea.Model, error) {
		m, _ = m.Update(tea.WindowSizeMsg{Width: 200, Height: 40})
		m = runCommand(t, m, m.Init(), 0)
		view = ansi.Strip(m.View().Content)
		return m, nil
	}
	if code := execute(context.Background(), e, []string{"review", data, "--session", session, "--annotator", "ana"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if !strings.Contains(view, "2+2?") || !strings.Contains(view, "cleo") {
		t.Fatalf("the screen is not on item a with cleo's label:\n%s", view)
	}
	if strings.Contains(view, "bobby") {
		t.Errorf("the screen shows the label of bobby, who cannot judge item a:\n%s", view)
	}
}
