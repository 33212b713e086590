package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
)

// A large session's verdicts are held without their details: the reason
// and extra fields of an ok verdict are shown for the item on display
// only, and a million of them decoded take more memory than the items
// (sessions.RunState.Verdicts comes without them). When the session's
// store can read them back (itemVerdicts), the screen asks for them, off
// the event loop, whenever the item on display has none read
// (wantDetails after every message), and drops them from verdicts that
// arrive while judging (already committed when they arrive). Until they
// come, the pane shows the verdict without its reason: a frame or two.

// itemVerdicts is the store that reads back an item's current verdicts,
// whole (sessions.Store.ItemVerdicts).
type itemVerdicts interface {
	ItemVerdicts(info judge.Info, itemID string) ([]judge.Verdict, error)
}

// detailCache holds the whole verdicts of the one item last shown (none
// read is remembered too: the screen draws an item many times). asked is
// the item whose read is in flight, gen the read's number: a read is
// taken only while it is the run's latest (a newer verdict of the item
// makes its details stale and asks again).
type detailCache struct {
	item  int // -1 when empty
	vs    []judge.Verdict
	asked int // -1 when no read is in flight
	gen   int
}

// emptyDetails is a run's detail cache holding nothing.
func emptyDetails(gen int) detailCache { return detailCache{item: -1, asked: -1, gen: gen} }

// forget empties the cache after a newer verdict of the item it holds, so
// that the item's details are read again.
func (c *detailCache) forget() { *c = emptyDetails(c.gen + 1) }

// detailsMsg brings back an item's whole verdicts for the runs that asked.
type detailsMsg struct {
	item  int
	reads []detailRead
}

type detailRead struct {
	run *runView
	gen int
	vs  []judge.Verdict
	err error
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

// readDetails reads the whole verdicts of an item for the active run, so
// that the screen opens with them. It runs once, before the first frame
// (New), never on the event loop.
func (w *workspace) readDetails(item int) {
	d, r := w.detailStore(), w.run()
	if d == nil || r == nil || item < 0 || item >= len(w.items) {
		return
	}
	if vs, err := d.ItemVerdicts(r.info, w.items[item].ID); err == nil {
		r.detail = detailCache{item: item, vs: vs, asked: -1, gen: r.detail.gen}
	}
}

// wantDetails returns the read of the item on display's whole verdicts
// for the active run when it holds none of them and has not asked yet;
// nil when there is nothing to ask.
func (w *workspace) wantDetails() tea.Cmd {
	d := w.detailStore()
	item := w.cur
	if d == nil || item < 0 || item >= len(w.items) {
		return nil
	}
	// Only the active run's details are shown; switching runs asks for
	// the new one's on the next message.
	r := w.run()
	if r == nil || r.detail.item == item || r.detail.asked == item {
		return nil
	}
	r.detail.asked = item
	r.detail.gen++
	reads := []detailRead{{run: r, gen: r.detail.gen}}
	infos := []judge.Info{r.info}
	id := w.items[item].ID
	return func() tea.Msg {
		for i := range reads {
			reads[i].vs, reads[i].err = d.ItemVerdicts(infos[i], id)
		}
		return detailsMsg{item: item, reads: reads}
	}
}

// gotDetails keeps the reads that are still their run's latest. A read
// that failed leaves the pane as it was (the verdict without its reason)
// until the item is shown again.
func (m *Model) gotDetails(msg detailsMsg) tea.Cmd {
	changed := false
	for _, rd := range msg.reads {
		r := rd.run
		if r.detail.gen != rd.gen || r.detail.asked != msg.item {
			continue // stale: the item changed, or a newer verdict came
		}
		if rd.err != nil {
			continue // asked stays: not read again until the item is shown again
		}
		r.detail.asked = -1
		r.detail.item, r.detail.vs = msg.item, rd.vs
		changed = true
	}
	if changed && msg.item == m.cur {
		m.review.cache.clear() // the highlight follows the reason's extracted answer
	}
	return nil
}

// detailed returns vd, a run's verdict of the item on display, with its
// reason and extra fields from the details read back when it is held
// without them; vd itself while they are not read.
func (w *workspace) detailed(r *runView, item int, vd judge.Verdict) judge.Verdict {
	if !vd.OK() || vd.Reason != "" || vd.Extra != nil || r.detail.item != item {
		return vd
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
