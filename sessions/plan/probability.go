package plan

import (
	"math"
	"slices"
)

// Unit is one item as a plan sees it.
type Unit struct {
	ItemID string
	// Size is the item's size measure: its uncertainty under an active
	// design (≥ 0; 0 is fine, the floor keeps its probability above 0),
	// 1 otherwise.
	Size float64
	// PRN is the item's permanent random number in (0, 1) (see PRN).
	PRN float64
	// Stratum is the item's value of the stratification field
	// (stratified designs only).
	Stratum string
}

// Probabilities returns each unit's inclusion probability λ for a plan of
// n items; they sum to min(n, N) up to rounding.
//
//   - Uniform: n/N.
//   - Stratified: n_h/N_h, with n_h shared among the strata by Allocate.
//   - Active: λ_i = floor·n/N + (1−floor)·n·size_i/Σsize. A λ above 1 is
//     capped at 1 and the excess spread over the uncapped units in
//     proportion to their λ, until none passes 1: the result is
//     λ_i = min(1, t·a_i) for the one t that makes them sum to n. When
//     every size is 0 (or not a number) the plan is uniform.
//
// floor outside [0, 1] (or NaN) is read as DefaultFloor. n ≤ 0 gives
// zeros, n ≥ N ones.
func Probabilities(d Design, units []Unit, n int, floor float64) []float64 {
	N := len(units)
	p := make([]float64, N)
	switch {
	case N == 0 || n <= 0:
		return p
	case n >= N:
		for i := range p {
			p[i] = 1
		}
		return p
	}
	switch d {
	case Stratified:
		strata, members := groups(units)
		sizes := make([]int, len(strata))
		for h, m := range members {
			sizes[h] = len(m)
		}
		alloc := Allocate(sizes, n)
		for h, m := range members {
			for _, i := range m {
				p[i] = float64(alloc[h]) / float64(len(m))
			}
		}
		return p
	case Active:
		if !(floor >= 0 && floor <= 1) {
			floor = DefaultFloor
		}
		total := 0.0
		for _, u := range units {
			total += size(u)
		}
		if total > 0 {
			for i, u := range units {
				p[i] = floor/float64(N) + (1-floor)*size(u)/total
			}
			return capped(p, n)
		}
	}
	for i := range p {
		p[i] = float64(n) / float64(N)
	}
	return p
}

// size is a unit's size measure, 0 when it is negative or not a number.
func size(u Unit) float64 {
	if u.Size > 0 && !math.IsInf(u.Size, 1) {
		return u.Size
	}
	return 0
}

// capped scales shares a (summing to 1) to probabilities summing to n,
// none above 1: the capped units get 1 and the rest share n − |capped| in
// proportion to a, repeated until no share passes 1 (each round caps at
// least one more unit, so at most N rounds).
func capped(a []float64, n int) []float64 {
	p := make([]float64, len(a))
	isCapped := make([]bool, len(a))
	ncap := 0
	for {
		rest := 0.0
		for i, x := range a {
			if !isCapped[i] {
				rest += x
			}
		}
		budget := float64(n - ncap)
		more := false
		for i, x := range a {
			if isCapped[i] {
				p[i] = 1
				continue
			}
			p[i] = budget * x / rest
			if p[i] >= 1 {
				isCapped[i], more = true, true
				ncap++
			}
		}
		if !more || rest == 0 {
			break
		}
	}
	for i := range p {
		p[i] = min(p[i], 1)
	}
	return p
}

// groups lists the strata of units in sorted order and, per stratum, the
// positions of its units in order.
func groups(units []Unit) ([]string, [][]int) {
	at := map[string]int{}
	var names []string
	for _, u := range units {
		if _, ok := at[u.Stratum]; !ok {
			at[u.Stratum] = 0
			names = append(names, u.Stratum)
		}
	}
	slices.Sort(names)
	for h, s := range names {
		at[s] = h
	}
	members := make([][]int, len(names))
	for i, u := range units {
		h := at[u.Stratum]
		members[h] = append(members[h], i)
	}
	return names, members
}

// Allocate shares n draws among groups of the given sizes in proportion
// to their size, by largest remainders, never more than a group holds,
// and at least two per group (or all of a smaller group) when n allows,
// else at least one when n is at least the number of groups: a stratum
// with one planned item gives no variance, so its estimate would have no
// interval. With n below twice the number of groups this is the
// allocation of `gavel sample --stratify` (sessions.allocate).
func Allocate(sizes []int, n int) []int {
	least, two := 0, 0
	for _, s := range sizes {
		two += min(s, 2)
	}
	switch {
	case n >= two:
		least = 2
	case n >= len(sizes):
		least = 1
	}
	return AllocateAtLeast(sizes, n, least)
}

// AllocateAtLeast shares n draws among groups of the given sizes in
// proportion to their size, by largest remainders, never more than a
// group holds and never fewer than least (or all of a smaller group).
// The caller chooses least so that the floors fit in n: Allocate for a
// plan, sessions' allocate for `gavel sample --stratify` (one each).
func AllocateAtLeast(sizes []int, n, least int) []int {
	total := 0
	for _, s := range sizes {
		total += s
	}
	alloc := make([]int, len(sizes))
	if n >= total {
		copy(alloc, sizes)
		return alloc
	}
	if n <= 0 {
		return alloc
	}
	floor := func(i int) int { return min(sizes[i], least) }
	quota := make([]float64, len(sizes))
	sum := 0
	for i, s := range sizes {
		quota[i] = float64(n) * float64(s) / float64(total)
		alloc[i] = min(s, max(floor(i), int(quota[i])))
		sum += alloc[i]
	}
	for sum < n {
		best := -1
		for i := range sizes {
			if alloc[i] < sizes[i] && (best < 0 || quota[i]-float64(alloc[i]) > quota[best]-float64(alloc[best])) {
				best = i
			}
		}
		alloc[best]++
		sum++
	}
	for sum > n {
		best := -1
		for i := range sizes {
			if alloc[i] > floor(i) && (best < 0 || float64(alloc[i])-quota[i] > float64(alloc[best])-quota[best]) {
				best = i
			}
		}
		alloc[best]--
		sum--
	}
	return alloc
}
