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
	return out
}
