package tui

import (
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// A large session's verdicts are held without their details: the reason
// and extra fields of an ok verdict are shown for the item on display
// only, and a million of them decoded take more memory than the items
// (sessions.RunState.Verdicts comes without them). When the session's
// store can read them back (itemVerdicts), the screen reads them for the
// item on display, and drops them from verdicts that arrive while judging
// (already committed when they arrive).

// itemVerdicts is the store that reads back an item's current verdicts,
// whole (sessions.Store.ItemVerdicts).
type itemVerdicts interface {
	ItemVerdicts(info judge.Info, itemID string) ([]judge.Verdict, error)
}

// detailCache holds the whole verdicts of the one item last shown (none
// read is remembered too: the screen draws an item many times).
type detailCache struct {
	item int // -1 when empty
	vs   []judge.Verdict
}

// detailStore returns the store that reads details back, nil when there
// is none (a session still being written, a fake store in tests).
func (w *workspace) detailStore() itemVerdicts {
	d, _ := w.store.(itemVerdicts)
	return d
}

// elide drops what the screen reads back later from a verdict that is
// about to be held, when the store can read it back.
func (w *workspace) elide(vd *judge.Verdict) {
	if vd.OK() && w.detailStore() != nil {
		vd.Reason, vd.Extra, vd.Raw = "", nil, ""
	}
}

// readDetails reads the whole verdicts of an item for every run, so
// that the screen opens with them (and shows them however it ends).
func (w *workspace) readDetails(item int) {
	d := w.detailStore()
	if d == nil || item < 0 || item >= len(w.items) {
		return
	}
	for _, r := range w.runs {
		if vs, err := d.ItemVerdicts(r.info, w.items[item].ID); err == nil {
			r.detail = detailCache{item: item, vs: vs}
		}
	}
}

// detailed returns vd, a run's verdict of the item on display, with its
// reason and extra fields read back from the store when it is held
// without them; vd itself when they cannot be read.
func (w *workspace) detailed(r *runView, item int, vd judge.Verdict) judge.Verdict {
	d := w.detailStore()
	if d == nil || !vd.OK() || vd.Reason != "" || vd.Extra != nil || item < 0 || item >= len(w.items) {
		return vd
	}
	if r.detail.item != item {
		vs, err := d.ItemVerdicts(r.info, w.items[item].ID)
		if err != nil {
			return vd
		}
		r.detail = detailCache{item: item, vs: vs}
	}
	for _, full := range r.detail.vs {
		// A verdict the judge left without a time got the time of its
		// saving: it is the current one.
		if full.Criterion == vd.Criterion && full.Swapped == vd.Swapped && (vd.At.IsZero() || sameMoment(full.At, vd.At)) {
			vd.Reason, vd.Extra = full.Reason, full.Extra
			break
		}
	}
	return vd
}

// sameMoment reports whether two verdict times are the same verdict's:
// the session keeps them to the millisecond.
func sameMoment(a, b time.Time) bool {
	d := a.Sub(b)
	return d < time.Millisecond && d > -time.Millisecond
}
