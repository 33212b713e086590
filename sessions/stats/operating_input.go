package stats

import (
	"math"

	"github.com/gavel-dev/gavel/judge"
)

// graded builds the operating points and reliability curves of every
// judge dimension whose verdicts carry a grade (see OperatingPoints),
// against the humans' dimensions in dimOrder.
func (c *computation) graded(judges []JudgeSpec, dims [][]*judgeDim, dimOrder []dimKey) ([]OperatingPoints, []Reliability) {
	ops, rels := []OperatingPoints{}, []Reliability{}
	costs := DefaultCosts
	if c.opts.Costs != nil {
		costs = *c.opts.Costs
		if !(costs.BandAgreement > 0) {
			costs.BandAgreement = DefaultBandAgreement
		}
	}
	// Each judge's analyses are independent: they run on every core and
	// are joined in judge order.
	opsOf := make([][]OperatingPoints, len(judges))
	relsOf := make([][]Reliability, len(judges))
	forEach(len(judges), func(i int) {
		opsOf[i], relsOf[i] = c.gradedJudge(judges[i], dims[i], dimOrder, costs)
	})
	for i := range judges {
		ops, rels = append(ops, opsOf[i]...), append(rels, relsOf[i]...)
	}
	return ops, rels
}

// gradedJudge builds one judge's operating points and reliability curves.
func (c *computation) gradedJudge(js JudgeSpec, dims []*judgeDim, dimOrder []dimKey, costs Costs) (ops []OperatingPoints, rels []Reliability) {
	units := c.scopeOf(js.PerCriterion).units
	current := currentVerdicts(c.in, units, js.Key)
	for _, jd := range dims {
		h := c.humans[jd.key]
		source := confidenceSource(current, jd, len(js.Dimensions) == 1)
		if source != "" && h != nil {
			items, unknown := confidentItems(current, units, jd, h, source)
			if len(items)+unknown > 0 {
				seed := deriveSeed(c.opts.Seed, "reliability", js.Key, jd.key.name)
				rels = append(rels, reliability(js.Key, jd, source, items, unknown, seed, c.opts.Resamples))
			}
		}
		switch jd.key.scale.Kind() {
		case judge.KindBinary:
			// A logprob confidence is the probability of the tokens that
			// spell the judge's own answer, not normalised over YES and
			// NO: 1 − c for a NO is not the probability of YES (it holds
			// "No", " no"… too), so no cut over it gives back the
			// judge's own verdicts. Such a judge gets its reliability
			// curve, where c is read as what it is, and no sweep. The
			// share of samples is a probability of YES.
			if source == "" || source == GradeLogprob || h == nil {
				continue
			}
			g, unknown := gradedItems(current, units, jd, h, source)
			ops = append(ops, operatingPoints(js.Key, jd, source, g, unknown, jd.key.name, costs))
		case judge.KindOrdinal:
			for _, k := range dimOrder {
				hb := c.humans[k]
				if k.scale.Kind() != judge.KindBinary || hb == nil {
					continue
				}
				g, unknown := gradedItems(current, units, jd, hb, GradeScore)
				if labelledAny(g) {
					ops = append(ops, operatingPoints(js.Key, jd, GradeScore, g, unknown, k.name, costs))
				}
			}
		}
	}
	return ops, rels
}

// currentVerdicts is the judge's current verdict per unit of the input
// (nil where it has none): its last verdict in the original order, as
// judgeDims reads it.
func currentVerdicts(in *Input, units []int32, key string) []*Verdict {
	out := make([]*Verdict, len(in.Units))
	for _, u := range units {
		vs := in.Units[u].Verdicts
		for i := len(vs) - 1; i >= 0; i-- {
			if vs[i].Judge == key && !vs[i].Swapped {
				out[u] = &vs[i]
				break
			}
		}
	}
	return out
}

// confidenceSource is where the judge's confidence on jd comes from:
// logprobs when any of its verdicts has a confidence (single-dimension
// judges only: the confidence is the verdict's, not a dimension's), else
// samples when any verdict has two or more; "" when neither.
func confidenceSource(current []*Verdict, jd *judgeDim, single bool) string {
	for u, v := range current {
		if v == nil || jd.vsState[u] != stOK {
			continue
		}
		if single && v.Confidence != nil {
			return GradeLogprob
		}
	}
	if jd.sampleShare != nil {
		return GradeSamples
	}
	return ""
}

// setSampleShare records that same of the seen samples of unit u's
// current verdict gave its value (n units in all); fewer than two seen
// leave it unknown.
func (jd *judgeDim) setSampleShare(u int32, same, seen, n int) {
	if seen < 2 || jd.state[u] != stOK {
		return
	}
	if jd.sampleShare == nil {
		jd.sampleShare = make([]float64, n)
		for i := range jd.sampleShare {
			jd.sampleShare[i] = math.NaN()
		}
	}
	jd.sampleShare[u] = float64(same) / float64(seen)
}

// verdictConfidence is the judge's confidence in its value on unit u
// from source, ok false when unknown.
func verdictConfidence(v *Verdict, jd *judgeDim, u int32, source string) (float64, bool) {
	if v == nil {
		return 0, false
	}
	switch source {
	case GradeLogprob:
		if v.Confidence == nil || !finite(*v.Confidence) {
			return 0, false
		}
		return min(max(*v.Confidence, 0), 1), true
	case GradeSamples:
		if jd.sampleShare == nil || math.IsNaN(jd.sampleShare[u]) {
			return 0, false
		}
		return jd.sampleShare[u], true
	}
	return 0, false
}

// gradedItems reads the grade of every unit where the judge's verdict is
// ok, with the humans' binary label on h; unknown counts the ok verdicts
// without a grade.
func gradedItems(current []*Verdict, units []int32, jd *judgeDim, h *humanDim, source string) (out []gradedUnit, unknown int) {
	vals := jd.key.scale.Values()
	for _, u := range units {
		if jd.vsState[u] != stOK {
			continue
		}
		value := vals[jd.vsCode[u]]
		var g float64
		switch source {
		case GradeScore:
			g = value
		default:
			c, ok := verdictConfidence(current[u], jd, u, source)
			if !ok {
				unknown++
				continue
			}
			// The probability of YES.
			g = c
			if value == 0 {
				g = 1 - c
			}
		}
		human := int8(-1)
		if ref := h.ref[u]; ref >= 0 {
			human = int8(ref)
			if h.cats[ref] == 0 {
				human = 0
			} else {
				human = 1
			}
		}
		out = append(out, gradedUnit{grade: g, human: human})
	}
	return out, unknown
}

// confidentItems pairs the judge's confidence with its agreement with the
// humans on every labelled unit; unknown counts those without a
// confidence.
func confidentItems(current []*Verdict, units []int32, jd *judgeDim, h *humanDim, source string) (out []confidentUnit, unknown int) {
	for _, u := range units {
		ref := h.ref[u]
		if jd.vsState[u] != stOK || ref < 0 {
			continue
		}
		c, ok := verdictConfidence(current[u], jd, u, source)
		if !ok {
			unknown++
			continue
		}
		out = append(out, confidentUnit{conf: c, right: int(ref) == int(jd.vsCode[u])})
	}
	return out, unknown
}

// labelledAny tells whether any graded unit has a human label.
func labelledAny(g []gradedUnit) bool {
	for _, u := range g {
		if u.human >= 0 {
			return true
		}
	}
	return false
}
