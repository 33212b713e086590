package tui

import (
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// quits reports whether cmd ends the program (a tea.Quit, alone or in a
// batch).
func quits(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	switch msg := cmd().(type) {
	case tea.QuitMsg:
		return true
	case tea.BatchMsg:
		for _, c := range msg {
			if quits(c) {
				return true
			}
		}
	}
	return false
}

// q while saving fails (a full disk under a session file; a team
// session's server not answering is the same path) does not end the
// program: a dialog says how many decisions are not saved, on which items,
// that the screen keeps retrying, and waits by default; y quits anyway and
// UnsavedItems names what was lost; esc goes on labelling; once saving
// works, a wait ends the program by itself with nothing lost.
func TestQuitWithUnsavedDecisionsAsks(t *testing.T) {
	items := testItems(4)
	st := &fakeStore{fail: errDiskFull}
	m := newTestModel(t, st, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}, nil, 100, 30)
	m = press(t, m, "y", "n") // q1 YES, q2 NO: neither saved
	if !strings.Contains(plain(m), "✗ not saved") {
		t.Fatalf("the failure is not shown:\n%s", plain(m))
	}
	_, cmd := m.Update(keyMsg("q"))
	if quits(cmd) {
		t.Fatal("q quits at once with 2 decisions not saved")
	}
	s := plain(m)
	for _, want := range []string{"2 decisions are not saved yet, on 2 items: q1, q2.", "no space left on device",
		"keeps retrying", "wait: quit once they are saved", "quit anyway, losing them"} {
		if !strings.Contains(s, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, s)
		}
	}
	checkFits(t, s, 100, 30)

	// esc: back to labelling, nothing lost, not quitting.
	m = press(t, m, "esc")
	if m.top() != nil || m.quitting {
		t.Fatalf("esc left the dialog open (%v) or quitting (%v)", m.top(), m.quitting)
	}
	// y: quit anyway; the items are named.
	_, cmd = m.Update(keyMsg("q"))
	if quits(cmd) || m.unsavedOpen() == nil {
		t.Fatal("q again does not ask")
	}
	_, cmd = m.Update(keyMsg("y"))
	if cmd == nil {
		t.Fatal("y does nothing")
	}
	if _, cmd = m.Update(cmd()); !quits(cmd) {
		t.Fatal("y does not quit")
	}
	if n, ids := m.UnsavedItems(); n != 2 || !slices.Equal(ids, []string{"q1", "q2"}) {
		t.Errorf("UnsavedItems() = %d, %v; want 2, [q1 q2]", n, ids)
	}
}

// Waiting (enter, the default) keeps retrying and ends the program once
// everything is saved; a failure meanwhile does not ask again.
func TestQuitWithUnsavedDecisionsWaits(t *testing.T) {
	items := testItems(3)
	st := &fakeStore{fail: errDiskFull}
	m := newTestModel(t, st, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}, nil, 100, 30)
	m = press(t, m, "y")
	m = press(t, m, "q")
	if m.unsavedOpen() == nil {
		t.Fatal("q does not ask")
	}
	m = press(t, m, "enter")
	if m.top() != nil || !m.quitting {
		t.Fatalf("enter: dialog %v, quitting %v", m.top(), m.quitting)
	}
	_, cmd := m.Update(retrySaveMsg{}) // fails again
	if cmd == nil {
		t.Fatal("no retry")
	}
	m = update(t, m, cmd())
	if m.top() != nil {
		t.Error("a failure while waiting asks again")
	}
	st.fail = nil
	_, cmd = m.Update(retrySaveMsg{})
	if _, cmd = m.Update(cmd()); !quits(cmd) {
		t.Error("saved at last, the wait does not end the program")
	}
	if n, _ := m.UnsavedItems(); n != 0 || strings.Join(st.labels(), " ") != "q1=1" {
		t.Errorf("after the wait: %d unsaved, the store holds %v", n, st.labels())
	}
}

// q while the last label is still being written waits for it; when that
// write fails, the dialog asks instead of quitting.
func TestQuitWhileSavingThenFailureAsks(t *testing.T) {
	items := testItems(3)
	st := &fakeStore{}
	m := newTestModel(t, st, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}, nil, 100, 30)
	_, write := m.Update(keyMsg("y")) // the write not yet run
	_, cmd := m.Update(keyMsg("q"))
	if quits(cmd) || !m.quitting {
		t.Fatal("q does not wait for the write in flight")
	}
	st.fail = errDiskFull
	saved := findSaved(write)
	if saved == nil {
		t.Fatal("no write")
	}
	_, cmd = m.Update(saved)
	if quits(cmd) {
		t.Fatal("the write failed while quitting: the program ends, losing the label")
	}
	if m.unsavedOpen() == nil || !strings.Contains(plain(m), "1 decision is not saved yet, on 1 item: q1.") {
		t.Errorf("no question:\n%s", plain(m))
	}
}

// findSaved runs cmd (a batch's parts too) and returns the savedMsg it
// gives; commands that do not answer at once (timers) are left.
func findSaved(cmd tea.Cmd) tea.Msg {
	if cmd == nil {
		return nil
	}
	ch := make(chan tea.Msg, 1)
	go func() { ch <- cmd() }()
	select {
	case msg := <-ch:
		switch msg := msg.(type) {
		case savedMsg:
			return msg
		case tea.BatchMsg:
			for _, c := range msg {
				if s := findSaved(c); s != nil {
					return s
				}
			}
		}
	case <-time.After(300 * time.Millisecond):
	}
	return nil
}
