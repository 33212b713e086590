package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/tui"
)

// A large new dataset opens its screen before its session is written; a
// quit at once waits for the write, which leaves the whole session with
// the file's stamp; reopening the unchanged file then opens from the
// session, reading the items after the first frame.
func TestReviewLargeNewDatasetThenReopen(t *testing.T) {
	dir := t.TempDir()
	data, session := bigDataset(t, dir), filepath.Join(dir, "big.gavel")

	e, _, errb, _ := testEnv(t)
	e.runTUI = func(_ context.Context, m tea.Model) (tea.Model, error) { return m, nil } // quit at once
	if code := execute(context.Background(), e, []string{"review", data, "--session", session, "--annotator", "ana"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	s, err := sessions.Open(session, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	info, ok, err := s.Dataset()
	if err != nil || !ok || info.Items != backgroundBuildFrom {
		t.Errorf("the session holds %d items (%v, %v), want %d", info.Items, ok, err, backgroundBuildFrom)
	}
	if _, ok, err := s.DatasetFile(); !ok || err != nil {
		t.Errorf("the file's stamp is not recorded (%v)", err)
	}
	s.Close()

	e, _, errb, _ = testEnv(t)
	var loading bool
	e.runTUI = func(_ context.Context, m tea.Model) (tea.Model, error) {
		loading = m.(*tui.Model).Loading()
		return m, nil
	}
	if code := execute(context.Background(), e, []string{"review", data, "--session", session, "--annotator", "ana"}); code != 0 {
		t.Fatalf("reopen: exit %d: %s", code, errb)
	}
	if !loading {
		t.Error("the reopened session read every item before the first frame")
	}
	if !strings.Contains(errb.String(), "Saved in "+session) {
		t.Errorf("reopen said %q", errb)
	}
}

// A large new dataset's screen opens on its first rows while the rest is
// parsed: a bad row or a duplicate id far down, found once the screen is
// open, ends the command with the file's own message and writes no
// session (nor leaves a build's file behind).
func TestReviewNewDatasetBadFurtherOn(t *testing.T) {
	const n = backgroundBuildFrom + 5000
	for name, c := range map[string]struct {
		row  string
		want string
	}{
		"bad row":      {`{"id": "x", "prediction": `, fmt.Sprintf("big.jsonl:%d: invalid JSON", n-10)},
		"duplicate id": {`{"id": "i00012", "question": "q", "answer": "a", "prediction": "p"}`, fmt.Sprintf(`big.jsonl:%d: duplicate id "i00012" (line 13 has it too)`, n-10)},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			var b strings.Builder
			for i := range n {
				if i == n-11 {
					b.WriteString(c.row + "\n")
					continue
				}
				fmt.Fprintf(&b, `{"id":"i%05d","question":"q%d","answer":"%d","prediction":"%d"}`+"\n", i, i, i%7, i%5)
			}
			data := writeFile(t, dir, "big.jsonl", b.String())
			session := filepath.Join(dir, "big.gavel")
			e, _, errb, _ := testEnv(t)
			opened := false
			e.runTUI = func(_ context.Context, m tea.Model) (tea.Model, error) {
				opened = m.(*tui.Model).Loading()
				return m, nil
			}
			code := execute(context.Background(), e, []string{"review", data, "--session", session, "--annotator", "ana"})
			if code == 0 {
				t.Fatalf("exit 0 on a dataset with a %s: %s", name, errb)
			}
			if !opened {
				t.Error("the screen did not open on the first items")
			}
			msg := errb.String()
			if !strings.Contains(msg, c.want) || !strings.Contains(msg, "no session was written") {
				t.Errorf("stderr %q, want %q and that no session was written", msg, c.want)
			}
			left, _ := filepath.Glob(filepath.Join(dir, "*big.gavel*"))
			if len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

// A screen ended by a signal while the new session is written (a quit
// waits for it; SIGTERM does not) leaves its queued decisions to the
// command, which saves them once the session is written, with the time
// their key was pressed.
func TestReviewNewSavesWhatWasQueuedAtASignal(t *testing.T) {
	t.Parallel() // long: beside the other long tests once the short ones are done
	dir := t.TempDir()
	data, session := bigDataset(t, dir), filepath.Join(dir, "big.gavel")
	e, _, errb, _ := testEnv(t)
	var pressed time.Time
	e.runTUI = func(_ context.Context, m tea.Model) (tea.Model, error) {
		m, _ = m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
		pressed = time.Now()
		m, _ = m.Update(tea.KeyPressMsg{Code: 'n', Text: "n"})
		return m, context.Canceled // the program ended by a signal
	}
	if code := execute(context.Background(), e, []string{"review", data, "--session", session, "--annotator", "ana"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if !strings.Contains(errb.String(), "Saved 1 decision made while the session was being written.") {
		t.Errorf("stderr: %s", errb)
	}
	s, err := sessions.Open(session, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	acts, err := s.Actions("ana")
	if err != nil || len(acts) != 1 || acts[0].ItemID != "i00000" || acts[0].Value != 0 {
		t.Fatalf("ana's actions: %+v (%v), want her NO on i00000", acts, err)
	}
	if d := acts[0].At.Sub(pressed); d < -time.Second || d > time.Second {
		t.Errorf("the decision is stamped %v, its key was pressed at %v", acts[0].At, pressed)
	}
}

// bigDataset writes big.jsonl in dir: the smallest dataset whose review
// opens before its session is written (backgroundBuildFrom rows).
func bigDataset(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	for i := range backgroundBuildFrom {
		fmt.Fprintf(&b, `{"id":"i%05d","question":"q%d","answer":"%d","prediction":"%d"}`+"\n", i, i, i%7, i%5)
	}
	return writeFile(t, dir, "big.jsonl", b.String())
}
