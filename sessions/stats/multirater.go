package stats

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
)

// Multi-rater figures from per-unit category counts: a unit's pattern is
// how many of its ratings fall in each category of the scale. Every
// figure (percent agreement, Fleiss' kappa, Gwet's AC1 and AC2,
// Krippendorff's alpha at each level) is a function of the sums over units
// of a few per-pattern terms, so units sharing a pattern are counted once
// with their multiplicity. That makes the point estimates linear in the
// number of units and a bootstrap resample cost the number of distinct
// patterns, not of units.
//
// Missing ratings follow Gwet (2014), Handbook of Inter-Rater Reliability,
// 4th ed., and his R package irrCAC (pa.coeff.raw, fleiss.kappa.raw,
// gwet.ac1.raw, https://github.com/kgwet/irrCAC, R/agree.coeff3.raw.r):
// observed agreement is averaged over the units with two or more ratings;
// the category shares πk are averaged over every unit with at least one
// rating (irrCAC's pi.vec divides by n, the number of rows given, rows
// with no rating being excluded beforehand), so a unit rated once counts
// in the shares but not in the agreement. Krippendorff's alpha leaves
// units with a single value out altogether, as Krippendorff (2011) does.

// patternTerms are what one unit with a given pattern adds to the sums.
type patternTerms struct {
	paired bool
	// agree is the share of the unit's ordered pairs of ratings that agree
	// (Σk xk(xk−1) / r(r−1)); agreeQ the same with quadratic weights
	// (Σk xk(x*k−1) / r(r−1), x*k = Σl wkl xl), as irrCAC's sum.q.
	agree, agreeQ float64
	// shares holds (k, xk/r) for each category used.
	shares []catTerm
	// coin holds the unit's coincidences (c, k, xc(xk−[c=k])/(r−1)).
	coin []cellTerm
}

type catTerm struct {
	k int
	v float64
}

type cellTerm struct {
	c, k int
	v    float64
}

// patternSet groups units by pattern.
type patternSet struct {
	cats []float64
	// quad holds irrCAC's quadratic weights on the category values,
	// 1 − (vk − vl)² / (vmax − vmin)²; nil when no weighted figure is asked.
	quad [][]float64
	// terms and mult are per distinct pattern; units[i] is the pattern of
	// the i-th unit added (for resampling units one by one).
	terms []patternTerms
	mult  []int
	units []int32
	// small indexes patterns of up to 8 categories with counts below 256,
	// packed a byte per category; index the others.
	small map[uint64]int
	index map[string]int
	key   []byte
}

// newPatternSet returns an empty set over the scale's categories;
// weighted adds the quadratic-weighted agreement that AC2 needs.
func newPatternSet(cats []float64, weighted bool) *patternSet {
	s := &patternSet{cats: cats, small: map[uint64]int{}, index: map[string]int{}}
	if weighted && len(cats) >= 2 {
		lo, hi := cats[0], cats[0]
		for _, c := range cats {
			lo, hi = min(lo, c), max(hi, c)
		}
		span := (hi - lo) * (hi - lo)
		s.quad = make([][]float64, len(cats))
		for k := range cats {
			s.quad[k] = make([]float64, len(cats))
			for l := range cats {
				d := cats[k] - cats[l]
				if span > 0 {
					s.quad[k][l] = 1 - d*d/span
				} else if k == l {
					s.quad[k][l] = 1
				}
			}
		}
	}
	return s
}

// add counts one unit; a unit with no rating is left out. Negative counts
// count as zero; counts beyond len(cats) are ignored.
func (s *patternSet) add(counts []int) {
	counts = counts[:min(len(counts), len(s.cats))]
	r, packed, fits := 0, uint64(0), len(counts) <= 8
	for k, x := range counts {
		if x > 0 {
			r += x
			fits = fits && x < 256
			packed |= uint64(x&0xff) << (8 * k)
		}
	}
	if r == 0 {
		return
	}
	var p int
	var ok bool
	if fits {
		p, ok = s.small[packed]
	} else {
		s.key = s.key[:0]
		for k, x := range counts {
			if x > 0 {
				s.key = binary.AppendUvarint(s.key, uint64(k))
				s.key = binary.AppendUvarint(s.key, uint64(x))
			}
		}
		p, ok = s.index[string(s.key)]
	}
	if !ok {
		p = len(s.terms)
		if fits {
			s.small[packed] = p
		} else {
			s.index[string(s.key)] = p
		}
		s.terms = append(s.terms, s.patternTerms(counts, r))
		s.mult = append(s.mult, 0)
	}
	s.mult[p]++
	s.units = append(s.units, int32(p))
}

// n is the number of units added.
func (s *patternSet) n() int { return len(s.units) }

func (s *patternSet) patternTerms(counts []int, r int) patternTerms {
	var t patternTerms
	used := make([]int, 0, 4)
	for k, x := range counts[:min(len(counts), len(s.cats))] {
		if x > 0 {
			used = append(used, k)
			t.shares = append(t.shares, catTerm{k, float64(x) / float64(r)})
		}
	}
	if r < 2 {
		return t
	}
	t.paired = true
	pairs := float64(r * (r - 1))
	agree, agreeQ := 0, 0.0
	for _, k := range used {
		x := counts[k]
		agree += x * (x - 1)
		if s.quad != nil {
			xw := 0.0
			for _, l := range used {
				xw += s.quad[k][l] * float64(counts[l])
			}
			agreeQ += float64(x) * (xw - 1)
		}
	}
	t.agree, t.agreeQ = float64(agree)/pairs, agreeQ/pairs
	w := 1 / float64(r-1)
	for _, c := range used {
		for _, k := range used {
			y := counts[k]
			if c == k {
				y--
			}
			if y > 0 {
				t.coin = append(t.coin, cellTerm{c, k, float64(counts[c]*y) * w})
			}
		}
	}
	return t
}

// multiTally holds the sums over units, each pattern weighted by its
// multiplicity.
type multiTally struct {
	rated, paired float64
	agree, agreeQ float64
	share         []float64
	coin          *coincidence
}

func newMultiTally(cats []float64) *multiTally {
	return &multiTally{share: make([]float64, len(cats)), coin: newCoincidence(cats)}
}

// sum replaces the tally with the sums over the set's patterns, pattern p
// counted mult[p] times.
func (t *multiTally) sum(s *patternSet, mult []int) {
	t.rated, t.paired, t.agree, t.agreeQ = 0, 0, 0, 0
	clear(t.share)
	for _, row := range t.coin.o {
		clear(row)
	}
	for p, m := range mult {
		if m == 0 {
			continue
		}
		f := float64(m)
		pt := &s.terms[p]
		t.rated += f
		for _, c := range pt.shares {
			t.share[c.k] += f * c.v
		}
		if !pt.paired {
			continue
		}
		t.paired += f
		t.agree += f * pt.agree
		t.agreeQ += f * pt.agreeQ
		for _, c := range pt.coin {
			t.coin.o[c.c][c.k] += f * c.v
		}
	}
}

// reasonNoPairable is why a multi-rater figure is undefined without a unit
// rated twice.
const reasonNoPairable = "no unit has two or more ratings"

// percentAgreement is irrCAC's pa.coeff.raw: over units with two or more
// ratings, the mean share of agreeing pairs of ratings.
func (t *multiTally) percentAgreement() Estimate {
	if t.paired == 0 {
		return undefined(reasonNoPairable)
	}
	return defined(t.agree / t.paired)
}

// pi returns the category shares πk.
func (t *multiTally) pi(k int) float64 { return t.share[k] / t.rated }

func (t *multiTally) fleiss() Estimate {
	if t.paired == 0 {
		return undefined(reasonNoPairable)
	}
	pe := 0.0
	for k := range t.share {
		p := t.pi(k)
		pe += p * p
	}
	if pe >= 1 {
		return undefined("every rating is in one category, so chance agreement is 1")
	}
	return defined((t.agree/t.paired - pe) / (1 - pe))
}

// gwet is AC1 (weighted false) or AC2 with quadratic weights (weighted
// true, the set built with weighted): pe = Tw·Σ πk(1−πk) / (q(q−1)),
// Tw the sum of the weights (q for AC1), as irrCAC's gwet.ac1.raw.
func (t *multiTally) gwet(s *patternSet, weighted bool) Estimate {
	if t.paired == 0 {
		return undefined(reasonNoPairable)
	}
	q := len(t.share)
	if q < 2 {
		return undefined("the scale has fewer than two categories")
	}
	tw, pa := float64(q), t.agree/t.paired
	if weighted {
		if s.quad == nil {
			return undefined("needs weights")
		}
		tw = 0
		for _, row := range s.quad {
			for _, w := range row {
				tw += w
			}
		}
		pa = t.agreeQ / t.paired
	}
	v := 0.0
	for k := range t.share {
		p := t.pi(k)
		v += p * (1 - p)
	}
	pe := tw * v / float64(q*(q-1))
	if pe >= 1 {
		return undefined("chance agreement is 1")
	}
	return defined((pa - pe) / (1 - pe))
}

// multiFigure names the figures a multi-rater bootstrap resamples.
type multiFigure int

const (
	figPercentAgreement multiFigure = iota
	figFleiss
	figAC1
	figAC2
	figAlphaNominal
	figAlphaOrdinal
	figAlphaInterval
	figAlphaRatio
	numMultiFigures
)

// figures computes every figure of the tally; ordinal adds AC2 and the
// alpha levels beyond nominal (left undefined otherwise).
func (t *multiTally) figures(s *patternSet, ordinal bool, out *[numMultiFigures]Estimate) {
	out[figPercentAgreement] = t.percentAgreement()
	out[figFleiss] = t.fleiss()
	out[figAC1] = t.gwet(s, false)
	out[figAlphaNominal] = t.coin.alpha(Nominal)
	if ordinal {
		out[figAC2] = t.gwet(s, true)
		out[figAlphaOrdinal] = t.coin.alpha(Ordinal)
		out[figAlphaInterval] = t.coin.alpha(IntervalLevel)
		out[figAlphaRatio] = t.coin.alpha(Ratio)
	}
}

// multiRaterIntervals returns every figure over the set's units with a
// percentile-bootstrap 95 % interval: each resample draws n units with
// replacement (units with at least one rating; Gwet's shares count units
// rated once) and recomputes every figure. Drawing the multiplicities of
// the distinct patterns from the multinomial is that same distribution at
// a cost in patterns rather than units; when patterns are nearly as many
// as units the units are drawn one by one instead. Resamples where a
// figure is undefined (one category only, say) are left out of its
// interval; when they are more than a tenth of the resamples the bounds
// are undefined, with a reason (minDefinedShare, as bootstrapTable). With
// resamples ≤ 0 the bounds are undefined. The same seed and units give
// the same intervals.
func (s *patternSet) multiRaterIntervals(seed uint64, resamples int, ordinal bool) [numMultiFigures]Interval {
	return s.intervals(seed, resamples, ordinal, len(s.mult)*16 <= s.n())
}

// intervals is multiRaterIntervals drawing pattern multiplicities
// (byPattern) or units.
func (s *patternSet) intervals(seed uint64, resamples int, ordinal, byPattern bool) [numMultiFigures]Interval {
	t := newMultiTally(s.cats)
	t.sum(s, s.mult)
	var point [numMultiFigures]Estimate
	t.figures(s, ordinal, &point)
	var out [numMultiFigures]Interval
	for f := range out {
		out[f] = pointOnly(point[f])
	}
	n := s.n()
	if resamples <= 0 || n == 0 {
		return out
	}
	r := newRand(seed, "multi-rater")
	draw := make([]int, len(s.mult))
	samples := make([][]float64, numMultiFigures)
	for f := range samples {
		if out[f].Defined() {
			samples[f] = make([]float64, 0, resamples)
		}
	}
	var est [numMultiFigures]Estimate
	for range resamples {
		if byPattern {
			multinomial(r, n, s.mult, draw)
		} else {
			drawUnits(r, s.units, draw)
		}
		t.sum(s, draw)
		t.figures(s, ordinal, &est)
		for f, e := range est {
			if samples[f] != nil && e.Defined() {
				samples[f] = append(samples[f], e.Value)
			}
		}
	}
	for f := range out {
		switch {
		case samples[f] == nil:
		case float64(len(samples[f])) < minDefinedShare*float64(resamples):
			// As bootstrapTable: a percentile interval over the few
			// resamples with a value would describe another population.
			out[f].Reason = fmt.Sprintf("too few resamples give a value (%d of %d, fewer than %.0f %%)",
				len(samples[f]), resamples, 100*minDefinedShare)
		default:
			out[f].Low, out[f].High = percentileInterval(samples[f])
		}
	}
	return out
}

// drawUnits counts, per pattern, len(units) units drawn with replacement.
func drawUnits(r *rand.Rand, units []int32, out []int) {
	clear(out)
	n := len(units)
	for range n {
		out[units[r.IntN(n)]]++
	}
}

// tallyRows sums count rows (one per unit) for the public functions.
func tallyRows(counts [][]int, cats []float64, weighted bool) (*patternSet, *multiTally) {
	s := newPatternSet(cats, weighted)
	for _, row := range counts {
		s.add(row)
	}
	t := newMultiTally(cats)
	t.sum(s, s.mult)
	return s, t
}

// positions returns 0, 1, … q−1: the categories of a table of counts whose
// values are not given.
func positions(counts [][]int) []float64 {
	q := 0
	for _, row := range counts {
		q = max(q, len(row))
	}
	cats := make([]float64, q)
	for i := range cats {
		cats[i] = float64(i)
	}
	return cats
}
