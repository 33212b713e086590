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

// binomial draws from Binomial(n, p) exactly, in O(1) expected time for
// any n, with the two algorithms of Hörmann (1993), "The generation of
// binomial random variates", Journal of Statistical Computation and
// Simulation 46:101–110: inversion (BINV) when the mean is small, and
// transformed rejection with decomposition (BTRD) otherwise.
func binomial(r *rand.Rand, n int, p float64) int {
	switch {
	case n <= 0 || !(p > 0): // also NaN
		return 0
	case p >= 1:
		return n
	case p > 0.5:
		return n - binomial(r, n, 1-p)
	case float64(n)*p < 10:
		return binomialInversion(r, n, p)
	}
	return binomialBTRD(r, n, p)
}

// binomialInversion is algorithm BINV: walk the probabilities up from 0
// until the uniform is used up. Expected steps: n·p + 1.
func binomialInversion(r *rand.Rand, n int, p float64) int {
	q := 1 - p
	s := p / q
	a := float64(n+1) * s
	for {
		f := math.Pow(q, float64(n))
		u := r.Float64()
		for x := 0; x <= n; x++ {
			if u < f {
				return x
			}
			u -= f
			f *= a/float64(x+1) - s
		}
		// Rounding left u above the total mass: draw again.
	}
}

// binomialBTRD is algorithm BTRD for p ≤ 0.5 and n·p ≥ 10, step by step as
// in Hörmann (1993), p. 6.
func binomialBTRD(r *rand.Rand, n int, p float64) int {
	nf := float64(n)
	q := 1 - p
	m := math.Floor((nf + 1) * p)
	rr := p / q
	nr := (nf + 1) * rr
	npq := nf * p * q
	spq := math.Sqrt(npq)
	b := 1.15 + 2.53*spq
	a := -0.0873 + 0.0248*b + 0.01*p
	c := nf*p + 0.5
	alpha := (2.83 + 5.1/b) * spq
	vr := 0.92 - 4.2/b
	urvr := 0.86 * vr
	for {
		// Step 1: the centre of the hat, accepted at once.
		v := r.Float64()
		if v <= urvr {
			u := v/vr - 0.43
			return int(math.Floor((2*a/(0.5-math.Abs(u))+b)*u + c))
		}
		// Step 2: a point in the rest of the hat.
		var u float64
		if v >= vr {
			u = r.Float64() - 0.5
		} else {
			u = v/vr - 0.93
			u = math.Copysign(0.5, u) - u
			v = r.Float64() * vr
		}
		// Step 3: the candidate and its acceptance test.
		us := 0.5 - math.Abs(u)
		kf := math.Floor((2*a/us+b)*u + c)
		if kf < 0 || kf > nf {
			continue
		}
		k := int(kf)
		v = v * alpha / (a/(us*us) + b)
		km := math.Abs(kf - m)
		if km <= 15 {
			// Step 3.1: the ratio f(k)/f(m) by recursion.
			f := 1.0
			if m < kf {
				for i := m + 1; i <= kf; i++ {
					f *= nr/i - rr
				}
			} else if m > kf {
				for i := kf + 1; i <= m; i++ {
					v *= nr/i - rr
				}
			}
			if v <= f {
				return k
			}
			continue
		}
		// Step 3.2: squeeze on the log scale.
		v = math.Log(v)
		rho := (km / npq) * (((km/3+0.625)*km+1.0/6)/npq + 0.5)
		t := -km * km / (2 * npq)
		if v < t-rho {
			return k
		}
		if v > t+rho {
			continue
		}
		// Steps 3.3 and 3.4: the exact test with Stirling's correction.
		nm := nf - m + 1
		h := (m+0.5)*math.Log((m+1)/(rr*nm)) + stirlingTail(m) + stirlingTail(nf-m)
		nk := nf - kf + 1
		if v <= h+(nf+1)*math.Log(nm/nk)+(kf+0.5)*math.Log(nk*rr/(kf+1))-stirlingTail(kf)-stirlingTail(nf-kf) {
			return k
		}
	}
}

// stirlingTail is fc(k) = log k! − log(√(2π) (k+1)^(k+1/2) e^−(k+1)),
// tabulated for small k and by its series beyond (Hörmann 1993, p. 6).
func stirlingTail(k float64) float64 {
	if k < 10 {
		return stirlingTable[int(k)]
	}
	k1 := k + 1
	k2 := k1 * k1
	return (1.0/12 - (1.0/360-1.0/1260/k2)/k2) / k1
}

var stirlingTable = [10]float64{
	0.08106146679532726, 0.04134069595540929, 0.02767792568499834, 0.02079067210376509,
	0.01664469118982119, 0.01387612882307075, 0.01189670994589177, 0.01041126526197209,
	0.009255462182712733, 0.008330563433362871,
}

// multinomial fills out with the cell counts of n items drawn with
// replacement from a population whose cells hold counts items — exactly
// what resampling the items and counting them per cell gives, drawn as
// conditional binomials in O(cells) rather than O(n).
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
