package stats

import (
	"math"
	"slices"
)

// percentileInterval returns the 2.5th and 97.5th percentiles of samples
// (sorted in place), interpolating linearly between order statistics as
// numpy.percentile does by default.
func percentileInterval(samples []float64) (lo, hi float64) {
	if len(samples) == 0 {
		return math.NaN(), math.NaN()
	}
	slices.Sort(samples)
	return quantile(samples, 0.025), quantile(samples, 0.975)
}

func quantile(sorted []float64, p float64) float64 {
	h := p * float64(len(sorted)-1)
	i := int(h)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}

// ScoreBias is how much the judge inflates (positive) or deflates
// (negative) the score: its mean value minus the reference's on the same
// items — the difference of pass rates on a binary scale, of mean scores
// otherwise. Unit: scale points (a proportion for binary).
//
// The interval is a percentile bootstrap with the given number of
// resamples: each resample draws len(items) items with replacement and
// recomputes the difference. Drawing the per-cell counts of the table
// from the multinomial gives exactly that distribution at a cost that does
// not grow with the number of items. The same seed and table always give
// the same interval. With resamples ≤ 0 the bounds are undefined.
func (c Confusion) ScoreBias(seed uint64, resamples int) Interval {
	n := c.N()
	if n == 0 {
		return undefinedInterval(reasonNoItems)
	}
	// The difference takes few values; resample those.
	diff := map[float64]int{}
	for r, row := range c.Counts {
		for j, x := range row {
			if x != 0 {
				diff[c.Categories[j]-c.Categories[r]] += x
			}
		}
	}
	values := make([]float64, 0, len(diff))
	for d := range diff {
		values = append(values, d)
	}
	slices.Sort(values) // map order must not reach the random stream
	counts := make([]int, len(values))
	point := 0.0
	for i, d := range values {
		counts[i] = diff[d]
		point += d * float64(counts[i])
	}
	out := Interval{Value: point / float64(n), Low: math.NaN(), High: math.NaN()}
	if resamples <= 0 {
		return out
	}
	r := newRand(seed, "score-bias")
	draw := make([]int, len(values))
	samples := make([]float64, resamples)
	for s := range samples {
		multinomial(r, n, counts, draw)
		sum := 0.0
		for i, d := range values {
			sum += d * float64(draw[i])
		}
		samples[s] = sum / float64(n)
	}
	out.Low, out.High = percentileInterval(samples)
	return out
}

// RoganGladen corrects an observed pass rate for a judge's errors (Rogan
// and Gladen 1978, "Estimating prevalence from the results of a screening
// test", American Journal of Epidemiology 107(1):71–76):
// (pObs + spec − 1) / (sens + spec − 1), clamped to [0, 1]. Undefined when
// sens + spec ≤ 1: such a judge carries no information about the truth.
func RoganGladen(pObs, sensitivity, specificity float64) Estimate {
	if !finite(pObs) || !finite(sensitivity) || !finite(specificity) {
		return undefined("needs an observed pass rate, a sensitivity and a specificity")
	}
	j := sensitivity + specificity - 1
	if j <= 0 {
		return undefined("the judge does no better than chance (sensitivity + specificity ≤ 1)")
	}
	return defined(min(max((pObs+specificity-1)/j, 0), 1))
}

// Corrected is a binary judge's pass rate over every judged item,
// corrected for the errors it makes on the labelled ones.
type Corrected struct {
	// Judged is the number of items with an ok verdict, labelled or not.
	Judged int `json:"judged"`
	// ObservedPassRate is the judge's share of YES over Judged, with a
	// Wilson interval: what the judge says the pass rate is.
	ObservedPassRate Interval `json:"observed_pass_rate"`
	// Sensitivity and Specificity are measured on the labelled items with
	// the humans as truth.
	Sensitivity Estimate `json:"sensitivity"`
	Specificity Estimate `json:"specificity"`
	// PassRate is the Rogan–Gladen estimate of the pass rate a human would
	// give, with a percentile-bootstrap 95 % interval.
	PassRate Interval `json:"pass_rate"`
	// Resamples is how many bootstrap resamples had a defined estimate
	// (sensitivity + specificity > 1); the others are left out.
	Resamples int `json:"resamples"`
}

// CorrectedPassRate estimates what a human would give as the pass rate of
// all judged items, from the judge's YES count over them (judgedYes of
// judged, every item with an ok verdict, labelled or not) and its errors on
// the labelled pairs in c (binary categories 0/1; the reference is the
// truth), which are some of those judged items.
//
// The judged items thus fall in six cells: the four of c (true and false
// positives and negatives) and the unlabelled ones the judge passed
// (judgedYes − TP − FP) or failed (judged − judgedYes − FN − TN). Each
// bootstrap resample draws judged items with replacement from those six
// cells at once (a multinomial, as ScoreBias does), so an item keeps its
// verdict and its label together, and recomputes the observed pass rate,
// the sensitivity, the specificity and the clamped estimate. When every
// judged item is labelled the estimate is the humans' pass rate on them,
// and so is every resample's: the interval is then the plain bootstrap of
// that rate. Resamples where the estimate is undefined (no labelled YES or
// NO, or sensitivity + specificity ≤ 1) are dropped and the count of kept
// ones is reported. Same seed, same inputs, same interval; with
// resamples ≤ 0 the bounds are undefined.
//
// Counts that contradict c being a subset of the judged items (fewer
// judged YES than labelled judge-YES pairs, or fewer judged NO than
// labelled judge-NO pairs) are raised to the labelled counts, the
// unlabelled cell then being empty: Judged, the observed pass rate and
// the estimate all use the raised counts.
func (c Confusion) CorrectedPassRate(judgedYes, judged int, seed uint64, resamples int) Corrected {
	judged = max(judged, 0)
	judgedYes = min(max(judgedYes, 0), judged)
	b, ok := c.Binary()
	if !ok {
		out := Corrected{Judged: judged, ObservedPassRate: withReason(Wilson(judgedYes, judged), "no judged items")}
		out.Sensitivity = undefined("not a binary scale")
		out.Specificity = out.Sensitivity
		out.PassRate = undefinedInterval("not a binary scale")
		return out
	}
	tp, fn, fp, tn := b.TruePositives, b.FalseNegatives, b.FalsePositives, b.TrueNegatives
	unlabelledYes := max(judgedYes-tp-fp, 0)
	unlabelledNo := max(judged-judgedYes-fn-tn, 0)
	judgedYes = tp + fp + unlabelledYes
	judged = judgedYes + fn + tn + unlabelledNo
	out := Corrected{Judged: judged, ObservedPassRate: withReason(Wilson(judgedYes, judged), "no judged items")}
	out.Sensitivity, out.Specificity = b.Recall.Estimate(), b.Specificity.Estimate()
	est := RoganGladen(out.ObservedPassRate.Value, out.Sensitivity.Value, out.Specificity.Value)
	if !est.Defined() {
		out.PassRate = undefinedInterval(est.Reason)
		if !out.ObservedPassRate.Defined() {
			out.PassRate.Reason = "no judged items"
		}
		return out
	}
	out.PassRate = Interval{Value: est.Value, Low: math.NaN(), High: math.NaN()}
	if resamples <= 0 {
		return out
	}
	r := newRand(seed, "corrected-pass-rate")
	cells := []int{tp, fn, fp, tn, unlabelledYes, unlabelledNo}
	draw := make([]int, len(cells))
	samples := make([]float64, 0, resamples)
	for range resamples {
		multinomial(r, judged, cells, draw)
		tp, fn, fp, tn := draw[0], draw[1], draw[2], draw[3]
		if tp+fn == 0 || tn+fp == 0 {
			continue
		}
		yes := tp + fp + draw[4]
		sens := float64(tp) / float64(tp+fn)
		spec := float64(tn) / float64(tn+fp)
		e := RoganGladen(float64(yes)/float64(judged), sens, spec)
		if e.Defined() {
			samples = append(samples, e.Value)
		}
	}
	out.Resamples = len(samples)
	out.PassRate.Low, out.PassRate.High = percentileInterval(samples)
	return out
}
