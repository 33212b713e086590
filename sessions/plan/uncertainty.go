package plan

import (
	"fmt"
	"math"
	"strconv"
)

// Evidence is what a judge's verdict says of its own certainty, as
// Uncertainty reads it. The zero value is a verdict that says nothing.
type Evidence struct {
	// Confidence is the probability the judge gave its own verdict (from
	// logprobs, or imported), in [0, 1]; nil when unknown or withheld as
	// meaningless (the caller leaves a withheld one out).
	Confidence *float64
	// Value is the verdict's value on the plan's dimension; Samples the
	// values its samples gave on it (the readable ones) when the judge
	// sampled several times.
	Value   float64
	Samples []float64
	// SampleConfidences holds each sample's own confidence, beside
	// Samples (NaN where a sample has none); nil when none has one.
	SampleConfidences []float64
	// Others are the values other judges gave the item on the same
	// dimension and scale (their ok verdicts), when any did.
	Others []float64
	// Ordinal is set for a score on an ordinal scale from Lo to Hi with
	// the pass cut Cut (an item passes at a score ≥ Cut).
	Ordinal     bool
	Lo, Hi, Cut float64
}

// Uncertainty reads how unsure a verdict is, in [0, 1], from the first of
// these it has:
//
//   - two or more samples: √(1 − c) with c the probability the samples
//     give the verdict's value — the mean over the samples of each one's
//     confidence when it agrees and one minus it when it does not, when
//     every sample has a confidence; else the share of the samples that
//     agree. (A sampled verdict's own confidence is the mean over the
//     agreeing samples only, judge/llm's combineSamples: three of five
//     samples at 0.99 would read as sure.)
//   - a confidence c, the probability the judge gave its own verdict:
//     √(1 − c) (Zrnic & Candès 2024 sample in proportion to √(1−c) for a
//     binary judge: the root of the chance that the verdict is wrong);
//   - an ordinal score s with a pass cut k on a scale from lo to hi:
//     1 − |s − k| / max(k − lo, hi − k), clamped to [0, 1], so a score at
//     the cut is the most uncertain and the scale's ends the least;
//   - other judges' verdicts on the item (binary, nominal, pairwise: a
//     score is read by its cut above): √(1 − c) with c the share of the
//     judges, this one included, that agree with its value.
//
// ok is false when the verdict says none of these; how says in a few
// words what the uncertainty came from ("confidence 0.50", "3 of 4
// samples agree", "score 3, cut 3.5").
func Uncertainty(e Evidence) (u float64, how string, ok bool) {
	if len(e.Samples) >= 2 {
		agree := 0
		for _, x := range e.Samples {
			if x == e.Value {
				agree++
			}
		}
		if c, ok := sampleProbability(e); ok {
			return math.Sqrt(1 - c), fmt.Sprintf("%d of %d samples agree, P %s", agree, len(e.Samples), short(c)), true
		}
		c := float64(agree) / float64(len(e.Samples))
		return math.Sqrt(1 - c), fmt.Sprintf("%d of %d samples agree", agree, len(e.Samples)), true
	}
	if e.Confidence != nil && !math.IsNaN(*e.Confidence) {
		c := clamp01(*e.Confidence)
		return math.Sqrt(1 - c), "confidence " + short(c), true
	}
	if e.Ordinal && e.Hi > e.Lo && !math.IsNaN(e.Value) {
		span := max(e.Cut-e.Lo, e.Hi-e.Cut)
		if span > 0 {
			u := clamp01(1 - math.Abs(e.Value-e.Cut)/span)
			return u, "score " + short(e.Value) + ", cut " + short(e.Cut), true
		}
	}
	if len(e.Others) > 0 {
		agree := 1
		for _, o := range e.Others {
			if o == e.Value {
				agree++
			}
		}
		c := float64(agree) / float64(len(e.Others)+1)
		return math.Sqrt(1 - c), fmt.Sprintf("%d of %d judges agree", agree, len(e.Others)+1), true
	}
	return 0, "", false
}

// DefaultCut is the pass cut of an ordinal scale from lo to hi when none
// is given: its midpoint (3 on 1–5, 5.5 on 1–10, 0.5 on ternary).
func DefaultCut(lo, hi float64) float64 { return (lo + hi) / 2 }

// Sizes turns uncertainties into size measures: a known one as it is, an
// unknown one (known[i] false) the mean of the known ones, as SPEC "Labels
// where they count" asks (an unknown confidence is given the mean
// uncertainty of the items whose confidence is known). When none is known
// every size is 1 and allUnknown is set: the plan is then uniform, and
// the caller says so. mean is the mean of the known ones.
func Sizes(u []float64, known []bool) (sizes []float64, mean float64, allUnknown bool) {
	sizes = make([]float64, len(u))
	sum, n := 0.0, 0
	for i, x := range u {
		if known[i] {
			sum += x
			n++
		}
	}
	if n == 0 {
		for i := range sizes {
			sizes[i] = 1
		}
		return sizes, 0, true
	}
	mean = sum / float64(n)
	for i, x := range u {
		if known[i] {
			sizes[i] = x
		} else {
			sizes[i] = mean
		}
	}
	return sizes, mean, false
}

// sampleProbability is the mean over e's samples of the probability each
// gives the verdict's value: its confidence when it agrees, one minus it
// when it does not; ok is false unless every sample has a confidence.
func sampleProbability(e Evidence) (float64, bool) {
	if len(e.SampleConfidences) != len(e.Samples) {
		return 0, false
	}
	sum := 0.0
	for i, x := range e.Samples {
		c := e.SampleConfidences[i]
		if math.IsNaN(c) {
			return 0, false
		}
		c = clamp01(c)
		if x != e.Value {
			c = 1 - c
		}
		sum += c
	}
	return sum / float64(len(e.Samples)), true
}

func clamp01(x float64) float64 { return min(1, max(0, x)) }

// short writes a number with at most two decimals and no trailing zeros.
func short(x float64) string {
	return strconv.FormatFloat(math.Round(x*100)/100, 'f', -1, 64)
}
