package tui

import (
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// detailStore is a fake store that reads verdicts back whole, counting
// the reads.
type detailStore struct {
	fakeStore
	whole map[string][]judge.Verdict
	reads int
}

func (d *detailStore) ItemVerdicts(_ judge.Info, id string) ([]judge.Verdict, error) {
	d.reads++
	return d.whole[id], nil
}

// With a store that reads verdicts back, the screen holds them without
// their reason and extra fields, loaded or arriving, and shows them for
// the item on display from the store.
func TestVerdictDetailsReadBack(t *testing.T) {
	items := testItems(3)
	whole := verdictsFor(items)
	store := &detailStore{whole: map[string][]judge.Verdict{}}
	for _, v := range whole {
		store.whole[v.ItemID] = []judge.Verdict{v}
	}
	held := verdictsFor(items)
	for i := range held {
		held[i].Reason, held[i].Extra = "", nil // as sessions.RunState gives them
	}
	m := newTestModel(t, store, items, []Run{{Info: matchInfo, Verdicts: held[:2]}}, nil, 100, 40)
	if !strings.Contains(plain(m), `rule "normalized-exact": test`) {
		t.Fatalf("the reason of the item shown is not read back:\n%s", plain(m))
	}
	reads := store.reads
	m = update(t, m, tea.WindowSizeMsg{Width: 100, Height: 41})
	if store.reads != reads {
		t.Errorf("the same item's details were read again (%d reads, then %d)", reads, store.reads)
	}
	// A verdict that arrives whole is held without its details.
	arrived := whole[2]
	arrived.Reason = "arrived reason"
	store.whole["q3"] = []judge.Verdict{arrived}
	m.runs[0].streams[7] = &stream{ch: make(chan sessions.Batch)} // never sends: the wait is dropped
	m = update(t, m, batchMsg{run: 0, stream: 7, batch: sessions.Batch{Verdicts: []judge.Verdict{arrived}}})
	if v, _ := m.runs[0].verdict(2, 0); v.Reason != "" || v.Extra != nil {
		t.Errorf("an arriving verdict is held with its details: %+v", v)
	}
	m = press(t, m, "right", "right")
	if m.cur != 2 || !strings.Contains(plain(m), "arrived reason") {
		t.Errorf("item %d shown without the arrived verdict's reason:\n%s", m.cur, plain(m))
	}
}

// The details are read off the event loop: Update only asks, and a read
// that comes back after the item on display changed is dropped.
func TestVerdictDetailsReadOffTheLoop(t *testing.T) {
	items := testItems(3)
	store := &detailStore{whole: map[string][]judge.Verdict{}}
	for _, v := range verdictsFor(items) {
		v.Reason = "reason of " + v.ItemID
		store.whole[v.ItemID] = []judge.Verdict{v}
	}
	held := verdictsFor(items)
	for i := range held {
		held[i].Reason, held[i].Extra = "", nil // as sessions.RunState gives them
	}
	m := newTestModel(t, store, items, []Run{{Info: matchInfo, Verdicts: held}}, nil, 100, 40)
	if !strings.Contains(plain(m), "reason of q1") {
		t.Fatalf("the opening item's reason is not there before the first frame:\n%s", plain(m))
	}
	step := func(key string) tea.Cmd {
		t.Helper()
		reads := store.reads
		next, cmd := m.Update(keyMsg(key))
		m = next.(*Model)
		_ = plain(m)
		if store.reads != reads {
			t.Fatalf("%s: Update or View read the store itself", key)
		}
		return cmd
	}
	toSecond := step("right")
	if strings.Contains(plain(m), "reason of q2") {
		t.Fatalf("the reason is shown before it was read")
	}
	toThird := step("right")
	m = runCmd(t, m, toSecond, 0) // the second item's read comes back late
	if m.runs[0].detail.item == 1 {
		t.Errorf("a read for an item no longer shown was kept")
	}
	m = runCmd(t, m, toThird, 0)
	if m.cur != 2 || !strings.Contains(plain(m), "reason of q3") {
		t.Errorf("item %d shown without its reason once read:\n%s", m.cur, plain(m))
	}
	m = press(t, m, "left")
	if !strings.Contains(plain(m), "reason of q2") {
		t.Errorf("going back does not read the item's details again:\n%s", plain(m))
	}
}

// failingDetails is a store whose reading back always fails.
type failingDetails struct {
	fakeStore
	reads int
}

func (f *failingDetails) ItemVerdicts(judge.Info, string) ([]judge.Verdict, error) {
	f.reads++
	return nil, errors.New("disk I/O error")
}

// A read back that fails is not asked again on every message (it would
// query the store back to back): only when the item is shown again.
func TestVerdictDetailsFailedReadNotRepeated(t *testing.T) {
	items := testItems(3)
	held := verdictsFor(items)
	for i := range held {
		held[i].Reason, held[i].Extra = "", nil
	}
	store := &failingDetails{}
	m := newTestModel(t, store, items, []Run{{Info: matchInfo, Verdicts: held}}, nil, 100, 40)
	m = press(t, m, "right")
	after := store.reads
	for range 5 {
		m = update(t, m, tea.WindowSizeMsg{Width: 100, Height: 40})
	}
	if store.reads != after {
		t.Errorf("a failed read was asked again %d times without a move", store.reads-after)
	}
	m = press(t, m, "left", "right")
	if store.reads <= after {
		t.Errorf("showing the item again does not ask again (%d reads)", store.reads)
	}
}
