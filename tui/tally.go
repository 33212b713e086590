package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
)

// A tally is the review state derived per item for one run: whether the
// item is reviewed, whether the person's labels agree with the run's
// verdicts, whether the run has anything to label there, and the counts
// the status line and the filters show. The workspace holds the active
// run's; the others' are kept and kept up to date with it, so that
// switching judges (J) is a swap, not a pass over every item (a pass took
// half a second at a million items, BenchmarkStoreSwitchJudge). A kept
// tally is derived off the keys' way, tallyChunk items per message
// (tallyStepMsg), as the verdicts of a run not on screen are read.
type tally struct {
	reviewed   []bool
	agreement  []int8 // -1 not comparable, 0 disagrees, 1 agrees
	applicable []bool // the run has something to label here
	nReviewed  int
	nAgree     int
	nCompared  int
	nApplic    int
	// upTo counts the items derived so far, from the first: the rest
	// count as nothing until a step (or a switch to the run) derives them.
	upTo int
}

// tallyChunk is how many items a step derives: at about 0.3 µs each, a
// few milliseconds, which a key press pressed meanwhile waits at most.
const tallyChunk = 20_000

// tallyStepMsg asks for the next step of deriving the kept tallies.
type tallyStepMsg struct{}

// grow makes room for items up to n, room once for total (see extend);
// the new items count as nothing yet: refreshIn derives them. A tally
// derived whole stays whole: the items added are derived as they come
// (gotItems refreshes each).
func (t *tally) grow(n, total int) {
	old := len(t.agreement)
	t.reviewed = extend(t.reviewed, n, total)
	t.applicable = extend(t.applicable, n, total)
	t.agreement = extend(t.agreement, n, total)
	for i := old; i < n; i++ {
		t.reviewed[i], t.applicable[i], t.agreement[i] = false, false, -1
	}
	if t.upTo == old {
		t.upTo = n
	}
}

// deriveTo derives run r's tally t from t.upTo up to item end.
func (w *workspace) deriveTo(t *tally, r *runView, end int) {
	for i := t.upTo; i < min(end, len(t.agreement)); i++ {
		t.upTo = i + 1
		w.refreshIn(t, r, i)
	}
}

// recount derives the active run's tally for every item; used when the
// active run's verdicts are read, and when the judge switched to has no
// tally kept.
func (w *workspace) recount() {
	w.tally = tally{}
	w.tally.grow(len(w.items), len(w.items))
	w.tally.upTo = 0
	w.deriveTo(&w.tally, w.run(), len(w.items))
}

// recountAll derives the active run's tally and starts every other's, as
// the screen opens.
func (w *workspace) recountAll() {
	w.recount()
	for k := range w.runs {
		w.keepTally(k)
	}
}

// keepTally starts the tally of run k, not the active one, kept for when
// it becomes active: as the screen opens, as the run's verdicts are read
// or as the run joins the screen. The steps derive it (wantTally).
func (w *workspace) keepTally(k int) {
	if k == w.act || k < 0 || k >= len(w.runs) {
		return
	}
	if len(w.kept) < len(w.runs) {
		w.kept = append(w.kept, make([]*tally, len(w.runs)-len(w.kept))...)
	}
	t := &tally{}
	t.grow(len(w.items), len(w.items))
	t.upTo = 0
	w.kept[k] = t
}

// wantTally returns the next step of deriving the kept tallies when one
// is not whole and no step is on its way; nil otherwise.
func (w *workspace) wantTally() tea.Cmd {
	if w.tallying {
		return nil
	}
	for k, t := range w.kept {
		if t != nil && k != w.act && t.upTo < len(t.agreement) {
			w.tallying = true
			return func() tea.Msg { return tallyStepMsg{} }
		}
	}
	return nil
}

// tallyStep derives the next tallyChunk items of the first kept tally
// not yet whole.
func (w *workspace) tallyStep() {
	w.tallying = false
	for k, t := range w.kept {
		if t != nil && k != w.act && t.upTo < len(t.agreement) {
			w.deriveTo(t, w.runs[k], t.upTo+tallyChunk)
			return
		}
	}
}

// useJudge makes run i active and says so. The run left keeps its tally;
// the one switched to finishes its own if the steps have not yet.
func (w *workspace) useJudge(i int) {
	if i == w.act || i < 0 || i >= len(w.runs) {
		return
	}
	if len(w.kept) < len(w.runs) {
		w.kept = append(w.kept, make([]*tally, len(w.runs)-len(w.kept))...)
	}
	left := w.tally
	w.kept[w.act] = &left
	w.act = i
	if t := w.kept[i]; t != nil {
		w.deriveTo(t, w.run(), len(t.agreement))
		w.tally, w.kept[i] = *t, nil
	} else {
		w.recount()
	}
	w.judgeMoved = true
	w.tell(fmt.Sprintf("Judge %d of %d: %s", w.act+1, len(w.runs), SanitizeLine(w.run().name())))
}

// reselectForJudge selects again, after a switch of judges, the items of
// a filter or an order that read the judge (judge ≠ you, judge says NO,
// least confident first…): the selection in force was the judge's
// before. Everything but every item in dataset order, and a search's
// matches, reads it.
func (w *workspace) reselectForJudge() tea.Cmd {
	f, o := w.wanted()
	switch {
	case f.id == "search" && o == orderLeastConfident:
		return w.orderAs(o)
	case f.id == "search", f.id == "all" && o != orderLeastConfident:
		return nil
	}
	return w.selectAs(f, o)
}

// growTallies makes room for items up to n in every tally.
func (w *workspace) growTallies(n, total int) {
	w.tally.grow(n, total)
	for _, t := range w.kept {
		if t != nil {
			t.grow(n, total)
		}
	}
}

// refresh re-derives one item's review state in every tally after the
// person's labels on it changed.
func (w *workspace) refresh(i int) {
	w.refreshIn(&w.tally, w.run(), i)
	for k, t := range w.kept {
		if t != nil && k != w.act {
			w.refreshIn(t, w.runs[k], i)
		}
	}
}

// verdictChanged re-derives item i in run k's tally after one of the
// run's verdicts on it changed.
func (w *workspace) verdictChanged(k, i int) {
	switch {
	case k == w.act:
		w.refreshIn(&w.tally, w.run(), i)
	case k < len(w.kept) && w.kept[k] != nil:
		w.refreshIn(w.kept[k], w.runs[k], i)
	}
}

// refreshIn re-derives one item's review state for run r in t, adjusting
// the running counts.
func (w *workspace) refreshIn(t *tally, r *runView, i int) {
	if i < 0 || i >= len(w.items) || i >= t.upTo {
		return // not derived yet: its step will
	}
	if t.applicable[i] {
		t.nApplic--
	}
	if t.reviewed[i] {
		t.nReviewed--
	}
	if t.agreement[i] >= 0 {
		t.nCompared--
		if t.agreement[i] == 1 {
			t.nAgree--
		}
	}
	var rows []row
	if r != nil {
		rows = r.rows(w.items[i])
	}
	t.applicable[i] = len(rows) > 0
	reviewed := len(rows) > 0
	agree, compared := true, false
	// An item the person cannot judge is reviewed, and its labels are not
	// compared with the judge (as every agreement figure leaves them out).
	_, _, cantJudge := w.labels.CantJudge(w.items[i].ID)
	for _, rw := range rows {
		if cantJudge {
			break
		}
		// The label itself, not what a re-test on screen shows.
		h, ok := w.labels.Label(w.key(i, rw))
		if !ok {
			reviewed = false
			continue
		}
		if j, ok := r.judgeValue(i, rw); ok {
			compared = true
			agree = agree && j == h
		}
	}
	if !reviewed {
		// A row labelled on an item not yet reviewed is not compared: on
		// a hidden item (blind mode, the blind share) the status line's
		// count and the "judge ≠ you" filter would tell its verdict row
		// by row. Every item is compared once reviewed, hidden or not:
		// none is hidden then but a re-test, which keeps its first
		// label's comparison (the filters on it leave it out, see seen).
		compared = false
	}
	t.reviewed[i] = reviewed
	t.agreement[i] = -1
	if compared {
		t.agreement[i] = 0
		if agree {
			t.agreement[i] = 1
		}
	}
	if t.applicable[i] {
		t.nApplic++
	}
	if reviewed {
		t.nReviewed++
	}
	if compared {
		t.nCompared++
		if agree {
			t.nAgree++
		}
	}
}
