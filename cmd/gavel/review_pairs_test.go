package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// A review of pairs with no judge named does not run match, which cannot
// judge pairs: the session's imported preferences are reviewed, or, with
// none, the person is told which judge to name.
func TestReviewPairsWithoutJudge(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "pairs.jsonl")
	rows := `{"id":"p1","question":"Say hi","response_a":"hi","response_b":"Hello there!","verdict":"A"}` + "\n" +
		`{"id":"p2","question":"Add 2+2","response_a":"5","response_b":"4","verdict":"B"}` + "\n"
	if err := os.WriteFile(data, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	bare := filepath.Join(dir, "bare.jsonl")
	if err := os.WriteFile(bare, []byte(`{"id":"p1","question":"Say hi","response_a":"hi","response_b":"Hello there!"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	e, _, errb, shown := testEnv(t)
	code := execute(context.Background(), e, []string{"review", bare, "--session", filepath.Join(dir, "bare.gavel")})
	if code != 2 || !strings.Contains(errb.String(), "cannot judge") || !strings.Contains(errb.String(), "--judge pairwise") {
		t.Errorf("exit %d, %s; want 2 naming the pairwise judge", code, errb)
	}

	session := filepath.Join(dir, "pairs.gavel")
	errb.Reset()
	if code := execute(context.Background(), e, []string{"import", data, "--session", session, "--scale", "pairwise"}); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errb)
	}
	errb.Reset()
	if code := execute(context.Background(), e, []string{"review", data, "--session", session}); code != 0 {
		t.Fatalf("review: exit %d: %s", code, errb)
	}
	m := send(t, (*shown)[len(*shown)-1], tea.WindowSizeMsg{Width: 120, Height: 40})
	s := ansi.Strip(m.View().Content)
	if strings.Contains(s, "match") || !strings.Contains(s, "judge imported · verdict ·") || !strings.Contains(s, "─ A ─") {
		t.Errorf("the review of pairs does not show the imported preferences alone:\n%s", s)
	}
}
