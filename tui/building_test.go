package tui

import (
	"errors"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// buildingModel opens on 4 items whose session is still being written:
// the store arrives when the test sends on ready.
func buildingModel(t *testing.T) (*Model, chan storeMsg) {
	t.Helper()
	ready := make(chan storeMsg, 1)
	m := New(Options{Annotator: "tester", Dataset: "new.jsonl", Items: testItems(4),
		Runs: []Run{{Info: matchInfo, Verdicts: verdictsFor(testItems(4))}},
		StoreReady: func() (Recorder, error) {
			msg := <-ready
			return msg.store, msg.err
		}})
	return update(t, m, tea.WindowSizeMsg{Width: 120, Height: 40}), ready
}

// Labels made while the session is written wait in the queue and are not
// shown as saved; once the store is there they are written, in order, and
// confirmed.
func TestLabelsQueuedWhileTheSessionIsWritten(t *testing.T) {
	m, ready := buildingModel(t)
	m = press(t, m, "y", "n")
	status := lines(m)[38]
	if !strings.Contains(status, "writing the session…") || strings.Contains(status, "✓ saved") {
		t.Errorf("status with labels queued: %q", status)
	}
	if n, _ := m.Unsaved(); n != 2 {
		t.Errorf("%d actions unsaved while the session is written, want 2", n)
	}
	store := &fakeStore{}
	ready <- storeMsg{store: store}
	m = runCmd(t, m, awaitStore(m.waitStore), 0)
	if got, want := store.labels(), []string{"q1=1", "q2=0"}; !slices.Equal(got, want) {
		t.Errorf("labels saved once the session is written: %v, want %v", got, want)
	}
	if status := lines(m)[38]; !strings.Contains(status, "✓ saved") || strings.Contains(status, "writing") {
		t.Errorf("status after saving: %q", status)
	}
	if n, _ := m.Unsaved(); n != 0 {
		t.Errorf("%d actions unsaved after the store arrived", n)
	}
}

// Quitting with labels queued waits for the session, saves them, then
// quits; a session that cannot be written ends the program with the
// labels reported as unsaved.
func TestQuitWhileTheSessionIsWritten(t *testing.T) {
	m, ready := buildingModel(t)
	m = press(t, m, "y")
	_, cmd := m.Update(keyMsg("q"))
	if cmd != nil {
		if _, ok := cmd().(tea.QuitMsg); ok {
			t.Fatal("quit at once with a label queued and no session yet")
		}
	}
	ready <- storeMsg{err: errors.New("disk full")}
	_, cmd = m.Update(awaitStore(m.waitStore)())
	if cmd == nil {
		t.Fatal("no quit after the session failed")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("the program does not end after the session failed while quitting")
	}
	if n, err := m.Unsaved(); n != 1 || err == nil {
		t.Errorf("Unsaved() = %d, %v; want the queued label and the error", n, err)
	}
}
