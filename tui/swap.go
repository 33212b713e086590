package tui

import (
	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// The swap audit: a pairwise judge asked about a pair twice, once with
// the responses shown A first and once B first (its answer written back
// in the original A/B terms). A judge that prefers a position rather than
// a response answers differently: the item is "inconsistent under swap".

// swapCheck is how an item's two orders compare on a row.
type swapCheck int

const (
	swapUnknown      swapCheck = iota // no ok verdict in one order or both
	swapConsistent                    // the same value in both orders
	swapInconsistent                  // the value depends on the order
)

// swapValue is the run's swapped-order value for a row, if it has an ok
// verdict.
func (r *runView) swapValue(item int, rw row) (float64, bool) {
	return r.tab.value(r.swapped.find(item, rw.crit), rw.dim.Name)
}

// swapCheck compares a row's values in the two orders.
func (r *runView) swapCheck(item int, rw row) swapCheck {
	a, okA := r.judgeValue(item, rw)
	b, okB := r.swapValue(item, rw)
	switch {
	case !okA || !okB:
		return swapUnknown
	case a == b:
		return swapConsistent
	}
	return swapInconsistent
}

// itemSwap sums up an item's rows: inconsistent when any row is, else
// consistent when any row could be compared.
func (w *workspace) itemSwap(i int) swapCheck {
	r := w.run()
	if r == nil || !r.hasSwapped(i) {
		return swapUnknown
	}
	out := swapUnknown
	for _, rw := range w.rows(i) {
		switch r.swapCheck(i, rw) {
		case swapInconsistent:
			return swapInconsistent
		case swapConsistent:
			out = swapConsistent
		}
	}
	return out
}

// inconsistentUnderSwap is the filter's test.
func (w *workspace) inconsistentUnderSwap(i int) bool { return w.itemSwap(i) == swapInconsistent }

// hasSwapped reports whether the active run has a swapped-order verdict:
// only then is the swap filter offered (and never in blind mode, where it
// would tell something of the verdicts).
func (w *workspace) hasSwapped() bool {
	r := w.run()
	return r != nil && r.nSwapped > 0 && !w.blind
}

// pairwiseJudge reports whether a judge rates on a pairwise scale.
func pairwiseJudge(info judge.Info) bool {
	for _, d := range info.Dimensions {
		if d.Scale.Kind() == judge.KindPairwise {
			return true
		}
	}
	return false
}

// tasksFor is the work a (re-)judge of an item asks of a run: its tasks,
// and for a pairwise item, judged in both orders when the screen was
// opened with --swap or the item already has a swapped-order verdict
// (re-judging one order only would leave the two from different runs).
func (w *workspace) tasksFor(r *runView, item int) []judge.Task {
	// A reopened session's items hold their row in its stored form: the
	// judge gets it whole.
	return itemTasks(r.info, w.items[item], w.swap || r.hasSwapped(item))
}

// itemTasks are the tasks of judge info on item it, each also in the
// swapped order when swap is set and both item and judge are pairwise.
// It reads nothing of the screen: a command may call it.
func itemTasks(info judge.Info, it judge.Item, swap bool) []judge.Task {
	it = sessions.WholeFields(it)
	tasks := judge.Tasks(info, it)
	if !it.Pairwise() || !pairwiseJudge(info) || !swap {
		return tasks
	}
	for _, t := range judge.Tasks(info, it) {
		t.Swapped = true
		tasks = append(tasks, t)
	}
	return tasks
}
