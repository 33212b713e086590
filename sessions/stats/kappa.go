package stats

// Weighting chooses the disagreement weights of a weighted kappa.
type Weighting int

const (
	// Unweighted counts every disagreement the same (Cohen's kappa).
	Unweighted Weighting = iota
	// Linear weighs a disagreement by its distance in categories, |i − j|.
	Linear
	// Quadratic weighs it by the squared distance, (i − j)².
	Quadratic
)

const reasonOneClass = "both raters used a single category, so chance agreement is 1"

// CohenKappa is Cohen's (1960) kappa, (po − pe) / (1 − pe), with pe from
// the two raters' own marginals. Undefined with no pairs, or when pe = 1
// (both raters gave every item the same single value: kappa is 0/0, and
// PercentAgreement then shows the raters agree).
func (c Confusion) CohenKappa() Estimate { return c.WeightedKappa(Unweighted) }

// WeightedKappa is Cohen's (1968) weighted kappa, 1 − Σ w·O / Σ w·E, with
// disagreement weights on the category positions (not the values, so the
// ternary 0/0.5/1 and Likert 1–5 scales both step by one). It equals
// scikit-learn's cohen_kappa_score(weights="linear"|"quadratic") called
// with labels set to every category of the scale. Undefined when there
// are no pairs or no disagreement is expected by chance.
func (c Confusion) WeightedKappa(w Weighting) Estimate {
	n := float64(c.N())
	if n == 0 {
		return undefined(reasonNoItems)
	}
	ref, judge := c.marginals()
	obs, exp := 0.0, 0.0
	for r, row := range c.Counts {
		for j, x := range row {
			wt := weight(w, r, j)
			obs += wt * float64(x)
			exp += wt * ref[r] * judge[j] / n
		}
	}
	if exp == 0 {
		return undefined(reasonOneClass)
	}
	return defined(1 - obs/exp)
}

func weight(w Weighting, i, j int) float64 {
	d := float64(i - j)
	switch w {
	case Linear:
		if d < 0 {
			return -d
		}
		return d
	case Quadratic:
		return d * d
	}
	if i == j {
		return 0
	}
	return 1
}

// GwetAC1 is Gwet's (2008) first-order agreement coefficient,
// (pa − pe) / (1 − pe) with pe = Σ πk(1 − πk) / (q − 1), πk the mean of the
// two raters' shares of category k and q the number of categories of the
// scale (used or not). Unlike kappa it stays stable when one answer
// dominates. Undefined with no pairs or fewer than two categories.
func (c Confusion) GwetAC1() Estimate {
	n := float64(c.N())
	if n == 0 {
		return undefined(reasonNoItems)
	}
	q := c.k()
	if q < 2 {
		return undefined("the scale has fewer than two categories")
	}
	ref, judge := c.marginals()
	pe := 0.0
	for k := range q {
		pi := (ref[k] + judge[k]) / (2 * n)
		pe += pi * (1 - pi)
	}
	pe /= float64(q - 1)
	pa := float64(c.agreed()) / n
	if pe == 1 {
		return undefined(reasonOneClass)
	}
	return defined((pa - pe) / (1 - pe))
}
