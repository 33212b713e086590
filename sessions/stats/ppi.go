package stats

import (
	"fmt"
	"math"
)

// benchmark estimates the mean score a human would give the judged units
// (a pass rate on a binary scale, a mean on a Likert scale, the share of B
// on a pairwise one) two ways, both from counts:
//
//   - LabelsOnly: the humans' mean over the n fairly labelled units with
//     the classical normal interval, mean ± z·sd/√n, sd with divisor n —
//     ppi_py's classical_mean_ci (ppi_py/baselines.py).
//   - PPI: prediction-powered inference with PPI++'s power tuning for the
//     mean (Angelopoulos, Bates, Fannjiang, Jordan and Zrnic,
//     "Prediction-powered inference", Science 382, 2023; Angelopoulos,
//     Duchi and Zrnic, "PPI++: Efficient prediction-powered inference",
//     2024), computed exactly as ppi_py's ppi_mean_ci does by default
//     (lam=None; aangelopoulos/ppi_py, ppi_py/ppi.py, ppi_mean_ci and
//     _calc_lam_glm with clip=True, formerly _calc_lhat_glm); see ppiMean.
//
// fair counts the units with both an ok verdict and a fair (random, or
// census) human label: Counts[r][j], human category r, judge category j.
// judged[j] counts every unit with an ok verdict in category j, labelled
// or not, so the N unlabelled units' verdicts are judged[j] minus column j
// of fair. A negative difference is a caller bug (a labelled unit must be
// a judged unit); it is clamped at 0 rather than trusted. noFair, when not
// empty, says why there is no fair label: every estimate is then
// undefined with that reason.
//
// Both intervals treat the judged units as a sample of the items the
// benchmark stands for (ppi_py's model, in which labelled and unlabelled
// units are draws from one population): they carry no finite-population
// correction, so they are slightly conservative for the judged units
// themselves when a large share of them is labelled. When every judged
// unit is labelled (a census) the verdicts add nothing: PPI is the labels'
// interval, Lambda 0 and EffectiveLabels n.
//
// The point estimates are never clamped (ppi_py does not clamp; PPI's can
// stray just past the scale's ends); the interval bounds are clamped to
// the scale's range [lowest, highest category], which costs no coverage as
// the true mean lies in that range.
func benchmark(fair Confusion, judged []int, noFair string) Benchmark {
	b := Benchmark{Judged: sum(judged), Labelled: fair.N()}
	undef := func(reason string) Benchmark {
		b.LabelsOnly, b.PPI = undefinedInterval(reason), undefinedInterval(reason)
		b.Lambda, b.EffectiveLabels = undefined(reason), undefined(reason)
		return b
	}
	switch {
	case noFair != "":
		return undef(noFair)
	case b.Labelled == 0 && b.Judged == 0:
		return undef("no judged items")
	case b.Labelled == 0:
		return undef("no judged item has a random label")
	case b.Labelled < 2:
		return undef(fmt.Sprintf("needs at least 2 random labels, has %d", b.Labelled))
	}

	k := fair.k()
	unlabelled := make([]int, k)
	for j := range unlabelled {
		col := 0
		for r := range k {
			col += fair.Counts[r][j]
		}
		if j < len(judged) {
			unlabelled[j] = max(judged[j]-col, 0)
		}
	}
	p := ppiMean(fair.Categories, fair.Counts, unlabelled)

	lo, hi := fair.Categories[0], fair.Categories[k-1]
	clamp := func(v, se float64) Interval {
		return Interval{
			Value: v,
			Low:   min(max(v-z975*se, lo), hi),
			High:  max(min(v+z975*se, hi), lo),
		}
	}
	b.LabelsOnly = clamp(p.labelsMean, p.labelsSE)
	b.PPI = clamp(p.point, p.se)
	b.Lambda = defined(p.lambda)
	// EffectiveLabels = n·Var(labels-only mean)/Var(PPI mean): how many
	// random labels alone would give a labels-only interval as narrow as
	// PPI's (the width goes as 1/√n). "Your n labels and N verdicts are
	// worth about this many labels alone."
	if p.se > 0 {
		b.EffectiveLabels = defined(float64(p.n) * (p.labelsSE / p.se) * (p.labelsSE / p.se))
	} else {
		b.EffectiveLabels = undefined("the interval has no width: the labels and verdicts show no spread")
	}
	return b
}

// ppiEstimate is ppiMean's result.
type ppiEstimate struct {
	// n labelled and N unlabelled units.
	n, N int
	// labelsMean and labelsSE are the labelled humans' mean and its
	// standard error sd/√n (sd with divisor n).
	labelsMean, labelsSE float64
	// lambdaRaw is PPI++'s weight before clipping, lambda after (to
	// [0, 1]); point and se are the prediction-powered mean and its
	// standard error.
	lambdaRaw, lambda float64
	point, se         float64
}

// ppiMean is ppi_py's ppi_mean_ci with its defaults (lam=None, no weights,
// one dimension), transliterated to counts: cats are the category values,
// counts[r][j] the labelled units with human category r and judge
// category j (n of them), unlabelled[j] the unlabelled units the judge put
// in category j (N of them). With y the human value and f the judge's:
//
//	λ̂ = Cov_n(y, f) / ((1 + n/N) · Var_{n+N−1}(f over all n+N units)), clipped to [0, 1]
//	θ̂ = λ̂·mean(f, unlabelled) + mean(y − λ̂f, labelled)
//	se² = Var_N(λ̂f, unlabelled)/N + Var_n(y − λ̂f, labelled)/n
//
// where Cov_n and Var_n divide by the count (numpy's .std() and
// _calc_lam_glm's "(1/n) *"), and Var_{n+N−1} by the count less one
// (np.cov). The interval is θ̂ ± z·se (statsmodels' _zconfint_generic).
// ppi_py computes λ̂ from gradients centred at the λ = 1 estimate; the
// centring cancels in a covariance, so it is left out.
//
// Where ppi_py would return NaN this returns the labels-only answer with
// λ̂ = 0: when N = 0 (ppi_py divides by N) and when the verdicts never
// vary (0/0). Needs n ≥ 1; the caller asks for n ≥ 2.
//
// Everything is a sum over the k×k table, O(k²): two passes, the second
// on values centred at the first's means for accuracy.
func ppiMean(cats []float64, counts [][]int, unlabelled []int) ppiEstimate {
	var p ppiEstimate
	var sy, sf, su float64
	for r, row := range counts {
		for j, c := range row {
			if c == 0 {
				continue
			}
			p.n += c
			sy += float64(c) * cats[r]
			sf += float64(c) * cats[j]
		}
	}
	for j, c := range unlabelled {
		p.N += c
		su += float64(c) * cats[j]
	}
	n, N := float64(p.n), float64(p.N)
	my, mf := sy/n, sf/n
	mAll := (sf + su) / (n + N) // the judge's mean over all n + N units
	mu := 0.0
	if p.N > 0 {
		mu = su / N
	}

	// Centred sums: labelled y, f and their product; f over every unit
	// about its overall mean; unlabelled f about its own.
	var syy, sff, syf, sAll, suu float64
	for r, row := range counts {
		for j, c := range row {
			if c == 0 {
				continue
			}
			dy, df, da := cats[r]-my, cats[j]-mf, cats[j]-mAll
			w := float64(c)
			syy += w * dy * dy
			sff += w * df * df
			syf += w * dy * df
			sAll += w * da * da
		}
	}
	for j, c := range unlabelled {
		if c == 0 {
			continue
		}
		da, du := cats[j]-mAll, cats[j]-mu
		sAll += float64(c) * da * da
		suu += float64(c) * du * du
	}

	p.labelsMean = my
	p.labelsSE = math.Sqrt(syy / n / n) // as se below when λ = 0

	if p.N > 0 && sAll > 0 {
		covYF := syf / n
		varAll := sAll / (n + N - 1)
		p.lambdaRaw = covYF / ((1 + n/N) * varAll)
		p.lambda = min(max(p.lambdaRaw, 0), 1)
	}
	l := p.lambda
	p.point = l*mu + my - l*mf
	// Var_n(y − λf) = Var_n(y) − 2λ·Cov_n(y, f) + λ²·Var_n(f), clamped at
	// 0 against rounding.
	rect := max((syy-2*l*syf+l*l*sff)/n, 0)
	v := rect / n
	if p.N > 0 {
		v += l * l * suu / N / N
	}
	p.se = math.Sqrt(v)
	return p
}
