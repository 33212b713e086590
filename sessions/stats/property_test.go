package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

func TestPerfectAgreementGivesOne(t *testing.T) {
	for _, scale := range []judge.Scale{judge.Binary, judge.Ternary, judge.Likert} {
		c := NewConfusion(scale.Values())
		for i := range c.Categories {
			c.Counts[i][i] = 3 + i
		}
		a := AgreementOf(c, scale, 1, 200)
		ones := map[string]Estimate{
			"percent": a.PercentAgreement.Estimate(), "kappa": a.CohenKappa.Estimate(), "ac1": a.GwetAC1.Estimate(), "alpha": a.AlphaNominal.Estimate(),
		}
		if o := a.Ordinal; o != nil {
			for k, v := range map[string]Estimate{"linear": o.LinearKappa.Estimate(), "quadratic": o.QuadraticKappa.Estimate(),
				"alpha ordinal": o.AlphaOrdinal.Estimate(), "alpha interval": o.AlphaInterval.Estimate(), "spearman": o.Spearman.Estimate(),
				"kendall": o.KendallTauB.Estimate(), "within one": o.WithinOne.Estimate()} {
				ones[k] = v
			}
			if o.MeanAbsoluteError.Value != 0 || o.MeanSignedDifference.Value != 0 {
				t.Errorf("%s: MAE %v, MSD %v, want 0", scale, o.MeanAbsoluteError.Estimate(), o.MeanSignedDifference.Estimate())
			}
		}
		if b := a.Binary; b != nil {
			for k, v := range map[string]Estimate{"precision": b.Precision.Estimate(), "recall": b.Recall.Estimate(),
				"f1": b.F1, "balanced": b.BalancedAccuracy} {
				ones[k] = v
			}
		}
		for name, e := range ones {
			if !e.Defined() || math.Abs(e.Value-1) > 1e-12 {
				t.Errorf("%s %s = %v (%s), want 1", scale, name, e.Value, e.Reason)
			}
		}
		if a.ScoreBias.Value != 0 || a.ScoreBias.Low != 0 || a.ScoreBias.High != 0 {
			t.Errorf("%s bias = %+v, want 0 [0, 0]", scale, a.ScoreBias)
		}
	}
}

func TestSingleClassAndEmpty(t *testing.T) {
	one := NewConfusion(judge.Likert.Values())
	one.Counts[2][2] = 10
	a := AgreementOf(one, judge.Likert, 1, 100)
	for name, e := range map[string]Estimate{"kappa": a.CohenKappa.Estimate(), "alpha": a.AlphaNominal.Estimate(),
		"quadratic": a.Ordinal.QuadraticKappa.Estimate(), "spearman": a.Ordinal.Spearman.Estimate(), "kendall": a.Ordinal.KendallTauB.Estimate()} {
		if e.Defined() || e.Reason == "" {
			t.Errorf("single class %s = %+v, want undefined with a reason", name, e)
		}
	}
	// AC1 is defined here: that is its point (Gwet 2008).
	if a.GwetAC1.Value != 1 || a.PercentAgreement.Value != 1 {
		t.Errorf("single class: AC1 %v, percent %v, want 1 and 1", a.GwetAC1.Estimate(), a.PercentAgreement)
	}

	empty := AgreementOf(NewConfusion(judge.Binary.Values()), judge.Binary, 1, 100)
	for name, e := range map[string]Estimate{"percent": empty.PercentAgreement.Estimate(), "kappa": empty.CohenKappa.Estimate(),
		"ac1": empty.GwetAC1.Estimate(), "alpha": empty.AlphaNominal.Estimate(), "bias": empty.ScoreBias.Estimate(),
		"precision": empty.Binary.Precision.Estimate(), "f1": empty.Binary.F1} {
		if e.Defined() || e.Reason == "" {
			t.Errorf("n = 0 %s = %+v, want undefined with a reason", name, e)
		}
	}
}

// randomPairs returns n paired values on the scale, agreeing more often
// than chance.
func randomPairs(r *rand.Rand, scale judge.Scale, n int) (j, h []float64) {
	vals := scale.Values()
	for range n {
		x := vals[r.IntN(len(vals))]
		y := x
		if r.IntN(3) == 0 {
			y = vals[r.IntN(len(vals))]
		}
		j, h = append(j, x), append(h, y)
	}
	return j, h
}

func TestTableAndSliceFormsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		scale := []judge.Scale{judge.Binary, judge.Ternary, judge.Likert}[trial%3]
		j, h := randomPairs(r, scale, 2+r.IntN(60))
		c, _ := Tabulate(scale.Values(), j, h)
		pairs := []struct {
			name       string
			table, raw Estimate
		}{
			{"spearman", c.Spearman(), Spearman(j, h)},
			{"kendall", c.KendallTauB(), KendallTauB(j, h)},
			{"kendall naive", c.KendallTauB(), naiveKendall(j, h)},
			{"alpha nominal", c.KrippendorffAlpha(Nominal), KrippendorffAlpha([][]float64{j, h}, Nominal)},
			{"alpha ordinal", c.KrippendorffAlpha(Ordinal), KrippendorffAlpha([][]float64{h, j}, Ordinal)},
			{"alpha interval", c.KrippendorffAlpha(IntervalLevel), KrippendorffAlpha([][]float64{j, h}, IntervalLevel)},
			{"ac1", c.GwetAC1(), GwetAC1Multi(pairCounts(c))},
		}
		for _, p := range pairs {
			if p.table.Defined() != p.raw.Defined() || (p.table.Defined() && math.Abs(p.table.Value-p.raw.Value) > 1e-9) {
				t.Fatalf("trial %d %s: table %v, slices %v", trial, p.name, p.table, p.raw)
			}
		}
	}
}

// TestKendallContinuous checks the O(n log n) tau-b against the
// definition on data with and without ties.
func TestKendallContinuous(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 100 {
		n := 2 + r.IntN(80)
		x, y := make([]float64, n), make([]float64, n)
		for i := range n {
			x[i] = math.Round(r.NormFloat64() * float64(1+trial%5))
			y[i] = x[i] + math.Round(r.NormFloat64()*2)
		}
		got, want := KendallTauB(x, y), naiveKendall(x, y)
		if got.Defined() != want.Defined() || (got.Defined() && math.Abs(got.Value-want.Value) > 1e-12) {
			t.Fatalf("trial %d: %v, naive %v", trial, got, want)
		}
	}
}

// naiveKendall is tau-b straight from Kendall's (1945) definition.
func naiveKendall(x, y []float64) Estimate {
	var c, d, tx, ty float64
	n := len(x)
	for i := range n {
		for j := i + 1; j < n; j++ {
			sx, sy := sign(x[i]-x[j]), sign(y[i]-y[j])
			switch {
			case sx*sy > 0:
				c++
			case sx*sy < 0:
				d++
			}
			if sx == 0 {
				tx++
			}
			if sy == 0 {
				ty++
			}
		}
	}
	n0 := float64(n*(n-1)) / 2
	if (n0-tx)*(n0-ty) == 0 {
		return undefined("constant")
	}
	return defined((c - d) / math.Sqrt((n0-tx)*(n0-ty)))
}

func sign(v float64) float64 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

func pairCounts(c Confusion) [][]int {
	var out [][]int
	for r, row := range c.Counts {
		for j, x := range row {
			for range x {
				u := make([]int, len(c.Categories))
				u[r]++
				u[j]++
				out = append(out, u)
			}
		}
	}
	return out
}

func TestBootstrapReproducibleAndContainsEstimate(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 60 {
		scale := []judge.Scale{judge.Binary, judge.Ternary, judge.Likert}[trial%3]
		j, h := randomPairs(r, scale, 30+r.IntN(500))
		c, _ := Tabulate(scale.Values(), j, h)
		seed := uint64(trial)
		a, b := c.ScoreBias(seed, 500), c.ScoreBias(seed, 500)
		if a != b {
			t.Fatalf("same seed, different intervals: %v and %v", a, b)
		}
		if !(a.Low <= a.Value && a.Value <= a.High) {
			t.Errorf("trial %d: bias %v outside its interval", trial, a)
		}
		if scale != judge.Binary {
			continue
		}
		judged := len(j) + r.IntN(5000)
		yes := int(float64(judged) * a.Value)
		x, y := c.CorrectedPassRate(yes, judged, seed, 500), c.CorrectedPassRate(yes, judged, seed, 500)
		if x != y {
			t.Fatalf("same seed, different corrected: %+v and %+v", x, y)
		}
		if p := x.PassRate; p.HasBounds() && !(p.Low <= p.Value && p.Value <= p.High) {
			t.Errorf("trial %d: corrected %v outside its interval", trial, p)
		}
	}
}

func TestBootstrapSeedMatters(t *testing.T) {
	j, h := randomPairs(rand.New(rand.NewPCG(7, 8)), judge.Likert, 300)
	c, _ := Tabulate(judge.Likert.Values(), j, h)
	if a, b := c.ScoreBias(1, 300), c.ScoreBias(2, 300); a == b {
		t.Errorf("seeds 1 and 2 gave the same interval %v", a)
	}
	if a := c.ScoreBias(1, 0); a.HasBounds() || !a.Defined() {
		t.Errorf("no resamples: %+v, want a value without bounds", a)
	}
}

// TestBinomialMoments checks the sampler against Binomial(n, p)'s mean and
// variance; the seed is fixed, so the test is deterministic, and the
// tolerances are 5 standard errors wide.
func TestBinomialMoments(t *testing.T) {
	r := newRand(42, "test")
	for _, tc := range []struct {
		n int
		p float64
	}{{10, 0.3}, {33, 0.5}, {1000, 0.01}, {100000, 0.72}, {1 << 20, 0.999}, {77, 0}, {77, 1}} {
		const draws = 20000
		var s, s2 float64
		for range draws {
			x := float64(binomial(r, tc.n, tc.p))
			if x < 0 || x > float64(tc.n) {
				t.Fatalf("Binomial(%d, %v) drew %v", tc.n, tc.p, x)
			}
			s += x
			s2 += x * x
		}
		mean, v := s/draws, s2/draws-(s/draws)*(s/draws)
		wantMean, wantVar := float64(tc.n)*tc.p, float64(tc.n)*tc.p*(1-tc.p)
		if math.Abs(mean-wantMean) > 5*math.Sqrt(wantVar/draws)+1e-12 {
			t.Errorf("Binomial(%d, %v): mean %v, want %v", tc.n, tc.p, mean, wantMean)
		}
		// The variance of a sample variance is about 2σ⁴/draws for large n.
		if math.Abs(v-wantVar) > 5*wantVar*math.Sqrt(2.0/draws)+1e-12 {
			t.Errorf("Binomial(%d, %v): variance %v, want %v", tc.n, tc.p, v, wantVar)
		}
	}
}

// TestBinomialDistribution compares the sampler's histogram with the exact
// probabilities by a chi-square test at a fixed seed, on both algorithms
// (inversion for small means, BTRD otherwise) and the p > 0.5 mirror.
func TestBinomialDistribution(t *testing.T) {
	for _, tc := range []struct {
		n int
		p float64
	}{{60, 0.05}, {60, 0.37}, {200, 0.8}, {25, 0.5}, {5000, 0.3}, {100000, 0.001}} {
		const draws = 100000
		r := newRand(uint64(tc.n), "test")
		hist := make([]float64, tc.n+1)
		for range draws {
			hist[binomial(r, tc.n, tc.p)]++
		}
		chi, df := 0.0, -1
		lg, _ := math.Lgamma(float64(tc.n + 1))
		for k := 0; k <= tc.n; k++ {
			la, _ := math.Lgamma(float64(k + 1))
			lb, _ := math.Lgamma(float64(tc.n - k + 1))
			expected := draws * math.Exp(lg-la-lb+float64(k)*math.Log(tc.p)+float64(tc.n-k)*math.Log1p(-tc.p))
			if expected < 5 {
				continue
			}
			chi += (hist[k] - expected) * (hist[k] - expected) / expected
			df++
		}
		// A correct sampler gives chi ≈ df; 2·df is far in the tail for
		// these df (≥ 10), and a biased one lands far above it.
		if chi > 2*float64(df) || df < 5 {
			t.Errorf("Binomial(%d, %v): chi-square %v with %d degrees of freedom", tc.n, tc.p, chi, df)
		}
	}
}

func TestMultinomialSumsToN(t *testing.T) {
	r := newRand(1, "test")
	out := make([]int, 4)
	for _, n := range []int{0, 1, 7, 1000, 123456} {
		multinomial(r, n, []int{5, 0, 3, 9}, out)
		if s := out[0] + out[1] + out[2] + out[3]; s != n || out[1] != 0 {
			t.Errorf("multinomial(%d) = %v", n, out)
		}
	}
}

func TestPercentile(t *testing.T) {
	// numpy.percentile([1..10], [2.5, 97.5]) = [1.225, 9.775].
	s := []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}
	lo, hi := percentileInterval(s)
	if math.Abs(lo-1.225) > 1e-12 || math.Abs(hi-9.775) > 1e-12 {
		t.Errorf("percentiles %v %v", lo, hi)
	}
	if !slices.IsSorted(s) {
		t.Errorf("not sorted")
	}
}
