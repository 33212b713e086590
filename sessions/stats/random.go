package stats

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
)

// newRand returns the generator of one bootstrap: PCG seeded from the
// caller's seed and a label naming the statistic, so that two statistics
// drawn from one seed do not share a stream.
func newRand(seed uint64, label string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(label))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// deriveSeed gives each figure of a report its own seed from the report's
// seed and the figure's place (judge, dimension, segment…), so a figure's
// interval does not move when another judge or segment is added.
func deriveSeed(seed uint64, path ...string) uint64 {
	h := fnv.New64a()
	for _, p := range path {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return splitmix(seed ^ h.Sum64())
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// binomialDirect is the largest n drawn as a sum of Bernoulli trials.
const binomialDirect = 32

// binomial draws from Binomial(n, p) exactly, in O(log n) time, by the
// order-statistic method of Knuth (TAOCP vol. 2, 3rd ed., §3.4.1 F): the
// a-th smallest of n uniforms is Beta(a, n+1−a); the uniforms below it (or
// above it) are again uniform, so the count below p reduces to a binomial
// on half as many trials.
func binomial(r *rand.Rand, n int, p float64) int {
	k := 0
	for n > binomialDirect {
		if p <= 0 {
			return k
		}
		if p >= 1 {
			return k + n
		}
		a := 1 + n/2
		b := n + 1 - a
		x := beta(r, float64(a), float64(b))
		if x >= p {
			n, p = a-1, p/x
		} else {
			k += a
			n, p = b-1, (p-x)/(1-x)
		}
	}
	for range n {
		if r.Float64() < p {
			k++
		}
	}
	return k
}

// beta draws from Beta(a, b) for a, b ≥ 1 as a ratio of gammas.
func beta(r *rand.Rand, a, b float64) float64 {
	x := gamma(r, a)
	y := gamma(r, b)
	return x / (x + y)
}

// gamma draws from Gamma(a, 1) for a ≥ 1 (Marsaglia and Tsang 2000, "A
// simple method for generating gamma variables", ACM TOMS 26(3)).
func gamma(r *rand.Rand, a float64) float64 {
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// multinomial fills out with the cell counts of n items drawn with
// replacement from a population whose cells hold counts items — exactly
// what resampling the items and counting them per cell gives, drawn as
// conditional binomials in O(cells · log n) rather than O(n).
func multinomial(r *rand.Rand, n int, counts []int, out []int) {
	rest := 0
	for _, c := range counts {
		rest += c
	}
	left := n
	for i, c := range counts {
		switch {
		case left == 0 || c == 0:
			out[i] = 0
		case c == rest:
			out[i] = left
		default:
			out[i] = binomial(r, left, float64(c)/float64(rest))
		}
		left -= out[i]
		rest -= c
	}
}
