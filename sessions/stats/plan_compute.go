package stats

import (
	"fmt"
	"math"
	"strconv"

	"github.com/gavel-dev/gavel/judge"
)

// Values of PlanReport.Measure.
const (
	MeasurePassRate  = "pass_rate"
	MeasureMeanScore = "mean_score"
)

// planProvenance is the provenance of a label made following plan id.
func planProvenance(id int) string { return "plan:" + strconv.Itoa(id) }

// planReport estimates from in.Plan (nil when there is none). Which
// labels count: on each planned item, the current labels on Dimension
// made following this plan (provenance "plan:ID"); their reference value
// is the one the judge-vs-human figures use (humans.go: the annotators'
// majority, a tie giving none), taken over the plan's labels alone.
// Labels of any other provenance on the plan's items are off the plan:
// counted and shown apart, never in an estimate (they were not drawn
// with the plan's probabilities). A selected item without a plan label is
// nonresponse when someone marked it "can't judge" or the plan's labels
// tie, pending otherwise; both are handled as missing at random within
// the design (plan.go).
func planReport(in *Input) *PlanReport {
	pl := in.Plan
	if pl == nil {
		return nil
	}
	r := &PlanReport{
		ID: pl.ID, Design: pl.Design, Seed: pl.Seed, Judge: pl.Judge, Dimension: pl.Dimension,
		Target: pl.Target,
		Stop:   StopRule{Figure: "score", TargetWidth: pl.TargetWidth},
	}
	var nt notes
	defer func() { r.Notes = nt.list() }()
	if !(r.Stop.TargetWidth > 0) {
		r.Stop.TargetWidth = DefaultTargetWidth
	}
	undefAll := func(reason string) *PlanReport {
		iv := undefinedInterval(reason)
		r.HumanMean, r.HumanMeanHajek, r.Score, r.Agreement = iv, iv, iv, iv
		r.JudgeScore, r.DesignEffect, r.UniformEquivalent = undefined(reason), undefined(reason), undefined(reason)
		r.OffPlan.Mean = undefined("no label off the plan")
		r.Stop.HalfWidth, r.Stop.More, r.Stop.PlanSize = undefined(reason), undefined(reason), undefined(reason)
		return r
	}
	switch pl.Design {
	case "uniform", "stratified", "active":
	default:
		nt.add(fmt.Sprintf("plan %d has an unknown design %q", pl.ID, pl.Design))
		return undefAll("the plan's design is not known")
	}
	scale, ok := planScale(in, pl)
	if !ok {
		return undefAll(fmt.Sprintf("the plan's dimension %q is not a dimension any judge rates or anyone labelled", pl.Dimension))
	}
	r.Scale = scale
	switch scale.Kind() {
	case judge.KindBinary:
		r.Measure = MeasurePassRate
	case judge.KindOrdinal:
		r.Measure = MeasureMeanScore
	default:
		return undefAll("plan estimates need a binary or ordinal scale")
	}
	cats := scale.Values()
	lo, hi := cats[0], cats[len(cats)-1]

	cantJudge := map[string]bool{}
	if li := in.Labelling; li != nil {
		for _, m := range li.CantJudge {
			cantJudge[m.ItemID] = true
		}
	}
	prov := planProvenance(pl.ID)
	s := &planSample{}
	// Per group (a stratum; one group unless stratified): selected items
	// and responders, for the nonresponse adjustment.
	groupOf := map[string]int{}
	var selected, responded []int
	var verdictSum float64
	var offItems int
	var offSum float64
	seen := make(map[int]bool, len(pl.Units))
	counts := make([]int, len(cats))
	for _, pu := range pl.Units {
		switch {
		case pu.Unit < 0 || pu.Unit >= len(in.Units):
			nt.add("plan rows naming no unit were ignored")
			continue
		case pu.ItemID != "" && in.Units[pu.Unit].ItemID != pu.ItemID:
			nt.add("plan rows whose item is not at the unit they name were ignored")
			continue
		case in.Units[pu.Unit].Criterion != 0:
			nt.add("plan rows naming a rubric criterion rather than an item were ignored")
			continue
		case seen[pu.Unit]:
			nt.add("plan rows naming an item twice were ignored after the first")
			continue
		case !(pu.Probability > 0 && pu.Probability <= 1):
			nt.add("plan rows with an inclusion probability outside (0, 1] were ignored")
			continue
		}
		seen[pu.Unit] = true
		s.n++
		f, hasF := 0.0, false
		if pu.Verdict != nil {
			if categoryIndex(cats, *pu.Verdict) >= 0 {
				f, hasF = *pu.Verdict, true
			} else {
				nt.add("plan verdicts off the " + string(scale) + " scale were taken as no verdict")
			}
		}
		if hasF {
			r.Verdicts++
			verdictSum += f
		}
		s.fSum += f

		u := &in.Units[pu.Unit]
		if !pu.Selected && !hasPlanLabel(u, prov) {
			continue // an item the plan did not pick: nothing to count
		}
		clear(counts)
		planLabels, offLabels := 0, 0
		for i, l := range u.Labels {
			if laterLabelBy(u.Labels[i+1:], l.Annotator) {
				continue
			}
			v, has := l.Values[pl.Dimension]
			if !has {
				continue
			}
			c := categoryIndex(cats, v)
			if c < 0 {
				continue // humans.go notes values off the scale
			}
			if l.Provenance == prov && pu.Selected {
				counts[c]++
				planLabels++
				continue
			}
			if l.Provenance == prov {
				nt.add(fmt.Sprintf("labels made following plan %d on items outside it are counted off the plan", pl.ID))
			}
			offLabels++
			offSum += v
		}
		if offLabels > 0 {
			r.OffPlan.Labels += offLabels
			offItems++
		}
		if !pu.Selected {
			continue
		}
		g := 0
		if pl.Design == "stratified" {
			k, ok := groupOf[pu.Stratum]
			if !ok {
				k = len(groupOf)
				groupOf[pu.Stratum] = k
				selected, responded = append(selected, 0), append(responded, 0)
			}
			g = k
		} else if len(selected) == 0 {
			selected, responded = []int{0}, []int{0}
		}
		selected[g]++
		r.Selected++
		ref := majority(counts)
		switch {
		case ref >= 0:
			responded[g]++
			y := cats[ref]
			a := 0.0
			if hasF && y == f {
				a = 1
			}
			s.y = append(s.y, y)
			s.f = append(s.f, f)
			s.a = append(s.a, a)
			s.p = append(s.p, pu.Probability)
			s.group = append(s.group, g)
		case ref == refTie:
			r.Nonresponse++
			nt.add("planned items whose plan labels tie are taken as nonresponse")
		case cantJudge[u.ItemID]:
			r.Nonresponse++
		default:
			r.Pending++
		}
	}
	r.Items = s.n
	r.Labelled = len(s.y)
	r.OffPlan.Items = offItems
	r.OffPlan.Mean = ratio(offSum, float64(r.OffPlan.Labels), "no label off the plan")
	r.JudgeScore = ratio(verdictSum, float64(r.Verdicts), "the plan has no verdicts")
	s.groups = max(len(selected), 1)
	for i, g := range s.group {
		s.p[i] *= float64(responded[g]) / float64(selected[g])
	}
	if missing := r.Nonresponse + r.Pending; missing > 0 && r.Labelled > 0 {
		r.Assumption = fmt.Sprintf("%s of the %d planned are not labelled (%d can't judge or tied, %d not yet): the estimates assume they are missing at random within the design, and weight the labelled ones up to stand for them",
			itemsWord(missing), r.Selected, r.Nonresponse, r.Pending)
	}

	empty := 0 // strata with planned items and no label: their share of the items would count as nothing
	for g := range selected {
		if selected[g] > 0 && responded[g] == 0 {
			empty++
		}
	}
	switch {
	case r.Selected == 0:
		return undefAll("the plan selects no item")
	case r.Labelled == 0:
		return undefAll(fmt.Sprintf("no planned item is labelled yet (0 of %d)", r.Selected))
	case empty > 0:
		verb := "have"
		if empty == 1 {
			verb = "has"
		}
		return undefAll(fmt.Sprintf("every stratum needs a label, and %d %s none yet", empty, verb))
	}
	fig := s.estimate(planPowerTuning)
	interval := func(f planFigure, lo, hi float64) Interval {
		h := f.halfWidth()
		if math.IsNaN(h) {
			// A value without bounds carries no reason (the Interval
			// convention); the notes say why.
			nt.add("the plan's intervals " + planNoVariance)
			return Interval{Value: f.value, Low: math.NaN(), High: math.NaN()}
		}
		return Interval{Value: f.value, Low: min(max(f.value-h, lo), hi), High: max(min(f.value+h, hi), lo)}
	}
	r.HumanMean = interval(fig.ht, lo, hi)
	r.HumanMeanHajek = interval(fig.hajek, lo, hi)
	r.Score = interval(fig.ppi, lo, hi)
	r.Agreement = interval(fig.agree, 0, 1)
	if r.Verdicts == 0 {
		r.Agreement = undefinedInterval("the plan has no verdicts")
	}

	r.DesignEffect, r.UniformEquivalent = undefined(planNoVariance), undefined(planNoVariance)
	switch {
	case fig.deff > 0:
		r.DesignEffect = defined(fig.deff)
		r.UniformEquivalent = defined(float64(r.Labelled) / fig.deff)
		r.DesignEffectNote = designEffectNote(pl.Design, fig.deff, r.Labelled)
	case fig.deff == 0:
		r.DesignEffect = defined(0)
		r.UniformEquivalent = undefined("the labels show no spread around the verdicts yet")
	case fig.srsSE == 0:
		r.DesignEffect = undefined("the labels show no spread around the verdicts yet")
		r.UniformEquivalent = r.DesignEffect
	}
	r.Stop = stopRule(r.Stop.TargetWidth, fig.ppi, r.Labelled, r.Nonresponse, s.n)
	if fig.ppi.se == 0 {
		nt.add("every plan label so far agrees with the corrected score's prediction, so its interval has no width: few labels can show that by chance")
	}
	return r
}

// hasPlanLabel reports whether a unit carries a label made following the
// plan (prov, "plan:ID").
func hasPlanLabel(u *Unit, prov string) bool {
	for _, l := range u.Labels {
		if l.Provenance == prov {
			return true
		}
	}
	return false
}

const planNoVariance = "needs at least 2 labels (in each stratum) to estimate a variance"

// planScale finds the scale of the plan's dimension: the plan judge's,
// else a labelled-only dimension's, else any judge's of that name.
func planScale(in *Input, pl *PlanInput) (judge.Scale, bool) {
	for _, js := range in.Judges {
		if js.Key != pl.Judge {
			continue
		}
		for _, d := range js.Dimensions {
			if d.Name == pl.Dimension && d.Scale.Known() {
				return d.Scale, true
			}
		}
	}
	for _, d := range in.Dimensions {
		if d.Name == pl.Dimension && d.Scale.Known() {
			return d.Scale, true
		}
	}
	for _, js := range in.Judges {
		for _, d := range js.Dimensions {
			if d.Name == pl.Dimension && d.Scale.Known() {
				return d.Scale, true
			}
		}
	}
	return "", false
}

// designEffectNote says in a sentence whether the design helped.
func designEffectNote(design string, deff float64, labelled int) string {
	worth := fmt.Sprintf("%s labels of a uniform plan", FormatNumber(float64(labelled)/deff, 0))
	switch {
	case design == "uniform":
		return ""
	case deff > 1 && design == "active":
		return fmt.Sprintf("Active sampling did not help: the interval is wider than a uniform plan of the same size would give (design effect %s), so the judge's confidence did not point at its errors; the %d labels are worth about %s",
			FormatNumber(deff, 2), labelled, worth)
	case deff > 1:
		return fmt.Sprintf("Stratifying did not help: the interval is wider than a uniform plan of the same size would give (design effect %s); the %d labels are worth about %s",
			FormatNumber(deff, 2), labelled, worth)
	}
	return fmt.Sprintf("The design narrowed the interval (design effect %s): the %d labels are worth about %s", FormatNumber(deff, 2), labelled, worth)
}

// stopRule compares the corrected score's half-width with the width asked
// for and, when it is not reached, says how many more labels the same
// design needs (labelsFor), and the plan size expected to give them at
// the response rate so far (labels over labels plus can't-judge).
func stopRule(width float64, ppi planFigure, labelled, nonresponse, items int) StopRule {
	st := StopRule{Figure: "score", TargetWidth: width}
	h := ppi.halfWidth()
	if math.IsNaN(h) {
		st.HalfWidth, st.More, st.PlanSize = undefined(planNoVariance), undefined(planNoVariance), undefined(planNoVariance)
		return st
	}
	st.HalfWidth = defined(h)
	rate := float64(labelled) / float64(labelled+nonresponse)
	if h <= width {
		st.Reached = true
		st.More = defined(0)
		st.PlanSize = defined(math.Ceil(float64(labelled) / rate))
		return st
	}
	need := labelsFor(labelled, items, h, width)
	if math.IsNaN(need) {
		st.More = undefined("every item is labelled: no more labels to add")
		st.PlanSize = st.More
		return st
	}
	need = math.Ceil(need - 1e-9)
	st.More = defined(max(need-float64(labelled), 1))
	st.PlanSize = defined(min(math.Ceil(need/rate), float64(items)))
	return st
}
