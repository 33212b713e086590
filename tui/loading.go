package tui

import (
	"fmt"
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// itemLoad is the reading of a large session's items after the first
// frame (Options.MoreItems): the screen opens on the first page and the
// rest arrive page by page. Until every item is in, the runs' verdicts
// are not read (their positions and the judging's task list need every
// item), and what would present a partial count as final — filters,
// orders, search — waits.
type itemLoad struct {
	more   func() ([]judge.Item, bool, error)
	total  int          // the session's item count, for the header
	others *OtherLabels // placed once every item has its position
	start  int          // the item the screen opened on
	// othersCantJudge are the other annotators' can't-judges, placed
	// with others.
	othersCantJudge []sessions.CantJudge
}

// loading reports whether items are still being read.
func (w *workspace) loading() bool { return w.load.more != nil }

// itemsMsg carries every item read so far (the first ones unchanged).
type itemsMsg struct {
	items []judge.Item
	done  bool
	err   error
}

// checkMsg carries what a check run after the first frame found.
type checkMsg struct {
	notice string
	err    error
}

// readItems reads the next page of items off the screen's goroutine.
func readItems(more func() ([]judge.Item, bool, error)) tea.Cmd {
	return func() tea.Msg {
		items, done, err := more()
		return itemsMsg{items: items, done: done, err: err}
	}
}

// runCheck runs one of Options.Checks off the screen's goroutine.
func runCheck(check func() (string, error)) tea.Cmd {
	return func() tea.Msg {
		n, err := check()
		return checkMsg{notice: n, err: err}
	}
}

// gotCheck tells what a background check found.
func (m *Model) gotCheck(msg checkMsg) tea.Cmd {
	switch {
	case msg.err != nil:
		m.fail("Could not check the dataset file: " + SanitizeLine(msg.err.Error()))
	case msg.notice != "":
		m.fail(msg.notice)
		m.hint(msg.notice)
	}
	return nil
}

// gotItems takes in a page of items: each new item gets its position and
// review state; in dataset order with no filter the selection grows with
// them. When the last page is in, the other annotators' labels are
// placed, the screen moves to the first unreviewed item (unless the
// person has moved away from where the screen opened), and the runs' verdicts are read.
func (m *Model) gotItems(msg itemsMsg) tea.Cmd {
	w := m.workspace
	if w.load.more == nil {
		return nil // the reading was stopped (gotStore): a late page, or its end
	}
	if msg.err != nil {
		w.load.more = nil
		m.fail("Could not read the session's items: " + SanitizeLine(msg.err.Error()) + " — only the first " + plural(len(w.items), "item is", "items are") + " on screen; quit and reopen.")
		return nil
	}
	old := len(w.items)
	w.items = msg.items
	n := len(w.items)
	w.index.add(w.items)
	// Each per-item array grows once to the session's count, not by
	// doubling: a copy of a million entries would stall a key press.
	total := max(n, w.load.total)
	w.growTallies(n, total)
	for _, r := range w.runs {
		r.verdicts.extend(n, total)
		r.swapped.extend(n, total) // when made
	}
	for i := old; i < n; i++ {
		w.refresh(i)
		if w.growsWithPages() {
			w.sel.items = append(w.sel.items, i)
		}
	}
	if !msg.done {
		return readItems(w.load.more)
	}
	w.load.more = nil
	w.placeOthers(w.load.others, w.load.othersCantJudge)
	w.load.others, w.load.othersCantJudge = nil, nil
	if w.cur == w.load.start {
		// The person has not moved: resume at the first unreviewed
		// item of the whole dataset, as a fully read session does.
		w.cur = w.startItem()
	}
	var sel tea.Cmd
	if w.growsWithPages() {
		w.show(w.cur) // the selection grew with the pages
	} else {
		// A filter set meanwhile (from the statistics screen) held the
		// items read then: select again among all of them.
		sel = w.selectAs(w.sel.filter, w.sel.order)
	}
	sel = tea.Batch(sel, w.planItemsRead())
	m.review.cache.clear()
	return tea.Batch(sel, m.nextLoad())
}

// growsWithPages reports whether the selection takes in each page of
// items as it is read: every item (the "all items" filter, which has no
// match) in dataset order, which a page extends as it is.
func (w *workspace) growsWithPages() bool {
	return w.sel.filter.match == nil && w.sel.order == orderDataset && !w.sel.job.running
}

// stopLoading ends the reading of items and verdicts that will never
// come (the session could not be written): the screen stops saying it is
// reading them.
func (w *workspace) stopLoading() {
	w.load.more = nil
	for _, r := range w.runs {
		r.load, r.loadEach, r.loading = nil, nil, false
	}
}

// extend lengthens s to n zero values, with room for total.
func extend[T any](s []T, n, total int) []T {
	if cap(s) < n {
		s = slices.Grow(s, total-len(s))
	}
	return s[:n]
}

// refuseWhileLoading refuses what needs every item while they are still
// being read, and reports whether it did.
func (w *workspace) refuseWhileLoading(what string) bool {
	if !w.loading() {
		return false
	}
	w.refuse(fmt.Sprintf("%s waits until every item is read (%s so far); a moment.", what, w.loadedText()))
	return true
}

// loadedText says how many items are read, out of how many.
func (w *workspace) loadedText() string {
	return fmt.Sprintf("%d of %d", len(w.items), max(w.load.total, len(w.items)))
}

// waitForItems refuses, while items are still being read, the keys whose
// answer needs every item: a filter, an order or a search would work on
// the items read so far and show their count as if it were final.
func (m *Model) waitForItems(msg tea.KeyPressMsg) bool {
	if !m.loading() || m.screen == screenStats {
		return false
	}
	k := defaultSelectionKeys()
	switch {
	case key.Matches(msg, k.Filter), key.Matches(msg, k.FilterBack):
		return m.refuseWhileLoading("Filtering")
	case key.Matches(msg, k.Order):
		return m.refuseWhileLoading("Another order")
	case key.Matches(msg, k.Search):
		return m.refuseWhileLoading("Search")
	}
	return false
}
