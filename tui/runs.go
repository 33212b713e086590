package tui

import (
	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// Run is one judge run as the review screen shows it: its configuration,
// the verdicts already in the session, and, while it is judging, the
// stream of newly committed verdicts.
type Run struct {
	Info judge.Info
	// Key names the run in the statistics report (sessions.RunNames).
	Key string
	// Verdicts are the run's current verdicts (latest per item and
	// criterion), in any order.
	Verdicts []judge.Verdict
	// Judging streams the verdicts still to come; nil when the run has
	// nothing left to judge.
	Judging *sessions.Judging
	// Pending is how many tasks Judging has to do.
	Pending int
}

// runView is a run's verdicts indexed for drawing: per item, one verdict
// per criterion.
type runView struct {
	info     judge.Info
	key      string
	verdicts [][]judge.Verdict
	batches  <-chan sessions.Batch
	progress sessions.Batch // the latest counters
	judging  bool
	err      error // the last commit failure, if any
}

func newRunView(r Run, index map[string]int, n int) *runView {
	v := &runView{info: r.Info, key: r.Key, verdicts: make([][]judge.Verdict, n)}
	for _, vd := range r.Verdicts {
		v.put(index, vd)
	}
	if r.Judging != nil {
		v.batches = r.Judging.Batches()
		v.judging = true
		v.progress.Total = r.Pending
	}
	return v
}

// put stores a verdict as the current one for its item and criterion and
// returns the item's index (-1 for an unknown item).
func (r *runView) put(index map[string]int, vd judge.Verdict) int {
	i, ok := index[vd.ItemID]
	if !ok {
		return -1
	}
	vs := r.verdicts[i]
	for k := range vs {
		if vs[k].Criterion == vd.Criterion {
			vs[k] = vd
			return i
		}
	}
	r.verdicts[i] = append(vs, vd)
	return i
}

// verdict returns the current verdict of an item's criterion.
func (r *runView) verdict(item, crit int) (judge.Verdict, bool) {
	for _, v := range r.verdicts[item] {
		if v.Criterion == crit {
			return v, true
		}
	}
	return judge.Verdict{}, false
}

// rows lists what a person labels on an item for this run's judge.
func (r *runView) rows(it judge.Item) []row {
	var out []row
	for _, t := range judge.Tasks(r.info, it) {
		for _, d := range r.info.Dimensions {
			out = append(out, row{crit: t.Criterion, dim: d})
		}
	}
	return out
}

// judgeValue is the run's value for a row, if it has an ok verdict.
func (r *runView) judgeValue(item int, rw row) (float64, bool) {
	v, ok := r.verdict(item, rw.crit)
	if !ok || !v.OK() {
		return 0, false
	}
	x, ok := v.Values[rw.dim.Name]
	return x, ok
}
