package sessions

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/sessions/stats"
)

// statsUnits.find gives the same answer as a search through every unit,
// whatever order the rows ask in (dataset order, id order, random), for
// items with and without criteria, ids the session lacks and criteria an
// item lacks.
func TestStatsUnitsFind(t *testing.T) {
	ids := []string{"m", "a", "z", "b", "q", "c"}
	crits := map[string]int{"a": 2, "q": 1, "c": 3}
	u := &statsUnits{lastID: -1}
	for _, id := range ids {
		u.byID = append(u.byID, idUnit{id, len(u.units)})
		u.units = append(u.units, stats.Unit{ItemID: id})
		for k := 1; k <= crits[id]; k++ {
			u.units = append(u.units, stats.Unit{ItemID: id, Criterion: k})
		}
	}
	slices.SortFunc(u.byID, func(a, b idUnit) int { return strings.Compare(a.id, b.id) })
	brute := func(id string, crit int) (int, bool) {
		for i, x := range u.units {
			if x.ItemID == id && x.Criterion == crit {
				return i, true
			}
		}
		return 0, false
	}
	type ask struct {
		id   string
		crit int
	}
	var asks []ask
	for _, id := range append(slices.Clone(ids), "zz", "", "0") {
		for crit := -1; crit <= 4; crit++ {
			asks = append(asks, ask{id, crit})
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 50; round++ {
		order := slices.Clone(asks)
		switch round {
		case 0: // as built
		case 1:
			slices.SortFunc(order, func(a, b ask) int { return strings.Compare(a.id, b.id) })
		default:
			r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		for _, a := range order {
			got, ok := u.find(a.id, a.crit)
			want, wantOK := brute(a.id, a.crit)
			if got != want || ok != wantOK {
				t.Fatalf("round %d: find(%q, %d) = %d, %v; want %d, %v", round, a.id, a.crit, got, ok, want, wantOK)
			}
		}
	}
}
