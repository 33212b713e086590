package stats

import (
	"fmt"
	"math"
	"slices"
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
	// judged is the judge's own score once the verdicts are read: it needs
	// no label, so whatever stops the other figures leaves it (tour
	// finding 5).
	var judged *Estimate
	if !(r.Stop.TargetWidth > 0) {
		r.Stop.TargetWidth = DefaultTargetWidth
	}
	undefAll := func(reason, short string) *PlanReport {
		iv := undefinedInterval(reason)
		r.HumanMean, r.HumanMeanHajek, r.Score, r.Agreement = iv, iv, iv, iv
		r.JudgeScore, r.DesignEffect, r.UniformEquivalent = undefined(reason), undefined(reason), undefined(reason)
		if judged != nil {
			r.JudgeScore = *judged
		}
		if r.OffPlan.Labels == 0 {
			r.OffPlan.Mean = undefined("no label off the plan")
		}
		r.Stop.HalfWidth, r.Stop.More, r.Stop.PlanSize = undefined(reason), undefined(reason), undefined(reason)
		r.Stop.Wait = short
		return r
	}
	switch pl.Design {
	case "uniform", "stratified", "active":
	default:
		nt.add(fmt.Sprintf("plan %d has an unknown design %q", pl.ID, pl.Design))
		return undefAll("the plan's design is not known", "unknown design")
	}
	scale, ok := planScale(in, pl)
	if !ok {
		return undefAll(fmt.Sprintf("the plan's dimension %q is not a dimension any judge rates or anyone labelled", pl.Dimension), "unknown dimension")
	}
	r.Scale = scale
	switch scale.Kind() {
	case judge.KindBinary:
		r.Measure = MeasurePassRate
	case judge.KindOrdinal:
		r.Measure = MeasureMeanScore
	default:
		return undefAll("plan estimates need a binary or ordinal scale", "no pass rate or mean")
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
	s := &planSample{span: hi - lo}
	// Response groups (plan.go): a stratum (one unless stratified), split
	// into the items taken with certainty and the others. Each selected
	// item's stratum and certainty, and each responder's item, are kept
	// until the groups are known.
	strata := map[string]int{}
	var picked []planPick
	var verdictSum float64
	var offItems int
	var offSum float64
	seen := make(map[int]bool, len(pl.Units))
	everyItem := true // every row selected with probability 1: a census
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
		everyItem = everyItem && pu.Selected && pu.Probability >= 1
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
		planLabels, offLabels, corrected := 0, 0, 0
		adj := adjudication{cat: -1}
		for i, l := range u.Labels {
			if l.Provenance == ProvenanceAdjudication {
				// Neither on the plan nor off it: it settles the plan
				// labels' value when they disagree (below).
				adj.add(l, pl.Dimension, cats, func() {})
				continue
			}
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
			onPlan := l.Provenance == prov
			if pu.Selected && !onPlan && slices.Contains(pu.PlanAnnotators, l.Annotator) {
				// A correction of a plan label made another way (finding
				// 10): the item was drawn by the plan and this annotator
				// labelled it following the plan, so the current label is
				// still the plan's response; leaving it out would drop
				// exactly the items where the first label was doubted.
				onPlan = true
				corrected++
			}
			if onPlan && pu.Selected {
				counts[c]++
				planLabels++
				continue
			}
			if onPlan {
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
		st := 0
		if pl.Design == "stratified" {
			k, ok := strata[pu.Stratum]
			if !ok {
				k = len(strata)
				strata[pu.Stratum] = k
			}
			st = k
		}
		it := planPick{stratum: st, certain: pu.Probability >= 1, responder: -1}
		r.Selected++
		ref := majority(counts)
		if adj.cat >= 0 && planLabels > 0 {
			// The item's reference is its adjudication, as in every
			// figure; the plan still drew it and its plan labels made
			// it a response.
			ref = int8(adj.cat)
		}
		switch {
		case ref >= 0:
			r.Corrections += corrected
			it.responder = len(s.y)
			y := cats[ref]
			a := 0.0
			if hasF && y == f {
				a = 1
			}
			s.y = append(s.y, y)
			s.f = append(s.f, f)
			s.a = append(s.a, a)
			s.p = append(s.p, pu.Probability)
			s.group = append(s.group, 0)
		case ref == refTie:
			r.Nonresponse++
			nt.add("planned items whose plan labels tie are taken as nonresponse")
		case cantJudge[u.ItemID]:
			r.Nonresponse++
		default:
			r.Pending++
		}
		picked = append(picked, it)
	}
	r.Items = s.n
	r.Labelled = len(s.y)
	r.OffPlan.Items = offItems
	r.OffPlan.Mean = ratio(offSum, float64(r.OffPlan.Labels), "no label off the plan")
	r.JudgeScore = ratio(verdictSum, float64(r.Verdicts), "the plan has no verdicts")
	judged = planPtrTo(r.JudgeScore)
	if r.Corrections > 0 {
		nt.add(fmt.Sprintf("%s on plan %d's items %s corrected later, another way than following the plan, by the annotator who had labelled the item on the plan: the corrections count as the plan's labels (the plan drew the item; only the label changed)",
			labelsWord(r.Corrections), pl.ID, wasWere(r.Corrections)))
	}

	nStrata := max(len(strata), 1)
	sel, resp, merged := s.responseGroups(picked, nStrata)
	if merged > 0 {
		nt.add(fmt.Sprintf("%s the plan takes with certainty %s no label yet: the labelled items below certainty stand for them, which assumes they are alike; label them first",
			itemsWord(merged), hasHave(merged)))
	}
	if missing := r.Nonresponse + r.Pending; missing > 0 && r.Labelled > 0 {
		r.Assumption = fmt.Sprintf("%s of the %d planned are not labelled (%d can't judge or tied, %d not yet): the estimates assume they are missing at random within the design, and weight the labelled ones up to stand for them",
			itemsWord(missing), r.Selected, r.Nonresponse, r.Pending)
	}

	// Groups with planned items and no label: their share of the items
	// would count as nothing. Certain groups were merged above when they
	// could be; one left empty has an empty uncertain partner too, or
	// the labels are all on certain items.
	emptyStrata, onlyCertain := 0, 0
	for st := range nStrata {
		u, c := 2*st, 2*st+1
		switch {
		case sel[u] > 0 && resp[u] == 0 && resp[c] > 0:
			onlyCertain++
		case sel[u]+sel[c] > 0 && resp[u]+resp[c] == 0:
			emptyStrata++
		}
	}
	switch {
	case r.Selected == 0:
		return undefAll("the plan selects no item", "no item")
	case r.Labelled == 0 && r.Nonresponse == r.Selected:
		return undefAll(fmt.Sprintf("every planned item is marked can't judge or its plan labels tie (%d of %d): there is no label to estimate from", r.Nonresponse, r.Selected), "no label")
	case r.Labelled == 0 && r.Nonresponse > 0:
		return undefAll(fmt.Sprintf("no planned item is labelled yet (0 of %d; %d can't judge or tied)", r.Selected, r.Nonresponse), "no label yet")
	case r.Labelled == 0:
		return undefAll(fmt.Sprintf("no planned item is labelled yet (0 of %d)", r.Selected), "no label yet")
	case emptyStrata > 0 && pl.Design == "stratified":
		verb := "have"
		if emptyStrata == 1 {
			verb = "has"
		}
		return undefAll(fmt.Sprintf("every stratum needs a label, and %d %s none yet", emptyStrata, verb), "strata unlabelled")
	case onlyCertain > 0:
		return undefAll("the labels so far are all on items the plan takes with certainty, which cannot stand for the others: label the plan further", "certain items only")
	}
	fig := s.estimate(planPowerTuning)
	interval := func(name string, f planFigure, lo, hi float64) Interval {
		// The point is clamped to the scale like its bounds, so that it
		// never prints outside its own interval; the unclamped point,
		// the (approximately) unbiased one, is kept in Unclamped.
		v := min(max(f.value, lo), hi)
		if v != f.value && !math.IsNaN(f.value) {
			if r.Unclamped == nil {
				r.Unclamped = map[string]float64{}
			}
			r.Unclamped[name] = f.value
			nt.add("an estimate beyond the scale's range is shown at its end (its unclamped value, the unbiased one, is in the JSON's unclamped): a few labels at large weights can carry a weighted estimate past the range")
		}
		h := f.halfWidth()
		if math.IsNaN(h) {
			// A value without bounds carries no reason (the Interval
			// convention); the notes say why.
			nt.add(planNoVarianceNote)
			return Interval{Value: v, Low: math.NaN(), High: math.NaN()}
		}
		return Interval{Value: v, Low: min(max(f.value-h, lo), hi), High: max(min(f.value+h, hi), lo)}
	}
	r.HumanMean = interval("human_mean", fig.ht, lo, hi)
	r.HumanMeanHajek = interval("human_mean_hajek", fig.hajek, lo, hi)
	r.Score = interval("score", fig.ppi, lo, hi)
	r.Agreement = interval("agreement", fig.agree, 0, 1)
	if r.Verdicts == 0 {
		r.Agreement = undefinedInterval("the plan has no verdicts")
		delete(r.Unclamped, "agreement")
	}
	design := planDesignForClasses(pl)
	if pl.Design == "active" && design == "uniform" {
		nt.add(fmt.Sprintf("plan %d was drawn active, but no verdict's confidence was known when it was drawn: every item had the same probability, so it is read as a uniform plan (a simple random sample)", pl.ID))
	}
	if design == "active" && (r.HumanMean.Defined() || r.HumanMeanHajek.Defined()) {
		r.HumanMeanCaution = planHumanCaution
	}
	if fig.collapsed {
		nt.add("a stratum with a single label below certainty has its variance estimated together with the stratum nearest in inclusion probability (collapsed strata, Cochran 1977, sec. 5A.12): its intervals are wider than they will be once it has two")
	}

	r.DesignEffect, r.UniformEquivalent = undefined(planNoVariance), undefined(planNoVariance)
	switch {
	case fig.deff > 0:
		r.DesignEffect = defined(fig.deff)
		r.UniformEquivalent = defined(float64(r.Labelled) / fig.deff)
		r.DesignEffectNote = designEffectNote(design, fig.deff, r.Labelled)
	case fig.deff == 0:
		r.DesignEffect = defined(0)
		r.UniformEquivalent = undefined("the labels show no spread around the verdicts yet")
	case fig.srsSE == 0:
		r.DesignEffect = undefined("the labels show no spread around the verdicts yet")
		r.UniformEquivalent = r.DesignEffect
	}
	if everyItem && r.Labelled == r.Selected {
		// srsSE is 0 here too, but because nothing is left to sample.
		r.Census = true
		r.DesignEffect, r.UniformEquivalent = undefined(PlanCensusReason), undefined(PlanCensusReason)
		nt.add(fmt.Sprintf("plan %d takes every item and each one is labelled: a census of these items, exact for them, so its intervals are points; the unweighted figures take the same labels for a sample of the items the benchmark stands for, so theirs have a width", pl.ID))
	}
	r.Stop = stopRule(r.Stop.TargetWidth, fig.ppi, r.Labelled, r.Nonresponse, s.n)
	if fig.ppi.se == 0 && fig.ppi.rule3 > 0 {
		nt.add("every plan label so far agrees with the corrected score's prediction: its interval is the rule-of-three bound (no difference in m labels leaves up to about 3 in m possible), not a variance, and the stop rule waits for it")
	}
	return r
}

// PlanCensusReason is why a plan that takes every item, all labelled,
// has no design effect, and why its stop rule is met (PlanReport.Census).
const PlanCensusReason = "the plan takes every item: no sampling error"

// planPtrTo is a pointer to a copy of e.
func planPtrTo(e Estimate) *Estimate { return &e }

// planPick is one selected item as responseGroups reads it.
type planPick struct {
	stratum   int  // 0..strata-1 (0 unless stratified)
	certain   bool // taken with certainty (π = 1)
	responder int  // index into planSample's slices, −1 for nonresponse
}

// responseGroups sets each responder's response group and adjusted
// probability p_i = π_i·m_g/n_g (plan.go): group 2·stratum for the items
// below certainty, 2·stratum + 1 for the certain ones. A certain group
// without a label is merged into its stratum's other group, when that has
// labels; merged counts its items. sel and resp give each group's
// selected items and responders (a merged group's are moved to its
// partner's sel).
func (s *planSample) responseGroups(picked []planPick, strata int) (sel, resp []int, merged int) {
	sel, resp = make([]int, 2*strata), make([]int, 2*strata)
	key := func(it planPick) int {
		k := 2 * it.stratum
		if it.certain {
			k++
		}
		return k
	}
	for _, it := range picked {
		sel[key(it)]++
		if it.responder >= 0 {
			resp[key(it)]++
		}
	}
	for st := range strata {
		if c := 2*st + 1; sel[c] > 0 && resp[c] == 0 && resp[c-1] > 0 {
			merged += sel[c]
			sel[c-1] += sel[c]
			sel[c] = 0
		}
	}
	for _, it := range picked {
		k := key(it)
		if sel[k] == 0 { // merged into its stratum's uncertain group
			k--
		}
		if it.responder >= 0 {
			s.group[it.responder] = k
			s.p[it.responder] *= float64(resp[k]) / float64(sel[k])
		}
	}
	s.groups = 2 * strata
	return sel, resp, merged
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

// planHumanCaution flags the human-only means of an active plan (review
// finding 12). They weight the labels alone, and the few labels that land
// on items the judge was sure of carry weights of 1/π up to 1/(0.2·n/N):
// the estimate's distribution is skewed and its variance estimate noisy
// at the sizes people label. In the coverage simulation (plan_sim_test.go,
// GAVEL_COVERAGE_LONG=1) their 95 % intervals covered 94.3 % (Horvitz–
// Thompson) and 93.2 % (Hájek) for the informative binary judge (N 2,000,
// 100 labels, 2,000 datasets), 93.1 % and 93.0 % for the uninformative
// one, and in the review's ordinal case (1–5, N 300, 4,000 datasets)
// 90.3 % and 89.1 % with 40 labels, 93.1 % and 92.5 % with 100, while the
// corrected score, which weights only the residuals, covered 95.4–95.9 %
// (94.3–96.7 % over every case of the simulation).
// Degrees of freedom from Kish's effective sample size were tried and
// bought nothing (90.5 % → 90.6 % in the ordinal case: the df were
// already about that low), so the report says so instead.
const planHumanCaution = "On an active plan the human-only means (Horvitz–Thompson, Hájek) are less reliable than the corrected score: they weight the labels alone, and the few labels on items the judge was sure of carry large weights, so their 95% intervals covered only 89–94% in simulation (the corrected score's about 95%); the corrected score is the figure to quote"

// planNoVariance is the reason a figure has no variance; planNoVarianceNote
// the note saying so.
const (
	planNoVariance     = "needs at least 2 labels on items the plan does not take with certainty to estimate a variance"
	planNoVarianceNote = "the plan's intervals need at least 2 labels on items the plan does not take with certainty, to estimate a variance"
)

// labelsWord is "1 label", "2 labels".
func labelsWord(n int) string {
	if n == 1 {
		return "1 label"
	}
	return fmt.Sprintf("%d labels", n)
}

// wasWere and hasHave agree a verb with a count.
func wasWere(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}

func hasHave(n int) string {
	if n == 1 {
		return "has"
	}
	return "have"
}

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
// the response rate so far (labels over labels plus can't-judge). Until
// the labels show some spread around the verdicts (se 0) the half-width is
// the rule-of-three bound (planFigure.halfWidth), so two labels that
// agree with their verdicts do not stop the plan: at 100 labels of 2,000
// items it is 0.03 for a pass rate, and it falls as 1/m. Fewer than 2
// labels below certainty give no half-width and never stop it.
func stopRule(width float64, ppi planFigure, labelled, nonresponse, items int) StopRule {
	st := StopRule{Figure: "score", TargetWidth: width}
	h := ppi.halfWidth()
	if math.IsNaN(h) {
		st.HalfWidth, st.More, st.PlanSize = undefined(planNoVariance), undefined(planNoVariance), undefined(planNoVariance)
		st.Wait = "2 labels needed"
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
	if ppi.se == 0 && !math.IsNaN(need) {
		// The rule-of-three bound shrinks as 1/m, not 1/√m.
		need = min(float64(labelled)*h/width, float64(items))
	}
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
