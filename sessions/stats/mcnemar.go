package stats

import "math"

// McNemarExact is the exact two-sided McNemar test of two paired binary
// outcomes from its discordant counts b and c (items where only the first
// or only the second is a success): under the null hypothesis each
// discordant item is either kind with probability ½, so
//
//	p = min(1, 2 · P(X ≤ min(b, c))),  X ~ Binomial(b + c, ½),
//
// and p = 1 when b + c = 0 (no discordant item: no evidence either way).
// It equals R's binom.test(min(b, c), b + c)$p.value and
// exact2x2::mcnemar.exact's. Negative counts are read as 0.
//
// The tail is summed from its largest term, P(X = m), down, each term from
// the one above (P(X = k−1) = P(X = k) · k / (n − k + 1)), so it is exact
// to rounding for small n and does not underflow for large ones.
func McNemarExact(b, c int) float64 {
	b, c = max(b, 0), max(c, 0)
	n := b + c
	if n == 0 {
		return 1
	}
	m := min(b, c)
	if 2*m == n {
		return 1 // b = c: the tail holds at least half the mass
	}
	nf := float64(n)
	lgN, _ := math.Lgamma(nf + 1)
	lgM, _ := math.Lgamma(float64(m) + 1)
	lgR, _ := math.Lgamma(nf - float64(m) + 1)
	logTop := lgN - lgM - lgR - nf*math.Ln2 // log P(X = m)
	sum, term := 1.0, 1.0                   // in units of P(X = m)
	for k := m; k > 0; k-- {
		term *= float64(k) / (nf - float64(k) + 1)
		sum += term
		if term < sum*1e-17 {
			break
		}
	}
	return math.Min(1, 2*math.Exp(logTop+math.Log(sum)))
}
