package stats

import (
	"math"
	"math/big"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

func TestMcNemarExact(t *testing.T) {
	tests := []struct {
		name string
		b, c int
		want float64
		tol  float64
	}{
		// No discordant item: no evidence either way (SPEC).
		{"none discordant", 0, 0, 1, 0},
		// b = c: the lower tail is more than half the mass, clamped to 1.
		{"equal", 3, 3, 1, 0},
		// n = 6, m = 1: P(X ≤ 1) = (C(6,0) + C(6,1)) / 2^6 = (1 + 6)/64;
		// p = 2 · 7/64 = 14/64 = 0.21875.
		{"1 vs 5", 1, 5, 14.0 / 64, 1e-15},
		{"5 vs 1 (symmetric)", 5, 1, 14.0 / 64, 1e-15},
		// n = 1: P(X ≤ 0) = 1/2, p = min(1, 1) = 1.
		{"0 vs 1", 0, 1, 1, 0},
		// n = 10, m = 0: p = 2/1024.
		{"0 vs 10", 0, 10, 2.0 / 1024, 1e-17},
		// Bentur et al. (2009), airway hyper-responsiveness before and after
		// stem cell transplantation, b = 1, c = 7 (an example of Fagerland,
		// Lydersen & Laake 2013, BMC Med Res Methodol 13:91): by hand
		// 2·(C(8,0) + C(8,1))/2^8 = 2·9/256 = 0.0703125.
		{"Bentur 1 vs 7", 1, 7, 18.0 / 256, 1e-15},
		// Cavo et al. (2012), complete response before and after
		// consolidation, b = 6, c = 16 (the same paper's second example):
		// 2·Σ_{k≤6} C(22,k)/2^22 = 2·110056/4194304 = 0.052478790283203125.
		{"Cavo 6 vs 16", 6, 16, 0.052478790283203125, 1e-15},
		// Agresti's presidential approval table (b = 86, c = 150, n = 1600):
		// 2·Σ_{k≤86} C(236,k)/2^236, computed with mpmath at 40 digits (R's
		// binom.test(86, 236)$p.value computes the same sum; R was not at
		// hand to run it).
		{"Agresti 86 vs 150", 86, 150, 3.7159361395714423e-5, 1e-12},
		// Large: 2·Σ_{k≤40000} C(80500,k)/2^80500 (mpmath, 40 digits).
		{"large", 40000, 40500, 0.078620368805107996, 1e-9},
		{"negative counts read as 0", -3, 0, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := McNemarExact(tt.b, tt.c)
			if math.Abs(got-tt.want) > tt.tol*math.Max(1, tt.want) && math.Abs(got-tt.want) > tt.tol {
				t.Errorf("McNemarExact(%d, %d) = %.17g, want %.17g", tt.b, tt.c, got, tt.want)
			}
		})
	}
}

// TestMcNemarExactAgainstExactSum checks the p-value against the exact
// rational 2·Σ_{k≤m} C(n,k) / 2^n over a grid, computed with big integers.
func TestMcNemarExactAgainstExactSum(t *testing.T) {
	for _, b := range []int{0, 1, 2, 7, 30, 99, 300} {
		for _, c := range []int{0, 1, 3, 8, 31, 150, 420} {
			n, m := b+c, min(b, c)
			want := 1.0
			if n > 0 {
				sum := new(big.Int)
				for k := 0; k <= m; k++ {
					sum.Add(sum, new(big.Int).Binomial(int64(n), int64(k)))
				}
				r := new(big.Rat).SetFrac(new(big.Int).Lsh(sum, 1), new(big.Int).Lsh(big.NewInt(1), uint(n)))
				want, _ = r.Float64()
				want = math.Min(want, 1)
			}
			got := McNemarExact(b, c)
			if math.Abs(got-want) > 1e-12*math.Max(want, 1e-300) && math.Abs(got-want) > 1e-300 {
				t.Errorf("McNemarExact(%d, %d) = %.17g, exact %.17g", b, c, got, want)
			}
		}
	}
}

func TestNewcombePaired(t *testing.T) {
	tests := []struct {
		name          string
		a, b, c, d    int
		diff, lo, hi  float64
		undefinedWant bool
	}{
		// Altman, Machin, Bryant & Gardner, "Statistics with confidence"
		// (2000), Table 6.2 — Newcombe's own worked example of his method 10
		// (the chapter is his): a = 14, b = 5, c = 0, d = 22, n = 41.
		// p1 = 19/41 = 0.463415, Wilson [0.321534, 0.611497];
		// p2 = 14/41 = 0.341463, Wilson [0.215570, 0.494407];
		// ad − bc = 308 > n/2, so φ = (308 − 20.5)/√(19·22·14·27) = 0.723276;
		// L = 0.121951 − √(0.141881² − 2φ·0.141881·0.152944 + 0.152944²)
		//   = 0.011483; U = 0.121951 + √(0.125893² − 2φ·0.125893·0.148082
		//   + 0.148082²) = 0.226493 (each step computed with mpmath, 40
		//   digits, from the formula as Newcombe states it).
		{"Altman table 6.2", 14, 5, 0, 22, 0.121951219512, 0.011483241383, 0.226492684351, false},
		// Bentur et al. (2009) as in Fagerland, Lydersen & Laake, "Statistical
		// analysis of contingency tables" (2017), ch. 8: a = 1, b = 1, c = 7,
		// d = 12; ad − bc = 5 lies in [0, n/2], so φ = 0 (plain
		// square-and-add): −0.286 (−0.507 to −0.026), computed as above.
		{"Bentur", 1, 1, 7, 12, -0.285714285714, -0.506920226686, -0.0255591241649, false},
		// Cavo et al. (2012), same book: a = 59, b = 6, c = 16, d = 80:
		// φ = (4624 − 80.5)/√(65·96·75·86) = 0.716174; −0.062 (−0.119 to
		// −0.005), computed as above.
		{"Cavo", 59, 6, 16, 80, -0.0621118012422, -0.118621195639, -0.00462511393305, false},
		{"no items", 0, 0, 0, 0, 0, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NewcombePaired(tt.a, tt.b, tt.c, tt.d)
			if tt.undefinedWant {
				if got.Defined() {
					t.Fatalf("got %+v, want undefined", got)
				}
				return
			}
			for _, x := range []struct {
				what      string
				got, want float64
			}{{"difference", got.Value, tt.diff}, {"low", got.Low, tt.lo}, {"high", got.High, tt.hi}} {
				if math.Abs(x.got-x.want) > 1e-9 {
					t.Errorf("%s = %.12f, want %.12f", x.what, x.got, x.want)
				}
			}
		})
	}
}

// TestCompareHandTable builds two binary judges on 10 labelled items (one
// more unlabelled, one tied) and checks the table, the difference and the
// p-value against a hand count.
func TestCompareHandTable(t *testing.T) {
	bin := []judge.Dimension{{Name: "correct", Scale: judge.Binary}}
	in := Input{Judges: []JudgeSpec{{Key: "a", Dimensions: bin}, {Key: "b", Dimensions: bin}}}
	v := func(j string, x float64) Verdict {
		return Verdict{Judge: j, Status: judge.StatusOK, Values: map[string]float64{"correct": x}}
	}
	lab := func(who string, x float64) Label {
		return Label{Annotator: who, Values: map[string]float64{"correct": x}}
	}
	// item: human, a, b (-1: parse error)
	rows := []struct {
		id       string
		h, a, b  float64
		labelled bool
	}{
		{"i1", 1, 1, 1, true},  // both right
		{"i2", 0, 0, 0, true},  // both right
		{"i3", 1, 0, 1, true},  // fixed
		{"i4", 0, 1, 0, true},  // fixed
		{"i5", 1, 0, 1, true},  // fixed
		{"i6", 1, 1, 0, true},  // broken
		{"i7", 0, 1, 1, true},  // both wrong
		{"i8", 1, -1, 1, true}, // a has no ok verdict: wrong → fixed
		{"i9", 0, 0, -1, true}, // b has no ok verdict: broken
		{"i10", 1, 1, 1, true}, // both right
		{"i11", 1, 0, 1, false},
	}
	for _, r := range rows {
		u := Unit{ItemID: r.id}
		for _, jv := range []struct {
			j string
			x float64
		}{{"a", r.a}, {"b", r.b}} {
			if jv.x < 0 {
				u.Verdicts = append(u.Verdicts, Verdict{Judge: jv.j, Status: judge.StatusParseError})
			} else {
				u.Verdicts = append(u.Verdicts, v(jv.j, jv.x))
			}
		}
		if r.labelled {
			u.Labels = []Label{lab("h", r.h)}
		}
		in.Units = append(in.Units, u)
	}
	tied := Unit{ItemID: "tie", Verdicts: []Verdict{v("a", 1), v("b", 1)}, Labels: []Label{lab("h", 1), lab("g", 0)}}
	in.Units = append(in.Units, tied)

	cmp, err := Compare(in, "a", "b", "", Options{Seed: 1, Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	if len(cmp.Dimensions) != 1 {
		t.Fatalf("%d dimensions", len(cmp.Dimensions))
	}
	p := cmp.Dimensions[0].Paired
	// both right: i1 i2 i10 = 3; only A: i6 i9 = 2; only B: i3 i4 i5 i8 = 4;
	// both wrong: i7 = 1. N = 10; one tie left out.
	if p.N != 10 || p.BothRight != 3 || p.OnlyA != 2 || p.OnlyB != 4 || p.BothWrong != 1 || p.HumanTies != 1 {
		t.Fatalf("table %+v", p)
	}
	// B − A = (4 − 2)/10 = 0.2; McNemar p = 2·(C(6,0)+C(6,1)+C(6,2))/64 = 2·22/64.
	if math.Abs(p.Difference.Value-0.2) > 1e-15 || math.Abs(p.McNemarP.Value-44.0/64) > 1e-15 {
		t.Errorf("difference %v, p %v", p.Difference.Value, p.McNemarP.Value)
	}
	want := NewcombePaired(3, 4, 2, 1)
	if p.Difference != want {
		t.Errorf("interval %+v, want %+v", p.Difference, want)
	}
	ids := func(us []UnitRef) []string {
		var s []string
		for _, u := range us {
			s = append(s, u.ItemID)
		}
		return s
	}
	if got := ids(p.Fixed); len(got) != 4 || got[0] != "i3" || got[3] != "i8" {
		t.Errorf("fixed %v", got)
	}
	if got := ids(p.Broken); len(got) != 2 || got[0] != "i6" || got[1] != "i9" {
		t.Errorf("broken %v", got)
	}
	if p.SmallSample == "" {
		t.Error("no small-sample warning at n = 10")
	}
	a, b := cmp.Dimensions[0].A, cmp.Dimensions[0].B
	if a.NoVerdict != 1 || b.NoVerdict != 1 || a.VsHumans.N != 9 || b.VsHumans.N != 9 {
		t.Errorf("no verdict %d/%d, n %d/%d", a.NoVerdict, b.NoVerdict, a.VsHumans.N, b.VsHumans.N)
	}
	// The per-judge figures are gavel stats' own.
	rep := Compute(in, Options{Seed: 1, Resamples: 200})
	if got, want := a.VsHumans.CohenKappa, rep.Judges[0].Dimensions[0].Overall.VsHumans.CohenKappa; got != want {
		t.Errorf("kappa of a %+v, stats %+v", got, want)
	}

	if _, err := Compare(in, "a", "zz", "", Options{}); err == nil {
		t.Error("an unknown judge gave no error")
	}
	if _, err := Compare(in, "a", "a", "", Options{}); err == nil {
		t.Error("a judge with itself gave no error")
	}
	if _, err := Compare(in, "a", "b", "style", Options{}); err == nil {
		t.Error("an unknown dimension gave no error")
	}
}

// TestCompareOtherScales: on a scale other than binary an item is right
// when the judge's value equals the humans' exactly; the false-pass and
// false-fail rates are not given.
func TestCompareOtherScales(t *testing.T) {
	tests := []struct {
		name                        string
		scale                       judge.Scale
		human, a, b                 []float64
		both, onlyA, onlyB, neither int
	}{
		// Likert: a near miss (4 for 5) is wrong.
		{"likert", judge.Likert, []float64{5, 4, 3, 1}, []float64{5, 4, 2, 2}, []float64{4, 4, 3, 1}, 1, 1, 2, 0},
		{"ternary", judge.Ternary, []float64{0.5, 1, 0}, []float64{0.5, 0, 0}, []float64{1, 1, 0}, 1, 1, 1, 0},
		{"pairwise", judge.Pairwise, []float64{0, 1, 0.5}, []float64{0, 1, 1}, []float64{1, 1, 0.5}, 1, 1, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dims := []judge.Dimension{{Name: "score", Scale: tt.scale}}
			in := Input{Judges: []JudgeSpec{{Key: "a", Dimensions: dims}, {Key: "b", Dimensions: dims}}}
			for i := range tt.human {
				in.Units = append(in.Units, Unit{ItemID: string(rune('p' + i)),
					Verdicts: []Verdict{
						{Judge: "a", Status: judge.StatusOK, Values: map[string]float64{"score": tt.a[i]}},
						{Judge: "b", Status: judge.StatusOK, Values: map[string]float64{"score": tt.b[i]}},
					},
					Labels: []Label{{Annotator: "h", Values: map[string]float64{"score": tt.human[i]}}}})
			}
			c, err := Compare(in, "a", "b", "score", Options{Resamples: -1})
			if err != nil {
				t.Fatal(err)
			}
			d := c.Dimensions[0]
			p := d.Paired
			if p.BothRight != tt.both || p.OnlyA != tt.onlyA || p.OnlyB != tt.onlyB || p.BothWrong != tt.neither {
				t.Errorf("table %d/%d/%d/%d", p.BothRight, p.OnlyA, p.OnlyB, p.BothWrong)
			}
			if d.A.VsHumans.Binary != nil || d.Right == RightMeaning(judge.Binary) {
				t.Errorf("binary figures on a %s scale: %q", tt.scale, d.Right)
			}
		})
	}
}

func TestCompareRefusesDifferentUnits(t *testing.T) {
	bin := []judge.Dimension{{Name: "correct", Scale: judge.Binary}}
	lik := []judge.Dimension{{Name: "correct", Scale: judge.Likert}}
	in := Input{Judges: []JudgeSpec{{Key: "a", Dimensions: bin}, {Key: "b", Dimensions: bin, PerCriterion: true}, {Key: "c", Dimensions: lik}}}
	if _, err := Compare(in, "a", "b", "", Options{}); err == nil {
		t.Error("whole items against rubric criteria gave no error")
	}
	if _, err := Compare(in, "a", "c", "", Options{}); err == nil {
		t.Error("the same dimension on two scales gave no error")
	}
}
