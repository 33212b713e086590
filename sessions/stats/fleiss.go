package stats

// The multi-rater coefficients below read a table of counts: counts[u][k]
// is how many raters put unit u in category k, each row as long as the
// scale has categories (a category no one used is a zero column, and still
// a choice the raters had). Units may have different numbers of ratings,
// and follow Gwet's convention for missing ratings, as his R package
// irrCAC computes it (https://github.com/kgwet/irrCAC,
// R/agree.coeff3.raw.r): observed agreement pa is averaged over the units
// with two or more ratings; the category shares πk = mean of
// counts[u][k] / ratings(u) over every unit with one or more ratings —
// a unit rated once counts in the shares, not in the agreement. Rows with
// no rating are left out. With the same number of raters on every unit
// this is Fleiss (1971) exactly.
//
// irrCAC's published fleiss.kappa.raw(cac.raw4raters) = 0.76117 settles
// the convention: its unit 12 has a single rating, and leaving that rating
// out of the shares would give 0.76248 (reference_test.go).

// FleissKappa is Fleiss' (1971) kappa for many raters, (pa − pe) / (1 − pe)
// with pe = Σk πk², pa and πk as above (irrCAC's fleiss.kappa.raw).
// Undefined when no unit has two ratings or when chance agreement is 1
// (every rating in one category).
func FleissKappa(counts [][]int) Estimate {
	_, t := tallyRows(counts, positions(counts), false)
	return t.fleiss()
}

// GwetAC1Multi is Gwet's AC1 for many raters (Gwet 2008, "Computing
// inter-rater reliability and its variance in the presence of high
// agreement", BJMSP 61:29–48; irrCAC's gwet.ac1.raw), pe = Σk πk(1 − πk) /
// (q − 1), with q = len(counts[u]): the scale's categories, used or not.
// irrCAC counts the categories the raters used unless categ.labels lists
// them all; Gavel always knows the scale, so its figures are irrCAC's with
// categ.labels set to the scale (SPEC: every statistic uses the scale's
// own categories). The two agree whenever every category was used.
func GwetAC1Multi(counts [][]int) Estimate {
	s, t := tallyRows(counts, positions(counts), false)
	return t.gwet(s, false)
}

// GwetAC2Multi is Gwet's AC2: AC1 with quadratic weights on the category
// values cats (ascending, one per column of counts), wkl = 1 − (vk −
// vl)² / (vmax − vmin)², pa = mean over units rated twice or more of
// Σk xk(Σl wkl xl − 1) / r(r − 1), pe = Σkl wkl · Σk πk(1 − πk) / (q(q − 1)),
// as irrCAC's gwet.ac1.raw(ratings, weights = "quadratic", categ.labels =
// cats). Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed., ch. 3.
func GwetAC2Multi(counts [][]int, cats []float64) Estimate {
	s, t := tallyRows(counts, cats, true)
	return t.gwet(s, true)
}

// PercentAgreementMulti is the multi-rater percent agreement, irrCAC's
// pa.coeff.raw: over units with two or more ratings, the mean share of
// agreeing pairs of ratings, Σk xk(xk − 1) / r(r − 1).
func PercentAgreementMulti(counts [][]int) Estimate {
	_, t := tallyRows(counts, positions(counts), false)
	return t.percentAgreement()
}
