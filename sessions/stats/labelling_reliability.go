package stats

import (
	"fmt"
	"math"
	"slices"

	"github.com/gavel-dev/gavel/judge"
)

// annotatorPrep is an annotator's reliability as far as it needs no
// judge (prepareReliability).
type annotatorPrep struct {
	r  AnnotatorReliability
	ds []decision
	// first and last are the first and last quarters of the sittings
	// long enough for the fatigue check (nil r.Fatigue when none).
	first, last []groupOf
}

// prepareReliability works out, for each annotator sorted by name, the
// decisions, their times, the fatigue check's quarters and their times,
// and the agreement with their own re-tests.
func (lc *labellingData) prepareReliability() []annotatorPrep {
	by, names := lc.byAnnotator()
	out := make([]annotatorPrep, 0, len(names))
	for _, name := range names {
		gs := groups(by[name])
		p := annotatorPrep{r: AnnotatorReliability{Annotator: name, Decisions: len(gs)}, ds: by[name]}
		secs := make([]float64, 0, len(gs))
		for _, g := range gs {
			s, ok := g.seconds()
			switch {
			case !ok || s < 0: // unknown, or a clock set back
			case s > PauseSeconds:
				p.r.Paused++
			default:
				p.r.Timed++
				secs = append(secs, s)
			}
		}
		p.r.MedianSeconds = median(secs, "no decision has a time on screen")
		p.r.Fatigue, p.first, p.last = lc.fatigue(gs)
		p.r.Retest = lc.retest(name, by[name])
		out = append(out, p)
	}
	return out
}

// finishReliability adds to each annotator's reliability the figures
// that compare their decisions with the judges: the fatigue check's
// agreement and the anchoring check.
func (lc *labellingData) finishReliability(ps []annotatorPrep) []AnnotatorReliability {
	var out []AnnotatorReliability
	for _, p := range ps {
		r := p.r
		if r.Fatigue != nil {
			r.Fatigue.First.Judges, r.Fatigue.Last.Judges = lc.quarterShares(p.first), lc.quarterShares(p.last)
		}
		r.Anchoring = lc.anchoring(r.Annotator, p.ds)
		out = append(out, r)
	}
	return out
}

// fatigue compares the first quarter of each sitting with its last: the
// median time per decision and the agreement of the labels with each
// judge (added by finishReliability from first and last). A sitting is a
// review from open to quit; one of fewer than FatigueMinDecisions
// decisions has no quarters and is left out, as are decisions whose
// sitting is not recorded. A quarter is the floor of a quarter of the
// sitting's decisions, the same number at both ends.
func (lc *labellingData) fatigue(gs []groupOf) (f *Fatigue, first, last []groupOf) {
	// Number the sittings in order met, then lay the groups out sitting
	// by sitting (a counting sort keeps each sitting's order).
	index := map[string]int{}
	var counts []int
	of := make([]int32, len(gs))
	lastName, lastIdx := "", -1
	for i, g := range gs {
		s := g[0].Sitting
		if s == "" {
			of[i] = -1
			continue
		}
		if s != lastName || lastIdx < 0 {
			k, seen := index[s]
			if !seen {
				k = len(counts)
				index[s] = k
				counts = append(counts, 0)
			}
			lastName, lastIdx = s, k
		}
		of[i] = int32(lastIdx)
		counts[lastIdx]++
	}
	starts := make([]int, len(counts)+1)
	for k, n := range counts {
		starts[k+1] = starts[k] + n
	}
	laid := make([]groupOf, starts[len(counts)])
	fill := slices.Clone(starts[:len(counts)])
	for i, g := range gs {
		if k := of[i]; k >= 0 {
			laid[fill[k]] = g
			fill[k]++
		}
	}
	f = &Fatigue{}
	quarters := 0
	for _, n := range counts {
		if n >= FatigueMinDecisions {
			quarters += n / 4
		}
	}
	first, last = make([]groupOf, 0, quarters), make([]groupOf, 0, quarters)
	for k := range counts {
		sg := laid[starts[k]:starts[k+1]]
		if len(sg) < FatigueMinDecisions {
			continue
		}
		f.Sittings++
		q := len(sg) / 4
		first = append(first, sg[:q]...)
		last = append(last, sg[len(sg)-q:]...)
	}
	if f.Sittings == 0 {
		return nil, nil, nil
	}
	f.First, f.Last = quarterTimes(first), quarterTimes(last)
	return f, first, last
}

// quarterTimes is the decisions of one quarter and their median time.
func quarterTimes(gs []groupOf) QuarterFigures {
	q := QuarterFigures{Decisions: len(gs)}
	secs := make([]float64, 0, len(gs))
	for _, g := range gs {
		if s, ok := g.seconds(); ok && s >= 0 && s <= PauseSeconds {
			secs = append(secs, s)
		}
	}
	q.MedianSeconds = median(secs, "no decision has a time on screen")
	return q
}

// quarterShares is the agreement of one quarter's labels with each judge
// (as shares counts them, without gathering them first).
func (lc *labellingData) quarterShares(gs []groupOf) []JudgeShare {
	out := []JudgeShare{}
	for j, js := range lc.judges {
		var s Share
		for _, g := range gs {
			for _, d := range g {
				if !d.Retest && d.compared() {
					lc.tally(&s, d, j)
				}
			}
		}
		if s.N > 0 {
			out = append(out, JudgeShare{Judge: js.Key, Share: finishShare(s)})
		}
	}
	return out
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
	// Only the places re-tested need their labels followed: on a unit,
	// marked by unit and dimension (no string to hash for every decision),
	// else by name.
	retested := map[labelPlace]bool{}
	marks := make([][]bool, len(lc.dimNames))
	for _, d := range ds {
		if !d.Retest {
			continue
		}
		if d.unit >= 0 {
			if marks[d.dim] == nil {
				marks[d.dim] = make([]bool, len(lc.c.in.Units))
			}
			marks[d.dim][d.unit] = true
		}
		retested[labelPlace{d.ItemID, d.Criterion, d.Dimension}] = true
	}
	if len(retested) == 0 {
		return []RetestAgreement{}
	}
	current := map[labelPlace]decision{}
	pairs := map[labelPlace]retestPair{}
	for _, d := range ds {
		if !d.Retest && d.unit >= 0 && (marks[d.dim] == nil || !marks[d.dim][d.unit]) {
			continue // a place never re-tested
		}
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
		if !ok || !pr.first.compared() || !pr.retest.compared() {
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
	// seen[dim][unit]: the place had its first decision.
	seen := make([][]bool, len(lc.dimNames))
	// Each side is counted as it goes, per judge: the judge shown by its
	// index in the report (the decisions name it by key).
	blind, shown := make([]Share, len(lc.judges)), make([]Share, len(lc.judges))
	index := make(map[string]int, len(lc.judges))
	for j, js := range lc.judges {
		index[js.Key] = j
	}
	lastJudge, lastIndex := "", -1
	for _, d := range ds {
		if d.Retest || d.Kind == KindCantJudge || d.unit < 0 {
			continue
		}
		if seen[d.dim] == nil {
			seen[d.dim] = make([]bool, len(lc.c.in.Units))
		}
		if seen[d.dim][d.unit] {
			continue
		}
		seen[d.dim][d.unit] = true
		if !d.compared() {
			continue
		}
		switch d.Shown {
		case ShownBlind:
			for j := range lc.judges {
				lc.tally(&blind[j], d, j)
			}
		case ShownVerdict:
			if d.ShownJudge != lastJudge || lastIndex < 0 {
				j, ok := index[d.ShownJudge]
				if !ok {
					j = len(lc.judges) // a judge not reported on
				}
				lastJudge, lastIndex = d.ShownJudge, j
			}
			if lastIndex < len(lc.judges) {
				lc.tally(&shown[lastIndex], d, lastIndex)
			}
		}
	}
	out := []Anchoring{}
	for j, js := range lc.judges {
		a := Anchoring{Judge: js.Key, Blind: finishShare(blind[j]), Shown: finishShare(shown[j])}
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

// tally counts decision d in s, judge j's share, when it can be compared
// with the judge's verdict.
func (lc *labellingData) tally(s *Share, d decision, j int) {
	if counted, agreed := lc.agreement(d, j); counted {
		s.N++
		if agreed {
			s.Agreed++
		}
	}
}

// finishShare is s with its agreement, or an empty share with its reason.
func finishShare(s Share) Share {
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
