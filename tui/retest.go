package tui

import (
	"fmt"
	"slices"

	"github.com/gavel-dev/gavel/sessions"
)

// Re-tests (--retest 5%): a seeded share of the items a person labels
// comes back once, after at least RetestGap of their other decisions (in
// this sitting or a later one), shown blind — the judge's verdict, other
// people's labels and the person's own first label hidden — so that the
// two labels measure how consistently the person labels. The re-test is
// recorded with Retest set: it never replaces the first label. Which
// items are due is derived from the history (LabelState.RetestsDue), so an
// undone re-test is due again and a re-test left for later comes back
// after the next decision.

// A re-test is blind only if the person has not just seen what it hides.
// An item due for its re-test that is shown with the person's first label
// or the judge's verdict — moved to on the review screen other than as its
// re-test (a re-test left by L and enter, a filter, ←), or drawn in the
// list — is therefore not re-tested in this sitting (shownWhileDue): a
// "blind" re-test after that would test memory. It stays due in the
// session, so a later sitting re-tests it. The re-test on screen itself is
// drawn hidden everywhere (label, hidden), the list included.

// retestSalt is the re-test share's salt in sessions.InShare, as
// LabelState.RetestsDue draws it.
func (w *workspace) retestSalt() string { return "retest:" + w.annotator }

// inRetestShare reports whether item i is in this person's re-test share,
// kept per item as the blind share is.
func (w *workspace) inRetestShare(i int) bool {
	return w.retestShare > 0 && w.shareOf(&w.inRetest, i, w.retestSalt(), w.retestShare)
}

// shownWhileDue notes that items were shown with the person's first label
// or the judge's verdict: those due for a re-test are not re-tested in
// this sitting. Cheap for items outside the share, which are most.
func (w *workspace) shownWhileDue(items ...int) {
	var maybe []string
	for _, i := range items {
		if i < 0 || i >= len(w.items) || w.retesting(i) || !w.inRetestShare(i) {
			continue
		}
		if id := w.items[i].ID; !w.shownDue[id] && w.labelledAny(i) && !w.labels.Retested(id) {
			maybe = append(maybe, id)
		}
	}
	if len(maybe) == 0 {
		return
	}
	if w.dueMemo.gen != w.labelsGen || w.dueMemo.due == nil {
		// Asked on each frame of the list: kept until the labels change.
		w.dueMemo.gen, w.dueMemo.due = w.labelsGen, map[string]bool{}
		for _, id := range w.retestsDue() {
			w.dueMemo.due[id] = true
		}
	}
	for _, id := range maybe {
		if w.dueMemo.due[id] {
			if w.shownDue == nil {
				w.shownDue = map[string]bool{}
			}
			w.shownDue[id] = true
		}
	}
}

// labelledAny reports whether the person has a label on some row of
// item i (only such an item can be due).
func (w *workspace) labelledAny(i int) bool {
	for _, rw := range w.rows(i) {
		if _, ok := w.labels.Label(w.key(i, rw)); ok {
			return true
		}
	}
	return false
}

// dueMemo is the set of items due for a re-test as of labelsGen.
type dueMemo struct {
	gen int
	due map[string]bool
}

// retestState is the re-test on screen, if any.
type retestState struct {
	on   bool
	item int // the item shown again
	// from is the item decided just before (where ← goes back to); next
	// is where the person was heading (the next item of the selection),
	// -1 when that decision was on the selection's last item.
	from, next int
}

// retesting reports whether item i is on screen as a re-test.
func (w *workspace) retesting(i int) bool {
	return w.retest.on && w.retest.item == i && w.cur == i
}

// retestID is the id of the item on screen as a re-test, "" when none.
func (w *workspace) retestID() string {
	if w.hasItem() && w.retesting(w.cur) {
		return w.items[w.cur].ID
	}
	return ""
}

// retestsDue lists the items due for a re-test, oldest first label first.
func (w *workspace) retestsDue() []string {
	if w.retestShare <= 0 || w.labels == nil {
		return nil
	}
	return w.labels.RetestsDue(w.annotator, w.seed, w.retestShare, RetestGap)
}

// startRetest shows, after a decision on item from, the first item due
// for a re-test that the screen can show, and reports whether there was
// one. The person goes on afterwards to next (-1: back to from).
func (w *workspace) startRetest(from, next int) bool {
	for _, id := range w.retestsDue() {
		i, ok := w.index.at(id)
		if !ok || i == from || i >= len(w.applicable) || !w.applicable[i] || w.shownDue[id] {
			// Not in the dataset now, or nothing to label for this
			// judge: it stays due. The item just decided (labelled again
			// long after its first label) waits for a later decision. One
			// shown while due is not re-tested in this sitting.
			continue
		}
		w.retest = retestState{on: true, item: i, from: from, next: next}
		w.cur = i
		w.hint(fmt.Sprintf("Re-test: label %s again as you judge it now; your first label is kept.", idText(w.items[i].ID)))
		return true
	}
	return false
}

// retestComplete reports whether the re-test on item has its decision:
// a can't judge, or a re-test value on every row.
func (w *workspace) retestComplete(item int, acts []sessions.Action) bool {
	for _, a := range acts {
		if a.Kind == sessions.KindCantJudge {
			return true
		}
	}
	for _, rw := range w.rows(item) {
		if _, ok := w.labels.RetestLabel(w.key(item, rw)); !ok {
			return false
		}
	}
	return true
}

// leaveRetest ends the re-test on screen and goes where the person was
// heading (forward) or back to the item decided before it.
//
// A re-test left half done (some rows of an item with several re-labelled,
// then → or ←) is kept as it is, without asking: the item counts as
// re-tested (LabelState.Retested: any re-test action) and does not come
// back, and each row re-labelled pairs with its first label — a valid pair
// for intra-rater agreement, which is counted per row; the rows left simply
// have none. Asking first would put a dialog on the keys that move on, for
// a rare case that loses no data.
func (w *workspace) leaveRetest(forward bool) {
	rs := w.retest
	w.retest = retestState{}
	switch {
	case forward && rs.next >= 0 && rs.next < len(w.items):
		w.show(rs.next)
	case rs.from >= 0 && rs.from < len(w.items):
		w.show(rs.from)
		if forward {
			w.hint("That was the last item here. Press g for any item still unreviewed, s for statistics.")
		}
	}
}

// retestAfterUndo shows item again as a re-test when the undo just made
// took its re-test back (keys are what the undo touched), returning
// afterwards to back, the item on screen when u was pressed.
func (w *workspace) retestAfterUndo(item int, keys []sessions.LabelKey, back int) bool {
	if item < 0 || item >= len(w.applicable) || !w.applicable[item] ||
		!slices.Contains(keys, sessions.RetestKey(w.items[item].ID)) {
		return false
	}
	w.retest = retestState{on: true, item: item, from: back, next: back}
	w.cur = item
	return true
}

// blindNotice is what the header says about hidden verdicts: "re-test"
// on a re-test, "blind" in blind mode or on a blind-share item.
func (w *workspace) blindNotice() string {
	switch {
	case w.hasItem() && w.retesting(w.cur):
		return "re-test"
	case w.blind, w.hasItem() && w.hidden(w.cur):
		return "blind"
	}
	return ""
}
