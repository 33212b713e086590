package stats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"
)

// ppiCase builds benchmark's inputs from per-item values, the way ppi_py
// takes them: y[i] and f[i] are a labelled unit's human and judge values,
// fu the unlabelled units' judge values.
func ppiCase(t *testing.T, cats, y, f, fu []float64) (Confusion, []int) {
	t.Helper()
	c, skipped := Tabulate(cats, f, y)
	if skipped != 0 {
		t.Fatalf("%d labelled pairs off the categories", skipped)
	}
	judged := make([]int, len(c.Categories))
	for _, row := range c.Counts {
		for j, x := range row {
			judged[j] += x
		}
	}
	for _, v := range fu {
		i := c.index(v)
		if i < 0 {
			t.Fatalf("unlabelled value %v off the categories", v)
		}
		judged[i]++
	}
	return c, judged
}

func ppiRepeat(v float64, k int) []float64 {
	out := make([]float64, k)
	for i := range out {
		out[i] = v
	}
	return out
}

func ppiConcat(parts ...[]float64) []float64 {
	var out []float64
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func ppiNear(t *testing.T, name string, got, want float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > 1e-12 {
		t.Errorf("%s = %.17g, want %.17g", name, got, want)
	}
}

// TestPPIReference checks PPI++ against ppi_py. No published small example
// printing ppi_mean_ci's numbers was found (ppi_py's own mean tests are
// seeded-at-random coverage checks), so the expected values come from
// testdata/ppi_reference.py: a pure-Python, item-by-item transliteration
// of ppi_py's ppi_mean_ci / _calc_lam_glm (ppi_py/ppi.py at commit
// c43453a4619f77bacc33fcc278523bdcadb3e78d) and classical_mean_ci
// (ppi_py/baselines.py at 0cec802ecdb32e61503b99440fae9e812a5ad1bc), in
// exact fractions. The binary case is also worked by hand below. The last
// case is ppi_py's one published concrete value,
// tests/test_mean.py::test_ppi_mean_pointestimate, which asserts the point
// estimate is exactly 0 when Yhat = Y + 2 and every unlabelled prediction
// is 2 (n = 100, N = 10,000).
func TestPPIReference(t *testing.T) {
	likert := []float64{1, 2, 3, 4, 5}
	binary := []float64{0, 1}
	for _, tc := range []struct {
		name              string
		cats, y, f, fu    []float64
		lambdaRaw, lambda float64
		point, low, high  float64
		labels, lLo, lHi  float64
		effective         float64 // NaN: undefined
	}{
		{
			name: "likert", cats: likert,
			y:         []float64{5, 4, 4, 3, 2, 5, 1, 3},
			f:         []float64{5, 5, 4, 3, 3, 4, 2, 4},
			fu:        []float64{5, 4, 4, 2, 3, 5, 1, 4, 4, 3, 5, 2},
			lambdaRaw: 1995.0 / 4288, lambda: 1995.0 / 4288, // 0.46525186567164178
			point: 55893.0 / 17152, low: 2.5162085578918481, high: 4.0011655092723313,
			labels: 27.0 / 8, lLo: 2.4624123232435848, lHi: 4.2875876767564156,
			effective: 4081901568.0 / 337746671, // 12.085690011138555
		},
		{
			// By hand: pairs (y, f) = (1,1)×6, (0,1), (1,0), (0,0)×2, so
			// ȳ = f̄ = 0.7 and Cov_n = 0.6 − 0.49 = 0.11; the verdicts
			// over all 30 units are 22 YES, Var_29 = 22·8/(29·30);
			// λ = 0.11/((1 + 10/20)·176/870) = 29/80; θ = (29/80)·0.75 +
			// 0.7 − (29/80)·0.7 = 1149/1600.
			name: "binary", cats: binary,
			y:         []float64{1, 1, 1, 0, 1, 0, 1, 1, 0, 1},
			f:         []float64{1, 1, 1, 1, 1, 0, 0, 1, 0, 1},
			fu:        ppiConcat(ppiRepeat(1, 15), ppiRepeat(0, 5)),
			lambdaRaw: 29.0 / 80, lambda: 29.0 / 80,
			point: 1149.0 / 1600, low: 0.46245323978574621, high: 0.97379676021425376,
			labels: 0.7, lLo: 0.4159742349106747, lHi: 0.98402576508932527,
			effective: 10752000.0 / 871243, // 12.340988679392545
		},
		{
			// The judge contradicts the humans: λ clips to 0 and PPI is the
			// labels' interval. ppi_py's upper bound 1.0438619113587237 is
			// past the scale; benchmark clamps it to 1.
			name: "contrary", cats: binary,
			y:         []float64{1, 1, 1, 0, 0, 1},
			f:         []float64{0, 0, 1, 1, 1, 0},
			fu:        []float64{1, 0, 1, 1, 0, 0, 1, 1},
			lambdaRaw: -13.0 / 36, lambda: 0,
			point: 2.0 / 3, low: 0.28947142197460951, high: 1.0438619113587237,
			labels: 2.0 / 3, lLo: 0.28947142197460951, lHi: 1.0438619113587237,
			effective: 6,
		},
		{
			// ppi_py's test_ppi_mean_pointestimate, with Y in {0, 1, 2}.
			name: "ppi_py test_ppi_mean_pointestimate", cats: []float64{0, 1, 2, 3, 4},
			y:         ppiConcat(ppiRepeat(0, 30), ppiRepeat(1, 40), ppiRepeat(2, 30)),
			f:         ppiConcat(ppiRepeat(2, 30), ppiRepeat(3, 40), ppiRepeat(4, 30)),
			fu:        ppiRepeat(2, 10000),
			lambdaRaw: 30297.0 / 803, lambda: 1,
			point: 0, low: 0, high: 0,
			labels: 1, lLo: 0.84818184257420082, lHi: 1.1518181574257991,
			effective: math.NaN(),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, judged := ppiCase(t, tc.cats, tc.y, tc.f, tc.fu)
			unl := make([]int, len(judged))
			for j := range judged {
				unl[j] = judged[j]
				for r := range c.Counts {
					unl[j] -= c.Counts[r][j]
				}
			}
			p := ppiMean(c.Categories, c.Counts, unl)
			if p.n != len(tc.y) || p.N != len(tc.fu) {
				t.Fatalf("n, N = %d, %d", p.n, p.N)
			}
			// ppi_py's own numbers, unclamped.
			ppiNear(t, "lambda raw", p.lambdaRaw, tc.lambdaRaw)
			ppiNear(t, "lambda", p.lambda, tc.lambda)
			ppiNear(t, "point", p.point, tc.point)
			ppiNear(t, "low", p.point-z975*p.se, tc.low)
			ppiNear(t, "high", p.point+z975*p.se, tc.high)
			ppiNear(t, "labels mean", p.labelsMean, tc.labels)
			ppiNear(t, "labels low", p.labelsMean-z975*p.labelsSE, tc.lLo)
			ppiNear(t, "labels high", p.labelsMean+z975*p.labelsSE, tc.lHi)

			// What the report shows: the same, bounds clamped to the scale.
			b := benchmark(c, judged, "")
			lo, hi := tc.cats[0], tc.cats[len(tc.cats)-1]
			cl := func(v float64) float64 { return min(max(v, lo), hi) }
			if b.Judged != len(tc.y)+len(tc.fu) || b.Labelled != len(tc.y) {
				t.Errorf("judged, labelled = %d, %d", b.Judged, b.Labelled)
			}
			ppiNear(t, "PPI", b.PPI.Value, tc.point)
			ppiNear(t, "PPI low", b.PPI.Low, cl(tc.low))
			ppiNear(t, "PPI high", b.PPI.High, cl(tc.high))
			ppiNear(t, "LabelsOnly", b.LabelsOnly.Value, tc.labels)
			ppiNear(t, "LabelsOnly low", b.LabelsOnly.Low, cl(tc.lLo))
			ppiNear(t, "LabelsOnly high", b.LabelsOnly.High, cl(tc.lHi))
			ppiNear(t, "Lambda", b.Lambda.Value, tc.lambda)
			if math.IsNaN(tc.effective) {
				if b.EffectiveLabels.Defined() || b.EffectiveLabels.Reason == "" {
					t.Errorf("EffectiveLabels = %+v, want undefined with a reason", b.EffectiveLabels)
				}
			} else {
				ppiNear(t, "EffectiveLabels", b.EffectiveLabels.Value, tc.effective)
			}
		})
	}
}

func TestBenchmarkPPIEdgeCases(t *testing.T) {
	binary := []float64{0, 1}

	t.Run("no fair labels", func(t *testing.T) {
		reason := "the labels were reached in dataset order"
		b := benchmark(NewConfusion(binary), []int{30, 70}, reason)
		if b.Judged != 100 || b.Labelled != 0 {
			t.Errorf("judged, labelled = %d, %d", b.Judged, b.Labelled)
		}
		for name, r := range map[string]string{
			"PPI": b.PPI.Reason, "LabelsOnly": b.LabelsOnly.Reason,
			"Lambda": b.Lambda.Reason, "EffectiveLabels": b.EffectiveLabels.Reason,
		} {
			if r != reason {
				t.Errorf("%s reason = %q", name, r)
			}
		}
		if b.PPI.Defined() || b.LabelsOnly.Defined() || b.Lambda.Defined() || b.EffectiveLabels.Defined() {
			t.Errorf("defined without fair labels: %+v", b)
		}
	})

	t.Run("nothing at all", func(t *testing.T) {
		b := benchmark(NewConfusion(binary), []int{0, 0}, "")
		if b.PPI.Defined() || b.PPI.Reason == "" {
			t.Errorf("PPI = %+v", b.PPI)
		}
	})

	t.Run("one label", func(t *testing.T) {
		c, judged := ppiCase(t, binary, []float64{1}, []float64{1}, []float64{0, 1, 1})
		b := benchmark(c, judged, "")
		for _, iv := range []Interval{b.PPI, b.LabelsOnly} {
			if iv.Defined() || !strings.Contains(iv.Reason, "at least 2") {
				t.Errorf("n = 1: %+v", iv)
			}
		}
		if b.Lambda.Defined() || b.EffectiveLabels.Defined() {
			t.Errorf("n = 1: lambda %+v, effective %+v", b.Lambda, b.EffectiveLabels)
		}
	})

	t.Run("census", func(t *testing.T) {
		// Every judged unit is labelled: no verdict beyond the labels.
		c, judged := ppiCase(t, []float64{1, 2, 3, 4, 5},
			[]float64{5, 4, 4, 3, 2, 5, 1, 3}, []float64{5, 5, 4, 3, 3, 4, 2, 4}, nil)
		b := benchmark(c, judged, "")
		if b.PPI != b.LabelsOnly {
			t.Errorf("census: PPI %+v, labels only %+v", b.PPI, b.LabelsOnly)
		}
		if b.Lambda.Value != 0 || b.EffectiveLabels.Value != 8 {
			t.Errorf("census: lambda %+v, effective %+v", b.Lambda, b.EffectiveLabels)
		}
		ppiNear(t, "census mean", b.PPI.Value, 27.0/8)
	})

	t.Run("judge never varies", func(t *testing.T) {
		// The judge says YES to everything: ppi_py's λ is 0/0; here λ = 0
		// and PPI is the labels' interval.
		c, judged := ppiCase(t, binary, []float64{1, 0, 1, 1, 0, 1}, ppiRepeat(1, 6), ppiRepeat(1, 50))
		b := benchmark(c, judged, "")
		if b.PPI != b.LabelsOnly || b.Lambda.Value != 0 || b.EffectiveLabels.Value != 6 {
			t.Errorf("constant judge: PPI %+v, labels %+v, lambda %+v, effective %+v",
				b.PPI, b.LabelsOnly, b.Lambda, b.EffectiveLabels)
		}
	})

	t.Run("labels all agree", func(t *testing.T) {
		// Every label is YES: no spread, a zero-width interval (as in
		// ppi_py), and no effective number of labels.
		c, judged := ppiCase(t, binary, ppiRepeat(1, 5), []float64{1, 1, 0, 1, 1}, []float64{1, 0, 1})
		b := benchmark(c, judged, "")
		if b.LabelsOnly.Value != 1 || b.LabelsOnly.Low != 1 || b.LabelsOnly.High != 1 {
			t.Errorf("labels only = %+v", b.LabelsOnly)
		}
		if b.Lambda.Value != 0 || b.PPI != b.LabelsOnly {
			t.Errorf("lambda %+v, PPI %+v", b.Lambda, b.PPI)
		}
		if b.EffectiveLabels.Defined() || b.EffectiveLabels.Reason == "" {
			t.Errorf("effective = %+v", b.EffectiveLabels)
		}
	})

	t.Run("judged smaller than labelled", func(t *testing.T) {
		// A caller bug: fewer judged units in a category than labelled
		// ones. The unlabelled count is clamped at 0, not negative.
		c, _ := ppiCase(t, binary, []float64{1, 0, 1, 1}, []float64{1, 0, 0, 1}, nil)
		b := benchmark(c, []int{0, 2}, "") // column sums are 2 and 2
		want := benchmark(c, []int{2, 2}, "")
		if b.PPI != want.PPI || b.Lambda != want.Lambda {
			t.Errorf("clamped: %+v, want %+v", b, want)
		}
	})

	t.Run("clamped to the scale", func(t *testing.T) {
		c, judged := ppiCase(t, binary, []float64{1, 1, 1, 1, 1, 1, 1, 0}, ppiRepeat(1, 8), []float64{1, 1, 0})
		b := benchmark(c, judged, "")
		if b.LabelsOnly.High != 1 || b.LabelsOnly.Low < 0 || b.LabelsOnly.Low >= b.LabelsOnly.Value {
			t.Errorf("labels only = %+v", b.LabelsOnly)
		}
	})
}

func TestBenchmarkPPIDeterministic(t *testing.T) {
	c, judged := ppiCase(t, []float64{1, 2, 3, 4, 5},
		[]float64{5, 4, 4, 3, 2, 5, 1, 3}, []float64{5, 5, 4, 3, 3, 4, 2, 4},
		[]float64{5, 4, 4, 2, 3, 5, 1, 4, 4, 3, 5, 2})
	first, _ := json.Marshal(benchmark(c, judged, ""))
	for range 5 {
		again, _ := json.Marshal(benchmark(c, judged, ""))
		if string(again) != string(first) {
			t.Fatalf("benchmark changed between calls:\n%s\n%s", first, again)
		}
	}
}

// ppiSim draws one simulated benchmark: units judged items, the first
// labelled of them labelled (the units are independent draws, so the
// first ones are a random sample), human truth YES with probability
// prevalence, and a judge that says YES to a YES with probability
// sensitivity and to a NO with probability 1 − specificity. It returns
// benchmark's inputs and the mean human value over the judged units.
func ppiSim(r *rand.Rand, units, labelled int, prevalence, sensitivity, specificity float64) (Confusion, []int, float64) {
	c := NewConfusion([]float64{0, 1})
	judged := make([]int, 2)
	yes := 0
	for i := range units {
		y := 0
		if r.Float64() < prevalence {
			y = 1
		}
		f := y
		if y == 1 && r.Float64() >= sensitivity || y == 0 && r.Float64() >= specificity {
			f = 1 - y
		}
		yes += y
		judged[f]++
		if i < labelled {
			c.Counts[y][f]++
		}
	}
	return c, judged, float64(yes) / float64(units)
}

type ppiSimSummary struct {
	datasets, covered, coveredFinite, coveredLabels, narrower int
	meanPoint, sdPoint, meanLambda, meanEffective             float64
	meanWidth, meanLabelsWidth                                float64
	coverage, coverageFinite, coverageLabels                  float64
}

func ppiSimulate(t *testing.T, seed uint64, datasets, units, labelled int, prevalence, sensitivity, specificity float64) ppiSimSummary {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	s := ppiSimSummary{datasets: datasets}
	points := make([]float64, 0, datasets)
	for range datasets {
		c, judged, finite := ppiSim(r, units, labelled, prevalence, sensitivity, specificity)
		b := benchmark(c, judged, "")
		if !b.PPI.HasBounds() || !b.LabelsOnly.HasBounds() || !b.Lambda.Defined() || !b.EffectiveLabels.Defined() {
			t.Fatalf("undefined benchmark: %+v", b)
		}
		if b.PPI.Low <= prevalence && prevalence <= b.PPI.High {
			s.covered++
		}
		if b.PPI.Low <= finite && finite <= b.PPI.High {
			s.coveredFinite++
		}
		if b.LabelsOnly.Low <= prevalence && prevalence <= b.LabelsOnly.High {
			s.coveredLabels++
		}
		w, lw := b.PPI.High-b.PPI.Low, b.LabelsOnly.High-b.LabelsOnly.Low
		if w < lw {
			s.narrower++
		}
		points = append(points, b.PPI.Value)
		s.meanPoint += b.PPI.Value
		s.meanLambda += b.Lambda.Value
		s.meanEffective += b.EffectiveLabels.Value
		s.meanWidth += w
		s.meanLabelsWidth += lw
	}
	d := float64(datasets)
	s.meanPoint /= d
	s.meanLambda /= d
	s.meanEffective /= d
	s.meanWidth /= d
	s.meanLabelsWidth /= d
	for _, p := range points {
		s.sdPoint += (p - s.meanPoint) * (p - s.meanPoint)
	}
	s.sdPoint = math.Sqrt(s.sdPoint / (d - 1))
	s.coverage = float64(s.covered) / d
	s.coverageFinite = float64(s.coveredFinite) / d
	s.coverageLabels = float64(s.coveredLabels) / d
	return s
}

// TestPPICoverage is the quick coverage test: 400 seeded datasets
// of 2,000 judged items, 200 of them labelled at random, a binary human
// truth with prevalence 0.65 and a judge with sensitivity 0.9 and
// specificity 0.8. The PPI 95 % interval must cover the true mean in
// 93–97 % of them (a binomial band: the standard error of a coverage
// over 400 datasets is 1.1 points). The truth is the population mean 0.65,
// what ppi_py's interval is for; the coverage of each dataset's own mean
// over its 2,000 units is logged beside it. GAVEL_COVERAGE_LONG=1 runs
// TestPPICoverageLong's 4,000 datasets.
func TestPPICoverage(t *testing.T) {
	s := ppiSimulate(t, 20240601, 400, 2000, 200, 0.65, 0.9, 0.8)
	t.Logf("PPI coverage %.4f of %d (of the judged units' own mean %.4f); mean %.4f (sd %.4f); λ %.3f; width %.4f vs labels only %.4f, narrower in %d",
		s.coverage, s.datasets, s.coverageFinite, s.meanPoint, s.sdPoint, s.meanLambda, s.meanWidth, s.meanLabelsWidth, s.narrower)
	t.Logf("200 labels and 1,800 more verdicts are worth about %.0f labels alone", s.meanEffective)
	if s.coverage < 0.93 || s.coverage > 0.97 {
		t.Errorf("PPI 95%% interval covered the truth in %.1f%% of %d datasets, want 93–97%%", 100*s.coverage, s.datasets)
	}
	if s.coverageFinite < 0.93 {
		t.Errorf("PPI 95%% interval covered the judged units' mean in %.1f%%, want at least 93%%", 100*s.coverageFinite)
	}

	// Unbiased: the mean estimate is within 4 standard errors of the truth.
	if se := s.sdPoint / math.Sqrt(float64(s.datasets)); math.Abs(s.meanPoint-0.65) > 4*se {
		t.Errorf("mean PPI estimate %.4f, truth 0.65 (se %.4f)", s.meanPoint, se)
	}
	// A good judge narrows the interval, almost always.
	if s.meanWidth >= s.meanLabelsWidth || s.narrower < s.datasets*95/100 {
		t.Errorf("PPI width %.4f vs labels only %.4f, narrower in %d of %d", s.meanWidth, s.meanLabelsWidth, s.narrower, s.datasets)
	}
	// Effective labels: theory gives n·Var(y)/Var(PPI) ≈ 360 at the
	// optimal λ ≈ 0.63 (Var(y) = 0.2275, Cov(y, f) = 0.159,
	// Var(f) = 0.226).
	if s.meanEffective < 320 || s.meanEffective > 400 {
		t.Errorf("effective labels %.1f, want about 360", s.meanEffective)
	}
	if s.meanLambda < 0.5 || s.meanLambda > 0.75 {
		t.Errorf("mean λ %.3f, want about 0.63", s.meanLambda)
	}
}

// TestPPICoverageLong is the spec's coverage benchmark (at least 2,000
// simulated datasets): 4,000 per scenario. The scenario must land
// in the 99 % binomial band around 0.95 (0.95 ± 0.0089). The harder ones
// (few labels, a rare class) are logged and held to a looser bar: PPI's
// interval is a normal (Wald) interval like the labels-only one, and both
// undercover a little when n is small or the mean is near the scale's end;
// PPI must not do worse than the labels alone by more than a point, nor
// fall below 92 %. Run with GAVEL_COVERAGE_LONG=1.
func TestPPICoverageLong(t *testing.T) {
	if os.Getenv("GAVEL_COVERAGE_LONG") != "1" {
		t.Skip("set GAVEL_COVERAGE_LONG=1 to run the 4,000-dataset coverage benchmark")
	}
	const datasets = 4000
	band := 2.576 * math.Sqrt(0.95*0.05/datasets)
	for _, sc := range []struct {
		name                                 string
		units, labelled                      int
		prevalence, sensitivity, specificity float64
		strict                               bool
	}{
		{"issue: N=2000 n=200 p=.65 se=.9 sp=.8", 2000, 200, 0.65, 0.9, 0.8, true},
		{"many verdicts: N=10000 n=200", 10000, 200, 0.65, 0.9, 0.8, true},
		{"rare failures: p=.9 se=.95 sp=.6", 2000, 200, 0.9, 0.95, 0.6, false},
		{"few labels: n=60", 2000, 60, 0.65, 0.9, 0.8, false},
	} {
		s := ppiSimulate(t, 7, datasets, sc.units, sc.labelled, sc.prevalence, sc.sensitivity, sc.specificity)
		t.Logf("%s: PPI coverage %.4f (own mean %.4f), labels only %.4f; λ %.3f, effective %.0f labels, width %.4f vs %.4f",
			sc.name, s.coverage, s.coverageFinite, s.coverageLabels, s.meanLambda, s.meanEffective, s.meanWidth, s.meanLabelsWidth)
		switch {
		case sc.strict && math.Abs(s.coverage-0.95) > band:
			t.Errorf("%s: coverage %.4f outside 0.95 ± %.4f", sc.name, s.coverage, band)
		case !sc.strict && (s.coverage < 0.92 || s.coverage < s.coverageLabels-0.01):
			t.Errorf("%s: coverage %.4f, labels only %.4f", sc.name, s.coverage, s.coverageLabels)
		}
	}
}

// TestPPINoiseJudge: a judge whose verdicts are coin flips, unrelated to
// the humans, gets λ ≈ 0 and adds about nothing.
func TestPPINoiseJudge(t *testing.T) {
	s := ppiSimulate(t, 99, 400, 2000, 200, 0.65, 0.5, 0.5)
	t.Logf("noise judge: mean λ %.4f, effective %.1f labels, coverage %.4f", s.meanLambda, s.meanEffective, s.coverage)
	if s.meanLambda > 0.06 {
		t.Errorf("noise judge: mean λ %.4f, want about 0", s.meanLambda)
	}
	if s.meanEffective < 180 || s.meanEffective > 210 {
		t.Errorf("noise judge: effective labels %.1f, want about 200", s.meanEffective)
	}
	if s.coverage < 0.93 || s.coverage > 0.97 {
		t.Errorf("noise judge: coverage %.4f, want 93–97%%", s.coverage)
	}
}

// TestPPIMedianLambdaNoiseJudge keeps most of the noise judge's λ at or
// near the clip at 0, not merely small on average.
func TestPPIMedianLambdaNoiseJudge(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	lambdas := make([]float64, 0, 101)
	for range 101 {
		c, judged, _ := ppiSim(r, 2000, 200, 0.65, 0.5, 0.5)
		lambdas = append(lambdas, benchmark(c, judged, "").Lambda.Value)
	}
	sort.Float64s(lambdas)
	if m := lambdas[50]; m > 0.05 {
		t.Errorf("noise judge: median λ %.4f, want about 0", m)
	}
}
