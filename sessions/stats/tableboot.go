package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// The item bootstrap of a table's coefficients.
//
// Resampling n items with replacement and tabulating them gives a table
// whose cell counts follow the multinomial over the original cells, each
// with probability count/n. Drawing those counts directly is therefore the
// item bootstrap itself, not an approximation of it, and costs O(cells)
// per resample whatever n is. Every coefficient is then computed on the
// resampled table by an allocation-free twin of its method (same formula,
// same order of operations, so the same value to the last bit; the tests
// hold them to that), on one scratch table reused across resamples.

// minDefinedShare is the share of resamples that must give a coefficient a
// defined value for its bounds to be given. Below it, a percentile
// interval over the defined resamples alone would describe another
// population than the one sampled (the tables that happen to have two
// categories, say), so the bounds are left undefined.
const minDefinedShare = 0.9

// bootBounds is one coefficient's percentile-bootstrap 95 % interval.
type bootBounds struct {
	// Low and High are NaN when there were no resamples or too few gave a
	// defined value.
	Low, High float64
	// Kept is the number of resamples where the coefficient was defined.
	Kept int
	// Reason says why the bounds are undefined although resamples were
	// drawn; empty otherwise.
	Reason string
}

// tableCoef computes one coefficient of the scratch table, NaN (or ±Inf)
// when it is undefined there.
type tableCoef func(s *tableScratch) float64

// bootstrapTable draws resamples item-bootstrap resamples of the n = c.N()
// items of c (as multinomial cell counts, see above) and computes every
// coefficient of coefs on each. For each coefficient it returns the 2.5th
// and 97.5th percentiles over the resamples where the coefficient is
// defined (finite), provided those are at least 90 % of them; otherwise
// the bounds are NaN with a reason.
//
// The random stream depends only on seed, label and the table (the cells
// are drawn in row-major order), never on coefs: a coefficient's bounds do
// not move when other coefficients are computed beside it. With no items
// or resamples ≤ 0 every bound is NaN, without a reason.
func (c Confusion) bootstrapTable(seed uint64, label string, resamples int, coefs []tableCoef) []bootBounds {
	out := make([]bootBounds, len(coefs))
	for i := range out {
		out[i].Low, out[i].High = math.NaN(), math.NaN()
	}
	n := c.N()
	if n == 0 || resamples <= 0 || len(coefs) == 0 {
		return out
	}
	s := newTableScratch(c)
	k := c.k()
	cells := make([]int, k*k)
	for r, row := range c.Counts {
		copy(cells[r*k:(r+1)*k], row)
	}
	cond := conditionalShares(cells)
	r := newRand(seed, label)
	buf := make([]float64, len(coefs)*resamples)
	samples := make([][]float64, len(coefs))
	for i := range samples {
		samples[i] = buf[i*resamples : i*resamples : (i+1)*resamples]
	}
	for range resamples {
		multinomialShares(r, n, cond, s.cells)
		s.update()
		for i, f := range coefs {
			if v := f(s); finite(v) {
				samples[i] = append(samples[i], v)
			}
		}
	}
	for i, xs := range samples {
		out[i].Kept = len(xs)
		if float64(len(xs)) < minDefinedShare*float64(resamples) {
			out[i].Reason = fmt.Sprintf("too few resamples have two categories to compare (%d of %d give a value, fewer than %.0f %%)",
				len(xs), resamples, 100*minDefinedShare)
			continue
		}
		out[i].Low, out[i].High = percentileBySelection(xs)
	}
	return out
}

// percentileBySelection is percentileInterval (the same two values) found
// by selection in O(len) rather than by sorting, which took a fifth of a
// table's bootstrap with a dozen coefficients to bound. It reorders
// samples.
func percentileBySelection(samples []float64) (lo, hi float64) {
	if len(samples) == 0 {
		return math.NaN(), math.NaN()
	}
	return selectQuantile(samples, 0.025), selectQuantile(samples, 0.975)
}

// selectQuantile is quantile(sorted(xs), p), reordering xs.
func selectQuantile(xs []float64, p float64) float64 {
	h := p * float64(len(xs)-1)
	i := int(h)
	x := selectNth(xs, i)
	if i+1 >= len(xs) {
		return x
	}
	// The next order statistic is the smallest of what lies above.
	next := xs[i+1]
	for _, y := range xs[i+2:] {
		next = min(next, y)
	}
	return x + (h-float64(i))*(next-x)
}

// selectNth reorders xs so that xs[k] is the value sorting would put there,
// nothing after it smaller and nothing before it larger, and returns it
// (Hoare's quickselect with a median-of-three pivot; xs holds no NaN).
func selectNth(xs []float64, k int) float64 {
	lo, hi := 0, len(xs)-1
	for hi-lo > 16 {
		mid := lo + (hi-lo)/2
		// Median of three to xs[mid].
		if xs[mid] < xs[lo] {
			xs[mid], xs[lo] = xs[lo], xs[mid]
		}
		if xs[hi] < xs[lo] {
			xs[hi], xs[lo] = xs[lo], xs[hi]
		}
		if xs[hi] < xs[mid] {
			xs[hi], xs[mid] = xs[mid], xs[hi]
		}
		pivot := xs[mid]
		i, j := lo, hi
		for i <= j {
			for xs[i] < pivot {
				i++
			}
			for xs[j] > pivot {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		// Now xs[lo..j] ≤ pivot ≤ xs[i..hi], and j < i.
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return xs[k] // between j and i: equal to the pivot
		}
	}
	// A short stretch: insertion sort.
	for a := lo + 1; a <= hi; a++ {
		for b := a; b > lo && xs[b] < xs[b-1]; b-- {
			xs[b], xs[b-1] = xs[b-1], xs[b]
		}
	}
	return xs[k]
}

// conditionalShares returns, for each cell, its share of the items in it
// and the cells after it: the probabilities multinomial draws with, which
// are the same for every resample of a table. A negative share marks a
// cell that takes every item left.
func conditionalShares(counts []int) []float64 {
	rest := 0
	for _, c := range counts {
		rest += c
	}
	p := make([]float64, len(counts))
	for i, c := range counts {
		switch {
		case c == 0:
			p[i] = 0
		case c == rest:
			p[i] = -1
		default:
			p[i] = float64(c) / float64(rest)
		}
		rest -= c
	}
	return p
}

// multinomialShares is multinomial with the shares precomputed: the same
// draws from the same stream.
func multinomialShares(r *rand.Rand, n int, shares []float64, out []int) {
	left := n
	for i, p := range shares {
		switch {
		case left == 0 || p == 0:
			out[i] = 0
		case p < 0:
			out[i] = left
		default:
			out[i] = binomial(r, left, p)
		}
		left -= out[i]
	}
}

// withBounds is e with the bounds b, and b's reason when e is defined and
// b has none (an undefined e keeps its own reason).
func withBounds(e Estimate, b bootBounds) Interval {
	iv := Interval{Value: e.Value, Low: b.Low, High: b.High, Reason: e.Reason}
	if !e.Defined() {
		iv.Low, iv.High = math.NaN(), math.NaN()
	} else if iv.Reason == "" {
		iv.Reason = b.Reason
	}
	return iv
}

// tableScratch is a resampled table and the sums its coefficients share,
// reused from one resample to the next so that none allocates.
type tableScratch struct {
	k    int
	cats []float64
	// cells holds the counts row-major: cells[r*k+j] is Counts[r][j]; table
	// is a Confusion over the same memory, for coefficients computed by
	// the methods themselves.
	cells []int
	table Confusion
	// Refreshed by update: the number of items, the reference (row) and
	// judge (column) totals and the count on the diagonal.
	n           int
	ref, judge  []float64
	agreed      int
	diff, adiff []float64 // judge − reference and its absolute value, per cell
	// Work space of the coefficients.
	w1, w2 []float64
	suffix []int64
	// Krippendorff's alpha: the interval and ratio distances between two
	// categories, and the four levels' values on the current table.
	distInterval, distRatio []float64
	alphas                  [4]float64
	alphaDone               bool
	// Weighted kappa: |r − j| per cell, and the three weightings' values
	// on the current table.
	linear    []float64
	kappas    [3]float64
	kappaDone bool
}

func newTableScratch(c Confusion) *tableScratch {
	k := c.k()
	s := &tableScratch{
		k:      k,
		cats:   c.Categories,
		cells:  make([]int, k*k),
		ref:    make([]float64, k),
		judge:  make([]float64, k),
		diff:   make([]float64, k*k),
		adiff:  make([]float64, k*k),
		w1:     make([]float64, k+1),
		w2:     make([]float64, k+1),
		suffix: make([]int64, (k+1)*(k+1)),

		distInterval: make([]float64, k*k),
		distRatio:    make([]float64, k*k),
		linear:       make([]float64, k*k),
	}
	s.table = Confusion{Categories: c.Categories, Counts: make([][]int, k)}
	for r := range k {
		s.table.Counts[r] = s.cells[r*k : (r+1)*k : (r+1)*k]
		for j := range k {
			d := c.Categories[j] - c.Categories[r]
			s.diff[r*k+j], s.adiff[r*k+j] = d, math.Abs(d)
			s.linear[r*k+j] = weight(Linear, r, j)
			// As Confusion.KrippendorffAlpha's distances, r and j being
			// its c and k.
			di := c.Categories[r] - c.Categories[j]
			s.distInterval[r*k+j] = di * di
			if sum := c.Categories[r] + c.Categories[j]; sum != 0 {
				dr := (c.Categories[r] - c.Categories[j]) / sum
				s.distRatio[r*k+j] = dr * dr
			}
		}
	}
	return s
}

// update refreshes the shared sums after the cells changed.
func (s *tableScratch) update() {
	k := s.k
	clear(s.ref)
	clear(s.judge)
	s.n, s.agreed = 0, 0
	s.alphaDone, s.kappaDone = false, false
	for r := range k {
		row := s.cells[r*k : (r+1)*k]
		for j, x := range row {
			s.ref[r] += float64(x)
			s.judge[j] += float64(x)
			s.n += x
		}
		s.agreed += row[r]
	}
}

// weightedKappa is Confusion.WeightedKappa's value. The three weightings
// share one pass over the table, made on the first call after each update.
func (s *tableScratch) weightedKappa(w Weighting) float64 {
	if !s.kappaDone {
		s.computeKappas()
		s.kappaDone = true
	}
	if w < Unweighted || w > Quadratic {
		w = Unweighted // the method weighs an unknown weighting as unweighted
	}
	return s.kappas[w]
}

// computeKappas fills kappas for every weighting, each term as the method
// computes it (w·ref·judge/n, in its order), so the values are its own.
// A zero weight adds nothing to a sum, and is skipped.
func (s *tableScratch) computeKappas() {
	n := float64(s.n)
	if n == 0 {
		s.kappas = [3]float64{math.NaN(), math.NaN(), math.NaN()}
		return
	}
	k := s.k
	var obs, exp [3]float64
	for r := range k {
		for j, x := range s.cells[r*k : (r+1)*k] {
			if r == j {
				continue
			}
			lin := s.linear[r*k+j]
			quad := lin * lin
			obs[Unweighted] += float64(x)
			exp[Unweighted] += s.ref[r] * s.judge[j] / n
			obs[Linear] += lin * float64(x)
			exp[Linear] += lin * s.ref[r] * s.judge[j] / n
			obs[Quadratic] += quad * float64(x)
			exp[Quadratic] += quad * s.ref[r] * s.judge[j] / n
		}
	}
	for w := range s.kappas {
		if exp[w] == 0 {
			s.kappas[w] = math.NaN()
		} else {
			s.kappas[w] = 1 - obs[w]/exp[w]
		}
	}
}

// gwetAC1 is Confusion.GwetAC1's value.
func (s *tableScratch) gwetAC1() float64 {
	n := float64(s.n)
	q := s.k
	if n == 0 || q < 2 {
		return math.NaN()
	}
	pe := 0.0
	for k := range q {
		pi := (s.ref[k] + s.judge[k]) / (2 * n)
		pe += pi * (1 - pi)
	}
	pe /= float64(q - 1)
	pa := float64(s.agreed) / n
	if pe == 1 {
		return math.NaN()
	}
	return (pa - pe) / (1 - pe)
}

// alpha is Confusion.KrippendorffAlpha's value at the given level. The
// four levels share one pass over the table, made on the first call after
// each update.
func (s *tableScratch) alpha(level Level) float64 {
	if !s.alphaDone {
		s.computeAlphas()
		s.alphaDone = true
	}
	if level < Nominal || level > Ratio {
		level = Nominal // the method treats an unknown level as nominal
	}
	return s.alphas[level]
}

// computeAlphas fills alphas at every level. For a two-rater table the
// coincidence matrix is o[c][k] = Counts[c][k] + Counts[k][c], and each
// category's total its row total plus its column total; each level's sums
// are accumulated in the method's order, so the values are its own.
func (s *tableScratch) computeAlphas() {
	q := s.k
	nc := s.w1[:q]
	n := 0.0
	for c := range q {
		nc[c] = s.ref[c] + s.judge[c]
		n += nc[c]
	}
	if n < 2 {
		for i := range s.alphas {
			s.alphas[i] = math.NaN()
		}
		return
	}
	cum := s.w2[:q+1]
	cum[0] = 0
	for i := range q {
		cum[i+1] = cum[i] + nc[i]
	}
	var obs, exp [4]float64
	for c := range q {
		for k := range q {
			if c == k {
				continue
			}
			o := float64(s.cells[c*q+k] + s.cells[k*q+c])
			e := nc[c] * nc[k]
			lo, hi := min(c, k), max(c, k)
			dOrd := cum[hi+1] - cum[lo] - (nc[c]+nc[k])/2
			dOrd *= dOrd
			dInt, dRatio := s.distInterval[c*q+k], s.distRatio[c*q+k]
			obs[Nominal] += o
			exp[Nominal] += e
			obs[Ordinal] += o * dOrd
			exp[Ordinal] += e * dOrd
			obs[IntervalLevel] += o * dInt
			exp[IntervalLevel] += e * dInt
			obs[Ratio] += o * dRatio
			exp[Ratio] += e * dRatio
		}
	}
	for l := range s.alphas {
		if exp[l] == 0 {
			s.alphas[l] = math.NaN()
		} else {
			s.alphas[l] = 1 - (n-1)*obs[l]/exp[l]
		}
	}
}

// meanOf is the count-weighted mean of v over the cells, as
// Confusion.MeanAbsoluteError and MeanSignedDifference compute it.
func (s *tableScratch) meanOf(v []float64) float64 {
	sum, n := 0.0, 0.0
	for i, x := range s.cells {
		if x != 0 {
			sum += float64(x) * v[i]
			n += float64(x)
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / n
}

// spearman is Confusion.Spearman's value.
func (s *tableScratch) spearman() float64 {
	n := float64(s.n)
	if n < 2 {
		return math.NaN()
	}
	rr, rj := s.w1[:s.k], s.w2[:s.k]
	below, belowJ := 0.0, 0.0
	for i := range s.k {
		rr[i] = below + (s.ref[i]+1)/2
		below += s.ref[i]
		rj[i] = belowJ + (s.judge[i]+1)/2
		belowJ += s.judge[i]
	}
	mean := (n + 1) / 2
	sxy, sxx, syy := 0.0, 0.0, 0.0
	for r := range s.k {
		sxx += s.ref[r] * (rr[r] - mean) * (rr[r] - mean)
		syy += s.judge[r] * (rj[r] - mean) * (rj[r] - mean)
		for j, x := range s.cells[r*s.k : (r+1)*s.k] {
			sxy += float64(x) * (rr[r] - mean) * (rj[j] - mean)
		}
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

// kendallTauB is Confusion.KendallTauB's value. The method pairs every two
// cells, O(k⁴); here each cell meets the suffix sums of the rows below it,
// O(k²). The counts are integers, so both give the same value exactly.
func (s *tableScratch) kendallTauB() float64 {
	n := int64(s.n)
	if n < 2 {
		return math.NaN()
	}
	k := s.k
	var tiedRef, tiedJudge int64
	for i := range k {
		tiedRef += pairs(int64(s.ref[i]))
		tiedJudge += pairs(int64(s.judge[i]))
	}
	// suf[r*(k+1)+j] is the count of rows ≥ r, columns ≥ j.
	w := k + 1
	suf := s.suffix
	for j := range w {
		suf[k*w+j] = 0
	}
	for r := k - 1; r >= 0; r-- {
		suf[r*w+k] = 0
		for j := k - 1; j >= 0; j-- {
			suf[r*w+j] = int64(s.cells[r*k+j]) + suf[(r+1)*w+j] + suf[r*w+j+1] - suf[(r+1)*w+j+1]
		}
	}
	var conc, disc int64
	for r := range k - 1 {
		below := suf[(r+1)*w] // every item in a row below r
		for j := range k {
			x := int64(s.cells[r*k+j])
			if x == 0 {
				continue
			}
			right := suf[(r+1)*w+j+1]      // below and right: concordant
			left := below - suf[(r+1)*w+j] // below and left: discordant
			conc += x * right
			disc += x * left
		}
	}
	n0 := pairs(n)
	den := float64(n0-tiedRef) * float64(n0-tiedJudge)
	if den == 0 {
		return math.NaN()
	}
	return float64(conc-disc) / math.Sqrt(den)
}

// The coefficients AgreementOf bootstraps.
var (
	coefCohenKappa     tableCoef = func(s *tableScratch) float64 { return s.weightedKappa(Unweighted) }
	coefLinearKappa    tableCoef = func(s *tableScratch) float64 { return s.weightedKappa(Linear) }
	coefQuadraticKappa tableCoef = func(s *tableScratch) float64 { return s.weightedKappa(Quadratic) }
	coefGwetAC1        tableCoef = (*tableScratch).gwetAC1
	coefAlphaNominal   tableCoef = func(s *tableScratch) float64 { return s.alpha(Nominal) }
	coefAlphaOrdinal   tableCoef = func(s *tableScratch) float64 { return s.alpha(Ordinal) }
	coefAlphaInterval  tableCoef = func(s *tableScratch) float64 { return s.alpha(IntervalLevel) }
	coefAlphaRatio     tableCoef = func(s *tableScratch) float64 { return s.alpha(Ratio) }
	coefMAE            tableCoef = func(s *tableScratch) float64 { return s.meanOf(s.adiff) }
	coefMSD            tableCoef = func(s *tableScratch) float64 { return s.meanOf(s.diff) }
	coefSpearman       tableCoef = (*tableScratch).spearman
	coefKendallTauB    tableCoef = (*tableScratch).kendallTauB
)
