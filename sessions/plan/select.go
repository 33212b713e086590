package plan

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Select draws a plan of n items by sequential Poisson sampling (Ohlsson
// 1998, "Sequential Poisson sampling", Journal of Official Statistics
// 14(2)): with λ from Probabilities, each unit gets ξ_i = PRN_i / λ_i and
// the plan is the n units of smallest ξ — per stratum, n_h of them, for a
// stratified design. Units with λ = 1 are certainties, taken before any
// other (Ohlsson's take-all units): an estimate weights them by 1, so
// they must be in every draw. selected lists the chosen units' positions
// in the plan's order (ξ order, certainties first in PRN order; for a
// stratified design the strata interleaved, see Draw); prob is every
// unit's λ.
//
// With equal probabilities ξ orders the units as their PRNs do, so the
// plan is a simple random sample without replacement, and the n units of
// smallest PRN at n are among those at any larger n. For unequal
// probabilities Draw says what larger n keeps the plan a superset (see
// Superset).
func Select(d Design, units []Unit, n int, floor float64) (selected []int, prob []float64) {
	dr := Draw(d, units, n, floor)
	return dr.Selected, dr.Prob
}

// Drawn is a plan drawn: every unit's λ, the chosen units in ξ order and
// each unit's rank.
type Drawn struct {
	// Prob is every unit's inclusion probability λ.
	Prob []float64
	// Selected lists the positions of the chosen units, in the plan's
	// order: ξ order, or for a stratified design by rank within the
	// stratum, then ξ.
	Selected []int
	// Rank is each unit's place in the plan's order, from 1: the chosen
	// units first (1..n, as Selected lists them), then the others in the
	// same order; 0 for a unit with λ = 0. StratumRank is its position in
	// ξ order within its stratum (certainties first); for a uniform or
	// active design, one stratum, the two are the same.
	Rank, StratumRank []int
	// In marks the chosen units.
	In []bool
}

// Draw is Select with every unit's rank.
func Draw(d Design, units []Unit, n int, floor float64) Drawn {
	prob := Probabilities(d, units, n, floor)
	dr := Drawn{Prob: prob, Rank: make([]int, len(units)), StratumRank: make([]int, len(units)), In: make([]bool, len(units))}
	n = min(max(n, 0), len(units))
	order := make([]int, len(units))
	for i := range order {
		order[i] = i
	}
	xi := make([]float64, len(units))
	for i, u := range units {
		switch {
		case prob[i] >= 1:
			xi[i] = u.PRN - 1 // certainties first, in PRN order
		case prob[i] > 0:
			xi[i] = u.PRN / prob[i]
		default:
			xi[i] = math.Inf(1)
		}
	}
	// Ties in ξ (the same PRN and probability: vanishingly rare) go by
	// item id, so the draw does not depend on the order units are given.
	slices.SortStableFunc(order, func(a, b int) int {
		if c := cmp.Compare(xi[a], xi[b]); c != 0 {
			return c
		}
		return strings.Compare(units[a].ItemID, units[b].ItemID)
	})
	// Quotas: n in all, or n_h per stratum (λ·N_h, exact: n_h/N_h·N_h).
	stratum := func(int) string { return "" }
	quota := map[string]int{"": n}
	if d == Stratified {
		stratum = func(i int) string { return units[i].Stratum }
		quota = map[string]int{}
		_, members := groups(units)
		for _, m := range members {
			if len(m) > 0 {
				quota[units[m[0]].Stratum] = int(math.Round(prob[m[0]] * float64(len(m))))
			}
		}
	}
	seen := map[string]int{}
	reached := order[:0:0]
	for _, i := range order {
		if math.IsInf(xi[i], 1) {
			continue
		}
		h := stratum(i)
		seen[h]++
		dr.StratumRank[i] = seen[h]
		dr.In[i] = seen[h] <= quota[h]
		reached = append(reached, i)
	}
	// The plan's order: by rank within the stratum, then by ξ, so that
	// a stratified plan labelled in order reaches every stratum early
	// (its first items are each stratum's first) rather than one stratum
	// after another; within each stratum the order is still ξ's, so the
	// first labels of a stratum are a sequential Poisson sample of it
	// (the statistics' nonresponse adjustment reads them so). With one
	// stratum this is ξ order itself.
	slices.SortStableFunc(reached, func(a, b int) int { return cmp.Compare(dr.StratumRank[a], dr.StratumRank[b]) })
	for _, i := range reached {
		if dr.In[i] {
			dr.Selected = append(dr.Selected, i)
		}
	}
	k := 0
	for _, i := range dr.Selected {
		k++
		dr.Rank[i] = k
	}
	for _, i := range reached {
		if !dr.In[i] {
			k++
			dr.Rank[i] = k
		}
	}
	return dr
}

// Superset returns the smallest size m ≥ want whose plan holds every unit
// of the plan of size n: what extending a plan of n to want items gives.
// With equal probabilities (uniform, and within each stratum) m is want
// whenever the strata's shares do not shrink; under an active design it
// is want unless raising n caps several units at once whose PRNs had
// kept them out, a rare case, and then the first larger size that keeps
// every planned item. It is at most len(units) (every unit).
func Superset(d Design, units []Unit, n, want int, floor float64) int {
	old := Draw(d, units, n, floor)
	for m := max(want, n); m < len(units); m++ {
		dr := Draw(d, units, m, floor)
		ok := true
		for _, i := range old.Selected {
			if !dr.In[i] {
				ok = false
				break
			}
		}
		if ok {
			return m
		}
	}
	return len(units)
}
