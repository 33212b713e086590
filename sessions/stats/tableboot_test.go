package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// tbRandomTable fills a table over cats with n pairs: a share agree, the
// rest fall anywhere, and now and then a whole row or column is left empty.
func tbRandomTable(r *rand.Rand, cats []float64, n int) Confusion {
	c := NewConfusion(cats)
	k := c.k()
	skipRow, skipCol := -1, -1
	if r.IntN(4) == 0 {
		skipRow = r.IntN(k)
	}
	if r.IntN(4) == 0 {
		skipCol = r.IntN(k)
	}
	for range n {
		h := r.IntN(k)
		j := h
		if r.IntN(3) == 0 {
			j = r.IntN(k)
		}
		if h == skipRow || j == skipCol {
			continue
		}
		c.Counts[h][j]++
	}
	return c
}

// tbSameFloat is bitwise equality, NaN equal to NaN.
func tbSameFloat(a, b float64) bool {
	return a == b || (math.IsNaN(a) && math.IsNaN(b))
}

// Each coefficient the bootstrap computes on its scratch table is its
// method's value, to the last bit and with the same definedness.
func TestScratchCoefficientsMatchMethods(t *testing.T) {
	type pair struct {
		name   string
		method func(Confusion) Estimate
		coef   tableCoef
	}
	pairs := []pair{
		{"kappa", Confusion.CohenKappa, coefCohenKappa},
		{"linear", func(c Confusion) Estimate { return c.WeightedKappa(Linear) }, coefLinearKappa},
		{"quadratic", func(c Confusion) Estimate { return c.WeightedKappa(Quadratic) }, coefQuadraticKappa},
		{"ac1", Confusion.GwetAC1, coefGwetAC1},
		{"alpha nominal", func(c Confusion) Estimate { return c.KrippendorffAlpha(Nominal) }, coefAlphaNominal},
		{"alpha ordinal", func(c Confusion) Estimate { return c.KrippendorffAlpha(Ordinal) }, coefAlphaOrdinal},
		{"alpha interval", func(c Confusion) Estimate { return c.KrippendorffAlpha(IntervalLevel) }, coefAlphaInterval},
		{"alpha ratio", func(c Confusion) Estimate { return c.KrippendorffAlpha(Ratio) }, coefAlphaRatio},
		{"mae", Confusion.MeanAbsoluteError, coefMAE},
		{"msd", Confusion.MeanSignedDifference, coefMSD},
		{"spearman", Confusion.Spearman, coefSpearman},
		{"kendall", Confusion.KendallTauB, coefKendallTauB},
	}
	catSets := [][]float64{
		judge.Binary.Values(), judge.Ternary.Values(), judge.Likert.Values(),
		judge.Scale("ordinal:0-10").Values(), {-1, 0, 1, 2.5}, {7},
	}
	r := rand.New(rand.NewPCG(11, 12))
	checked := 0
	for trial := range 3000 {
		cats := catSets[trial%len(catSets)]
		n := []int{0, 1, 2, 3, 10, 57, 400, 5000}[r.IntN(8)]
		c := tbRandomTable(r, cats, n)
		s := newTableScratch(c)
		for i, row := range c.Counts {
			copy(s.cells[i*c.k():], row)
		}
		s.update()
		for _, p := range pairs {
			want, got := p.method(c).Value, p.coef(s)
			if !tbSameFloat(got, want) {
				t.Fatalf("%s on %v: scratch %v, method %v", p.name, c.Counts, got, want)
			}
			// The scratch Confusion is the same table.
			if again := p.method(s.table).Value; !tbSameFloat(again, want) {
				t.Fatalf("%s on the scratch table %v: %v, want %v", p.name, s.table.Counts, again, want)
			}
			checked++
		}
	}
	t.Logf("%d coefficient values checked", checked)
}

// The selection-based percentiles are those of the sort-based ones.
func TestPercentileBySelection(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for trial := range 2000 {
		n := 1 + r.IntN(60)
		if trial%10 == 0 {
			n = 500 + r.IntN(1500)
		}
		xs := make([]float64, n)
		levels := 1 + r.IntN(20)
		for i := range xs {
			switch trial % 3 {
			case 0:
				xs[i] = r.NormFloat64()
			case 1:
				xs[i] = float64(r.IntN(levels)) / 7 // many ties
			default:
				xs[i] = float64(n - i) // descending
			}
		}
		ys := slices.Clone(xs)
		lo, hi := percentileInterval(xs)
		slo, shi := percentileBySelection(ys)
		if lo != slo || hi != shi {
			t.Fatalf("trial %d (n %d): selection [%v, %v], sort [%v, %v]", trial, n, slo, shi, lo, hi)
		}
	}
	if lo, hi := percentileBySelection(nil); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("no samples: [%v, %v], want NaN", lo, hi)
	}
}

func tbLikertTable(r *rand.Rand, n int) Confusion {
	j, h := randomPairs(r, judge.Likert, n)
	c, _ := Tabulate(judge.Likert.Values(), j, h)
	return c
}

var tbAllCoefs = []tableCoef{coefCohenKappa, coefLinearKappa, coefQuadraticKappa, coefGwetAC1,
	coefAlphaNominal, coefAlphaOrdinal, coefAlphaInterval, coefAlphaRatio,
	coefMAE, coefMSD, coefSpearman, coefKendallTauB}

func tbSameBounds(a, b []bootBounds) bool {
	for i := range a {
		if !tbSameFloat(a[i].Low, b[i].Low) || !tbSameFloat(a[i].High, b[i].High) || a[i].Kept != b[i].Kept || a[i].Reason != b[i].Reason {
			return false
		}
	}
	return len(a) == len(b)
}

func TestBootstrapTableDeterministic(t *testing.T) {
	c := tbLikertTable(rand.New(rand.NewPCG(15, 16)), 300)
	a := c.bootstrapTable(7, "agreement", 400, tbAllCoefs)
	b := c.bootstrapTable(7, "agreement", 400, tbAllCoefs)
	if !tbSameBounds(a, b) {
		t.Fatalf("same seed, different bounds:\n%+v\n%+v", a, b)
	}
	for _, other := range []struct {
		seed  uint64
		label string
	}{{8, "agreement"}, {7, "other"}} {
		d := c.bootstrapTable(other.seed, other.label, 400, tbAllCoefs)
		for i := range a {
			if a[i].Low == d[i].Low && a[i].High == d[i].High {
				t.Errorf("coefficient %d: seed %d label %q gave the same bounds as seed 7", i, other.seed, other.label)
			}
		}
	}
	// A coefficient's bounds do not depend on what is computed beside it.
	alone := c.bootstrapTable(7, "agreement", 400, []tableCoef{coefKendallTauB})
	if !tbSameBounds(alone, a[len(a)-1:]) {
		t.Errorf("Kendall alone %+v, among the others %+v", alone[0], a[len(a)-1])
	}
	// And AgreementOf is as reproducible.
	x, y := AgreementOf(c, judge.Likert, 3, 300), AgreementOf(c, judge.Likert, 3, 300)
	if x.CohenKappa != y.CohenKappa || *x.Ordinal != *y.Ordinal || x.ScoreBias != y.ScoreBias {
		t.Errorf("AgreementOf differs between two runs with one seed")
	}
}

// On ordinary tables every interval holds its point value, and AgreementOf
// keeps each value exactly its method's.
func TestAgreementIntervalsHoldTheEstimate(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for trial := range 40 {
		scale := []judge.Scale{judge.Binary, judge.Ternary, judge.Likert, "ordinal:0-10"}[trial%4]
		j, h := randomPairs(r, scale, 100+r.IntN(400))
		c, _ := Tabulate(scale.Values(), j, h)
		a := AgreementOf(c, scale, uint64(trial), 500)
		ivs := map[string]struct {
			iv   Interval
			want Estimate
		}{
			"kappa": {a.CohenKappa, c.CohenKappa()}, "ac1": {a.GwetAC1, c.GwetAC1()},
			"alpha": {a.AlphaNominal, c.KrippendorffAlpha(Nominal)}, "bias": {a.ScoreBias, c.ScoreBias(0, 0).Estimate()},
		}
		if o := a.Ordinal; o != nil {
			for name, x := range map[string]struct {
				iv   Interval
				want Estimate
			}{
				"linear": {o.LinearKappa, c.WeightedKappa(Linear)}, "quadratic": {o.QuadraticKappa, c.WeightedKappa(Quadratic)},
				"alpha ordinal": {o.AlphaOrdinal, c.KrippendorffAlpha(Ordinal)}, "alpha interval": {o.AlphaInterval, c.KrippendorffAlpha(IntervalLevel)},
				"alpha ratio": {o.AlphaRatio, c.KrippendorffAlpha(Ratio)}, "mae": {o.MeanAbsoluteError, c.MeanAbsoluteError()},
				"msd": {o.MeanSignedDifference, c.MeanSignedDifference()}, "spearman": {o.Spearman, c.Spearman()},
				"kendall": {o.KendallTauB, c.KendallTauB()},
			} {
				ivs[name] = x
			}
			// The same figure, the same resamples: the same bounds.
			if o.MeanSignedDifference.Low != a.ScoreBias.Low || o.MeanSignedDifference.High != a.ScoreBias.High {
				t.Errorf("trial %d: mean signed difference %v, score bias %v", trial, o.MeanSignedDifference, a.ScoreBias)
			}
		}
		for name, x := range ivs {
			if x.iv.Value != x.want.Value || x.iv.Reason != "" {
				t.Errorf("trial %d %s: value %v (%q), want the method's %v", trial, name, x.iv.Value, x.iv.Reason, x.want.Value)
			}
			if !x.iv.HasBounds() || !(x.iv.Low <= x.iv.Value && x.iv.Value <= x.iv.High) || x.iv.Low == x.iv.High {
				t.Errorf("trial %d %s: %v [%v, %v] does not hold its value", trial, name, x.iv.Value, x.iv.Low, x.iv.High)
			}
		}
	}
}

func TestBootstrapTableNoResamples(t *testing.T) {
	c := tbLikertTable(rand.New(rand.NewPCG(19, 20)), 200)
	for _, n := range []int{0, -1} {
		for i, b := range c.bootstrapTable(1, "agreement", n, tbAllCoefs) {
			if !math.IsNaN(b.Low) || !math.IsNaN(b.High) || b.Reason != "" || b.Kept != 0 {
				t.Errorf("%d resamples, coefficient %d: %+v, want NaN bounds without a reason", n, i, b)
			}
		}
		a := AgreementOf(c, judge.Likert, 1, n)
		for name, iv := range map[string]Interval{"kappa": a.CohenKappa, "ac1": a.GwetAC1, "alpha": a.AlphaNominal,
			"bias": a.ScoreBias, "kendall": a.Ordinal.KendallTauB, "mae": a.Ordinal.MeanAbsoluteError} {
			if !iv.Defined() || iv.HasBounds() || iv.Reason != "" {
				t.Errorf("%d resamples, %s = %+v, want a value without bounds", n, name, iv)
			}
		}
	}
	empty := NewConfusion(judge.Binary.Values())
	for _, b := range empty.bootstrapTable(1, "agreement", 100, tbAllCoefs) {
		if !math.IsNaN(b.Low) || b.Kept != 0 {
			t.Errorf("no items: %+v, want NaN bounds", b)
		}
	}
}

func TestBootstrapTableTooFewDefined(t *testing.T) {
	// Every item in one cell: kappa is undefined on the table and on every
	// resample; AC1 is 1 on all of them.
	one := NewConfusion(judge.Binary.Values())
	one.Counts[1][1] = 50
	b := one.bootstrapTable(1, "agreement", 200, []tableCoef{coefCohenKappa, coefGwetAC1})
	if !math.IsNaN(b[0].Low) || b[0].Kept != 0 || !strings.Contains(b[0].Reason, "two categories") {
		t.Errorf("one category, kappa bounds %+v, want NaN with a reason", b[0])
	}
	if b[1].Low != 1 || b[1].High != 1 || b[1].Reason != "" || b[1].Kept != 200 {
		t.Errorf("one category, AC1 bounds %+v, want [1, 1]", b[1])
	}
	a := AgreementOf(one, judge.Binary, 1, 200)
	if a.CohenKappa.Defined() || a.CohenKappa.Reason != reasonOneClass {
		t.Errorf("one category, kappa %+v: want undefined with the method's reason", a.CohenKappa)
	}

	// One NO among 40 YES: kappa is 1 on the table, but about a third of
	// the resamples (40/41)^41 miss the NO and leave kappa undefined.
	rare := NewConfusion(judge.Binary.Values())
	rare.Counts[0][0], rare.Counts[1][1] = 1, 40
	a = AgreementOf(rare, judge.Binary, 1, 500)
	k := a.CohenKappa
	if k.Value != 1 || k.HasBounds() || !strings.Contains(k.Reason, "too few resamples have two categories") {
		t.Errorf("one NO: kappa %+v, want 1 without bounds, with a reason", k)
	}
	if !a.GwetAC1.HasBounds() || a.GwetAC1.Reason != "" {
		t.Errorf("one NO: AC1 %+v, want bounds", a.GwetAC1)
	}
}

// The multinomial table bootstrap is the item bootstrap: the mean and the
// spread of the coefficients over its resamples match those of resampling
// a list of the items one by one.
func TestTableBootstrapIsTheItemBootstrap(t *testing.T) {
	c := tbLikertTable(rand.New(rand.NewPCG(21, 22)), 150)
	n, k := c.N(), c.k()
	var items [][2]int // reference, judge
	for rr, row := range c.Counts {
		for j, x := range row {
			for range x {
				items = append(items, [2]int{rr, j})
			}
		}
	}
	const resamples = 4000
	coefs := []struct {
		name string
		f    func(Confusion) float64
		tc   tableCoef
	}{
		{"kappa", func(c Confusion) float64 { return c.CohenKappa().Value }, coefCohenKappa},
		{"quadratic", func(c Confusion) float64 { return c.WeightedKappa(Quadratic).Value }, coefQuadraticKappa},
		{"kendall", func(c Confusion) float64 { return c.KendallTauB().Value }, coefKendallTauB},
		{"alpha ordinal", func(c Confusion) float64 { return c.KrippendorffAlpha(Ordinal).Value }, coefAlphaOrdinal},
	}
	// The item bootstrap, slowly.
	r := rand.New(rand.NewPCG(23, 24))
	slow := make([][]float64, len(coefs))
	for range resamples {
		rs := NewConfusion(c.Categories)
		for range n {
			it := items[r.IntN(n)]
			rs.Counts[it[0]][it[1]]++
		}
		for i, cf := range coefs {
			slow[i] = append(slow[i], cf.f(rs))
		}
	}
	// The table bootstrap, with the coefficients recording their values.
	fast := make([][]float64, len(coefs))
	rec := make([]tableCoef, len(coefs))
	for i, cf := range coefs {
		rec[i] = func(s *tableScratch) float64 {
			v := cf.tc(s)
			fast[i] = append(fast[i], v)
			return v
		}
	}
	c.bootstrapTable(5, "agreement", resamples, rec)
	for i, cf := range coefs {
		m1, s1 := tbMeanSD(slow[i])
		m2, s2 := tbMeanSD(fast[i])
		se := math.Sqrt((s1*s1 + s2*s2) / resamples)
		if math.Abs(m1-m2) > 4*se {
			t.Errorf("%s: mean %v by items, %v by table (4 SE = %v)", cf.name, m1, m2, 4*se)
		}
		// The SD of an SD estimate is about SD/√(2R): 1.1 % here.
		if math.Abs(s1/s2-1) > 0.06 {
			t.Errorf("%s: SD %v by items, %v by table", cf.name, s1, s2)
		}
		t.Logf("%s: mean %.4f / %.4f, SD %.4f / %.4f (items / table), k %d", cf.name, m1, m2, s1, s2, k)
	}
}

func tbMeanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)-1))
}

// Resampling reuses one scratch table: no allocation per resample.
func TestBootstrapTableAllocations(t *testing.T) {
	c := tbLikertTable(rand.New(rand.NewPCG(25, 26)), 500)
	few := testing.AllocsPerRun(5, func() { c.bootstrapTable(1, "agreement", 10, tbAllCoefs) })
	many := testing.AllocsPerRun(5, func() { c.bootstrapTable(1, "agreement", 1000, tbAllCoefs) })
	if many > few {
		t.Errorf("%v allocations with 1,000 resamples, %v with 10: some resample allocates", many, few)
	}
}

// multinomialShares draws what multinomial draws from the same stream.
func TestMultinomialShares(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	for trial := range 300 {
		counts := make([]int, 1+r.IntN(30))
		for i := range counts {
			if r.IntN(3) > 0 {
				counts[i] = r.IntN([]int{3, 50, 5000}[trial%3])
			}
		}
		n := r.IntN(20000)
		a, b := newRand(uint64(trial), "x"), newRand(uint64(trial), "x")
		want, got := make([]int, len(counts)), make([]int, len(counts))
		shares := conditionalShares(counts)
		for range 20 {
			multinomial(a, n, counts, want)
			multinomialShares(b, n, shares, got)
			if !slices.Equal(got, want) {
				t.Fatalf("counts %v, n %d: shares drew %v, multinomial %v", counts, n, got, want)
			}
		}
	}
}
