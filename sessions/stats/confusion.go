package stats

import (
	"math"
	"slices"
)

// Confusion counts paired ratings over a fixed, ascending list of
// categories: Counts[r][j] is how many items the reference (a human, or
// the second judge of a pair) put in Categories[r] while the judge put them
// in Categories[j]. Rows are the reference, columns the judge, in the
// order of Categories, whether or not a category was used, so two tables
// over the same scale always line up.
//
// Every two-rater statistic of this package is a method of Confusion: a
// rating scale has a handful of values, so the table holds all there is to
// know about the pairs, and each statistic costs the same for ten items or
// ten million.
type Confusion struct {
	Categories []float64 `json:"categories"`
	// Names names each category on a scale of named categories (nominal,
	// pairwise), whose values are positions; empty otherwise.
	Names  []string `json:"names,omitempty"`
	Counts [][]int  `json:"counts"`
}

// NewConfusion returns an empty table over the given categories, sorted
// ascending with duplicates and NaN dropped.
func NewConfusion(categories []float64) Confusion {
	cats := make([]float64, 0, len(categories))
	for _, c := range categories {
		if finite(c) {
			cats = append(cats, c)
		}
	}
	slices.Sort(cats)
	cats = slices.Compact(cats)
	counts := make([][]int, len(cats))
	for i := range counts {
		counts[i] = make([]int, len(cats))
	}
	return Confusion{Categories: cats, Counts: counts}
}

// Tabulate builds a table from paired judge and reference values (judge[i]
// and reference[i] rate the same item). Pairs where either value is not
// one of the categories (NaN included) are skipped and counted.
func Tabulate(categories, judge, reference []float64) (c Confusion, skipped int) {
	c = NewConfusion(categories)
	n := min(len(judge), len(reference))
	skipped = max(len(judge), len(reference)) - n
	for i := range n {
		if !c.Add(judge[i], reference[i]) {
			skipped++
		}
	}
	return c, skipped
}

// Add counts one pair and reports whether both values were categories.
func (c *Confusion) Add(judge, reference float64) bool {
	j, r := c.index(judge), c.index(reference)
	if j < 0 || r < 0 {
		return false
	}
	c.Counts[r][j]++
	return true
}

func (c *Confusion) index(v float64) int {
	i, ok := slices.BinarySearch(c.Categories, v)
	if !ok {
		return -1
	}
	return i
}

// k is the number of categories.
func (c Confusion) k() int { return len(c.Categories) }

// N is the number of pairs counted.
func (c Confusion) N() int {
	n := 0
	for _, row := range c.Counts {
		for _, x := range row {
			n += x
		}
	}
	return n
}

// marginals returns the reference (row) and judge (column) totals.
func (c Confusion) marginals() (ref, judge []float64) {
	ref = make([]float64, c.k())
	judge = make([]float64, c.k())
	for r, row := range c.Counts {
		for j, x := range row {
			ref[r] += float64(x)
			judge[j] += float64(x)
		}
	}
	return ref, judge
}

// agreed is the number of pairs on the diagonal.
func (c Confusion) agreed() int {
	a := 0
	for i := range c.Counts {
		a += c.Counts[i][i]
	}
	return a
}

const reasonNoItems = "no items to compare"

// PercentAgreement is the share of pairs where judge and reference gave the
// same value (exact agreement), with a Wilson 95 % interval. Unit: a
// proportion in [0, 1].
func (c Confusion) PercentAgreement() Interval { return Wilson(c.agreed(), c.N()) }

// WithinOne is the share of pairs whose values differ by at most step
// (one step of an ordinal scale: 0.5 for ternary, 1 for Likert), with a
// Wilson 95 % interval.
func (c Confusion) WithinOne(step float64) Interval {
	near := 0
	for r, row := range c.Counts {
		for j, x := range row {
			// A tolerance, because 0.5-steps are exact in binary but a
			// caller's step may not be.
			if math.Abs(c.Categories[j]-c.Categories[r]) <= step*(1+1e-9) {
				near += x
			}
		}
	}
	return Wilson(near, c.N())
}

// JudgeMean is the judge's mean value over the pairs: its pass rate on a
// binary (0/1) scale. Unit: the scale's.
func (c Confusion) JudgeMean() Estimate {
	_, judge := c.marginals()
	return c.mean(judge)
}

// ReferenceMean is the reference's mean value over the pairs.
func (c Confusion) ReferenceMean() Estimate {
	ref, _ := c.marginals()
	return c.mean(ref)
}

func (c Confusion) mean(marg []float64) Estimate {
	s, n := 0.0, 0.0
	for i, x := range marg {
		s += x * c.Categories[i]
		n += x
	}
	return ratio(s, n, reasonNoItems)
}

// MeanSignedDifference is the mean of judge − reference: positive when the
// judge rates higher (more lenient). Unit: scale points.
func (c Confusion) MeanSignedDifference() Estimate {
	return c.meanOf(func(j, r float64) float64 { return j - r })
}

// MeanAbsoluteError is the mean of |judge − reference|. Unit: scale points.
func (c Confusion) MeanAbsoluteError() Estimate {
	return c.meanOf(func(j, r float64) float64 { return math.Abs(j - r) })
}

func (c Confusion) meanOf(f func(judge, ref float64) float64) Estimate {
	s, n := 0.0, 0.0
	for r, row := range c.Counts {
		for j, x := range row {
			if x != 0 {
				s += float64(x) * f(c.Categories[j], c.Categories[r])
				n += float64(x)
			}
		}
	}
	return ratio(s, n, reasonNoItems)
}
