package stats

import (
	"fmt"
	"math"

	"github.com/gavel-dev/gavel/judge"
)

// reliability is each annotator's own reliability, sorted by name.
func (lc *labellingData) reliability() []AnnotatorReliability {
	by, names := lc.byAnnotator()
	var out []AnnotatorReliability
	for _, name := range names {
		gs := groups(by[name])
		r := AnnotatorReliability{Annotator: name, Decisions: len(gs)}
		var secs []float64
		for _, g := range gs {
			s, ok := g.seconds()
			switch {
			case !ok || s < 0: // unknown, or a clock set back
			case s > PauseSeconds:
				r.Paused++
			default:
				r.Timed++
				secs = append(secs, s)
			}
		}
		r.MedianSeconds = median(secs, "no decision has a time on screen")
		r.Fatigue = lc.fatigue(gs)
		r.Retest = lc.retest(name, by[name])
		r.Anchoring = lc.anchoring(name, by[name])
		out = append(out, r)
	}
	return out
}

// fatigue compares the first quarter of each sitting with its last: the
// median time per decision and the agreement of the labels with each
// judge. A sitting is a review from open to quit; one of fewer than
// FatigueMinDecisions decisions has no quarters and is left out, as are
// decisions whose sitting is not recorded. A quarter is the floor of a
// quarter of the sitting's decisions, the same number at both ends.
func (lc *labellingData) fatigue(gs []groupOf) *Fatigue {
	bySitting := map[string][]groupOf{}
	var order []string
	for _, g := range gs {
		s := g[0].Sitting
		if s == "" {
			continue
		}
		if _, seen := bySitting[s]; !seen {
			order = append(order, s)
		}
		bySitting[s] = append(bySitting[s], g)
	}
	f := &Fatigue{}
	var first, last []groupOf
	for _, s := range order {
		sg := bySitting[s]
		if len(sg) < FatigueMinDecisions {
			continue
		}
		f.Sittings++
		k := len(sg) / 4
		first = append(first, sg[:k]...)
		last = append(last, sg[len(sg)-k:]...)
	}
	if f.Sittings == 0 {
		return nil
	}
	f.First, f.Last = lc.quarter(first), lc.quarter(last)
	return f
}

// quarter is the figures of the decisions of one quarter.
func (lc *labellingData) quarter(gs []groupOf) QuarterFigures {
	q := QuarterFigures{Decisions: len(gs)}
	var secs []float64
	var compared []decision
	for _, g := range gs {
		if s, ok := g.seconds(); ok && s >= 0 && s <= PauseSeconds {
			secs = append(secs, s)
		}
		for _, d := range g {
			if !d.Retest && lc.compared(d) {
				compared = append(compared, d)
			}
		}
	}
	q.MedianSeconds = median(secs, "no decision has a time on screen")
	q.Judges = lc.shares(compared)
	return q
}

// labelPlace is a label's place: its unit and dimension.
type labelPlace struct {
	item      string
	criterion int
	dimension string
}

// retestPair is a re-test label and the label the item had when it came
// back.
type retestPair struct {
	first, retest decision
}

// retest is the person's agreement with themselves: every live re-test
// label or accept against the latest of their own labels on the same
// unit and dimension made before it (the label the item had when it came
// back). Only the latest live re-test of a place counts; a re-test that
// is a "can't judge", or that has no label before it, gives no pair. The
// pairs are compared per dimension, on the dimension's scale.
func (lc *labellingData) retest(annotator string, ds []decision) []RetestAgreement {
	// Only the places re-tested need their labels followed.
	retested := map[labelPlace]bool{}
	for _, d := range ds {
		if d.Retest {
			retested[labelPlace{d.ItemID, d.Criterion, d.Dimension}] = true
		}
	}
	if len(retested) == 0 {
		return []RetestAgreement{}
	}
	current := map[labelPlace]decision{}
	pairs := map[labelPlace]retestPair{}
	for _, d := range ds {
		p := labelPlace{d.ItemID, d.Criterion, d.Dimension}
		if !retested[p] && !(d.Retest && d.Kind == KindCantJudge) {
			continue
		}
		switch {
		case d.Retest && d.Kind == KindCantJudge:
			// A "can't judge" at a re-test answers for the whole item.
			for q := range pairs {
				if q.item == d.ItemID {
					delete(pairs, q)
				}
			}
		case d.Retest:
			if first, ok := current[p]; ok {
				pairs[p] = retestPair{first, d}
			} else {
				delete(pairs, p)
			}
		case d.Kind != KindCantJudge:
			current[p] = d
		}
	}
	scales := lc.scales()
	byDim := map[string]Confusion{}
	for p, pr := range pairs {
		scale, ok := scales[p.dimension]
		if !ok || !lc.compared(pr.first) || !lc.compared(pr.retest) {
			continue
		}
		cats := scale.Values()
		a, b := categoryIndex(cats, pr.first.Value), categoryIndex(cats, pr.retest.Value)
		if a < 0 || b < 0 {
			continue
		}
		c, ok := byDim[p.dimension]
		if !ok {
			c = NewConfusion(cats)
			byDim[p.dimension] = c
		}
		c.Counts[a][b]++
	}
	out := []RetestAgreement{}
	for _, dim := range sortedKeys(byDim) {
		c := byDim[dim]
		b := c.bootstrapTable(deriveSeed(lc.c.opts.Seed, "labelling", "retest", annotator, dim), "cohen-kappa", lc.c.opts.Resamples, []tableCoef{coefCohenKappa})
		out = append(out, RetestAgreement{
			Dimension: dim, Scale: string(scales[dim]), Pairs: c.N(),
			PercentAgreement: c.PercentAgreement(),
			CohenKappa:       withBounds(c.CohenKappa(), b[0]),
			Stable:           c.N() >= MinReliableItems,
		})
	}
	return out
}

// scales is the scale of every dimension a judge rates or people label
// (the first met when two judges differ).
func (lc *labellingData) scales() map[string]judge.Scale {
	out := map[string]judge.Scale{}
	add := func(d judge.Dimension) {
		if _, ok := out[d.Name]; !ok && d.Scale.Known() {
			out[d.Name] = d.Scale
		}
	}
	for _, js := range lc.judges {
		for _, d := range js.Dimensions {
			add(d)
		}
	}
	for _, d := range lc.c.in.Dimensions {
		add(d)
	}
	return out
}

// anchoring compares, per judge, the person's agreement with its verdict
// on blind labels and on decisions made with its verdict shown. Each
// unit and dimension counts once, at the person's first live label or
// accept there (not a re-test): a blind label changed after the reveal
// counts as the blind one, and a first look made with the verdict shown
// counts as shown. A blind decision counts for every judge (no verdict
// was on screen); a shown one only for the judge whose verdict it was
// (ShownJudge): another judge's verdict on screen says nothing of how
// this one's sways the person, and it is not blind to this one either,
// so it counts for neither side. A judge no decision was made with
// thus has no shown side, and no alarm. Places whose first decision has
// no recorded visibility (before schema v8, imported, gavel label) are
// left out.
func (lc *labellingData) anchoring(annotator string, ds []decision) []Anchoring {
	type place struct {
		unit      int32
		dimension string
	}
	seen := make(map[place]bool, len(ds))
	var blind []decision
	shown := map[string][]decision{} // by the judge shown
	for _, d := range ds {
		if d.Retest || d.Kind == KindCantJudge || d.unit < 0 {
			continue
		}
		p := place{d.unit, d.Dimension}
		if seen[p] {
			continue
		}
		seen[p] = true
		if !lc.compared(d) {
			continue
		}
		switch d.Shown {
		case ShownBlind:
			blind = append(blind, d)
		case ShownVerdict:
			if d.ShownJudge != "" {
				shown[d.ShownJudge] = append(shown[d.ShownJudge], d)
			}
		}
	}
	out := []Anchoring{}
	for j, js := range lc.judges {
		a := Anchoring{Judge: js.Key}
		a.Blind = lc.shareWith(blind, j)
		a.Shown = lc.shareWith(shown[js.Key], j)
		if a.Blind.N+a.Shown.N == 0 {
			continue
		}
		a.Difference = NewcombeIndependent(a.Shown.Agreed, a.Shown.N, a.Blind.Agreed, a.Blind.N)
		switch {
		case a.Difference.Defined():
		case a.Shown.N == 0:
			a.Difference.Reason = "no decision was made with this judge's verdict on screen"
		default:
			a.Difference.Reason = "needs both blind decisions and decisions with the verdict shown"
		}
		a.Large = largeAnchoring(a.Difference)
		if a.Large {
			a.Sentence = anchoringSentence(annotator, js.Key, a)
		}
		out = append(out, a)
	}
	return out
}

// shareWith is judge j's share of decisions, or an empty one with its
// reason.
func (lc *labellingData) shareWith(decisions []decision, j int) Share {
	var s Share
	for _, d := range decisions {
		if counted, agreed := lc.agreement(d, j); counted {
			s.N++
			if agreed {
				s.Agreed++
			}
		}
	}
	if s.N == 0 {
		return Share{Agreement: undefinedInterval("no decision to compare with the judge's verdict")}
	}
	s.Agreement = Wilson(s.Agreed, s.N)
	return s
}

// largeAnchoring tells a difference the report calls large: at least
// LargeAnchoring either way, with an interval that leaves out 0.
func largeAnchoring(d Interval) bool {
	return d.Defined() && d.HasBounds() && math.Abs(d.Value) >= LargeAnchoring && (d.Low > 0 || d.High < 0)
}

// anchoringSentence says plainly what a large difference means.
func anchoringSentence(annotator, judgeKey string, a Anchoring) string {
	points := FormatNumber(100*math.Abs(a.Difference.Value), 0)
	if a.Difference.Value > 0 {
		return fmt.Sprintf("%s agreed with %s %s points more often with its verdict on screen (%s) than blind (%s): the verdict may be swaying the labels, so the blind labels are the fairer measure of the judge.",
			annotator, judgeKey, points, FormatPercent(a.Shown.Agreement.Value, 1), FormatPercent(a.Blind.Agreement.Value, 1))
	}
	return fmt.Sprintf("%s agreed with %s %s points less often with its verdict on screen (%s) than blind (%s): seeing the verdict may be pushing the labels away from it.",
		annotator, judgeKey, points, FormatPercent(a.Shown.Agreement.Value, 1), FormatPercent(a.Blind.Agreement.Value, 1))
}
