package stats

import "math"

// studentQuantile returns the p-quantile of Student's t distribution
// with df degrees of freedom (df may be fractional, as a Satterthwaite
// df is; df ≥ 1 here), for 0.5 ≤ p < 1: bisection on the CDF, written
// with the regularized incomplete beta function,
// P(T ≤ t) = 1 − ½·I_{df/(df+t²)}(df/2, ½) for t ≥ 0 (Abramowitz and
// Stegun 26.7.1 with 26.5.27). Above df = 1e7 it is the normal quantile
// for p = 0.975.
func studentQuantile(p, df float64) float64 {
	if !(df >= 1) || !(p >= 0.5 && p < 1) {
		return math.NaN()
	}
	if df > 1e7 && p == 0.975 {
		return z975
	}
	tail := 1 - p
	upper := func(t float64) float64 { // P(T > t), t ≥ 0
		return 0.5 * regIncBeta(df/(df+t*t), df/2, 0.5)
	}
	lo, hi := 0.0, 1.0
	for upper(hi) > tail {
		hi *= 2
		if hi > 1e12 {
			return math.Inf(1)
		}
	}
	for range 200 {
		mid := (lo + hi) / 2
		if upper(mid) > tail {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo <= 1e-12*hi {
			break
		}
	}
	return (lo + hi) / 2
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), by
// its continued fraction (Lentz's method, as in Press et al., Numerical
// Recipes, 3rd ed., sec. 6.4), using the symmetry I_x(a,b) = 1 − I_{1−x}(b,a)
// where the fraction converges slowly.
func regIncBeta(x, a, b float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	lbeta := func() float64 {
		la, _ := math.Lgamma(a)
		lb, _ := math.Lgamma(b)
		lab, _ := math.Lgamma(a + b)
		return lab - la - lb
	}()
	front := math.Exp(lbeta + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaFraction(x, a, b) / a
	}
	return 1 - front*betaFraction(1-x, b, a)/b
}

func betaFraction(x, a, b float64) float64 {
	const tiny = 1e-300
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 10000; m++ {
		fm := float64(m)
		m2 := 2 * fm
		aa := fm * (b - fm) * x / ((qam + m2) * (a + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		aa = -(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-15 {
			break
		}
	}
	return h
}
