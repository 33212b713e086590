package tui

import (
	"time"

	"github.com/gavel-dev/gavel/sessions"
)

// Every action the screen records carries what the labeller's
// reliability is measured from (SPEC "Labelling well"): the guidelines
// version on screen, whether the judge's verdict was visible, whether it
// is a re-test, and when its item appeared (the time a decision took is
// the store's At minus Appeared). They are set here, in one place, for
// every write path: labels and accepts, can't judge, notes and tags.

// now is the workspace's clock: time.Now, or a test's.
func (w *workspace) now() time.Time {
	if w.clock == nil {
		return time.Now()
	}
	return w.clock()
}

// itemAppeared notes that the item on screen has just become the one on
// screen (reviewScreen.follow calls it whenever the item changes).
func (w *workspace) itemAppeared() { w.appeared = w.now() }

// stamp sets, on actions about item, the guidelines version on screen,
// the visibility of the verdict and the run whose verdict it was (the
// active judge's), when the item appeared (when it is the one on screen)
// and, on a re-test on screen, Retest on its decisions. It is called
// before the actions are applied: a re-test must not replace the first
// label, in the label state as in the store. A verdict on screen whose
// run has no id in the session (not known yet) is recorded as unknown,
// never as another run's.
func (w *workspace) stamp(item int, acts []sessions.Action) {
	var gid int64
	if w.guidelines != nil {
		gid = w.guidelines.ID
	}
	shown := w.visibility(item)
	var run int64
	if r := w.run(); r != nil {
		run = r.id
	}
	retest := w.retesting(item)
	var appeared time.Time
	if item == w.cur {
		appeared = w.appeared
	}
	decided := w.now()
	for k := range acts {
		a := &acts[k]
		// When the key was pressed, not when the store commits: labels
		// queued while a new session is written are saved seconds later.
		a.At = decided
		a.Guidelines = gid
		a.Shown, a.ShownRun = shown, 0
		a.Appeared = appeared
		switch a.Kind {
		case sessions.KindLabel, sessions.KindAccept, sessions.KindCantJudge:
			a.Retest = retest
		}
		if a.Kind == sessions.KindAccept {
			// An accept copies the verdict on screen: it was shown.
			a.Shown = sessions.ShownVerdict
		}
		if a.Shown == sessions.ShownVerdict {
			if a.ShownRun = run; run == 0 {
				a.Shown = sessions.ShownUnknown
			}
		}
	}
}

// visibility is whether the judge's verdict on item was on screen: blind
// when the screen hid it (blind mode, the blind share, a re-test), shown
// when the active judge had a verdict on it, unknown when there was none
// to show.
func (w *workspace) visibility(item int) sessions.Visibility {
	if item < 0 || item >= len(w.items) {
		return sessions.ShownUnknown
	}
	if w.hidden(item) {
		return sessions.ShownBlind
	}
	r := w.run()
	if r == nil {
		return sessions.ShownUnknown
	}
	for _, rw := range w.rows(item) {
		if _, ok := r.verdict(item, rw.crit); ok {
			return sessions.ShownVerdict
		}
	}
	return sessions.ShownUnknown
}
