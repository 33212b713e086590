package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

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
	var b strings.Builder
	for i := range backgroundBuildFrom {
		fmt.Fprintf(&b, `{"id":"i%05d","question":"q%d","answer":"%d","prediction":"%d"}`+"\n", i, i, i%7, i%5)
	}
	data := writeFile(t, dir, "big.jsonl", b.String())
	session := filepath.Join(dir, "big.gavel")

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
