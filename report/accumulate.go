package report

import (
	"cmp"
	"slices"

	"github.com/gavel-dev/gavel/judge"
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
// Cohen's kappa). Each unit pairs the judge's current ok verdict with the
// humans' label as the statistics pair them (currentVerdict, humanValue;
// a binary judge's parse error counts as NO under Options.ParseErrorsFail),
// so the last point is the report's figure. order gives each labelled
// unit the id of its first label's action; units labelled together (an
// import) keep dataset order.
func (d *Data) accumulate(in stats.Input, order map[unitKey]int64) {
	failParse := d.Options.Stats.ParseErrorsFail
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
		steps := min(n, accumulationPoints)
		for di, dr := range j.Report.Dimensions {
			dim := judge.Dimension{Name: dr.Dimension, Scale: dr.Scale}
			c := stats.NewConfusion(dim.Scale.Values())
			next := 1
			for k, p := range units {
				u := in.Units[p.unit]
				if hv, ok := humanValue(u, dim); ok {
					if v, ok := currentVerdict(u, spec.Key); ok {
						switch {
						case v.Status == judge.StatusOK:
							if jv, ok := v.Values[dim.Name]; ok && dim.Scale.Valid(jv) {
								c.Add(jv, hv)
							}
						case failParse && v.Status == judge.StatusParseError && dim.Scale.Kind() == judge.KindBinary:
							c.Add(0, hv)
						}
					}
				}
				if at := (n*next + steps - 1) / steps; k+1 == at {
					j.Accumulation[di] = append(j.Accumulation[di], Point{Labelled: k + 1, N: c.N(), Agreement: c.PercentAgreement(), Kappa: c.CohenKappa()})
					next++
				}
			}
		}
	}
}
