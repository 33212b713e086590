package tui

import (
	"fmt"
	"sort"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// A filter picks the items to review. The review screen and the list move
// within the filtered items, and labels made there record the filter as
// how the item was reached, so that statistics can tell a hand-picked
// sample from an unbiased one.
type filter struct {
	// id names the filter in labels' provenance ("filter:<id>").
	id string
	// name is what the screen calls it.
	name  string
	match func(w *workspace, i int) bool
	// offered, when set, says whether the filter can match at all in
	// this session; a filter that cannot is not offered.
	offered func(w *workspace) bool
	// via, when set, is the provenance of labels made through the filter
	// instead of "filter:<id>" (a plan's: "plan:ID", plan.go).
	via string
	// arrange, when set, puts the filter's matches in its own order
	// instead of the order in force (a plan's order).
	arrange func(w *workspace, items []int) []int
}

// lowConfidence is the confidence below which a verdict counts as unsure.
const lowConfidence = 0.7

// staticFilters are the filters f cycles through, before the segment
// filters. A filter with an offered test is only offered when it can
// match: "judge ≠ judge" needs a second judge, "annotators disagree" the
// labels of somebody else, "inconsistent under swap" verdicts in both
// orders of a pair.
var staticFilters = []filter{
	// No match: every item, which the selection code knows without a
	// test per item (and which grows with the pages of a loading session).
	{id: "all", name: "all items"},
	{id: "unreviewed", name: "unreviewed", match: func(w *workspace, i int) bool { return w.applicable[i] && !w.reviewed[i] }},
	// seen: a re-test keeps its first label's comparison, which the
	// filter would tell while the re-test is on screen.
	{id: "disagreements", name: "judge ≠ you", match: seen(func(w *workspace, i int) bool { return w.agreement[i] == 0 })},
	{id: "judges-differ", name: "judge ≠ judge", match: seen((*workspace).judgesDiffer),
		offered: func(w *workspace) bool { return len(w.runs) > 1 && !w.blind }},
	{id: "annotators-differ", name: "annotators disagree", match: seen((*workspace).annotatorsDiffer),
		offered: func(w *workspace) bool { return w.others.any() && !w.blind }},
	adjudicationFilter, // adjudicate.go
	{id: "low-confidence", name: fmt.Sprintf("confidence < %.0f%%", lowConfidence*100), match: seen((*workspace).lowConfidence)},
	// A failed verdict is a verdict too: on a hidden item, that it
	// failed (and so is not a YES) is not told either.
	{id: "errors", name: "parse or API errors", match: seen((*workspace).hasError)},
	{id: "truncated", name: "truncated prompts", match: seen((*workspace).hasTruncated),
		offered: func(w *workspace) bool { return w.run() != nil && w.run().nTruncated > 0 }},
	{id: "judge-top", name: "judge says YES / top score", match: seen(func(w *workspace, i int) bool { return w.judgeAt(i, true) }),
		offered: scoredNotBlind},
	{id: "judge-bottom", name: "judge says NO / bottom score", match: seen(func(w *workspace, i int) bool { return w.judgeAt(i, false) }),
		offered: scoredNotBlind},
	{id: "humans-differ", name: "judge ≠ a human", match: seen((*workspace).judgeDiffersFromHuman),
		offered: func(w *workspace) bool { return w.others.any() && !w.blind }},
	{id: "swap-inconsistent", name: "inconsistent under swap", match: seen((*workspace).inconsistentUnderSwap),
		offered: (*workspace).hasSwapped},
}

// seen limits a filter that tells the judge's value, or compares it with
// labels, to the items whose verdict is on view: in blind mode the filter
// is not offered at all, but a blind-share or re-test item is hidden among
// items that are not, and the filter must not tell its verdict either.
func seen(match func(w *workspace, i int) bool) func(w *workspace, i int) bool {
	return func(w *workspace, i int) bool { return !w.hidden(i) && match(w, i) }
}

// decided limits a filter on the person's own first decision on an item
// (its can't judge, tags, the guidelines its label was made under) to the
// items that are not a re-test on screen, which hides that decision. It is
// not seen: the person's own decisions tell nothing of a hidden verdict,
// so a blind item they tagged is still found by its tag.
func decided(match func(w *workspace, i int) bool) func(w *workspace, i int) bool {
	return func(w *workspace, i int) bool { return !w.retesting(i) && match(w, i) }
}

// notBlind offers a filter only outside blind mode: a filter on the
// judge's value (or on verdicts and labels compared) would tell what blind
// mode hides.
func notBlind(w *workspace) bool { return !w.blind }

// scoredNotBlind offers the top and bottom filters on judges that score
// (YES/NO, a range): categories and preferences have no top (B is not
// better than A).
func scoredNotBlind(w *workspace) bool {
	if w.blind || w.run() == nil {
		return false
	}
	for _, d := range w.run().info.Dimensions {
		if !d.Scale.Categorical() {
			return true
		}
	}
	return false
}

// judgeDiffersFromHuman reports items where the active judge's value
// differs from some person's label: yours or another annotator's (an
// imported human column included).
func (w *workspace) judgeDiffersFromHuman(i int) bool {
	if w.agreement[i] == 0 {
		return true
	}
	r := w.run()
	var buf [4]sessions.Label
	others := w.others.on(i, buf[:0])
	for _, rw := range w.rows(i) {
		j, ok := r.judgeValue(i, rw)
		if !ok {
			continue
		}
		for _, o := range others {
			if o.Criterion == rw.crit && o.Dimension == rw.dim.Name && o.Value != j {
				return true
			}
		}
	}
	return false
}

// filters lists the static filters that can match, then one per value of
// each segment field (up to a few dozen), in a stable order.
func (w *workspace) filters() []filter {
	var out []filter
	for _, f := range staticFilters {
		if f.offered == nil || f.offered(w) {
			out = append(out, f)
		}
		if f.id == "all" {
			out = append(out, w.planFilters()...)  // next to every item
			out = append(out, w.queueFilters()...) // a team's queue (team.go)
		}
	}
	out = append(out, w.decisionFilters()...)
	for _, f := range w.variantFilters() {
		f.match = seen(f.match) // fixed and broken tell the verdicts
		out = append(out, f)
	}
	values := map[string]map[string]bool{}
	for _, it := range w.items {
		for k, v := range it.Segments {
			if values[k] == nil {
				values[k] = map[string]bool{}
			}
			if len(values[k]) < 40 {
				values[k][v] = true
			}
		}
		if len(values) > 0 && len(w.items) > 20000 {
			break // enough to name the segments of a large dataset
		}
	}
	fields := make([]string, 0, len(values))
	for k := range values {
		fields = append(fields, k)
	}
	sort.Strings(fields)
	for _, k := range fields {
		vals := make([]string, 0, len(values[k]))
		for v := range values[k] {
			vals = append(vals, v)
		}
		sort.Strings(vals)
		for _, v := range vals {
			field, value := k, v
			out = append(out, filter{id: "segment:" + k + "=" + v,
				name:  SanitizeLine(Clip(k, 64)) + " = " + SanitizeLine(Clip(v, 64)),
				match: func(w *workspace, i int) bool { return w.items[i].Segments[field] == value }})
		}
	}
	return out
}

// annotatorsDiffer reports items where the people who labelled them gave
// different labels on a row of the active judge (this annotator included),
// leaving out the labels of whoever marked the item can't judge.
func (w *workspace) annotatorsDiffer(i int) bool {
	var buf [4]sessions.Label
	others := w.others.on(i, buf[:0])
	for _, rw := range w.rows(i) {
		first, has := w.judgement(i, rw)
		for _, o := range others {
			if o.Criterion != rw.crit || o.Dimension != rw.dim.Name {
				continue
			}
			if !has {
				first, has = o.Value, true
			} else if o.Value != first {
				return true
			}
		}
	}
	return false
}

func (w *workspace) judgesDiffer(i int) bool {
	if len(w.runs) < 2 {
		return false
	}
	for _, rw := range w.rows(i) {
		var seen []float64
		for _, r := range w.runs {
			if r.info.PerCriterion != w.run().info.PerCriterion {
				continue
			}
			if v, ok := r.judgeValue(i, rw); ok {
				seen = append(seen, v)
			}
		}
		for _, v := range seen {
			if v != seen[0] {
				return true
			}
		}
	}
	return false
}

func (w *workspace) confidence(i int) (float64, bool) {
	return w.run().confidence(i)
}

// rankConfidence is an item's confidence as the least-confident order
// ranks it: none for an item whose verdict is hidden (blind mode, the
// blind share, a re-test), so that the order tells nothing of it. Items
// without a confidence go after the others, in dataset order: a hidden
// item sits among them wherever its verdict would rank it.
func (w *workspace) rankConfidence(i int) (float64, bool) {
	if w.hidden(i) {
		return 0, false
	}
	return w.confidence(i)
}

func (w *workspace) lowConfidence(i int) bool {
	c, ok := w.confidence(i)
	return ok && c < lowConfidence
}

// hasError reports an item whose verdict failed, in either order of a
// pair (a truncated one has its own filter).
func (w *workspace) hasError(i int) bool {
	return w.run().anyStatus(i, func(s judge.Status) bool { return s != judge.StatusOK && s != judge.StatusTruncated })
}

// hasTruncated reports an item whose verdict is truncated (the server cut
// the prompt to its context), in either order of a pair.
func (w *workspace) hasTruncated(i int) bool {
	return w.run().anyStatus(i, func(s judge.Status) bool { return s == judge.StatusTruncated })
}

// judgeAt reports whether the judge gave the top (or bottom) value of the
// scale on any row of the item.
func (w *workspace) judgeAt(i int, top bool) bool {
	for _, rw := range w.rows(i) {
		v, ok := w.run().judgeValue(i, rw)
		vals := rw.dim.Scale.Values()
		if ok && len(vals) > 0 && ((top && v == vals[len(vals)-1]) || (!top && v == vals[0])) {
			return true
		}
	}
	return false
}

// decisionFilters are the filters of SPEC "Labelling well": the labels
// made under older guidelines (to re-review), the items the person could
// not judge, and one per failure tag of the session.
func (w *workspace) decisionFilters() []filter {
	var out []filter
	if g := w.guidelines; g != nil && g.Older > 0 {
		out = append(out, filter{id: "older-guidelines", name: "re-review: older guidelines", match: decided((*workspace).olderGuidelines)})
	}
	out = append(out, filter{id: "cant-judge", name: "can't judge", match: decided(func(w *workspace, i int) bool {
		_, _, ok := w.labels.CantJudge(w.items[i].ID)
		return ok
	})})
	for _, tag := range w.tags {
		out = append(out, filter{id: "tag:" + tag, name: "tag: " + tagText(tag),
			match: decided(func(w *workspace, i int) bool { return w.labels.HasTag(w.items[i].ID, tag) })})
	}
	return out
}

// olderGuidelines reports an item with a current label made under a
// version of the guidelines other than the one on screen, on a row of
// any judge (the count the message log gave is of every label). A label
// made with no guidelines (version 0) is not older: it was made under
// none, not under a version since replaced.
func (w *workspace) olderGuidelines(i int) bool {
	cur := w.guidelines.ID
	id := w.items[i].ID
	for _, r := range w.runs {
		for _, rw := range r.rows(w.items[i]) {
			g := w.labels.LabelGuidelines(sessions.LabelKey{ItemID: id, Criterion: rw.crit, Dimension: rw.dim.Name})
			if g != 0 && g != cur {
				return true
			}
		}
	}
	return false
}
