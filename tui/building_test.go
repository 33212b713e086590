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

// A session that cannot be written (a dataset found bad further on) with
// no label queued ends the program at once: nothing is lost, and main
// says why, as if the screen had not opened.
func TestSessionFailureWithNothingQueuedQuits(t *testing.T) {
	m, ready := buildingModel(t)
	ready <- storeMsg{err: errors.New("new.jsonl:900000: invalid JSON")}
	_, cmd := m.Update(awaitStore(m.waitStore)())
	if cmd == nil {
		t.Fatal("the screen stays open on a session that cannot be written, with nothing to save")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("the program does not end")
	}
}

// With a label queued, the failure is told on the screen and the program
// waits for the person to quit.
func TestSessionFailureWithLabelsQueuedStays(t *testing.T) {
	m, ready := buildingModel(t)
	m = press(t, m, "y")
	ready <- storeMsg{err: errors.New("new.jsonl:900000: invalid JSON")}
	_, cmd := m.Update(awaitStore(m.waitStore)())
	if cmd != nil {
		if _, ok := cmd().(tea.QuitMsg); ok {
			t.Fatal("the program ended with a label queued, without the person seeing why")
		}
	}
	if screen := strings.Join(lines(m), "\n"); !strings.Contains(screen, "900000") {
		t.Errorf("the screen does not tell the failure:\n%s", screen)
	}
}

// noticeStore is a store that brings notices, as a session built from a
// dataset read to its end does.
type noticeStore struct {
	*fakeStore
	notices []string
}

func (s noticeStore) Notices() []string { return s.notices }

// What only the whole dataset could tell is logged when its session's
// store arrives.
func TestLateNoticesToldWithTheStore(t *testing.T) {
	m, ready := buildingModel(t)
	ready <- storeMsg{store: noticeStore{&fakeStore{}, []string{"new.jsonl: gold (mapped \"answer\") is empty on 3 of 900,000 items"}}}
	m = runCmd(t, m, awaitStore(m.waitStore), 0)
	found := false
	for _, e := range m.log.entries {
		found = found || strings.Contains(e.text, "empty on 3 of 900,000 items")
	}
	if !found {
		t.Error("the late notice is not in the messages")
	}
}

// Quitting while labels wait for the session keeps saying so: a selection
// that ends meanwhile (the filter chosen before, applied once every item
// is read) does not put its count in the place of "Saving your last
// labels before quitting…".
func TestQuittingKeepsItsMessage(t *testing.T) {
	m, _ := buildingModel(t)
	m = press(t, m, "y")
	next, _ := m.Update(keyMsg("q")) // the store never comes: the quit waits
	m = next.(*Model)
	want := "Saving your last labels before quitting…"
	if h := hintLineOf(m); !strings.Contains(h, want) {
		t.Fatalf("after q: %q", h)
	}
	m.applyNow() // a selection made while quitting
	if h := hintLineOf(m); !strings.Contains(h, want) {
		t.Errorf("the selection's message replaced the quitting one: %q", h)
	}
}
