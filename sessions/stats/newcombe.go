package stats

import "math"

// NewcombePaired is the difference p1 − p2 between two proportions
// measured on the same n items, with Newcombe's (1998) method 10 interval
// ("Improved confidence intervals for the difference between binomial
// proportions based on paired data", Statistics in Medicine
// 17:2635–2650): the square-and-add of the two Wilson 95 % intervals,
// corrected for the correlation between the two proportions.
//
// The table is a (both succeed), b (only the first), c (only the second)
// and d (neither), n = a + b + c + d; p1 = (a + b)/n, p2 = (a + c)/n, so
// the difference is (b − c)/n. With (l1, u1) and (l2, u2) the Wilson
// limits of p1 and p2,
//
//	L = (p1 − p2) − √((p1 − l1)² − 2φ(p1 − l1)(u2 − p2) + (u2 − p2)²)
//	U = (p1 − p2) + √((p2 − l2)² − 2φ(p2 − l2)(u1 − p1) + (u1 − p1)²)
//
// where φ is the correlation of the table, (ad − bc)/√((a+b)(c+d)(a+c)(b+d)),
// 0 when a margin is empty, and, as Newcombe specifies, with ad − bc
// replaced by max(ad − bc − n/2, 0) when it is positive. This is the
// interval of Altman et al., "Statistics with confidence" (2000), §6, of
// Fagerland, Lydersen & Laake's Newcombe_square_and_add_CI_paired_2x2 and
// of statsmodels' confint_proportions_paired(method="newcomb").
// Undefined when n ≤ 0.
func NewcombePaired(a, b, c, d int) Interval {
	a, b, c, d = max(a, 0), max(b, 0), max(c, 0), max(d, 0)
	n := a + b + c + d
	if n == 0 {
		return undefinedInterval(reasonNoItems)
	}
	nf := float64(n)
	w1, w2 := Wilson(a+b, n), Wilson(a+c, n)
	p1, p2 := w1.Value, w2.Value
	phi := 0.0
	r1, r2, c1, c2 := float64(a+b), float64(c+d), float64(a+c), float64(b+d)
	if r1 > 0 && r2 > 0 && c1 > 0 && c2 > 0 {
		num := float64(a)*float64(d) - float64(b)*float64(c)
		switch {
		case num > nf/2:
			num -= nf / 2
		case num > 0:
			num = 0
		}
		phi = num / math.Sqrt(r1*r2*c1*c2)
	}
	dl1, du1 := p1-w1.Low, w1.High-p1
	dl2, du2 := p2-w2.Low, w2.High-p2
	diff := p1 - p2
	lo := diff - math.Sqrt(math.Max(0, dl1*dl1-2*phi*dl1*du2+du2*du2))
	hi := diff + math.Sqrt(math.Max(0, dl2*dl2-2*phi*dl2*du1+du1*du1))
	return Interval{Value: diff, Low: math.Max(lo, -1), High: math.Min(hi, 1)}
}

// NewcombeIndependent is the difference p1 − p2 between two proportions
// measured on two independent samples, x1 of n1 and x2 of n2, with
// Newcombe's (1998) hybrid score interval, method 10 of "Interval
// estimation for the difference between independent proportions:
// comparison of eleven methods", Statistics in Medicine 17:873–890: the
// square-and-add of the two Wilson 95 % intervals (l1, u1) and (l2, u2),
//
//	L = (p1 − p2) − √((p1 − l1)² + (u2 − p2)²)
//	U = (p1 − p2) + √((u1 − p1)² + (p2 − l2)²)
//
// It is the paired interval (NewcombePaired) with no correlation, and
// that of Fagerland, Lydersen & Laake's Newcombe_hybrid_score_CI_2x2. Unlike the
// Wald interval it stays within [−1, 1] and behaves near 0 and 1 and for
// small samples. Undefined when either sample is empty.
func NewcombeIndependent(x1, n1, x2, n2 int) Interval {
	if n1 <= 0 || n2 <= 0 {
		return undefinedInterval("needs items in both groups")
	}
	w1, w2 := Wilson(x1, n1), Wilson(x2, n2)
	p1, p2 := w1.Value, w2.Value
	diff := p1 - p2
	lo := diff - math.Hypot(p1-w1.Low, w2.High-p2)
	hi := diff + math.Hypot(w1.High-p1, p2-w2.Low)
	return Interval{Value: diff, Low: math.Max(lo, -1), High: math.Min(hi, 1)}
}
