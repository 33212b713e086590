package render

import (
	"slices"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// TextWidth is the width `gavel stats` prints at: the inside of the
// statistics screen in an 80-column terminal, so the text is the screen's
// lines.
const TextWidth = 76

// Select keeps the part of a report about the given judges (keys as in
// stats.JudgeReport.Judge): their figures, every judge pair with one of
// them on either side, and the agreement between annotators on the
// dimensions they rate. Nil keys keep every judge. The screen shows the
// active judge's part, and `gavel stats --judge` prints the same part in
// every format. The lists of the part are never nil, so that JSON writes
// them as [] and not null.
func Select(r stats.Report, keys []string) stats.Report {
	if keys == nil {
		return r
	}
	out := r
	out.Judges = []stats.JudgeReport{}
	out.JudgePairs = []stats.JudgePair{}
	out.Humans = []stats.HumanAgreement{}
	type dim struct {
		name  string
		scale judge.Scale
	}
	rated := map[dim]bool{}
	for _, jr := range r.Judges {
		if slices.Contains(keys, jr.Judge) {
			out.Judges = append(out.Judges, jr)
			for _, d := range jr.Dimensions {
				rated[dim{d.Dimension, d.Scale}] = true
			}
		}
	}
	for _, p := range r.JudgePairs {
		if slices.Contains(keys, p.Judge) || slices.Contains(keys, p.Reference) {
			out.JudgePairs = append(out.JudgePairs, p)
		}
	}
	out.OperatingPoints = []stats.OperatingPoints{}
	for _, op := range r.OperatingPoints {
		if slices.Contains(keys, op.Judge) {
			out.OperatingPoints = append(out.OperatingPoints, op)
		}
	}
	out.Reliability = []stats.Reliability{}
	for _, rel := range r.Reliability {
		if slices.Contains(keys, rel.Judge) {
			out.Reliability = append(out.Reliability, rel)
		}
	}
	for _, h := range r.Humans {
		if rated[dim{h.Dimension, h.Scale}] {
			out.Humans = append(out.Humans, h)
		}
	}
	out.Labelling = selectLabelling(r.Labelling, keys)
	return out
}

// selectLabelling keeps the labelling section's figures about the given
// judges (tags among their disagreements, fatigue and anchoring against
// them), and everything about people alone. It copies what it changes:
// the report it comes from keeps its figures.
func selectLabelling(l *stats.Labelling, keys []string) *stats.Labelling {
	if l == nil {
		return nil
	}
	out := *l
	if t := l.Tags; t != nil {
		tags := *t
		tags.Disagreements = []stats.TagDisagreements{}
		for _, d := range t.Disagreements {
			if slices.Contains(keys, d.Judge) {
				tags.Disagreements = append(tags.Disagreements, d)
			}
		}
		out.Tags = &tags
	}
	keepShares := func(list []stats.JudgeShare) []stats.JudgeShare {
		kept := []stats.JudgeShare{}
		for _, j := range list {
			if slices.Contains(keys, j.Judge) {
				kept = append(kept, j)
			}
		}
		return kept
	}
	out.Annotators = make([]stats.AnnotatorReliability, len(l.Annotators))
	for i, a := range l.Annotators {
		if f := a.Fatigue; f != nil {
			ff := *f
			ff.First.Judges, ff.Last.Judges = keepShares(f.First.Judges), keepShares(f.Last.Judges)
			a.Fatigue = &ff
		}
		anchoring := []stats.Anchoring{}
		for _, an := range a.Anchoring {
			if slices.Contains(keys, an.Judge) {
				anchoring = append(anchoring, an)
			}
		}
		a.Anchoring = anchoring
		out.Annotators[i] = a
	}
	return &out
}
