package stats

import "math"

// When a labelling plan's labels are a fair sample for the unweighted
// figures (review finding 19). A uniform plan's are: every item had the
// same probability. A stratified plan's are only when its strata were
// sampled at nearly the same rate: the allocation gives every stratum at
// least one label (sessions.allocate), so a small stratum is sampled at a
// higher rate than a large one, and unweighted its items count for more
// than their share. Within 10 % the lean is at most a tenth of the
// strata's difference in the figure, well inside the unweighted
// intervals; beyond it the labels are set apart like an active plan's and
// feed only the plan's weighted estimates.

// DesignStratifiedUnequal is the Input.PlanDesigns value of a stratified
// plan whose strata's rates are not within 10 % of each other
// (StrataRatesEqual): its labels are set apart from the unweighted
// figures, as an active plan's.
const DesignStratifiedUnequal = "stratified-unequal"

// strataRateTolerance is how far apart (as a ratio, highest over lowest)
// the strata's sampling rates may be for the plan's labels to count as
// fair in the unweighted figures.
const strataRateTolerance = 1.10

// StrataRatesEqual reports whether a stratified plan's strata are sampled
// at rates (n_h/N_h, one per stratum) within 10 % of each other: the
// highest at most 1.1 times the lowest. No rate, or one, is equal.
func StrataRatesEqual(rates []float64) bool {
	if len(rates) == 0 {
		return true
	}
	lo, hi := rates[0], rates[0]
	for _, r := range rates[1:] {
		lo, hi = min(lo, r), max(hi, r)
	}
	return lo > 0 && hi <= strataRateTolerance*lo
}

// planDesignForClasses is pl.Design as planClasses reads it: a stratified
// plan whose strata are sampled at unequal rates (its units' inclusion
// probabilities, one rate per stratum) is DesignStratifiedUnequal.
func planDesignForClasses(pl *PlanInput) string {
	if pl.Design == "active" && equalProbabilities(pl) {
		return "uniform"
	}
	if pl.Design != "stratified" {
		return pl.Design
	}
	rate := map[string]float64{}
	for _, u := range pl.Units {
		if u.Probability > 0 {
			rate[u.Stratum] = max(rate[u.Stratum], u.Probability)
		}
	}
	rates := make([]float64, 0, len(rate))
	for _, r := range rate {
		rates = append(rates, r)
	}
	if !StrataRatesEqual(rates) {
		return DesignStratifiedUnequal
	}
	return pl.Design
}

// equalProbabilities tells whether every item the plan may draw has the
// same probability: an active plan drawn when no verdict's confidence was
// known (the demo's match judge gives none) is a uniform plan in all but
// name, and its labels, its design effect and its human-only means are
// read as a uniform plan's.
func equalProbabilities(pl *PlanInput) bool {
	lo, hi := math.Inf(1), 0.0
	for _, u := range pl.Units {
		if u.Probability > 0 {
			lo, hi = min(lo, u.Probability), max(hi, u.Probability)
		}
	}
	return hi > 0 && hi <= lo*(1+1e-9)
}
