package stats

import "math"

// Half-widths LabelsNeeded aims at: ±2 and ±5 percentage points for
// rates, ±0.02 and ±0.05 for coefficients.
const (
	narrowHalfWidth = 0.02
	wideHalfWidth   = 0.05
)

// labelsNeeded says, for the figures a user narrows by labelling more
// (agreement, kappa and the corrected score), about how many more random
// labels would bring each interval to ±2 and ±5 points.
func labelsNeeded(f Figures) []LabelsNeeded {
	out := []LabelsNeeded{
		moreLabels("percent_agreement", f.VsHumans.N, f.VsHumans.PercentAgreement),
		moreLabels("cohen_kappa", f.VsHumans.N, f.VsHumans.CohenKappa),
	}
	switch {
	case f.Corrected != nil:
		out = append(out, moreLabels("corrected_pass_rate", f.Selection.Fair, f.Corrected.PassRate))
	case f.Benchmark != nil:
		out = append(out, moreLabels("benchmark", f.Benchmark.Labelled, f.Benchmark.PPI))
	}
	return out
}

// moreLabels is how many labels beyond n would bring iv's half-width to
// each target, were the interval to narrow as 1/√n — true of every
// interval here to first order, and of the corrected score as long as the
// labels, not the verdicts, carry most of its uncertainty.
func moreLabels(figure string, n int, iv Interval) LabelsNeeded {
	out := LabelsNeeded{Figure: figure, N: n}
	if n <= 0 || !iv.HasBounds() {
		reason := "needs an interval"
		if iv.Reason != "" {
			reason = iv.Reason
		}
		out.HalfWidth, out.For2, out.For5 = undefined(reason), undefined(reason), undefined(reason)
		return out
	}
	hw := (iv.High - iv.Low) / 2
	out.HalfWidth = defined(hw)
	if hw <= 0 {
		// Every label so far gave the same value: a normal interval is
		// then a point, which says nothing about how many labels it needs.
		reason := "every label so far is the same, so the interval says nothing yet"
		out.For2, out.For5 = undefined(reason), undefined(reason)
		return out
	}
	need := func(target float64) Estimate {
		if hw <= target {
			return defined(0)
		}
		// The tolerance keeps 400.0000001 (a rounding error) at 400.
		total := math.Ceil(float64(n)*(hw/target)*(hw/target) - 1e-9)
		return defined(total - float64(n))
	}
	out.For2, out.For5 = need(narrowHalfWidth), need(wideHalfWidth)
	return out
}
