package stats

import "slices"

// labellingRun computes the report's labelling section from the input's
// LabellingInput (startLabelling, then finish): nil when there is none,
// or when it holds nothing about the units reported on (a split can leave
// every marked item out). Every part covers the items of the input's
// units only, as every other figure does; the guidelines' label counts,
// read from the whole session, are the exception.
//
// What needs no judge's figures (the decisions per annotator, their
// times, sittings and re-tests, the "can't judge" counts) is worked out
// on a goroutine of its own while Compute works out the judges' figures;
// finish adds what compares decisions with the judges' verdicts.
type labellingRun struct {
	lc   *labellingData
	done chan struct{}
	// set by prepare:
	cantJudge         *CantJudgeReport
	guidelinesLeftOut int
	annotators        []annotatorPrep
}

// startLabelling starts the labelling section; nil when the input has no
// labelling input.
func (c *computation) startLabelling(judges []JudgeSpec) *labellingRun {
	li := c.in.Labelling
	if li == nil {
		return nil
	}
	run := &labellingRun{lc: &labellingData{c: c, in: li, judges: judges}, done: make(chan struct{})}
	go func() {
		defer close(run.done)
		run.prepare()
	}()
	return run
}

// prepare works out what needs no judge's figures.
func (run *labellingRun) prepare() {
	lc := run.lc
	lc.cantJudged = map[[2]string]bool{}
	for _, m := range lc.in.CantJudge {
		if lc.present(m.ItemID) {
			lc.cantJudged[[2]string{m.Annotator, m.ItemID}] = true
		}
	}
	cantJudgeLeftOut, guidelinesLeftOut := lc.leftOut()
	run.cantJudge = lc.cantJudgeReport(cantJudgeLeftOut)
	run.guidelinesLeftOut = guidelinesLeftOut
	run.annotators = lc.prepareReliability()
}

// finish waits for prepare and adds the figures that compare decisions
// with the judges' current verdicts (dims, as the judges' figures read
// them).
func (run *labellingRun) finish(dims [][]*judgeDim) *Labelling {
	if run == nil {
		return nil
	}
	<-run.done
	lc := run.lc
	lc.dims = dims
	out := &Labelling{
		Guidelines: guidelinesReport(lc.in.Guidelines, run.guidelinesLeftOut),
		CantJudge:  run.cantJudge,
		Tags:       lc.tagsReport(),
		Annotators: lc.finishReliability(run.annotators),
	}
	if out.Guidelines == nil && out.CantJudge == nil && out.Tags == nil && len(out.Annotators) == 0 {
		return nil
	}
	return out
}

// labellingData is what the parts of the labelling section share.
type labellingData struct {
	c      *computation
	in     *LabellingInput
	judges []JudgeSpec
	dims   [][]*judgeDim
	// cantJudged holds the (annotator, item) pairs marked "can't judge".
	cantJudged map[[2]string]bool
	// units finds the unit of a whole item, criteria that of an item's
	// criterion (unit); built on first use.
	units    map[string]int32
	criteria map[unitKey]int32
	// few finds the whole-item unit of the items the marks, tags and
	// left-out counts name (itemUnit), -1 for one not in the units.
	few map[string]int32
	// dimNames names the decisions' dimensions (decision.dim), dimOf
	// indexes them, and judgeDims[j][dim] is judge j's dimension of that
	// name (judgeDim).
	dimNames  []string
	dimOf     map[string]int32
	judgeDims [][]*judgeDim
}

// unitKey names a unit.
type unitKey struct {
	item      string
	criterion int
}

// unit is the index of the unit of item and criterion, if the input has
// it. The units of whole items (criterion 0) are found by item alone,
// which hashes faster than a pair.
func (lc *labellingData) unit(item string, criterion int) (int32, bool) {
	if lc.units == nil {
		lc.units = make(map[string]int32, len(lc.c.in.Units))
		lc.criteria = map[unitKey]int32{}
		for i, u := range lc.c.in.Units {
			if u.Criterion == 0 {
				lc.units[u.ItemID] = int32(i)
			} else {
				lc.criteria[unitKey{u.ItemID, u.Criterion}] = int32(i)
			}
		}
	}
	if criterion == 0 {
		u, ok := lc.units[item]
		return u, ok
	}
	u, ok := lc.criteria[unitKey{item, criterion}]
	return u, ok
}

// present tells whether the input has the item: every item has a unit
// for the whole of it (criterion 0).
func (lc *labellingData) present(item string) bool {
	_, ok := lc.itemUnit(item)
	return ok
}

// itemUnit is the unit of a whole item, found for the few items the
// marks, tags and left-out counts name in one pass over the units (a map
// of those few), not by unit's map of every unit: at a million units
// that map costs more than the rest of the section, and the decisions,
// the many, come with their unit (Decision.Unit).
func (lc *labellingData) itemUnit(item string) (int32, bool) {
	if lc.few == nil {
		lc.few = map[string]int32{}
		for _, m := range lc.in.CantJudge {
			lc.few[m.ItemID] = -1
		}
		for _, m := range lc.in.Tags {
			lc.few[m.ItemID] = -1
		}
		for _, l := range lc.in.LeftOut {
			lc.few[l.ItemID] = -1
		}
		if len(lc.few) > 0 {
			for i, u := range lc.c.in.Units {
				if _, named := lc.few[u.ItemID]; named && u.Criterion == 0 {
					lc.few[u.ItemID] = int32(i)
				}
			}
		}
	}
	if u, named := lc.few[item]; named {
		return u, u >= 0
	}
	return lc.unit(item, 0)
}

// hinted is the unit the decision names (Decision.Unit), when it is the
// unit of the decision's item and criterion.
func (lc *labellingData) hinted(d *Decision) (int32, bool) {
	i := int(d.Unit) - 1
	if i < 0 || i >= len(lc.c.in.Units) {
		return 0, false
	}
	if u := &lc.c.in.Units[i]; u.ItemID != d.ItemID || u.Criterion != d.Criterion {
		return 0, false
	}
	return int32(i), true
}

// leftOut counts the current labels left out of the units on the units'
// items: by "can't judge" marks, and by the guidelines filter.
func (lc *labellingData) leftOut() (cantJudge, guidelines int) {
	if len(lc.in.LeftOut) == 0 {
		return lc.in.CantJudgeLabels, lc.in.Guidelines.LeftOut
	}
	for _, l := range lc.in.LeftOut {
		if lc.present(l.ItemID) {
			cantJudge += l.CantJudge
			guidelines += l.Guidelines
		}
	}
	return cantJudge, guidelines
}

// guidelinesReport lists the versions and the filter, with leftOut labels
// left out by it; nil when the session has no guidelines and every label
// counts.
func guidelinesReport(g GuidelinesInput, leftOut int) *GuidelinesReport {
	filter := g.Filter
	if filter.Filter == "" {
		filter.Filter = FilterAll
	}
	if len(g.Versions) == 0 && filter.Filter == FilterAll {
		return nil
	}
	r := &GuidelinesReport{Filter: filter, Versions: []GuidelinesVersionReport{}, WithoutGuidelines: g.WithoutGuidelines, LeftOut: leftOut}
	var newest int64
	for _, v := range g.Versions {
		newest = max(newest, v.ID)
	}
	for _, v := range g.Versions {
		r.Versions = append(r.Versions, GuidelinesVersionReport{ID: v.ID, SHA256: v.SHA256, FirstSeen: v.FirstSeen, Current: v.ID == newest, Labels: v.Labels})
	}
	return r
}

// cantJudgeReport counts the marks on the units' items; nil when none.
func (lc *labellingData) cantJudgeReport(leftOut int) *CantJudgeReport {
	if len(lc.cantJudged) == 0 {
		return nil
	}
	r := &CantJudgeReport{LabelsLeftOut: leftOut, ByAnnotator: []AnnotatorCantJudge{}}
	items := map[string]bool{}
	by := map[string]*AnnotatorCantJudge{}
	for _, m := range lc.in.CantJudge {
		if !lc.present(m.ItemID) {
			continue
		}
		r.Total++
		items[m.ItemID] = true
		r.ByReason.add(m.Reason)
		a := by[m.Annotator]
		if a == nil {
			a = &AnnotatorCantJudge{Annotator: m.Annotator}
			by[m.Annotator] = a
		}
		a.Total++
		a.ByReason.add(m.Reason)
	}
	r.Items = len(items)
	for _, name := range sortedKeys(by) {
		r.ByAnnotator = append(r.ByAnnotator, *by[name])
	}
	return r
}

// add counts one mark; a reason the schema does not know (it cannot hold
// one) is counted as other.
func (rc *ReasonCounts) add(reason string) {
	switch reason {
	case ReasonGoldWrong:
		rc.GoldWrong++
	case ReasonAmbiguous:
		rc.Ambiguous++
	case ReasonUnreadable:
		rc.Unreadable++
	default:
		rc.Other++
	}
}

// tagsReport counts the tags on the units' items, overall and among each
// judge's disagreements with the humans; nil when the session has no tag.
func (lc *labellingData) tagsReport() *TagsReport {
	order := slices.Clone(lc.in.TagSet)
	known := map[string]bool{}
	for _, t := range order {
		known[t] = true
	}
	var others []string
	itemTags := map[string]map[string]bool{}
	for _, m := range lc.in.Tags {
		if !lc.present(m.ItemID) {
			continue
		}
		if !known[m.Tag] {
			known[m.Tag] = true
			others = append(others, m.Tag)
		}
		if itemTags[m.ItemID] == nil {
			itemTags[m.ItemID] = map[string]bool{}
		}
		itemTags[m.ItemID][m.Tag] = true
	}
	slices.Sort(others)
	order = append(order, others...)
	if len(order) == 0 {
		return nil
	}
	at := make(map[string]int, len(order))
	for i, t := range order {
		at[t] = i
	}
	// count walks the tagged items (few) rather than items (a judge's
	// disagreements may be most of the units).
	count := func(items map[string]bool) []TagCount {
		out := make([]TagCount, len(order))
		for i, t := range order {
			out[i].Tag = t
		}
		for item, tags := range itemTags {
			if items[item] {
				for t := range tags {
					out[at[t]].Items++
				}
			}
		}
		return out
	}
	all := map[string]bool{}
	for item := range itemTags {
		all[item] = true
	}
	r := &TagsReport{Tags: count(all), Disagreements: []TagDisagreements{}}
	for j, js := range lc.judges {
		items := lc.disagreeing(j)
		td := TagDisagreements{Judge: js.Key, Items: len(items), Tags: count(items)}
		for item := range items {
			if len(itemTags[item]) > 0 {
				td.Tagged++
			}
		}
		r.Disagreements = append(r.Disagreements, td)
	}
	return r
}

// disagreeing is the set of items where judge j's current verdict, as
// compared with the humans, differs from the humans' label (the single
// label or the majority) on some dimension: the units off the diagonal of
// its confusion matrices.
func (lc *labellingData) disagreeing(j int) map[string]bool {
	out := map[string]bool{}
	units := lc.c.scopeOf(lc.judges[j].PerCriterion).units
	for _, jd := range lc.dims[j] {
		h := lc.c.humans[jd.key]
		if h == nil {
			continue
		}
		for _, u := range units {
			if ref := h.ref[u]; ref >= 0 && jd.vsState[u] == stOK && jd.vsCode[u] != ref {
				out[lc.c.in.Units[u].ItemID] = true
			}
		}
	}
	return out
}

// agreement compares a decision's value with judge j's current verdict
// on the decision's unit and dimension: counted tells whether there was a
// verdict to compare with, agreed whether they agree.
func (lc *labellingData) agreement(d decision, j int) (counted, agreed bool) {
	if d.unit < 0 {
		return false, false
	}
	jd := lc.judgeDim(j, d.dim)
	if jd == nil || jd.vsState[d.unit] != stOK {
		return false, false
	}
	k := categoryIndex(jd.key.scale.Values(), d.Value)
	if k < 0 {
		return false, false
	}
	return true, int8(k) == jd.vsCode[d.unit]
}

// judgeDim is judge j's dimension named like the decisions' dimension dim
// (an index of lc.dimNames), nil when the judge rates none.
func (lc *labellingData) judgeDim(j int, dim int32) *judgeDim {
	if lc.judgeDims == nil {
		lc.judgeDims = make([][]*judgeDim, len(lc.judges))
	}
	if lc.judgeDims[j] == nil {
		t := make([]*judgeDim, len(lc.dimNames))
		for i, name := range lc.dimNames {
			for _, jd := range lc.dims[j] {
				if jd.key.name == name {
					t[i] = jd
					break
				}
			}
		}
		lc.judgeDims[j] = t
	}
	return lc.judgeDims[j][dim]
}

// compared says whether a decision's value is compared with judges and
// with the person's own re-test: a label or accept with a value, on an
// item its annotator has not marked "can't judge". (Under a guidelines
// filter, byAnnotator keeps only the decisions made under the version
// kept.) byAnnotator works it out once per decision.
func (d decision) compared() bool { return d.flags&decCompared != 0 }

// median is the median of xs (sorted in place), undefined when empty.
func median(xs []float64, reason string) Estimate {
	if len(xs) == 0 {
		return undefined(reason)
	}
	slices.Sort(xs)
	m := len(xs) / 2
	if len(xs)%2 == 1 {
		return defined(xs[m])
	}
	return defined((xs[m-1] + xs[m]) / 2)
}

// decision is a decision of the input with what the figures look up
// about it, worked out once (byAnnotator).
type decision struct {
	*Decision
	// unit is the index of its unit, -1 when the input has none (a
	// criterion no judge rates).
	unit int32
	// dim is its dimension's index in labellingData.dimNames.
	dim   int32
	flags uint8
}

// decision.flags.
const (
	// decCompared: compared with judges and re-tests (compared).
	decCompared uint8 = 1 << iota
)

// byAnnotator gathers the decisions on the units' items per annotator, in
// input order (oldest first), and the annotators sorted by name. Under a
// guidelines filter it keeps only the decisions made under the version
// kept, so that every figure of the reliability section (decisions, time,
// fatigue, re-tests, anchoring) describes the same decisions.
func (lc *labellingData) byAnnotator() (map[string][]decision, []string) {
	f := lc.in.Guidelines.Filter
	filtered := f.Filter != "" && f.Filter != FilterAll
	// Decisions come an annotator at a time: count them first, so that
	// each annotator's slice is allocated once.
	counts := map[string]int{}
	last, n := "", 0
	for i := range lc.in.Decisions {
		if a := lc.in.Decisions[i].Annotator; a != last || i == 0 {
			if i > 0 {
				counts[last] += n
			}
			last, n = a, 0
		}
		n++
	}
	if len(lc.in.Decisions) > 0 {
		counts[last] += n
	}
	by := make(map[string][]decision, len(counts))
	for a, n := range counts {
		by[a] = make([]decision, 0, n)
	}
	// Marked items, per annotator, by the unit of their whole item.
	marked := map[string]map[int32]bool{}
	for k := range lc.cantJudged {
		if u, ok := lc.itemUnit(k[1]); ok {
			if marked[k[0]] == nil {
				marked[k[0]] = map[int32]bool{}
			}
			marked[k[0]][u] = true
		}
	}
	var (
		cur               []decision
		curName           string
		curMarked         map[int32]bool
		lastItem, lastDim string
		lastCrit          = -1
		lastUnit, itemU   int32
		lastOK, lastIdx   = false, int32(-1)
	)
	flush := func() {
		if cur != nil {
			by[curName] = cur
		}
	}
	for i := range lc.in.Decisions {
		d := &lc.in.Decisions[i]
		if filtered && d.Guidelines != f.Version {
			continue
		}
		if !d.live() {
			// A decision that records neither the verdict's visibility,
			// nor its time on screen, nor a re-test was not made on the
			// review screen (gavel label, a script, an older Gavel) even
			// when its annotator also labelled there: the reliability
			// figures count live key presses only.
			continue
		}
		if d.ItemID != lastItem || d.Criterion != lastCrit {
			if u, ok := lc.hinted(d); ok && d.Criterion == 0 {
				itemU, lastOK, lastUnit = u, true, u
			} else {
				if d.ItemID != lastItem {
					itemU, lastOK = lc.unit(d.ItemID, 0)
				}
				lastUnit = itemU
				if d.Criterion != 0 && lastOK {
					u, ok := lc.unit(d.ItemID, d.Criterion)
					if !ok {
						u = -1
					}
					lastUnit = u
				}
			}
			lastItem, lastCrit = d.ItemID, d.Criterion
		}
		if !lastOK {
			continue // not one of the units' items
		}
		if cur == nil || d.Annotator != curName {
			flush()
			curName, cur, curMarked = d.Annotator, by[d.Annotator], marked[d.Annotator]
		}
		if d.Dimension != lastDim || lastIdx < 0 {
			lastIdx, lastDim = lc.dimIndex(d.Dimension), d.Dimension
		}
		dc := decision{Decision: d, unit: lastUnit, dim: lastIdx}
		if d.HasValue && d.Kind != KindCantJudge && !curMarked[itemU] {
			dc.flags |= decCompared
		}
		cur = append(cur, dc)
	}
	flush()
	for a, ds := range by {
		if len(ds) == 0 {
			delete(by, a)
		}
	}
	return by, sortedKeys(by)
}

// dimIndex is the index of a decision dimension's name in lc.dimNames,
// added when new.
func (lc *labellingData) dimIndex(name string) int32 {
	if i, ok := lc.dimOf[name]; ok {
		return i
	}
	if lc.dimOf == nil {
		lc.dimOf = map[string]int32{}
	}
	i := int32(len(lc.dimNames))
	lc.dimOf[name] = i
	lc.dimNames = append(lc.dimNames, name)
	lc.judgeDims = nil // built again for the new name
	return i
}

// groupOf is one decision: the actions of one key press, in order.
type groupOf []decision

// groups splits an annotator's actions, oldest first, into decisions: a
// key press's actions are written together, so they are neighbours. Each
// group is a part of ds.
func groups(ds []decision) []groupOf {
	out := make([]groupOf, 0, len(ds))
	start := 0
	for i := 1; i <= len(ds); i++ {
		if i == len(ds) || ds[i].Group != ds[start].Group {
			out = append(out, groupOf(ds[start:i:i]))
			start = i
		}
	}
	return out
}

// seconds is a decision's time on screen: that of its first timed
// action.
func (g groupOf) seconds() (float64, bool) {
	for _, d := range g {
		if d.Timed {
			return d.Seconds, true
		}
	}
	return 0, false
}
