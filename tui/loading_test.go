package tui

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// loadingModel opens on the first 3 of 10 items, the rest read by
// MoreItems in two pages; q1…q5 are labelled and another annotator
// labelled q8. It returns the model, all the items, and how many times
// the run's verdicts were read.
func loadingModel(t *testing.T) (*Model, []judge.Item, *atomic.Int32) {
	t.Helper()
	items := testItems(10)
	var history []sessions.Action
	for i := range 5 {
		history = append(history, sessions.Action{ID: int64(i + 1), Group: int64(i + 1), Kind: sessions.KindLabel,
			ItemID: items[i].ID, Dimension: "correct", Value: 1})
	}
	pages := [][]judge.Item{items[:6], items}
	var calls int
	more := func() ([]judge.Item, bool, error) {
		p := pages[min(calls, len(pages)-1)]
		calls++
		return p, len(p) == len(items), nil
	}
	loads := &atomic.Int32{}
	run := Run{Info: matchInfo, Load: func() (Loaded, error) {
		loads.Add(1)
		return Loaded{Verdicts: verdictsFor(items)}, nil
	}}
	others := []sessions.Label{{Annotator: "ana", ItemID: "q8", Dimension: "correct", Value: 0}}
	m := New(Options{Store: &fakeStore{}, Annotator: "tester", Dataset: "big.jsonl", Items: items[:3], Runs: []Run{run},
		History: history, Others: others, MoreItems: more, ItemCount: len(items)})
	m = update(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	return m, items, loads
}

// lines returns the screen's lines as plain text.
func lines(m *Model) []string { return strings.Split(plain(m), "\n") }

// While the items are still read, the header counts the session's items,
// the status line says how many are read instead of a review count that
// is not final, the verdicts wait, and a filter is refused; once every
// item is in, the screen resumes at the first unreviewed item of the
// whole dataset and reads the verdicts.
func TestItemsLoadAfterTheFirstFrame(t *testing.T) {
	m, items, loads := loadingModel(t)
	ls := lines(m)
	if !strings.Contains(ls[0], "item 1/10") {
		t.Errorf("header while loading: %q", ls[0])
	}
	status := ls[len(ls)-2]
	if !strings.Contains(status, "reading items 3/10") || strings.Contains(status, "reviewed") {
		t.Errorf("status while loading: %q", status)
	}
	if n := loads.Load(); n != 0 {
		t.Errorf("verdicts read %d times before every item is in", n)
	}
	m = press(t, m, "f")
	if hint := lines(m)[39]; !strings.Contains(hint, "Filtering waits until every item is read (3 of 10 so far)") {
		t.Errorf("hint after f while loading: %q", hint)
	}
	if m.sel.filter.id != staticFilters[0].id {
		t.Errorf("filter changed while loading: %s", m.sel.filter.id)
	}
	m = press(t, m, ">") // the last item read so far, and says so
	if m.items[m.cur].ID != items[2].ID || !strings.Contains(hintLineOf(m), "The last item read so far (3 of 10): the rest are still being read.") {
		t.Errorf("> while loading: on %s, hint %q", m.items[m.cur].ID, hintLineOf(m))
	}
	m = press(t, m, "<")

	m = runCmd(t, m, readItems(m.load.more), 0)
	if m.loading() {
		t.Fatal("still loading after the last page")
	}
	if len(m.items) != len(items) || len(m.sel.items) != len(items) {
		t.Fatalf("%d items, %d selected after loading; want %d", len(m.items), len(m.sel.items), len(items))
	}
	if n := loads.Load(); n != 1 {
		t.Errorf("verdicts read %d times after loading, want 1", n)
	}
	ls = lines(m)
	if !strings.Contains(ls[0], "item 6/10 · q6") {
		t.Errorf("header after loading: %q (want the first unreviewed item, q6)", ls[0])
	}
	if status := ls[len(ls)-2]; !strings.Contains(status, "reviewed 5/10") {
		t.Errorf("status after loading: %q", status)
	}
	if got := m.others.on(atOf(m.index, "q8"), nil); len(got) != 1 || got[0].Annotator != "ana" {
		t.Errorf("the other annotator's label on q8: %v", got)
	}
	m = press(t, m, "f")
	if m.sel.filter.id == staticFilters[0].id {
		t.Error("f does not change the filter once every item is read")
	}
}

// A person who moved while the items were read stays where they are.
func TestItemsLoadedKeepThePlace(t *testing.T) {
	m, _, _ := loadingModel(t)
	m = press(t, m, "right")
	at := m.cur
	if at == 0 {
		t.Fatal("right did not move")
	}
	m = runCmd(t, m, readItems(m.load.more), 0)
	if m.cur != at {
		t.Errorf("moved to item %d after loading; the person was on %d", m.cur, at)
	}
}

// A check run after the first frame that finds something says it.
func TestCheckNoticeShown(t *testing.T) {
	m := New(Options{Store: &fakeStore{}, Annotator: "tester", Dataset: "d.jsonl", Items: testItems(2),
		Checks: []func() (string, error){func() (string, error) { return "d.jsonl has changed: quit and reopen", nil }}})
	m = update(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	m = runCmd(t, m, m.Init(), 0)
	if hint := lines(m)[39]; !strings.Contains(hint, "d.jsonl has changed: quit and reopen") {
		t.Errorf("hint after the check: %q", hint)
	}
}

// The list screen does not give the items read so far as the total.
func TestListWhileItemsLoad(t *testing.T) {
	m, _, _ := loadingModel(t)
	m = press(t, m, "L")
	if m.screen != screenList {
		t.Fatal("L does not open the list")
	}
	title := lines(m)[1]
	if !strings.Contains(title, "reading: 3 of 10") || strings.Contains(title, "3 of 3") {
		t.Errorf("list title while loading: %q", title)
	}
}

// With every item selected in dataset order (the "all items" filter the
// screen opens with), the selection grows with each page: the items read
// so far can be reached before the last page is in.
func TestSelectionGrowsWithThePages(t *testing.T) {
	m, items, _ := loadingModel(t)
	if m.sel.filter.id != staticFilters[0].id {
		t.Fatalf("opens on filter %q", m.sel.filter.id)
	}
	next, _ := m.Update(itemsMsg{items: items[:6]}) // a page, its next read not run
	m = next.(*Model)
	if got := len(m.sel.items); got != 6 {
		t.Fatalf("%d items selected after a page of 6 was read", got)
	}
	for range 10 {
		next, _ = m.Update(keyMsg("right"))
		m = next.(*Model)
	}
	if m.cur != 5 {
		t.Errorf("moving on stops at item %d, not at the last one read (5)", m.cur)
	}
}

// When the session cannot be written (a bad row far down a new dataset),
// no more items or verdicts will come: the status line stops saying it
// reads them, and the page read still pending when the screen closes is
// not reported as another failure.
func TestLoadingStopsWhenTheSessionFails(t *testing.T) {
	m, items, _ := loadingModel(t)
	next, _ := m.Update(storeMsg{err: errors.New("big.jsonl:9: invalid JSON")})
	m = next.(*Model)
	ls := lines(m)
	if status := ls[len(ls)-2]; strings.Contains(status, "reading") {
		t.Errorf("still reading once the session failed: %q", status)
	}
	if strings.Contains(plain(m), "Reading verdicts") {
		t.Errorf("the verdict pane still waits for verdicts:\n%s", plain(m))
	}
	logged := len(m.log.entries)
	next, _ = m.Update(itemsMsg{items: items[:3], err: context.Canceled})
	m = next.(*Model)
	if len(m.log.entries) != logged {
		t.Errorf("the reading's end after the failure was logged: %v", m.log.entries[logged:])
	}
}
