package tui

import (
	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats/render"
)

// cellFilterID names the filter of a figure's items in labels'
// provenance ("filter:cell"): the statistics count any "filter:" label as
// hand-picked.
const cellFilterID = "cell"

// cellFilter keeps the items behind a figure of the statistics screen (a
// confusion cell, the false-pass or false-fail rate): those where the
// active judge's current ok verdict on the figure's dimension is
// t.Verdict while the humans' reference is t.Human. The screen opens it
// with the figure's judge active, so the items are the figure's. Like
// the other filters it follows the active judge if another is made active
// afterwards; it is not offered in blind mode (it tells the verdicts).
//
// It matches what the statistics count with the options the screen
// computes them with (stats.Options' defaults): parse errors are left out
// (not counted as NO as with `gavel stats --parse-errors fail`) and a pair
// whose two orders disagree keeps its first order's verdict (not a tie as
// with --swap-ties). For a judge of rubric criteria a cell counts
// criteria; the filter keeps the items with at least one criterion in it.
func cellFilter(dim judge.Dimension, t render.Target, several bool) filter {
	name := "judge " + formatValue(dim.Scale, t.Verdict) + " · human " + formatValue(dim.Scale, t.Human)
	if several {
		name = SanitizeLine(Clip(dim.Name, 32)) + ": " + name
	}
	// seen: a blind-share or re-test item is hidden among items that are
	// not, and the cell would tell its verdict.
	return filter{id: cellFilterID, name: name, offered: notBlind, match: seen(func(w *workspace, i int) bool {
		return w.inCell(i, t)
	})}
}

// inCell reports whether an item is behind a figure: on some row of the
// figure's dimension, the active judge says t.Verdict and the humans
// t.Human.
func (w *workspace) inCell(i int, t render.Target) bool {
	r := w.run()
	if r == nil {
		return false
	}
	for _, rw := range w.rows(i) {
		if rw.dim.Name != t.Dimension {
			continue
		}
		if j, ok := r.judgeValue(i, rw); !ok || j != t.Verdict {
			continue
		}
		if h, ok := w.humanReference(i, rw); ok && h == t.Human {
			return true
		}
	}
	return false
}

// humanReference is the humans' value on a row of an item as the
// statistics read it (sessions/stats, buildHumans): every annotator's
// current label on the scale — this annotator's and the others', but for
// an item one of them marked can't judge (see judgement, OtherLabels.place) — and
// the value most of them gave; none when the most common value is tied,
// as the statistics leave such items out.
func (w *workspace) humanReference(i int, rw row) (float64, bool) {
	counts := map[float64]int{}
	if v, ok := w.judgement(i, rw); ok && rw.dim.Scale.Valid(v) {
		counts[v]++
	}
	var buf [4]sessions.Label
	for _, o := range w.others.on(i, buf[:0]) {
		if o.Criterion == rw.crit && o.Dimension == rw.dim.Name && rw.dim.Scale.Valid(o.Value) {
			counts[o.Value]++
		}
	}
	best, top, tie := 0.0, 0, false
	for v, n := range counts {
		switch {
		case n > top:
			best, top, tie = v, n, false
		case n == top:
			tie = true
		}
	}
	return best, top > 0 && !tie
}
