package stats

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gavel-dev/gavel/judge"
)

// Per-unit verdict states of a judge on one dimension.
const (
	stNone uint8 = iota
	stOK
	stNoValue
	stParse
	stAPI
	// stTrunc is a truncated verdict left out (Options.IncludeTruncated
	// unset); included, it reads as an ok one and judgeDim.trunc marks it.
	stTrunc
)

const reasonNoPairs = "no item has both an ok verdict and a human label"

// judgeDim is a judge's current verdict on one dimension, per input unit.
type judgeDim struct {
	key   dimKey
	state []uint8
	code  []int8
	// vsState and vsCode are what is compared with the humans: state and
	// code themselves, unless Options.SwapDisagreeAsTie changed the pairs
	// whose two orders disagree.
	vsState []uint8
	vsCode  []int8
	// swapState and swapCode are the second order of the current verdict
	// (the judge's last swapped verdict) per unit; nil unless the scale is
	// pairwise and the judge has swapped verdicts in its dataset.
	swapState []uint8
	swapCode  []int8
	// rejudges and samples are the self-consistency counts over the
	// judge's dataset.
	rejudges, samples Flips
	// trunc marks the units whose current verdict is truncated; nil when
	// none is.
	trunc []bool
	// sampleShare is, per unit whose current ok verdict has two or more
	// samples with a value, the share of them that gave the verdict's
	// value (NaN elsewhere); nil when no verdict has. The operating points
	// and the reliability curve read it.
	sampleShare []float64
}

// scope is a judge's dataset: whole items, or rubric criteria.
type scope struct {
	units    []int32
	segments []segment
}

type segment struct {
	field, value string
	units        []int32
}

type computation struct {
	in     *Input
	opts   Options
	notes  notes
	scopes map[bool]*scope
	humans map[dimKey]*humanDim
}

// Compute returns every agreement statistic of the input: per judge and
// dimension (over the judge's whole dataset and per segment), judge
// against judge, and among annotators. It does no I/O, never panics on any
// input, and is deterministic: the same Input and Options give the same
// Report. Cost is linear in the number of units and labels; the bootstrap
// cost does not depend on the number of units.
func Compute(in Input, opts Options) Report {
	c := &computation{in: &in, opts: opts.withDefaults(), scopes: map[bool]*scope{}, humans: map[dimKey]*humanDim{}}
	rep := Report{
		SchemaVersion: SchemaVersion,
		Seed:          c.opts.Seed,
		Resamples:     c.opts.Resamples,
		Units:         len(in.Units),
		Judges:        []JudgeReport{},
		JudgePairs:    []JudgePair{},
		Humans:        []HumanAgreement{},
	}
	judges := c.judges()
	labelling := c.startLabelling(judges)
	c.checkVerdicts(judges)
	dimOrder := c.prepare(judges)
	// Each judge's figures are independent of the others': they run on
	// every core, each judge with its own notes, merged in judge order so
	// the report stays the same whatever the scheduling. The scopes are
	// built first (prepare), as the judges only read them.
	dims := make([][]*judgeDim, len(judges))
	reports := make([]JudgeReport, len(judges))
	judgeNotes := make([]notes, len(judges))
	forEach(len(judges), func(i int) {
		dims[i] = c.judgeDims(judges[i], &judgeNotes[i])
		reports[i] = c.judgeReport(judges[i], dims[i])
	})
	for i := range judges {
		c.notes.merge(&judgeNotes[i])
	}
	rep.Judges = append(rep.Judges, reports...)
	for i := range judges {
		for j := i + 1; j < len(judges); j++ {
			rep.JudgePairs = append(rep.JudgePairs, c.judgePairs(judges[i], judges[j], dims[i], dims[j])...)
		}
	}
	for _, d := range in.Dimensions {
		k := dimKey{d.Name, d.Scale}
		if _, ok := c.humans[k]; !ok && d.Scale.Known() {
			c.humans[k] = buildHumansWith(c.in, k, &c.notes, c.opts.Seed, c.opts.Resamples)
			dimOrder = append(dimOrder, k)
		}
	}
	for _, k := range dimOrder {
		rep.Humans = append(rep.Humans, c.humans[k].report)
	}
	rep.OperatingPoints, rep.Reliability = c.graded(judges, dims, dimOrder)
	rep.JudgeTable = judgeTable(rep.Judges)
	rep.Guidelines = GuidelinesFilter{Filter: FilterAll}
	if li := in.Labelling; li != nil && li.Guidelines.Filter.Filter != "" {
		rep.Guidelines = li.Guidelines.Filter
	}
	rep.Labelling = labelling.finish(dims)
	rep.Plan = planReport(&in)
	rep.ParseErrors = "exclude"
	if c.opts.ParseErrorsFail {
		rep.ParseErrors = "fail"
	}
	rep.Truncated = "exclude"
	if c.opts.IncludeTruncated {
		rep.Truncated = "include"
	}
	rep.Notes = c.notes.list()
	return rep
}

// prepare builds what the judges' figures read: the humans' labels on
// each dimension a judge rates (listed in the order the judges name them)
// and the scope of each kind of judge. They are independent of each
// other, so they are built on every core, each with its own notes,
// merged as if built one after the other: the humans in that order, then
// the scopes in the order the judges first need them.
func (c *computation) prepare(judges []JudgeSpec) []dimKey {
	var dimOrder []dimKey
	for _, js := range judges {
		for _, d := range js.Dimensions {
			if k := (dimKey{d.Name, d.Scale}); !slices.Contains(dimOrder, k) {
				dimOrder = append(dimOrder, k)
			}
		}
	}
	var kinds []bool // perCriterion of each scope, in order of need
	for _, js := range judges {
		if !slices.Contains(kinds, js.PerCriterion) {
			kinds = append(kinds, js.PerCriterion)
		}
	}
	humans := make([]*humanDim, len(dimOrder))
	scopes := make([]*scope, len(kinds))
	taskNotes := make([]notes, len(dimOrder)+len(kinds))
	forEach(len(taskNotes), func(i int) {
		if i < len(dimOrder) {
			humans[i] = buildHumansWith(c.in, dimOrder[i], &taskNotes[i], c.opts.Seed, c.opts.Resamples)
			return
		}
		k := i - len(dimOrder)
		scopes[k] = c.buildScope(kinds[k], &taskNotes[i])
	})
	for i := range taskNotes {
		c.notes.merge(&taskNotes[i])
	}
	for i, k := range dimOrder {
		c.humans[k] = humans[i]
	}
	for i, perCriterion := range kinds {
		c.scopes[perCriterion] = scopes[i]
	}
	return dimOrder
}

// judges returns the judges worth reporting: unique keys, dimensions with
// a known scale and a unique name.
func (c *computation) judges() []JudgeSpec {
	seen := map[string]bool{}
	var out []JudgeSpec
	for _, js := range c.in.Judges {
		if seen[js.Key] {
			c.notes.add(fmt.Sprintf("judge %q is listed twice; only the first is reported", js.Key))
			continue
		}
		seen[js.Key] = true
		names := map[string]bool{}
		var dims []judge.Dimension
		for _, d := range js.Dimensions {
			switch {
			case !d.Scale.Known():
				c.notes.add(fmt.Sprintf("dimension %q of judge %q has unknown scale %q and is left out", d.Name, js.Key, d.Scale))
			case names[d.Name]:
				c.notes.add(fmt.Sprintf("dimension %q of judge %q is listed twice; only the first is reported", d.Name, js.Key))
			default:
				names[d.Name] = true
				dims = append(dims, d)
			}
		}
		js.Dimensions = dims
		out = append(out, js)
	}
	return out
}

func (c *computation) checkVerdicts(judges []JudgeSpec) {
	known := map[string]bool{}
	for _, js := range judges {
		known[js.Key] = true
	}
	for _, u := range c.in.Units {
		for _, v := range u.Verdicts {
			if !known[v.Judge] {
				c.notes.add("verdicts of judges not in the report were ignored")
			}
			switch v.Status {
			case judge.StatusOK, judge.StatusParseError, judge.StatusAPIError, judge.StatusTruncated:
			default:
				c.notes.add(fmt.Sprintf("verdicts with unknown status %q were counted as not judged", v.Status))
			}
		}
	}
}

// judgeDims reads a judge's verdicts on every unit of its scope. The
// current verdict is the judge's last verdict in the original order; its
// earlier ones are re-judges. A verdict in the swapped order is neither:
// the last one is the current verdict's second order, for the swap audit.
func (c *computation) judgeDims(js JudgeSpec, nt *notes) []*judgeDim {
	n := len(c.in.Units)
	dims := make([]*judgeDim, len(js.Dimensions))
	scaleValues := make([][]float64, len(js.Dimensions)) // looked up once, not per unit
	for d, dim := range js.Dimensions {
		dims[d] = &judgeDim{key: dimKey{dim.Name, dim.Scale}, state: make([]uint8, n), code: make([]int8, n)}
		scaleValues[d] = dim.Scale.Values()
	}
	var history []int
	for _, u := range c.scopeOf(js.PerCriterion).units {
		unit := &c.in.Units[u]
		history = history[:0]
		swapped := -1
		for i := range unit.Verdicts {
			switch v := &unit.Verdicts[i]; {
			case v.Judge != js.Key:
			case v.Swapped:
				swapped = i
			default:
				history = append(history, i)
			}
		}
		if len(history) == 0 {
			if swapped >= 0 {
				nt.add(fmt.Sprintf("verdicts of %q in the swapped order without one in the original order were left out", js.Key))
			}
			continue
		}
		cur := &unit.Verdicts[history[len(history)-1]]
		for d, dim := range js.Dimensions {
			jd, cats := dims[d], scaleValues[d]
			jd.state[u], jd.code[u] = verdictState(cur, dim.Name, cats, c.opts.IncludeTruncated)
			if cur.Status == judge.StatusTruncated {
				if jd.trunc == nil {
					jd.trunc = make([]bool, n)
				}
				jd.trunc[u] = true
			}
			if swapped >= 0 {
				jd.addSwapped(u, &unit.Verdicts[swapped], n, nt, c.opts.IncludeTruncated)
			}
			if len(history) > 1 {
				var f flipCount
				for _, i := range history {
					if v := &unit.Verdicts[i]; v.Status == judge.StatusOK {
						f.add(labelValue(v.Values, dim.Name, cats))
					}
				}
				f.into(&jd.rejudges)
			}
			if cur.Status == judge.StatusOK && len(cur.Samples) > 1 {
				var f flipCount
				same := 0
				for _, s := range cur.Samples {
					k := labelValue(s, dim.Name, cats)
					f.add(k)
					if k >= 0 && jd.state[u] == stOK && int8(k) == jd.code[u] {
						same++
					}
				}
				f.into(&jd.samples)
				jd.setSampleShare(u, same, f.seen, n)
			}
		}
	}
	for _, jd := range dims {
		jd.rejudges.Rate = withReason(Wilson(jd.rejudges.Flipped, jd.rejudges.Units), "no unit was judged twice")
		jd.samples.Rate = withReason(Wilson(jd.samples.Flipped, jd.samples.Units), "no verdict has two or more samples")
		jd.vsState, jd.vsCode = jd.state, jd.code
		if c.opts.SwapDisagreeAsTie && jd.swapState != nil {
			disagreeAsTie(jd, nt)
		}
		if c.opts.ParseErrorsFail && jd.key.scale.Kind() == judge.KindBinary {
			parseErrorsFail(jd)
		}
	}
	return dims
}

// verdictState reads one verdict's state and category index on a
// dimension; a truncated verdict reads as an ok one when included.
func verdictState(v *Verdict, name string, cats []float64, includeTruncated bool) (uint8, int8) {
	switch v.Status {
	case judge.StatusTruncated:
		if !includeTruncated {
			return stTrunc, 0
		}
		fallthrough
	case judge.StatusOK:
		if k := labelValue(v.Values, name, cats); k >= 0 {
			return stOK, int8(k)
		}
		return stNoValue, 0
	case judge.StatusParseError:
		return stParse, 0
	case judge.StatusAPIError:
		return stAPI, 0
	}
	return stNone, 0
}

// addSwapped records v, a verdict in the swapped order, as unit u's
// second order; n is the number of units.
func (jd *judgeDim) addSwapped(u int32, v *Verdict, n int, notes *notes, includeTruncated bool) {
	if jd.key.scale.Kind() != judge.KindPairwise {
		if _, has := v.Values[jd.key.name]; has {
			notes.add("verdicts in the swapped order on " + jd.key.name + ", which is not pairwise, were ignored")
		}
		return
	}
	if jd.swapState == nil {
		jd.swapState, jd.swapCode = make([]uint8, n), make([]int8, n)
	}
	jd.swapState[u], jd.swapCode[u] = verdictState(v, jd.key.name, jd.key.scale.Values(), includeTruncated)
}

// disagreeAsTie makes the units whose two orders disagree a tie in the
// comparison with humans (Options.SwapDisagreeAsTie), or leaves them out
// of it on a scale without a tie.
func disagreeAsTie(jd *judgeDim, nt *notes) {
	jd.ownComparison()
	tie := categoryIndex(jd.key.scale.Values(), judge.PreferTie)
	for u, st := range jd.state {
		if st != stOK || jd.swapState[u] != stOK || jd.swapCode[u] == jd.code[u] {
			continue
		}
		if tie < 0 {
			jd.vsState[u] = stNone
			nt.add(fmt.Sprintf("on the %s scale of %s a pair whose two orders disagree has no tie to count as, so it was left out of the comparison with humans", jd.key.scale, jd.key.name))
			continue
		}
		jd.vsCode[u] = int8(tie)
	}
}

// ownComparison gives vsState and vsCode their own storage before an
// option changes them: they start as state and code themselves.
func (jd *judgeDim) ownComparison() {
	if len(jd.state) > 0 && &jd.vsState[0] == &jd.state[0] {
		jd.vsState, jd.vsCode = slices.Clone(jd.state), slices.Clone(jd.code)
	}
}

// parseErrorsFail counts the unit of each parse error as NO wherever the
// judge is scored (Options.ParseErrorsFail); Judging still counts it as a
// parse error.
func parseErrorsFail(jd *judgeDim) {
	if !slices.Contains(jd.state, stParse) {
		return
	}
	jd.ownComparison()
	for u, st := range jd.state {
		if st == stParse && jd.vsState[u] == stParse {
			jd.vsState[u], jd.vsCode[u] = stOK, 0 // NO: the first of the binary scale's values
		}
	}
}

// flipCount follows the values of one unit: how many, and whether they
// were all the same.
type flipCount struct {
	first, seen int
	flipped     bool
}

// add counts a category index; negative (no value) is skipped.
func (f *flipCount) add(k int) {
	switch {
	case k < 0:
		return
	case f.seen == 0:
		f.first = k
	case k != f.first:
		f.flipped = true
	}
	f.seen++
}

// into adds the unit to fl when it had two or more values to compare.
func (f flipCount) into(fl *Flips) {
	if f.seen >= 2 {
		fl.Units++
		if f.flipped {
			fl.Flipped++
		}
	}
}

func (c *computation) judgeReport(js JudgeSpec, dims []*judgeDim) JudgeReport {
	r := JudgeReport{Judge: js.Key, PerCriterion: js.PerCriterion, Dimensions: []DimensionReport{},
		Extras: countExtras(c.in.Units, js.Key, js.PerCriterion)}
	sc := c.scopeOf(js.PerCriterion)
	for _, jd := range dims {
		h := c.humans[jd.key]
		dr := DimensionReport{
			Dimension: jd.key.name,
			Scale:     jd.key.scale,
			Overall:   c.figures(sc.units, jd, h, js.Key),
			Segments:  []SegmentFigures{},
			Rejudges:  jd.rejudges,
			Samples:   jd.samples,
			Swap:      c.swapAudit(sc.units, jd, h),
		}
		for _, s := range sc.segments {
			dr.Segments = append(dr.Segments, SegmentFigures{
				Field: s.field, Value: s.value,
				Figures: c.figures(s.units, jd, h, js.Key, s.field, s.value),
			})
		}
		r.Dimensions = append(r.Dimensions, dr)
	}
	return r
}

// figures computes the table of one judge and dimension over units; path
// names the table for its bootstrap seeds.
func (c *computation) figures(units []int32, jd *judgeDim, h *humanDim, path ...string) Figures {
	path = slices.Concat([]string{jd.key.name}, path)
	f := Figures{Units: len(units), LabelsNeeded: []LabelsNeeded{}}
	all, unb := NewConfusion(h.cats), NewConfusion(h.cats)
	binary := jd.key.scale.Kind() == judge.KindBinary
	// judged[k] counts the units whose verdict, as compared with the
	// humans, is category k: the judge's own score over its dataset.
	judged := make([]int, len(h.cats))
	prov := make([]int, len(h.provNames))
	for _, u := range units {
		switch {
		case jd.trunc != nil && jd.trunc[u]:
			f.Judging.Truncated++
		default:
			f.Judging.count(jd.state[u])
		}
		if jd.vsState[u] == stOK {
			judged[jd.vsCode[u]]++
		}
		for _, p := range h.prov[h.provStart[u]:h.provStart[u+1]] {
			prov[p]++
		}
		switch h.sel[u] {
		case selNone:
			continue
		case selUnbiased:
			f.Selection.Unbiased++
		case selPlanned:
			f.Selection.Planned++
		case selOrder:
			f.Selection.Order++
		case selFiltered:
			f.Selection.Filtered++
		case selUnknown:
			f.Selection.Unknown++
		}
		f.Labelled++
		ref := h.ref[u]
		if ref == refTie {
			f.HumanTies++
		}
		if ref >= 0 && jd.vsState[u] == stOK {
			all.Counts[ref][jd.vsCode[u]]++
			if h.sel[u] == selUnbiased {
				unb.Counts[ref][jd.vsCode[u]]++
			}
		}
	}
	j := &f.Judging
	j.Judged = j.OK + j.NoValue + j.ParseErrors + j.APIErrors + j.Truncated
	j.ParseErrorRate = ratio(float64(j.ParseErrors), float64(j.Judged), "no judged items")
	j.APIErrorRate = ratio(float64(j.APIErrors), float64(j.Judged), "no judged items")
	j.TruncatedRate = ratio(float64(j.Truncated), float64(j.Judged), "no judged items")
	f.Coverage = ratio(float64(f.Labelled), float64(f.Units), "no items")

	seed := func(what string) uint64 { return deriveSeed(c.opts.Seed, slices.Concat(path, []string{what})...) }
	f.VsHumans = c.agreement(all, jd.key.scale, seed("vs_humans"), reasonNoPairs)

	sel := &f.Selection
	sel.ByProvenance = map[string]int{}
	for i, n := range prov {
		if n > 0 {
			sel.ByProvenance[h.provNames[i]] = n
		}
	}
	picked := pickedBy(sel.ByProvenance)
	totalJudged := sum(judged)
	sel.Census = totalJudged > 0 && all.N() == totalJudged
	fair, noFair := unb, reasonNoRandomLabels(sel, picked)
	if sel.Census {
		fair, noFair = all, ""
	}
	sel.Fair = fair.N()
	if binary {
		cp := fair.CorrectedPassRate(judged[1], totalJudged, seed("corrected"), c.opts.Resamples)
		if fair.N() == 0 && totalJudged > 0 {
			cp.PassRate.Reason = noFair
		}
		f.Corrected = &cp
	}
	if jd.key.scale.Numeric() {
		b := benchmark(fair, judged, noFair)
		f.Benchmark = &b
	}
	f.LabelsNeeded = labelsNeeded(f)

	sel.FilteredShare = ratio(float64(sel.Filtered), float64(f.Labelled), "no labelled items")
	sel.Warning = selectionWarning(sel, c.opts.FilteredShareWarn, picked)
	if !sel.Census && sel.Unbiased > 0 && sel.Unbiased < f.Labelled {
		sel.UnbiasedPart = &UnbiasedPart{VsHumans: c.agreement(unb, jd.key.scale, seed("unbiased/vs_humans"), reasonNoPairs)}
	}
	return f
}

// pickedBy says how the labels of the filtered class were picked, for
// the sentences about them: "a filter", "a script" (gavel label, which
// picks its items for reasons of its own) or both.
func pickedBy(byProvenance map[string]int) string {
	filter, script := false, byProvenance[ProvenanceScript] > 0
	for p := range byProvenance {
		filter = filter || strings.HasPrefix(p, "filter:")
	}
	switch {
	case script && filter:
		return pickedFilterAndScript
	case script:
		return pickedScript
	}
	return pickedFilter
}

// The values of pickedBy.
const (
	pickedFilter          = "filter"
	pickedScript          = "script"
	pickedFilterAndScript = "filter and script"
)

// reasonNoRandomLabels says why the estimates that need a fair sample are
// not given, from how the labels were reached (picked: pickedBy).
func reasonNoRandomLabels(sel *Selection, picked string) string {
	switch {
	case sel.Unbiased > 0:
		return "" // there are random labels; only the judged side may be missing
	case sel.Filtered > 0 && picked == pickedScript:
		return "the labels were written by a script (gavel label), which picks its items for reasons of its own: label items in random order to estimate it"
	case sel.Filtered > 0 && picked == pickedFilterAndScript:
		return "the labels were reached through a filter or written by a script (gavel label), which pick items unlike the rest: label items in random order to estimate it"
	case sel.Filtered > 0:
		return "the labels were reached through a filter, which picks items unlike the rest: label items in random order to estimate it"
	case sel.Planned > 0:
		return reasonPlanned
	case sel.Order > 0:
		return "the labels were reached in dataset order, and a dataset is often sorted: label items in random order to estimate it"
	case sel.Unknown > 0:
		return "how the imported labels were chosen is not known: label a random sample (random order) to estimate it"
	}
	return "no item is labelled"
}

// reasonPlanned says why labels made following an active plan (or a
// stratified one whose strata are sampled at unequal rates) give no
// unweighted estimate.
const reasonPlanned = "the labels were drawn by a labelling plan with unequal probabilities (an active plan, which picks the items the judge is least sure of more often, or a stratified one whose strata are sampled at different rates): they are weighted in the plan's estimates (the plan section), not here"

// selectionWarning is the sentence shown when the labels are not a fair
// sample; empty when they are (picked: pickedBy).
func selectionWarning(sel *Selection, filteredShareWarn float64, picked string) string {
	switch {
	case sel.Census:
		return ""
	case sel.FilteredShare.Defined() && sel.FilteredShare.Value > filteredShareWarn:
		how := "were reached through a filter"
		switch picked {
		case pickedScript:
			how = "were labelled by a script (gavel label), which picks its items for reasons of its own"
		case pickedFilterAndScript:
			how = "were reached through a filter or labelled by a script (gavel label)"
		}
		return fmt.Sprintf("%s of the labelled items %s, so they are not a fair sample of the dataset: the %s reached at random give the fair figures",
			FormatPercent(sel.FilteredShare.Value, 0), how, itemsWord(sel.Unbiased))
	case sel.Planned > 0 && sel.Order == 0:
		s := fmt.Sprintf("%s were labelled following a plan with unequal probabilities (an active plan, which picks the items the judge is least sure of more often, or a stratified one whose strata are sampled at different rates): unweighted, the figures here lean towards the items drawn more often; the plan's weighted estimates are in the plan section",
			itemsWord(sel.Planned))
		if sel.Unbiased > 0 {
			s += fmt.Sprintf(", and the %s reached at random give the corrected score", itemsWord(sel.Unbiased))
		}
		return s
	case sel.Order > 0:
		return fmt.Sprintf("%s were labelled in dataset order, which is often sorted (by model, by difficulty): only the %s reached at random give the corrected score",
			itemsWord(sel.Order), itemsWord(sel.Unbiased))
	}
	return ""
}

func sum(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}

func (c *computation) agreement(conf Confusion, scale judge.Scale, seed uint64, noItems string) Agreement {
	a := AgreementOf(conf, scale, seed, c.opts.Resamples)
	if a.N == 0 {
		a = withReasonEverywhere(a, noItems)
	}
	return a
}

// withReasonEverywhere gives every undefined figure of an empty comparison
// the same reason, one that says which items were missing.
func withReasonEverywhere(a Agreement, reason string) Agreement {
	es := []*Estimate{&a.JudgeMean, &a.ReferenceMean}
	is := []*Interval{&a.PercentAgreement, &a.ScoreBias, &a.CohenKappa, &a.GwetAC1, &a.AlphaNominal}
	if o := a.Ordinal; o != nil {
		is = append(is, &o.LinearKappa, &o.QuadraticKappa, &o.AlphaOrdinal, &o.AlphaInterval, &o.AlphaRatio,
			&o.MeanAbsoluteError, &o.MeanSignedDifference, &o.Spearman, &o.KendallTauB,
			&o.ExactAgreement, &o.WithinOne)
	}
	if b := a.Binary; b != nil {
		es = append(es, &b.F1, &b.BalancedAccuracy)
		is = append(is, &b.Precision, &b.Recall, &b.Specificity, &b.FalsePassRate, &b.FalseFailRate)
	}
	if cl := a.Classes; cl != nil {
		es = append(es, &cl.MacroPrecision, &cl.MacroRecall, &cl.MacroF1)
		for k := range cl.PerClass {
			f := &cl.PerClass[k]
			es = append(es, &f.F1)
			is = append(is, &f.Precision, &f.Recall)
		}
	}
	// A nominal scale's missing mean is missing whatever the items.
	for _, e := range es {
		if !e.Defined() && e.Reason != reasonNoMean {
			e.Reason = reason
		}
	}
	for _, i := range is {
		if !i.Defined() && i.Reason != reasonNoMean {
			i.Reason = reason
		}
	}
	return a
}

// judgePairs compares judge a with judge b on each dimension they share.
func (c *computation) judgePairs(a, b JudgeSpec, da, db []*judgeDim) []JudgePair {
	var out []JudgePair
	if a.PerCriterion != b.PerCriterion {
		return nil
	}
	units := c.scopeOf(a.PerCriterion).units
	for _, x := range da {
		i := slices.IndexFunc(db, func(y *judgeDim) bool { return y.key == x.key })
		if i < 0 {
			continue
		}
		y := db[i]
		conf := NewConfusion(x.key.scale.Values())
		for _, u := range units {
			if x.state[u] == stOK && y.state[u] == stOK {
				conf.Counts[y.code[u]][x.code[u]]++
			}
		}
		ag := c.agreement(conf, x.key.scale, deriveSeed(c.opts.Seed, "pair", a.Key, b.Key, x.key.name),
			"no item has an ok verdict from both judges")
		out = append(out, JudgePair{Judge: a.Key, Reference: b.Key, Dimension: x.key.name, Scale: x.key.scale, Agreement: ag})
	}
	return out
}

// itemsWord is "1 item", "2 items".
func itemsWord(n int) string {
	if n == 1 {
		return "1 item"
	}
	return fmt.Sprintf("%d items", n)
}

// count adds a unit of state st (not truncated).
func (j *Judging) count(st uint8) {
	switch st {
	case stOK:
		j.OK++
	case stNoValue:
		j.NoValue++
	case stParse:
		j.ParseErrors++
	case stAPI:
		j.APIErrors++
	}
}
