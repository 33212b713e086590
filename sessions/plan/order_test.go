package plan

import (
	"slices"
	"testing"
)

// A stratified plan's order interleaves the strata: every stratum's first
// item, then every stratum's second, and so on (by ξ within a round), so
// labelling in order reaches every stratum early (tour finding 6). Rank
// is the place in that order, StratumRank the place within the stratum.
func TestStratifiedOrderInterleaves(t *testing.T) {
	strata := func(i int) string { return []string{"a", "b", "b", "c", "c", "c"}[i%6] }
	us := units(60, 3, nil, strata)
	dr := Draw(Stratified, us, 12, 0)
	round := func(k int) []string {
		var out []string
		for _, i := range dr.Selected {
			if dr.StratumRank[i] == k {
				out = append(out, us[i].Stratum)
			}
		}
		slices.Sort(out)
		return out
	}
	var first []string
	for _, i := range dr.Selected[:3] {
		first = append(first, us[i].Stratum)
	}
	slices.Sort(first)
	if !slices.Equal(first, []string{"a", "b", "c"}) || !slices.Equal(round(1), first) {
		t.Errorf("the first three items are of strata %v, want one of each", first)
	}
	last := 0
	for k, i := range dr.Selected {
		if dr.Rank[i] != k+1 {
			t.Errorf("selected %d has rank %d, want %d", k, dr.Rank[i], k+1)
		}
		if dr.StratumRank[i] < last {
			t.Errorf("selected %d: stratum rank %d after %d", k, dr.StratumRank[i], last)
		}
		last = dr.StratumRank[i]
	}
	// Uniform and active plans keep ξ order: Rank is StratumRank.
	for _, d := range []Design{Uniform, Active} {
		dr := Draw(d, units(30, 5, func(i int) float64 { return float64(i%4) / 4 }, nil), 8, DefaultFloor)
		for i := range dr.Rank {
			if dr.Rank[i] != dr.StratumRank[i] {
				t.Fatalf("%s: unit %d rank %d, stratum rank %d", d, i, dr.Rank[i], dr.StratumRank[i])
			}
		}
	}
}
