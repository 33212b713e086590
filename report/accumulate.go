package report

import (
	"cmp"
	"slices"

	"github.com/gavel-dev/gavel/sessions/stats"
)

// Point is the agreement of a judge with the humans over the first
// Labelled labelled units, in the order they were first labelled.
type Point struct {
	Labelled int
	// N is how many of them the judge and the humans both rated.
	N         int
	Agreement stats.Interval // with its Wilson interval
	Kappa     stats.Estimate
}

// accumulationPoints is how many points a curve has at most.
const accumulationPoints = 40

// accumulate fills each judge's Accumulation: its confusion table with
// the humans (a stats.Confusion) filled unit by unit in the order the
// units were first labelled, and read at up to accumulationPoints counts
// by the table's own methods (percent agreement with its Wilson interval,
// Cohen's kappa). Each unit pairs the judge's value with the humans' as
// the statistics pair them (stats.Pairs, under the report's options), so
// the last point is the report's figure. order gives each labelled unit
// the id of its first label's action; units labelled together (an import)
// keep dataset order.
func (d *Data) accumulate(in stats.Input, order map[unitKey]int64) {
	for ji := range d.Judges {
		j := &d.Judges[ji]
		var spec stats.JudgeSpec
		for _, s := range in.Judges {
			if s.Key == j.Report.Judge {
				spec = s
			}
		}
		type placed struct {
			at   int64
			unit int
		}
		var units []placed
		for ui, u := range in.Units {
			if (u.Criterion > 0) != spec.PerCriterion || len(u.Labels) == 0 {
				continue
			}
			if at, ok := order[unitKey{u.ItemID, u.Criterion}]; ok {
				units = append(units, placed{at, ui})
			}
		}
		slices.SortStableFunc(units, func(a, b placed) int { return cmp.Compare(a.at, b.at) })
		j.Accumulation = make([][]Point, len(j.Report.Dimensions))
		n := len(units)
		if n == 0 {
			continue
		}
		// The pairs the figures count, under the same options, so that the
		// last point is the report's figure.
		pairs := j.pairs
		steps := min(n, accumulationPoints)
		for di, dr := range j.Report.Dimensions {
			if di >= len(pairs) {
				break
			}
			pairOf := make(map[int]stats.Pair, len(pairs[di]))
			for _, p := range pairs[di] {
				pairOf[p.Unit] = p
			}
			c := stats.NewConfusion(dr.Scale.Values())
			next := 1
			for k, p := range units {
				if pr, ok := pairOf[p.unit]; ok {
					c.Add(pr.Judge, pr.Human)
				}
				if at := (n*next + steps - 1) / steps; k+1 == at {
					j.Accumulation[di] = append(j.Accumulation[di], Point{Labelled: k + 1, N: c.N(), Agreement: c.PercentAgreement(), Kappa: c.CohenKappa()})
					next++
				}
			}
		}
	}
}
