package plan

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPRN pins the permanent random numbers to values computed outside Go
// (Python's hashlib, as SCHEMA.md shows), so anyone can recompute a plan.
func TestPRN(t *testing.T) {
	for _, c := range []struct {
		seed uint64
		id   string
		want float64
	}{
		{0, "q1", 0.03785978070102408},
		{7, "tq_17", 0.177217543137641},
		{math.MaxUint64, "ü", 0.344343571877125},
	} {
		if got := PRN(c.seed, c.id); got != c.want {
			t.Errorf("PRN(%d, %q) = %v, want %v", c.seed, c.id, got, c.want)
		}
	}
	if PRN(1, "a") == PRN(2, "a") || PRN(1, "a") == PRN(1, "b") {
		t.Error("PRN does not depend on the seed and the id")
	}
}

// units makes N units under seed, with sizes from size(i) and strata from
// stratum(i).
func units(N int, seed uint64, size func(i int) float64, stratum func(i int) string) []Unit {
	us := make([]Unit, N)
	for i := range us {
		id := fmt.Sprintf("item-%d", i)
		us[i] = Unit{ItemID: id, Size: 1, PRN: PRN(seed, id)}
		if size != nil {
			us[i].Size = size(i)
		}
		if stratum != nil {
			us[i].Stratum = stratum(i)
		}
	}
	return us
}

func TestProbabilities(t *testing.T) {
	skewed := func(i int) float64 { return math.Pow(float64(i%10)/10, 3) }
	few := func(i int) float64 {
		if i < 5 {
			return 1
		}
		return 0
	}
	strata := func(i int) string { return []string{"a", "b", "b", "c", "c", "c"}[i%6] }
	cases := []struct {
		name   string
		design Design
		units  []Unit
		n      int
		floor  float64
		check  func(t *testing.T, p []float64)
	}{
		{"uniform", Uniform, units(50, 1, nil, nil), 10, 0, func(t *testing.T, p []float64) {
			for _, x := range p {
				if x != 0.2 {
					t.Fatalf("λ %v, want 0.2", x)
				}
			}
		}},
		{"uniform all", Uniform, units(5, 1, nil, nil), 9, 0, nil},
		{"stratified", Stratified, units(60, 1, nil, strata), 12, 0, func(t *testing.T, p []float64) {
			// 10 a, 20 b, 30 c: 2, 4, 6.
			want := map[int]float64{0: 0.2, 1: 0.2, 3: 0.2}
			for i, w := range want {
				if math.Abs(p[i]-w) > 1e-12 {
					t.Errorf("λ of unit %d = %v, want %v", i, p[i], w)
				}
			}
		}},
		{"stratified one each", Stratified, units(60, 1, nil, strata), 3, 0, func(t *testing.T, p []float64) {
			if p[0] != 0.1 || p[1] != 0.05 || math.Abs(p[3]-1.0/30) > 1e-12 {
				t.Errorf("λ %v %v %v, want 1/10, 1/20, 1/30", p[0], p[1], p[3])
			}
		}},
		{"active skewed", Active, units(200, 1, skewed, nil), 40, 0.2, nil},
		{"active capped", Active, units(100, 1, few, nil), 20, 0.2, func(t *testing.T, p []float64) {
			// The 5 uncertain units would get 0.04 + 0.8·20/5 > 1: capped,
			// the other 15 labels spread over the 95 units evenly.
			for i, x := range p {
				want := 15.0 / 95
				if i < 5 {
					want = 1
				}
				if math.Abs(x-want) > 1e-12 {
					t.Fatalf("λ of unit %d = %v, want %v", i, x, want)
				}
			}
		}},
		{"active all zero is uniform", Active, units(10, 1, func(int) float64 { return 0 }, nil), 4, 0.2, func(t *testing.T, p []float64) {
			for _, x := range p {
				if x != 0.4 {
					t.Fatalf("λ %v, want 0.4", x)
				}
			}
		}},
		{"active NaN floor", Active, units(30, 2, skewed, nil), 7, math.NaN(), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := Probabilities(c.design, c.units, c.n, c.floor)
			sum := 0.0
			for _, x := range p {
				if !(x > 0 && x <= 1) {
					t.Fatalf("λ %v outside (0, 1]", x)
				}
				sum += x
			}
			if want := float64(min(c.n, len(c.units))); math.Abs(sum-want) > 1e-9 {
				t.Errorf("Σλ = %v, want %v", sum, want)
			}
			if c.design == Active {
				floor := c.floor
				if math.IsNaN(floor) {
					floor = DefaultFloor
				}
				least := floor * float64(c.n) / float64(len(c.units))
				for i, x := range p {
					if x < least-1e-12 {
						t.Errorf("λ of unit %d = %v under the floor %v", i, x, least)
					}
				}
				// Uncapped units keep their ratios: λ ∝ floor/N + (1−floor)·size/Σ.
				var ratio float64
				total := 0.0
				for _, u := range c.units {
					total += u.Size
				}
				for i, u := range c.units {
					if p[i] >= 1 || total == 0 {
						continue
					}
					r := p[i] / (floor/float64(len(c.units)) + (1-floor)*u.Size/total)
					if ratio == 0 {
						ratio = r
					} else if math.Abs(r-ratio) > 1e-9 {
						t.Fatalf("uncapped unit %d has ratio %v, others %v", i, r, ratio)
					}
				}
			}
			if c.check != nil {
				c.check(t, p)
			}
		})
	}
	if p := Probabilities(Uniform, units(3, 1, nil, nil), 0, 0); slices.ContainsFunc(p, func(x float64) bool { return x != 0 }) {
		t.Errorf("n = 0 gives %v", p)
	}
}

// TestAllocate: the shares add up to n, at least two per group (or one)
// when n allows, never more than a group holds.
func TestAllocate(t *testing.T) {
	for _, c := range []struct {
		sizes []int
		n     int
		want  []int
	}{
		{[]int{10, 20, 30}, 12, []int{2, 4, 6}},
		{[]int{1, 1, 98}, 10, []int{1, 1, 8}},
		{[]int{1, 1, 98}, 2, []int{0, 0, 2}},
		{[]int{3, 4}, 100, []int{3, 4}},
		{[]int{5, 5, 5}, 4, []int{2, 1, 1}},
		{[]int{5, 5, 5}, 6, []int{2, 2, 2}},
		{[]int{4, 4, 92}, 10, []int{2, 2, 6}},
		{[]int{4, 4, 92}, 5, []int{1, 1, 3}},
		{[]int{7, 3, 9, 1}, 11, []int{3, 2, 5, 1}}, // gavel sample: 4, 1, 5, 1
	} {
		if got := Allocate(c.sizes, c.n); !slices.Equal(got, c.want) {
			t.Errorf("Allocate(%v, %d) = %v, want %v", c.sizes, c.n, got, c.want)
		}
	}
}

// TestUniformIsSimpleRandomSampling: with equal sizes the plan is the n
// units of smallest PRN, and over many seeds each unit is in it about
// n/N of the time (within a binomial band).
func TestUniformIsSimpleRandomSampling(t *testing.T) {
	const N, n, seeds = 20, 5, 4000
	hits := make([]int, N)
	for seed := range uint64(seeds) {
		us := units(N, seed, nil, nil)
		sel, prob := Select(Uniform, us, n, 0)
		byPRN := make([]int, N)
		for i := range byPRN {
			byPRN[i] = i
		}
		slices.SortFunc(byPRN, func(a, b int) int { return cmpF(us[a].PRN, us[b].PRN) })
		if !slices.Equal(sel, byPRN[:n]) {
			t.Fatalf("seed %d: selected %v, the %d smallest PRNs are %v", seed, sel, n, byPRN[:n])
		}
		if prob[0] != float64(n)/N {
			t.Fatalf("λ %v", prob[0])
		}
		for _, i := range sel {
			hits[i]++
		}
	}
	checkBand(t, hits, seeds, func(int) float64 { return float64(n) / N }, 0)
}

// TestStratifiedDraw: each stratum gives its n_h units of smallest PRN.
func TestStratifiedDraw(t *testing.T) {
	strata := func(i int) string { return []string{"a", "b", "b", "c", "c", "c"}[i%6] }
	us := units(60, 3, nil, strata)
	dr := Draw(Stratified, us, 12, 0)
	count := map[string]int{}
	for _, i := range dr.Selected {
		count[us[i].Stratum]++
	}
	if count["a"] != 2 || count["b"] != 4 || count["c"] != 6 {
		t.Errorf("drawn per stratum %v, want a 2, b 4, c 6", count)
	}
	for i, u := range us {
		// In iff its rank within the stratum is within the quota.
		quota := map[string]int{"a": 2, "b": 4, "c": 6}[u.Stratum]
		if dr.In[i] != (dr.StratumRank[i] <= quota) {
			t.Errorf("unit %d rank %d in %v", i, dr.StratumRank[i], dr.In[i])
		}
	}
}

// TestActiveInclusion: over many seeds each unit of an active plan is in
// it about λ of the time. Sequential Poisson sampling's inclusion
// probabilities equal λ only approximately (Ohlsson 1998), so the band is
// the binomial one widened by 0.01.
func TestActiveInclusion(t *testing.T) {
	const N, n, seeds = 40, 10, 6000
	size := func(i int) float64 { return []float64{0, 0.1, 0.3, 0.9, 0.6}[i%5] }
	var prob []float64
	hits := make([]int, N)
	for seed := range uint64(seeds) {
		us := units(N, seed, size, nil)
		var sel []int
		sel, prob = Select(Active, us, n, DefaultFloor)
		if len(sel) != n {
			t.Fatalf("seed %d: %d selected, want %d", seed, len(sel), n)
		}
		for _, i := range sel {
			hits[i]++
		}
	}
	checkBand(t, hits, seeds, func(i int) float64 { return prob[i] }, 0.01)
}

// TestCertaintiesAlwaysIn: a unit capped at λ = 1 is in every draw.
func TestCertaintiesAlwaysIn(t *testing.T) {
	few := func(i int) float64 {
		if i < 5 {
			return 1
		}
		return 0.01
	}
	for seed := range uint64(200) {
		dr := Draw(Active, units(100, seed, few, nil), 20, DefaultFloor)
		for i := range 5 {
			if dr.Prob[i] != 1 || !dr.In[i] || dr.Rank[i] > 5 {
				t.Fatalf("seed %d: certainty %d λ %v in %v rank %d", seed, i, dr.Prob[i], dr.In[i], dr.Rank[i])
			}
		}
	}
}

// TestSupersetOnExtension: the plan extended to a larger size holds every
// unit of the smaller one; for uniform plans at exactly the size asked.
func TestSupersetOnExtension(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	strata := func(i int) string { return string(rune('a' + i%4)) }
	for trial := range 300 {
		N := 5 + rng.IntN(60)
		n := 1 + rng.IntN(N)
		want := n + rng.IntN(N-n+1)
		d := Designs[trial%3]
		sizes := make([]float64, N)
		for i := range sizes {
			sizes[i] = math.Pow(rng.Float64(), 4)
			if rng.IntN(5) == 0 {
				sizes[i] = 1
			}
		}
		us := units(N, uint64(trial), func(i int) float64 { return sizes[i] }, strata)
		m := Superset(d, us, n, want, DefaultFloor)
		if m < want || m > N {
			t.Fatalf("trial %d: Superset %d for want %d of %d", trial, m, want, N)
		}
		if d == Uniform && m != want {
			t.Fatalf("trial %d: uniform plan of %d extended to %d, asked %d", trial, n, m, want)
		}
		old, ext := Draw(d, us, n, DefaultFloor), Draw(d, us, m, DefaultFloor)
		if len(ext.Selected) != m {
			t.Fatalf("trial %d: %d selected at size %d", trial, len(ext.Selected), m)
		}
		for _, i := range old.Selected {
			if !ext.In[i] {
				t.Fatalf("trial %d (%s, %d -> %d): unit %d left the plan", trial, d, n, m, i)
			}
		}
	}
}

func TestUncertainty(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	cases := []struct {
		name string
		e    Evidence
		want float64
		how  string
		ok   bool
	}{
		{"confidence", Evidence{Confidence: f(0.5)}, math.Sqrt(0.5), "confidence 0.5", true},
		{"sure", Evidence{Confidence: f(1)}, 0, "confidence 1", true},
		{"confidence above 1 clamped", Evidence{Confidence: f(1.2)}, 0, "confidence 1", true},
		{"samples win over the verdict's confidence", Evidence{Confidence: f(0.99), Samples: []float64{1, 0}, Value: 1}, math.Sqrt(0.5), "1 of 2 samples agree", true},
		{"samples with logprobs", Evidence{Confidence: f(0.99), Value: 1, Samples: []float64{1, 1, 1, 0, 0}, SampleConfidences: []float64{0.99, 0.99, 0.99, 0.9, 0.9}},
			math.Sqrt(1 - (3*0.99+2*0.1)/5), "3 of 5 samples agree, P 0.63", true},
		{"a sample without a confidence", Evidence{Value: 1, Samples: []float64{1, 0}, SampleConfidences: []float64{0.9, math.NaN()}}, math.Sqrt(0.5), "1 of 2 samples agree", true},
		{"samples", Evidence{Samples: []float64{1, 1, 1, 0}, Value: 1}, 0.5, "3 of 4 samples agree", true},
		{"one sample says nothing", Evidence{Samples: []float64{1}, Value: 1}, 0, "", false},
		{"judges", Evidence{Others: []float64{1, 0, 0}, Value: 1}, math.Sqrt(0.5), "2 of 4 judges agree", true},
		{"samples win over judges", Evidence{Samples: []float64{1, 1}, Others: []float64{0}, Value: 1}, 0, "2 of 2 samples agree", true},
		{"the score wins over judges", Evidence{Others: []float64{4}, Value: 4, Ordinal: true, Lo: 1, Hi: 5, Cut: 3}, 0.5, "score 4, cut 3", true},
		{"score at the cut", Evidence{Ordinal: true, Lo: 1, Hi: 5, Cut: 3, Value: 3}, 1, "score 3, cut 3", true},
		{"score at the end", Evidence{Ordinal: true, Lo: 1, Hi: 5, Cut: 3, Value: 5}, 0, "score 5, cut 3", true},
		{"score near an off-centre cut", Evidence{Ordinal: true, Lo: 1, Hi: 10, Cut: 8, Value: 6}, 1 - 2.0/7, "score 6, cut 8", true},
		{"nothing", Evidence{Value: 1}, 0, "", false},
		{"NaN confidence", Evidence{Confidence: f(math.NaN())}, 0, "", false},
	}
	for _, c := range cases {
		u, how, ok := Uncertainty(c.e)
		if ok != c.ok || how != c.how || math.Abs(u-c.want) > 1e-12 {
			t.Errorf("%s: %v %q %v, want %v %q %v", c.name, u, how, ok, c.want, c.how, c.ok)
		}
	}
}

func TestSizes(t *testing.T) {
	sizes, mean, none := Sizes([]float64{0.2, 0, 0.6}, []bool{true, false, true})
	if none || mean != 0.4 || !slices.Equal(sizes, []float64{0.2, 0.4, 0.6}) {
		t.Errorf("Sizes: %v %v %v", sizes, mean, none)
	}
	sizes, _, none = Sizes([]float64{0, 0}, []bool{false, false})
	if !none || !slices.Equal(sizes, []float64{1, 1}) {
		t.Errorf("Sizes with none known: %v %v", sizes, none)
	}
}

func FuzzParseDesign(f *testing.F) {
	for _, s := range []string{"uniform", " Active ", "STRATIFIED", "", "activ", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDesign(s)
		if err != nil {
			if d != "" {
				t.Fatalf("%q: design %q with error %v", s, d, err)
			}
			return
		}
		if !slices.Contains(Designs, d) {
			t.Fatalf("%q parsed to unknown design %q", s, d)
		}
		if again, err := ParseDesign(string(d)); err != nil || again != d {
			t.Fatalf("%q does not round-trip: %q %v", d, again, err)
		}
	})
}

// checkBand checks each unit's inclusion count against its probability:
// within 4.5 binomial standard deviations plus slack.
func checkBand(t *testing.T, hits []int, reps int, p func(i int) float64, slack float64) {
	t.Helper()
	for i, h := range hits {
		pi := p(i)
		freq := float64(h) / float64(reps)
		sd := math.Sqrt(pi * (1 - pi) / float64(reps))
		if math.Abs(freq-pi) > 4.5*sd+slack {
			t.Errorf("unit %d: in %.4f of the plans, λ %.4f (band ±%.4f)", i, freq, pi, 4.5*sd+slack)
		}
	}
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
