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

// accumulate fills each judge's Accumulation: the statistics recomputed
// by stats.Compute (no bootstrap: only the Wilson interval of agreement,
// which needs none) over the first labelled units, at up to
// accumulationPoints counts. order gives each labelled unit the id of its
// first label's action; units labelled together (an import) keep dataset
// order.
func (d *Data) accumulate(in stats.Input, order map[unitKey]int64) {
	opts := d.Stats2Options()
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
			unit stats.Unit
		}
		var units []placed
		for _, u := range in.Units {
			if (u.Criterion > 0) != spec.PerCriterion || len(u.Labels) == 0 {
				continue
			}
			at, ok := order[unitKey{u.ItemID, u.Criterion}]
			if !ok {
				continue
			}
			mine := stats.Unit{ItemID: u.ItemID, Criterion: u.Criterion, Labels: u.Labels}
			for _, v := range u.Verdicts {
				if v.Judge == spec.Key {
					mine.Verdicts = append(mine.Verdicts, v)
				}
			}
			units = append(units, placed{at, mine})
		}
		slices.SortStableFunc(units, func(a, b placed) int { return cmp.Compare(a.at, b.at) })
		prefix := make([]stats.Unit, len(units))
		for i, p := range units {
			prefix[i] = p.unit
		}
		j.Accumulation = make([][]Point, len(j.Report.Dimensions))
		n := len(prefix)
		if n == 0 {
			continue
		}
		steps := min(n, accumulationPoints)
		for s := 1; s <= steps; s++ {
			k := (n*s + steps - 1) / steps
			r := stats.Compute(stats.Input{Judges: []stats.JudgeSpec{spec}, Units: prefix[:k]}, opts)
			if len(r.Judges) == 0 {
				continue
			}
			for di, dr := range r.Judges[0].Dimensions {
				if di >= len(j.Accumulation) {
					break
				}
				a := dr.Overall.VsHumans
				j.Accumulation[di] = append(j.Accumulation[di], Point{Labelled: k, N: a.N, Agreement: a.PercentAgreement, Kappa: a.CohenKappa.Estimate()})
			}
		}
	}
}

// Stats2Options is the report's statistics options without the bootstrap,
// for the curves.
func (d *Data) Stats2Options() stats.Options {
	o := d.Options.Stats
	o.Resamples = -1
	return o
}
