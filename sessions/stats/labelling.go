package stats

import "slices"

// labelling computes the report's labelling section from the input's
// LabellingInput: nil when there is none, or when it holds nothing about
// the units reported on (a split can leave every marked item out). Every
// part covers the items of the input's units only, as every other figure
// does; the guidelines' label counts, read from the whole session, are
// the exception.
func (c *computation) labelling(judges []JudgeSpec, dims [][]*judgeDim) *Labelling {
	li := c.in.Labelling
	if li == nil {
		return nil
	}
	lc := &labellingData{c: c, in: li, judges: judges, dims: dims}
	lc.cantJudged = map[[2]string]bool{}
	for _, m := range li.CantJudge {
		if lc.present(m.ItemID) {
			lc.cantJudged[[2]string{m.Annotator, m.ItemID}] = true
		}
	}
	out := &Labelling{
		Guidelines: guidelinesReport(li.Guidelines),
		CantJudge:  lc.cantJudgeReport(),
		Tags:       lc.tagsReport(),
		Annotators: lc.reliability(),
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
	// units finds a unit by item and criterion; built on first use.
	units map[unitKey]int32
}

// unitKey names a unit.
type unitKey struct {
	item      string
	criterion int
}

// unit is the index of the unit of item and criterion, if the input has
// it.
func (lc *labellingData) unit(item string, criterion int) (int32, bool) {
	if lc.units == nil {
		lc.units = make(map[unitKey]int32, len(lc.c.in.Units))
		for i, u := range lc.c.in.Units {
			lc.units[unitKey{u.ItemID, u.Criterion}] = int32(i)
		}
	}
	u, ok := lc.units[unitKey{item, criterion}]
	return u, ok
}

// present tells whether the input has the item: every item has a unit
// for the whole of it (criterion 0).
func (lc *labellingData) present(item string) bool {
	_, ok := lc.unit(item, 0)
	return ok
}

// guidelinesReport lists the versions and the filter; nil when the
// session has no guidelines and every label counts.
func guidelinesReport(g GuidelinesInput) *GuidelinesReport {
	filter := g.Filter
	if filter.Filter == "" {
		filter.Filter = FilterAll
	}
	if len(g.Versions) == 0 && filter.Filter == FilterAll {
		return nil
	}
	r := &GuidelinesReport{Filter: filter, Versions: []GuidelinesVersionReport{}, WithoutGuidelines: g.WithoutGuidelines, LeftOut: g.LeftOut}
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
func (lc *labellingData) cantJudgeReport() *CantJudgeReport {
	if len(lc.cantJudged) == 0 {
		return nil
	}
	r := &CantJudgeReport{LabelsLeftOut: lc.in.CantJudgeLabels, ByAnnotator: []AnnotatorCantJudge{}}
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
	count := func(items map[string]bool) []TagCount {
		out := make([]TagCount, len(order))
		for i, t := range order {
			out[i].Tag = t
			for item := range items {
				if itemTags[item][t] {
					out[i].Items++
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
	for _, jd := range lc.dims[j] {
		if jd.key.name != d.Dimension || jd.vsState[d.unit] != stOK {
			continue
		}
		k := categoryIndex(jd.key.scale.Values(), d.Value)
		if k < 0 {
			return false, false
		}
		return true, int8(k) == jd.vsCode[d.unit]
	}
	return false, false
}

// compared says whether a decision's value is compared with judges and
// with the person's own re-test: a label or accept with a value, on an
// item its annotator has not marked "can't judge", made under the
// guidelines version the filter keeps.
func (lc *labellingData) compared(d decision) bool {
	if !d.HasValue || d.Kind == KindCantJudge || lc.cantJudged[[2]string{d.Annotator, d.ItemID}] {
		return false
	}
	f := lc.in.Guidelines.Filter
	return f.Filter == "" || f.Filter == FilterAll || d.Guidelines == f.Version
}

// shares counts, per judge, how many of decisions agreed with it; only
// judges with a decision to compare are listed, in report order.
func (lc *labellingData) shares(decisions []decision) []JudgeShare {
	out := []JudgeShare{}
	for j, js := range lc.judges {
		if s := lc.shareWith(decisions, j); s.N > 0 {
			out = append(out, JudgeShare{Judge: js.Key, Share: s})
		}
	}
	return out
}

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

// decision is a decision of the input and the index of its unit, -1
// when the input has none (a criterion no judge rates).
type decision struct {
	*Decision
	unit int32
}

// byAnnotator gathers the decisions on the units' items per annotator, in
// input order (oldest first), and the annotators sorted by name.
func (lc *labellingData) byAnnotator() (map[string][]decision, []string) {
	by := map[string][]decision{}
	for i := range lc.in.Decisions {
		d := &lc.in.Decisions[i]
		if lc.present(d.ItemID) {
			u, ok := lc.unit(d.ItemID, d.Criterion)
			if !ok {
				u = -1
			}
			by[d.Annotator] = append(by[d.Annotator], decision{d, u})
		}
	}
	names := sortedKeys(by)
	return by, names
}

// groupOf is one decision: the actions of one key press, in order.
type groupOf []decision

// groups splits an annotator's actions, oldest first, into decisions: a
// key press's actions are written together, so they are neighbours.
func groups(ds []decision) []groupOf {
	var out []groupOf
	for _, d := range ds {
		if n := len(out); n > 0 && out[n-1][0].Group == d.Group {
			out[n-1] = append(out[n-1], d)
			continue
		}
		out = append(out, groupOf{d})
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
