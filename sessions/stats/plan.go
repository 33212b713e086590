package stats

import "math"

// Design-based estimation for a labelling plan (SPEC "Labels where they
// count"). A plan draws n of the N items with known inclusion
// probabilities π_i by sequential Poisson sampling (Ohlsson 1998, "Sequential
// Poisson sampling", Journal of Official Statistics 14:149–162): uniform
// (π_i = n/N, which is then simple random sampling without replacement),
// stratified (n_h/N_h in each stratum, i.e. stratified simple random
// sampling), or active (π_i from the judge's uncertainty with a uniform
// floor). Every estimate here weights a label by 1/π_i, so it targets the
// mean over ALL N items whatever the design (Horvitz and Thompson, JASA
// 47, 1952). It is approximately, not exactly, unbiased: π_i is taken to
// be the target λ_i, and sequential Poisson sampling's actual inclusion
// probabilities are close to the targets but not equal to them (Ohlsson
// 1998, sec. 3; the review measured a mean π/λ of 0.996, a few items 5 %
// low, for n of 5 to 30 out of 200), and the nonresponse adjustment below
// rests on an assumption.
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
// bounds and the point clamped to the scale's range (the unclamped point,
// the unbiased one, stays in the JSON: PlanReport.Unclamped). A figure
// whose labels show no spread gets the rule-of-three bound instead
// (ruleOfThree), and a stratum with a single label below certainty is
// collapsed with its nearest neighbour (hr). The coverage simulation
// (plan_sim_test.go) checks them.
//
// Nonresponse: a planned item not (yet) labelled — "can't judge", a tie
// between the plan's annotators, or simply pending — is taken as missing
// at random within its response group: the m_g responders of the n_g
// selected items of group g are treated as a simple random subsample of
// them, so p_i = π_i·m_g/n_g (a two-phase design; Särndal, Swensson and
// Wretman 1992, Model Assisted Survey Sampling, ch. 15,
// response-homogeneity groups). The groups are the strata (one for a
// uniform or active plan), each split into the items the plan takes with
// certainty (π = 1) and the others. The split matters: labelling a plan
// in its rank order labels most certain items first (ξ = prn/π is
// smallest where π is largest), so the responders are not a random
// subsample of the whole plan; within the uncertain items, the first m'
// of a sequential Poisson sample are a sequential Poisson sample of size
// m' (Ohlsson 1998), with probabilities ≈ π_i·m'/n', which is exactly
// what the group adjustment gives, while a labelled certain item keeps
// p = 1 once all of them are labelled. (One adjustment over the whole
// plan would scale the certain items' 1 down as well and weight them up
// to stand for the uncertain ones: the bias the review found, 0.48 for a
// true 0.65.) A certain group with no label yet is merged into its
// stratum's other group (the certain items' share is then estimated from
// the others, with a note); an uncertain group with none gives no
// estimate.

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
	// span is the scale's range (hi − lo; 1 for a pass rate), for the
	// rule of three (ruleOfThree); 0 is read as 1.
	span float64
}

// planFigure is one estimate with its standard error and the degrees of
// freedom of its interval (NaN when it cannot be estimated).
type planFigure struct {
	value, se, df float64
	// rule3 is the half-width used when se is 0 (see ruleOfThree); 0 when
	// every label was certain to be drawn, so the figure is exact.
	rule3 float64
}

// halfWidth is the 95 % interval's half-width: t_{0.975, df}·se, or the
// rule-of-three bound when the labels show no spread at all (se = 0).
func (f planFigure) halfWidth() float64 {
	if math.IsNaN(f.se) {
		return math.NaN()
	}
	if f.se == 0 {
		return f.rule3
	}
	return studentQuantile(0.975, f.df) * f.se
}

// ruleOfThree is the half-width of a figure whose labels show no spread
// (every label below certainty gives the same weighted value, e.g. every
// label agrees with its verdict): a variance of 0 would claim an exact
// figure from as few as two labels. When none of m labels drawn at random
// differs, the 95 % upper bound on the share of the population that
// differs is about 3/m (the "rule of three": Hanley and Lippman-Hand
// 1983, JAMA 249:1743–1745; (1 − 3/m)^m ≈ e⁻³ ≈ 0.05), and an item that
// differs moves the mean by at most span, the scale's range. With unequal
// probabilities m is Kish's effective sample size (Σw)²/Σw² (Kish 1965),
// and the bound applies to the share of the population the
// uncertain labels stand for, Σw/N (certain items are known exactly).
func (s *planSample) ruleOfThree(span float64) float64 {
	var sw, sw2 float64
	for _, p := range s.p {
		if p < 1 {
			sw += 1 / p
			sw2 += 1 / (p * p)
		}
	}
	if sw == 0 || s.n == 0 {
		return 0
	}
	neff := sw * sw / sw2
	return 3 * span / neff * min(sw/float64(s.n), 1)
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
	// collapsed is set when a group with a single responder below
	// certainty was estimated together with another (hr).
	collapsed bool
}

// hrCov returns the Hájek–Rosén estimate of the covariance of the two
// weighted totals Σ_s a_i/p_i and Σ_s b_i/p_i, summed over the response
// groups (see the file comment); NaN when fewer than two responders are
// below certainty.
func (s *planSample) hrCov(a, b []float64) float64 {
	v, _, _ := s.hr(a, b)
	return v
}

// hrVar returns the Hájek–Rosén variance of Σ_s z_i/p_i, the degrees of
// freedom of its interval, and whether a group with a single responder
// had to be collapsed with another (see hr).
//
// Degrees of freedom. Within a group g the variance is a sum of one term
// per responder below certainty, u_i = m_g/(m_g−1)·(1−p_i)(z_i/p_i − A_g)²;
// by Satterthwaite's approximation (Satterthwaite 1946, "An approximate
// distribution of estimates of variance components", Biometrics Bulletin
// 2:110–114), df = 2·V̂²/V̂ar(V̂), and taking each term as a scaled χ²₁, as
// it is for normal z, Var(u_i) = 2E(u_i)² is estimated by (2/3)u_i²
// (E u² = 3(E u)² for χ²₁), so df_g = 3(Σu_i)²/Σu_i², capped at m_g − 1,
// the degrees of freedom of simple random sampling. For normal z with
// equal weights it is about m_g − 1; when a few labels make most of the
// variance — rare judge errors caught at large weights, the case where
// the normal interval fails — it falls towards 1 and the t quantile
// widens the interval. Across groups (strata) the same approximation
// gives df = (Σ_g V_g)² / Σ_g (V_g²/df_g) (Satterthwaite 1946; Cochran
// 1977, eq. 5.16, with df_g = n_h − 1). The coverage simulation
// (plan_sim_test.go) shows what it buys.
func (s *planSample) hrVar(z []float64) (v, df float64, collapsed bool) {
	return s.hr(z, z)
}

// hrGroup accumulates one variance group's responders below certainty.
type hrGroup struct {
	m            int
	w, sa, sb, p float64 // Σ(1−p), Σ(1−p)a/p, Σ(1−p)b/p, Σp
	v, v2        float64 // Σu, Σu²
}

// hr is hrCov and hrVar. Items included with certainty (p = 1) have no
// sampling variance and are left out (a take-all group). A group with a single responder below certainty cannot
// estimate its own variance: it is collapsed with the group whose mean
// probability is nearest, and the two are estimated as one — the
// collapsed-strata estimator (Cochran 1977, sec. 5A.12), which overstates the variance by the
// spread between the collapsed groups' means and so errs on the side of a
// wider interval. With fewer than two responders below certainty in all,
// nothing is left to estimate from (NaN); with none, every label was
// certain to be drawn and the variance is 0.
func (s *planSample) hr(a, b []float64) (v, df float64, collapsed bool) {
	g := make([]hrGroup, max(s.groups, 1))
	below := 0
	for i, p := range s.p {
		q := 1 - p
		if !(q > 0) {
			continue
		}
		below++
		x := &g[s.group[i]]
		x.m++
		x.w += q
		x.sa += q * a[i] / p
		x.sb += q * b[i] / p
		x.p += p
	}
	switch below {
	case 0:
		return 0, math.NaN(), false
	case 1:
		return math.NaN(), math.NaN(), false
	}
	// root[k] is the group k's responders are estimated with.
	root := make([]int, len(g))
	for k := range root {
		root[k] = k
	}
	for {
		single := -1
		for k := range g {
			if root[k] == k && g[k].m == 1 {
				single = k
				break
			}
		}
		if single < 0 {
			break
		}
		x := &g[single]
		best, bestD := -1, math.Inf(1)
		for k := range g {
			if k == single || root[k] != k || g[k].m == 0 {
				continue
			}
			if d := math.Abs(g[k].p/float64(g[k].m) - x.p); d < bestD {
				best, bestD = k, d
			}
		}
		y := &g[best] // exists: below ≥ 2
		y.m += x.m
		y.w += x.w
		y.sa += x.sa
		y.sb += x.sb
		y.p += x.p
		*x = hrGroup{}
		for k := range root {
			if root[k] == single {
				root[k] = best
			}
		}
		collapsed = true
	}
	for i, p := range s.p {
		q := 1 - p
		if !(q > 0) {
			continue
		}
		x := &g[root[s.group[i]]]
		u := float64(x.m) / float64(x.m-1) * q * (a[i]/p - x.sa/x.w) * (b[i]/p - x.sb/x.w)
		x.v += u
		x.v2 += u * u
	}
	var den float64
	for k := range g {
		x := &g[k]
		if root[k] != k || x.m < 2 {
			continue
		}
		v += x.v
		if x.v2 > 0 {
			dfg := min(max(3*x.v*x.v/x.v2, 1), float64(x.m-1))
			den += x.v * x.v / dfg
		}
	}
	df = math.NaN()
	if den > 0 {
		df = max(v*v/den, 1)
	}
	return v, df, collapsed
}

// estimate computes every figure; tune chooses the power-tuned λ.
func (s *planSample) estimate(tune bool) planFigures {
	nan := math.NaN()
	none := planFigure{nan, nan, nan, 0}
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
	span := s.span
	if !(span > 0) {
		span = 1
	}
	fig := func(value float64, z []float64, scale, span float64) planFigure {
		v, df, collapsed := s.hrVar(z)
		if math.IsNaN(v) {
			return planFigure{value, nan, nan, 0}
		}
		out.collapsed = out.collapsed || collapsed
		f := planFigure{value, math.Sqrt(max(v, 0)) / scale, df, 0}
		if f.se == 0 {
			f.rule3 = s.ruleOfThree(span)
		}
		return f
	}
	out.ht = fig(ty/N, s.y, N, span)
	hajek := ty / nHat
	z := make([]float64, m)
	for i := range z {
		z[i] = s.y[i] - hajek
	}
	// The Hájek mean's linearised variance: that of the weighted total of
	// the residuals y_i − ȳ_w, over N̂² (Särndal et al. 1992, eq. 5.7.7).
	out.hajek = fig(hajek, z, nHat, span)
	out.agree = fig(ta/N, s.a, N, 1)

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
	out.ppi = fig((lambda*s.fSum+ty-lambda*tf)/N, e, N, span)

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
