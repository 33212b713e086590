package stats

import (
	"math"
	"testing"
)

// Every expected value below was computed with exact fractions by
// testdata/reference.py (pure Python, written from the published
// definitions, independent of this package), is asserted to 1e-12, and
// agrees with the published figure quoted beside it at the precision it was
// published.

const tol = 1e-12

func near(t *testing.T, name string, got Estimate, want float64) {
	t.Helper()
	if !got.Defined() || math.Abs(got.Value-want) > tol {
		t.Errorf("%s = %v (%q), want %.12f", name, got.Value, got.Reason, want)
	}
}

// nan marks a missing value in reliability data.
var nan = math.NaN()

// krippendorff2011 is the reliability data of Krippendorff (2011),
// "Computing Krippendorff's Alpha-Reliability", Annenberg School for
// Communication, University of Pennsylvania, section E ("nominal data, any
// number of observers, missing values"), p. 3: observers A–D by units 1–12.
// It is also cac.raw4raters of Gwet's R package irrCAC (transposed; unit
// 12's lone value sits with another observer there, which changes nothing
// as a unit with one value is not pairable).
var krippendorff2011 = [][]float64{
	{1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan},
	{1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3},
	{nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan},
	{1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan},
}

func TestKrippendorffAlphaPublished(t *testing.T) {
	// Krippendorff (2011) reports 0.743 (nominal, p. 4), 0.815 (ordinal,
	// p. 6) and 0.849 (interval, p. 6); irrCAC's krippen.alpha.raw prints
	// 0.74342 (https://github.com/kgwet/irrCAC README).
	for _, tc := range []struct {
		level Level
		want  float64
	}{
		{Nominal, 113.0 / 152},        // 0.743421…, published 0.743
		{Ordinal, 108577.0 / 133160},  // 0.815387…, published 0.815
		{IntervalLevel, 951.0 / 1120}, // 0.849107…, published 0.849
	} {
		near(t, "alpha "+tc.level.String(), KrippendorffAlpha(krippendorff2011, tc.level), tc.want)
	}
}

func TestKrippendorffAlphaTwoRatersFromTable(t *testing.T) {
	// irrCAC README, krippen2.table(cont3x3abstractors) = 0.7972585.
	c := table([][]int{{13, 0, 0}, {0, 20, 7}, {0, 4, 56}})
	near(t, "alpha", c.KrippendorffAlpha(Nominal), 0.7972584977308511)
}

func TestFleissKappaPublished(t *testing.T) {
	for _, tc := range []struct {
		name   string
		counts [][]int
		want   float64
	}{
		// Fleiss (1971), "Measuring nominal scale agreement among many
		// raters", Psychological Bulletin 76(5):378–382, as worked in
		// https://en.wikipedia.org/wiki/Fleiss%27_kappa#Worked_example:
		// 10 subjects, 14 raters, 5 categories, kappa = 0.210.
		{"wikipedia", [][]int{{0, 0, 0, 0, 14}, {0, 2, 6, 4, 2}, {0, 0, 3, 5, 6}, {0, 3, 9, 2, 0}, {2, 2, 8, 1, 1},
			{7, 7, 0, 0, 0}, {3, 2, 6, 3, 0}, {2, 5, 3, 2, 2}, {6, 5, 2, 1, 0}, {0, 2, 2, 3, 7}}, 0.20993070442195524},
		// irrCAC README, fleiss.kappa.dist(distrib.6raters) = 0.4139265.
		{"irrCAC distrib.6raters", distrib6raters, 0.41392649903288203},
		// irrCAC README, fleiss.kappa.raw(cac.raw4raters) = 0.76117: unequal
		// numbers of raters per unit.
		{"irrCAC cac.raw4raters", countsOf(krippendorff2011, []float64{1, 2, 3, 4, 5}), 0.7611692754224111},
	} {
		near(t, "fleiss "+tc.name, FleissKappa(tc.counts), tc.want)
	}
}

// distrib6raters is irrCAC's distrib.6raters (15 patients, 6 raters, 5
// categories), from the package README (https://github.com/kgwet/irrCAC).
var distrib6raters = [][]int{
	{0, 0, 0, 6, 0}, {0, 3, 0, 0, 3}, {0, 1, 4, 0, 1}, {0, 0, 0, 0, 6}, {0, 3, 0, 3, 0},
	{2, 0, 4, 0, 0}, {0, 0, 4, 0, 2}, {2, 0, 3, 1, 0}, {2, 0, 0, 4, 0}, {0, 0, 0, 0, 6},
	{1, 0, 0, 5, 0}, {1, 1, 0, 4, 0}, {0, 3, 3, 0, 0}, {1, 0, 0, 5, 0}, {0, 2, 0, 3, 1},
}

func TestGwetAC1Published(t *testing.T) {
	// Gwet (2008), "Computing inter-rater reliability and its variance in
	// the presence of high agreement", BJMSP 61:29–48, as implemented in
	// irrCAC; README values: gwet.ac1.table(cont3x3abstractors) = 0.8493305,
	// gwet.ac1.dist(distrib.6raters) = 0.4448007,
	// gwet.ac1.raw(cac.raw4raters) = 0.77544.
	c := table([][]int{{13, 0, 0}, {0, 20, 7}, {0, 4, 56}})
	near(t, "ac1 cont3x3abstractors", c.GwetAC1(), 0.8493305482313461)
	near(t, "ac1 distrib.6raters", GwetAC1Multi(distrib6raters), 0.44480073293632616)
	near(t, "ac1 cac.raw4raters", GwetAC1Multi(countsOf(krippendorff2011, []float64{1, 2, 3, 4, 5})), 0.775444068126995)
}

func TestCohenKappaPublished(t *testing.T) {
	// irrCAC README, kappa2.table(cont3x3abstractors) = 0.7964094, percent
	// agreement pa2.table = 0.89.
	c := table([][]int{{13, 0, 0}, {0, 20, 7}, {0, 4, 56}})
	near(t, "kappa cont3x3abstractors", c.CohenKappa(), 0.7964094021839718)
	near(t, "pa cont3x3abstractors", c.PercentAgreement().Estimate(), 0.89)
	// https://en.wikipedia.org/wiki/Cohen%27s_kappa#Simple_example: 50
	// proposals, both yes 20, A yes B no 5, A no B yes 10, both no 15;
	// po = 0.7, pe = 0.5, kappa = 0.4.
	w := table([][]int{{20, 5}, {10, 15}})
	near(t, "kappa wikipedia", w.CohenKappa(), 0.4)
}

// likertJudge and likertHuman are a fixed 20-item Likert example; the
// expected values are scikit-learn's definitions (cohen_kappa_score with
// labels=[1..5], https://scikit-learn.org/stable/modules/generated/
// sklearn.metrics.cohen_kappa_score.html), scipy's (spearmanr, kendalltau)
// and Krippendorff's, recomputed exactly by testdata/reference.py.
var (
	likertJudge = []float64{1, 2, 3, 4, 5, 3, 2, 4, 5, 5, 1, 3, 4, 2, 3, 4, 5, 1, 4, 2}
	likertHuman = []float64{1, 3, 3, 4, 4, 2, 2, 5, 5, 3, 2, 3, 4, 1, 3, 5, 3, 1, 4, 4}
)

func TestLikertExample(t *testing.T) {
	c, skipped := Tabulate([]float64{1, 2, 3, 4, 5}, likertJudge, likertHuman)
	if skipped != 0 || c.N() != 20 {
		t.Fatalf("tabulated %d, skipped %d", c.N(), skipped)
	}
	near(t, "kappa", c.CohenKappa(), 0.3710691823899371)
	near(t, "linear kappa", c.WeightedKappa(Linear), 0.559322033898305)
	near(t, "quadratic kappa", c.WeightedKappa(Quadratic), 0.7222222222222222)
	near(t, "ac1", c.GwetAC1(), 0.3767043241137515)
	near(t, "mae", c.MeanAbsoluteError(), 0.65)
	near(t, "msd", c.MeanSignedDifference(), 0.05)
	near(t, "within one", c.WithinOne(1).Estimate(), 0.85)
	near(t, "alpha nominal", c.KrippendorffAlpha(Nominal), 0.38388625592417064)
	near(t, "alpha ordinal", c.KrippendorffAlpha(Ordinal), 0.7180226848669351)
	near(t, "alpha interval", c.KrippendorffAlpha(IntervalLevel), 0.7290676416819013)
	near(t, "spearman (table)", c.Spearman(), 0.7042234884947689)
	near(t, "spearman (slices)", Spearman(likertJudge, likertHuman), 0.7042234884947689)
	near(t, "kendall (table)", c.KendallTauB(), 0.5968524655782431)
	near(t, "kendall (slices)", KendallTauB(likertJudge, likertHuman), 0.5968524655782431)
	near(t, "alpha (reliability data)", KrippendorffAlpha([][]float64{likertJudge, likertHuman}, Ordinal), 0.7180226848669351)
}

func TestRankCorrelationsPublished(t *testing.T) {
	// scipy.stats.spearmanr documentation example (SciPy ≤ 1.8,
	// https://docs.scipy.org/doc/scipy-1.8.0/reference/generated/scipy.stats.spearmanr.html):
	// spearmanr([1,2,3,4,5], [5,6,7,8,7]) = 0.82078268166812329, with a tie.
	near(t, "spearman", Spearman([]float64{1, 2, 3, 4, 5}, []float64{5, 6, 7, 8, 7}), 0.8207826816681233)
	// scipy.stats.kendalltau documentation example
	// (https://docs.scipy.org/doc/scipy/reference/generated/scipy.stats.kendalltau.html):
	// x1 = [12, 2, 1, 12, 2], x2 = [1, 4, 7, 1, 0] gives tau-b
	// -0.47140452079103173, with ties on both sides.
	near(t, "kendall", KendallTauB([]float64{12, 2, 1, 12, 2}, []float64{1, 4, 7, 1, 0}), -0.4714045207910317)
}

func TestWilsonPublished(t *testing.T) {
	// Newcombe (1998), "Two-sided confidence intervals for the single
	// proportion: comparison of seven methods", Statistics in Medicine
	// 17:857–872, Table I, method 3 (Wilson score): 81/263 → 0.2553–0.3662,
	// 15/148 → 0.0624–0.1605, 0/20 → 0–0.1611, 1/29 → 0.0061–0.1718. The
	// full-precision values are the closed form at 50 digits
	// (testdata/reference.py).
	for _, tc := range []struct {
		k, n             int
		lo, hi           float64
		publishedLo, pHi float64
	}{
		{81, 263, 0.2552885198782742, 0.36620957698280004, 0.2553, 0.3662},
		{15, 148, 0.06238639953073628, 0.16048724172330803, 0.0624, 0.1605},
		{0, 20, 0, 0.16112515805281935, 0, 0.1611},
		{1, 29, 0.006113214292762662, 0.17175521879320285, 0.0061, 0.1718},
	} {
		w := Wilson(tc.k, tc.n)
		if math.Abs(w.Low-tc.lo) > tol || math.Abs(w.High-tc.hi) > tol {
			t.Errorf("Wilson(%d, %d) = [%v, %v], want [%v, %v]", tc.k, tc.n, w.Low, w.High, tc.lo, tc.hi)
		}
		if math.Abs(w.Low-tc.publishedLo) > 5e-5 || math.Abs(w.High-tc.pHi) > 5e-5 {
			t.Errorf("Wilson(%d, %d) = [%.4f, %.4f], Newcombe prints [%.4f, %.4f]", tc.k, tc.n, w.Low, w.High, tc.publishedLo, tc.pHi)
		}
		if w.Value != float64(tc.k)/float64(tc.n) {
			t.Errorf("Wilson(%d, %d).Value = %v", tc.k, tc.n, w.Value)
		}
	}
}

func TestRoganGladen(t *testing.T) {
	// Rogan and Gladen (1978), American Journal of Epidemiology
	// 107(1):71–76, eq. 1: (p + spec − 1) / (sens + spec − 1).
	// Hand computation: (0.72 + 0.8 − 1) / (0.9 + 0.8 − 1) = 0.52/0.7.
	near(t, "rogan-gladen", RoganGladen(0.72, 0.9, 0.8), 0.52/0.7)
	near(t, "clamped low", RoganGladen(0.05, 0.9, 0.8), 0)
	near(t, "clamped high", RoganGladen(0.99, 0.6, 0.99), 1)
	near(t, "perfect judge", RoganGladen(0.3, 1, 1), 0.3)
	if e := RoganGladen(0.5, 0.5, 0.5); e.Defined() || e.Reason == "" {
		t.Errorf("chance judge: %+v, want undefined with a reason", e)
	}
}

// table builds a Confusion over categories 0..k-1 from counts[ref][judge].
func table(counts [][]int) Confusion {
	cats := make([]float64, len(counts))
	for i := range cats {
		cats[i] = float64(i)
	}
	c := NewConfusion(cats)
	for r, row := range counts {
		copy(c.Counts[r], row)
	}
	return c
}

// countsOf turns reliability data (observers × units) into per-unit
// category counts.
func countsOf(data [][]float64, cats []float64) [][]int {
	var out [][]int
	for u := range data[0] {
		row := make([]int, len(cats))
		for _, obs := range data {
			for k, c := range cats {
				if obs[u] == c {
					row[k]++
				}
			}
		}
		out = append(out, row)
	}
	return out
}

// publishedAs checks that got rounds to a figure printed with the given
// number of decimals.
func publishedAs(t *testing.T, name string, got Estimate, published float64, decimals int) {
	t.Helper()
	if math.Abs(got.Value-published) > 0.5*math.Pow(10, -float64(decimals))+1e-15 {
		t.Errorf("%s = %.9f, published as %.*f", name, got.Value, decimals, published)
	}
}

func TestKrippendorffAlphaRatioPublished(t *testing.T) {
	// Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability",
	// the four-observer example of section E: ratio alpha = 0.797. Exact
	// value 18222619/22852465 (testdata/reference.py, ratio metric
	// ((c−k)/(c+k))²).
	got := KrippendorffAlpha(krippendorff2011, Ratio)
	near(t, "alpha ratio", got, 18222619.0/22852465)
	publishedAs(t, "alpha ratio", got, 0.797, 3)
}

// raw4raters is irrCAC's cac.raw4raters as counts over the categories
// 1–5 (the same units as krippendorff2011).
var raw4raters = countsOf(krippendorff2011, []float64{1, 2, 3, 4, 5})

func TestGwetAC2Published(t *testing.T) {
	// irrCAC vignette "Weighted Chance-corrected Agreement Coefficients"
	// (https://github.com/kgwet/irrCAC, inst/doc/weighting.html):
	// gwet.ac1.raw(cac.raw4raters, weights = "quadratic") prints AC2
	// 0.914 (pa 0.9753788, pe 0.7137044);
	// gwet.ac1.dist(distrib.6raters, weights = quadratic.weights(1:5))
	// prints AC2 0.4837438 (pa 0.8544444, pe 0.7180556).
	cats := []float64{1, 2, 3, 4, 5}
	got := GwetAC2Multi(raw4raters, cats)
	near(t, "ac2 cac.raw4raters", got, 0.9140007235516048)
	publishedAs(t, "ac2 cac.raw4raters", got, 0.914, 3)
	got = GwetAC2Multi(distrib6raters, cats)
	near(t, "ac2 distrib.6raters", got, 0.483743842364532)
	publishedAs(t, "ac2 distrib.6raters", got, 0.4837438, 7)
	// Unweighted, AC2 is AC1: irrCAC README gwet.ac1.raw(cac.raw4raters)
	// = 0.77544.
	s, tally := tallyRows(raw4raters, cats, false)
	publishedAs(t, "ac1 cac.raw4raters", tally.gwet(s, false), 0.77544, 5)
}

func TestPercentAgreementMultiPublished(t *testing.T) {
	// irrCAC README: pa.coeff.raw(cac.raw4raters) = 0.8181818 (9/11: the
	// 11 units rated twice or more); the weighting vignette:
	// pa.coeff.raw(cac.raw4raters, weights = "quadratic") = 0.9753788,
	// the pa of AC2 above.
	got := PercentAgreementMulti(raw4raters)
	near(t, "pa cac.raw4raters", got, 9.0/11)
	publishedAs(t, "pa cac.raw4raters", got, 0.8181818, 7)
	_, tally := tallyRows(raw4raters, []float64{1, 2, 3, 4, 5}, true)
	near(t, "weighted pa", defined(tally.agreeQ/tally.paired), 0.9753787878787878)
	publishedAs(t, "weighted pa", defined(tally.agreeQ/tally.paired), 0.9753788, 7)
}

func TestFleissKappaMissingRatingsConvention(t *testing.T) {
	// irrCAC README: fleiss.kappa.raw(cac.raw4raters) = 0.76117, and
	// gwet.ac1.raw = 0.77544. Unit 12 has a single rating: irrCAC counts
	// it in the category shares (pi.vec averages over every row given),
	// not in the agreement. Leaving it out of the shares would give
	// 0.76248 (testdata/reference.py), which the published figure rules
	// out.
	got := FleissKappa(raw4raters)
	near(t, "fleiss", got, 0.7611692754224111)
	publishedAs(t, "fleiss", got, 0.76117, 5)
	without := FleissKappa(raw4raters[:11])
	near(t, "fleiss without unit 12", without, 0.7624831309041835)
	if math.Abs(without.Value-0.76117) < 0.5e-5 {
		t.Errorf("leaving unit 12 out also rounds to the published figure: the test no longer tells the conventions apart")
	}
}
