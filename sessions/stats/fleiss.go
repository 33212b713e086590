package stats

// FleissKappa is Fleiss' (1971) kappa for many raters from a table of
// counts: counts[u][k] is how many raters put unit u in category k.
// Units may have different numbers of ratings: observed agreement is
// averaged over units with at least two ratings, and the category shares
// πk = mean over rated units of counts[u][k] / ratings(u), as in Gwet
// (2014), Handbook of Inter-Rater Reliability, 4th ed., and his R package
// irrCAC (fleiss.kappa.raw); with equal numbers of raters this is
// Fleiss (1971) exactly. Undefined when no unit has two ratings or when
// chance agreement is 1 (every rating in one category).
func FleissKappa(counts [][]int) Estimate {
	pa, pi, ok := multiRaterShares(counts)
	if !ok {
		return undefined("no unit has two or more ratings")
	}
	pe := 0.0
	for _, p := range pi {
		pe += p * p
	}
	if pe >= 1 {
		return undefined("every rating is in one category, so chance agreement is 1")
	}
	return defined((pa - pe) / (1 - pe))
}

// GwetAC1Multi is Gwet's AC1 for many raters from the same table of counts
// as FleissKappa (Gwet 2008; missing ratings as in Gwet 2014 and irrCAC's
// gwet.ac1.raw), with q = len(counts[u]) categories.
func GwetAC1Multi(counts [][]int) Estimate {
	pa, pi, ok := multiRaterShares(counts)
	if !ok {
		return undefined("no unit has two or more ratings")
	}
	q := len(pi)
	if q < 2 {
		return undefined("the scale has fewer than two categories")
	}
	pe := 0.0
	for _, p := range pi {
		pe += p * (1 - p)
	}
	pe /= float64(q - 1)
	return defined((pa - pe) / (1 - pe))
}

// multiRaterShares returns the observed pairwise agreement over units with
// two or more ratings and the category shares over units with one or more.
func multiRaterShares(counts [][]int) (pa float64, pi []float64, ok bool) {
	q := 0
	for _, row := range counts {
		q = max(q, len(row))
	}
	pi = make([]float64, q)
	rated, paired := 0, 0
	for _, row := range counts {
		r := 0
		for _, x := range row {
			r += max(x, 0)
		}
		if r == 0 {
			continue
		}
		rated++
		agree := 0
		for k, x := range row {
			x = max(x, 0)
			pi[k] += float64(x) / float64(r)
			agree += x * (x - 1)
		}
		if r >= 2 {
			paired++
			pa += float64(agree) / float64(r*(r-1))
		}
	}
	if paired == 0 {
		return 0, nil, false
	}
	for k := range pi {
		pi[k] /= float64(rated)
	}
	return pa / float64(paired), pi, true
}
