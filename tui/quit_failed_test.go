package tui

import (
	"errors"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// q ends the program when a new session's write failed with a label
// queued: no session will ever take it, and Unsaved says so.
func TestQuitAfterTheSessionFailed(t *testing.T) {
	m, ready := buildingModel(t)
	m = press(t, m, "y")
	ready <- storeMsg{err: errors.New("new.jsonl:900000: invalid JSON")}
	m = update(t, m, awaitStore(m.waitStore)())
	_, cmd := m.Update(keyMsg("q"))
	if cmd == nil {
		t.Fatal("q does nothing once the session failed")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("q does not end the program once the session failed")
	}
	if n, err := m.Unsaved(); n != 1 || err == nil {
		t.Errorf("Unsaved() = %d, %v", n, err)
	}
}
