package stats

import "math"

// Design-based estimation for a labelling plan (SPEC "Labels where they
// count"). A plan draws n of the N items with known inclusion
// probabilities π_i by sequential Poisson sampling (Ohlsson 1998, "Sequential
// Poisson sampling", Journal of Official Statistics 14:149–162): uniform
// (π_i = n/N, which is then simple random sampling without replacement),
// stratified (n_h/N_h in each stratum, i.e. stratified simple random
// sampling), or active (π_i from the judge's uncertainty with a uniform
// floor). Every estimate here weights a label by 1/π_i, so it is unbiased
// for the mean over ALL N items whatever the design (Horvitz and Thompson,
// JASA 47, 1952).
//
// Estimators, with y_i the human value, f_i the plan's verdict (0 where
// the item has none), m responders s and p_i their adjusted
// probabilities (see planSample):
//
//   - HT human mean   (1/N) Σ_s y_i/p_i
//   - Hájek mean       Σ_s y_i/p_i / Σ_s 1/p_i   (a ratio: stable when
//     the realised weights do not sum to N)
//   - corrected score  (1/N) [λ Σ_all f_i + Σ_s (y_i − λ f_i)/p_i], the
//     active prediction-powered estimate of Zrnic and Candès ("Active
//     Statistical Inference", ICML 2024, eq. for the mean with sampling
//     probabilities π), in its finite-population, fixed-size form: the
//     verdicts' sum is known exactly, only the residuals are estimated;
//     λ = 1 is plain (active) PPI, a tuned λ their power-tuned variant
//     (see planPowerTuning)
//   - agreement        (1/N) Σ_s 1[y_i = f_i]/p_i (no verdict: disagreement)
//
// Variance: for a fixed-size πps design such as sequential Poisson (and
// Pareto) sampling, the Hájek–Rosén approximation (Hájek 1964, Ann. Math.
// Stat. 35:1491–1523; Rosén 1997, "On sampling with probability
// proportional to size", JSPI 62:159–191, eq. 3.10, used for SPS by
// Ohlsson 1998, sec. 3):
//
//	V̂(Σ_s z_i/p_i) = m/(m−1) Σ_s (1−p_i) (z_i/p_i − A)²,
//	A = Σ_s (1−p_i) z_i/p_i / Σ_s (1−p_i).
//
// With equal probabilities p = m/N it is exactly the simple random
// sampling variance with finite-population correction, N²(1 − m/N) s²/m
// (Cochran 1977, Sampling Techniques, eq. 2.19), so uniform plans get the
// exact SRSWOR variance; stratified plans get it within each stratum,
// summed (Cochran eq. 5.6). Intervals are estimate ± t·se, t Student's
// 0.975 quantile with Satterthwaite's degrees of freedom (hrVar), the
// bounds clamped to the scale's range. The coverage simulation
// (plan_sim_test.go) checks them.
//
// Nonresponse: a planned item not (yet) labelled — "can't judge", a tie
// between the plan's annotators, or simply pending — is taken as missing
// at random within the design (within each stratum for a stratified
// plan): the m_g responders of the n_g selected items in group g are
// treated as a simple random subsample of them, so p_i = π_i·m_g/n_g
// (a two-phase design; Särndal, Swensson and Wretman 1992, Model Assisted
// Survey Sampling, ch. 15, response-homogeneity groups). Labelling a plan
// in its rank order is exactly that: the first m items of a sequential
// Poisson sample are a sequential Poisson sample of size m, with
// probabilities ≈ π_i·m/n.

// planPowerTuning chooses the power-tuned λ (Zrnic and Candès 2024,
// sec. 4: λ̂ = Ĉov(Ŷ, F̂)/V̂ar(F̂), clipped to [0, 1], where Ŷ and F̂ are the
// weighted totals of the labels and of the verdicts of the labelled items)
// over plain λ = 1. It is off: in the coverage simulation
// (plan_sim_test.go, 2,000 datasets, N 2,000, 100 labels) the tuned λ
// covered less for a judge whose confidence is uninformative (94.5 %
// against 95.4 % with λ = 1) and gave a wider interval for the informative
// one (31.5 % narrower than uniform against 34.7 %): estimating λ from 100
// labels, most of them where the judge errs, costs more than it saves
// with a judge good enough to plan with.
const planPowerTuning = false

// planSample is what the estimators read.
type planSample struct {
	// n is the population size N; fSum the sum of the verdicts over it.
	n    int
	fSum float64
	// Per responder: the human reference value, the verdict (0 without
	// one), 1[y = f] (0 without a verdict), the adjusted inclusion
	// probability and the stratum (0..groups-1).
	y, f, a, p []float64
	group      []int
	groups     int
}

// planFigure is one estimate with its standard error and the degrees of
// freedom of its interval (NaN when it cannot be estimated).
type planFigure struct {
	value, se, df float64
}

// halfWidth is the 95 % interval's half-width: t_{0.975, df}·se.
func (f planFigure) halfWidth() float64 {
	if math.IsNaN(f.se) {
		return math.NaN()
	}
	if f.se == 0 {
		return 0
	}
	return studentQuantile(0.975, f.df) * f.se
}

// planFigures is planSample.estimate's result.
type planFigures struct {
	ht, hajek, ppi, agree planFigure
	// lambda is the corrected score's weight on the verdicts.
	lambda float64
	// srsSE is the standard error the corrected score would have under a
	// uniform plan (simple random sampling) of the same m labels,
	// estimated from the labels; deff = ppi.se²/srsSE².
	srsSE, deff float64
}

// hrCov returns the Hájek–Rosén estimate of the covariance of the two
// weighted totals Σ_s a_i/p_i and Σ_s b_i/p_i, summed over strata (see the
// file comment). A stratum with one responder whose probability is below
// 1 leaves it undefined (NaN); certainty items (p = 1) add nothing.
func (s *planSample) hrCov(a, b []float64) float64 {
	v, _ := s.hr(a, b)
	return v
}

// hrVar returns the Hájek–Rosén variance of Σ_s z_i/p_i and the degrees of
// freedom of its interval. The variance is a sum of one term per
// responder below certainty, u_i = m_g/(m_g−1)·(1−p_i)(z_i/p_i − A_g)²; by Satterthwaite's
// approximation (Satterthwaite 1946, "An approximate distribution of
// estimates of variance components", Biometrics Bulletin 2:110–114),
// df = 2·V̂²/V̂ar(V̂), and taking each term as a scaled χ²₁, as it is for
// normal z, Var(u_i) = 2E(u_i)² is estimated by (2/3)u_i² (E u² = 3(E u)²
// for χ²₁), so df = 3(Σu_i)²/Σu_i², capped at m − (strata), the degrees of
// freedom of simple random sampling. For normal z with equal weights it
// is about m; when a few labels make most of the variance — rare judge
// errors caught at large weights, the case where the normal interval
// fails — it falls towards 1 and the t quantile widens the interval. The
// coverage simulation (plan_sim_test.go) shows what it buys.
func (s *planSample) hrVar(z []float64) (v, df float64) {
	return s.hr(z, z)
}

func (s *planSample) hr(a, b []float64) (v, df float64) {
	type acc struct {
		m         int
		w, sa, sb float64 // Σ(1−p), Σ(1−p)a/p, Σ(1−p)b/p
	}
	// Items included with certainty (p = 1) are a take-all stratum of
	// their own: no sampling variance, and not counted in m_g.
	g := make([]acc, max(s.groups, 1))
	for i, p := range s.p {
		q := 1 - p
		if !(q > 0) {
			continue
		}
		x := &g[s.group[i]]
		x.m++
		x.w += q
		x.sa += q * a[i] / p
		x.sb += q * b[i] / p
	}
	groups, terms := 0, 0
	for _, x := range g {
		switch {
		case x.m == 1:
			return math.NaN(), math.NaN()
		case x.m > 1:
			groups++
			terms += x.m
		}
	}
	var sum, sum2 float64
	for i, p := range s.p {
		q := 1 - p
		if !(q > 0) {
			continue
		}
		x := &g[s.group[i]]
		u := float64(x.m) / float64(x.m-1) * q * (a[i]/p - x.sa/x.w) * (b[i]/p - x.sb/x.w)
		sum += u
		sum2 += u * u
	}
	df = math.NaN()
	if sum2 > 0 {
		df = min(max(3*sum*sum/sum2, 1), float64(max(terms-groups, 1)))
	}
	return sum, df
}

// estimate computes every figure; tune chooses the power-tuned λ.
func (s *planSample) estimate(tune bool) planFigures {
	nan := math.NaN()
	none := planFigure{nan, nan, nan}
	out := planFigures{ht: none, hajek: none, ppi: none, agree: none, lambda: nan, srsSE: nan, deff: nan}
	m := len(s.y)
	if m == 0 || s.n == 0 {
		return out
	}
	N := float64(s.n)
	var ty, tf, ta, nHat float64
	for i, p := range s.p {
		ty += s.y[i] / p
		tf += s.f[i] / p
		ta += s.a[i] / p
		nHat += 1 / p
	}
	fig := func(value float64, z []float64, scale float64) planFigure {
		v, df := s.hrVar(z)
		if math.IsNaN(v) {
			return planFigure{value, nan, nan}
		}
		return planFigure{value, math.Sqrt(max(v, 0)) / scale, df}
	}
	out.ht = fig(ty/N, s.y, N)
	hajek := ty / nHat
	z := make([]float64, m)
	for i := range z {
		z[i] = s.y[i] - hajek
	}
	// The Hájek mean's linearised variance: that of the weighted total of
	// the residuals y_i − ȳ_w, over N̂² (Särndal et al. 1992, eq. 5.7.7).
	out.hajek = fig(hajek, z, nHat)
	out.agree = fig(ta/N, s.a, N)

	lambda := 1.0
	if tune {
		if vf := s.hrCov(s.f, s.f); vf > 0 {
			lambda = min(max(s.hrCov(s.y, s.f)/vf, 0), 1)
		}
	}
	out.lambda = lambda
	e := make([]float64, m)
	for i := range e {
		e[i] = s.y[i] - lambda*s.f[i]
	}
	out.ppi = fig((lambda*s.fSum+ty-lambda*tf)/N, e, N)

	// The same estimator under simple random sampling of m items: the
	// residuals' population variance S² estimated with the design weights
	// (divisor m−1 as in s², so a uniform plan gives exactly its own
	// variance and a design effect of 1), times (1 − m/N)/m (Kish 1965,
	// Survey Sampling, sec. 8.2: deff = Var_design / Var_SRS of the same
	// size).
	if m >= 2 {
		ebar := 0.0
		for i, p := range s.p {
			ebar += e[i] / p
		}
		ebar /= nHat
		ss := 0.0
		for i, p := range s.p {
			d := e[i] - ebar
			ss += d * d / p
		}
		s2 := ss / nHat * float64(m) / float64(m-1)
		out.srsSE = math.Sqrt(max(1-float64(m)/N, 0) * s2 / float64(m))
		if out.srsSE > 0 && !math.IsNaN(out.ppi.se) {
			out.deff = (out.ppi.se * out.ppi.se) / (out.srsSE * out.srsSE)
		}
	}
	return out
}

// labelsFor returns how many labels m* the same design needs for the
// corrected score's half-width to fall from h (with m labels) to w: the
// variance is taken to go as c·(1/m − 1/N), the form of simple random
// sampling with its finite-population correction (and of the Hájek–Rosén
// variance when the probabilities grow in proportion to m), with c fitted
// to the current half-width; the t quantile is held at its current value,
// which errs on the side of more labels as the degrees of freedom grow.
// NaN when it cannot be told (m ≥ N, or no width).
func labelsFor(m, n int, h, w float64) float64 {
	if m <= 0 || m >= n || !(h > 0) || !(w > 0) {
		return math.NaN()
	}
	c := h * h / (1/float64(m) - 1/float64(n))
	return 1 / (w*w/c + 1/float64(n))
}
