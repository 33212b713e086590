package stats

import (
	"cmp"
	"math"
	"slices"
)

const reasonConstant = "one of the two raters gave every item the same value"

// Spearman is Spearman's rank correlation rho: the Pearson correlation of
// the ranks, tied values sharing their average rank (as scipy.stats.
// spearmanr does). Pairs where either value is NaN are skipped. Undefined
// with fewer than two pairs or when either side is constant.
func Spearman(x, y []float64) Estimate {
	x, y = finitePairs(x, y)
	if len(x) < 2 {
		return undefined("fewer than two items")
	}
	return pearson(averageRanks(x), averageRanks(y))
}

// KendallTauB is Kendall's (1945) tau-b, which corrects for ties:
// (C − D) / √((n0 − n1)(n0 − n2)), computed in O(n log n) with Knight's
// (1966) method as scipy.stats.kendalltau does. Pairs where either value is
// NaN are skipped. Undefined with fewer than two pairs or when either side
// is constant.
func KendallTauB(x, y []float64) Estimate {
	x, y = finitePairs(x, y)
	n := len(x)
	if n < 2 {
		return undefined("fewer than two items")
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(x[a], x[b]), cmp.Compare(y[a], y[b]))
	})
	var tiedX, tiedXY int64
	for i := 0; i < n; {
		j, k := i, i
		for j < n && x[idx[j]] == x[idx[i]] {
			j++
		}
		tiedX += pairs(int64(j - i))
		for k < j {
			l := k
			for l < j && y[idx[l]] == y[idx[k]] {
				l++
			}
			tiedXY += pairs(int64(l - k))
			k = l
		}
		i = j
	}
	ys := make([]float64, n)
	for i, id := range idx {
		ys[i] = y[id]
	}
	swaps := mergeCountInversions(ys, make([]float64, n))
	var tiedY int64
	for i := 0; i < n; {
		j := i
		for j < n && ys[j] == ys[i] {
			j++
		}
		tiedY += pairs(int64(j - i))
		i = j
	}
	n0 := pairs(int64(n))
	den := float64(n0-tiedX) * float64(n0-tiedY)
	if den == 0 {
		return undefined(reasonConstant)
	}
	num := float64(n0-tiedX-tiedY+tiedXY) - 2*float64(swaps)
	return defined(num / math.Sqrt(den))
}

func pairs(t int64) int64 { return t * (t - 1) / 2 }

// mergeCountInversions sorts a ascending and returns the number of pairs
// i < j with a[i] > a[j].
func mergeCountInversions(a, buf []float64) int64 {
	if len(a) < 2 {
		return 0
	}
	mid := len(a) / 2
	inv := mergeCountInversions(a[:mid], buf[:mid]) + mergeCountInversions(a[mid:], buf[mid:])
	i, j, k := 0, mid, 0
	for i < mid && j < len(a) {
		if a[i] <= a[j] {
			buf[k] = a[i]
			i++
		} else {
			buf[k] = a[j]
			inv += int64(mid - i)
			j++
		}
		k++
	}
	k += copy(buf[k:], a[i:mid])
	copy(buf[k:], a[j:])
	copy(a, buf[:len(a)])
	return inv
}

func finitePairs(x, y []float64) ([]float64, []float64) {
	n := min(len(x), len(y))
	fx, fy := make([]float64, 0, n), make([]float64, 0, n)
	for i := range n {
		if finite(x[i]) && finite(y[i]) {
			fx = append(fx, x[i])
			fy = append(fy, y[i])
		}
	}
	return fx, fy
}

func averageRanks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(v[a], v[b]) })
	r := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && v[idx[j]] == v[idx[i]] {
			j++
		}
		avg := float64(i+j+1) / 2 // ranks i+1..j
		for k := i; k < j; k++ {
			r[idx[k]] = avg
		}
		i = j
	}
	return r
}

func pearson(x, y []float64) Estimate {
	n := float64(len(x))
	mx, my := 0.0, 0.0
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= n
	my /= n
	sxy, sxx, syy := 0.0, 0.0, 0.0
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return undefined(reasonConstant)
	}
	return defined(sxy / math.Sqrt(sxx*syy))
}

// Spearman is Spearman's rho over the table's pairs; see the function
// Spearman. Each category's rank is the average rank of the items in it.
func (c Confusion) Spearman() Estimate {
	n := float64(c.N())
	if n < 2 {
		return undefined("fewer than two items")
	}
	ref, judge := c.marginals()
	rr, rj := categoryRanks(ref), categoryRanks(judge)
	mean := (n + 1) / 2
	sxy, sxx, syy := 0.0, 0.0, 0.0
	for r, row := range c.Counts {
		sxx += ref[r] * (rr[r] - mean) * (rr[r] - mean)
		syy += judge[r] * (rj[r] - mean) * (rj[r] - mean)
		for j, x := range row {
			sxy += float64(x) * (rr[r] - mean) * (rj[j] - mean)
		}
	}
	if sxx == 0 || syy == 0 {
		return undefined(reasonConstant)
	}
	return defined(sxy / math.Sqrt(sxx*syy))
}

func categoryRanks(marg []float64) []float64 {
	r := make([]float64, len(marg))
	below := 0.0
	for i, m := range marg {
		r[i] = below + (m+1)/2
		below += m
	}
	return r
}

// KendallTauB is Kendall's tau-b over the table's pairs; see the function
// KendallTauB.
func (c Confusion) KendallTauB() Estimate {
	n := int64(c.N())
	if n < 2 {
		return undefined("fewer than two items")
	}
	k := c.k()
	var conc, disc, tiedRef, tiedJudge int64
	ref, judge := c.marginals()
	for i := range k {
		tiedRef += pairs(int64(ref[i]))
		tiedJudge += pairs(int64(judge[i]))
	}
	for r := range k {
		for j := range k {
			x := int64(c.Counts[r][j])
			if x == 0 {
				continue
			}
			for r2 := r + 1; r2 < k; r2++ {
				for j2 := range k {
					y := int64(c.Counts[r2][j2])
					switch {
					case j2 > j:
						conc += x * y
					case j2 < j:
						disc += x * y
					}
				}
			}
		}
	}
	n0 := pairs(n)
	den := float64(n0-tiedRef) * float64(n0-tiedJudge)
	if den == 0 {
		return undefined(reasonConstant)
	}
	return defined(float64(conc-disc) / math.Sqrt(den))
}
