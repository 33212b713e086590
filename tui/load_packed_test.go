package tui

import (
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// packedVerdicts are verdicts of every kind a record keeps apart:
// criteria, the swapped order, several dimensions, a NaN confidence, a
// truncated one, one with a reason, and an item's verdict twice (the
// later one current).
func packedVerdicts(items []judge.Item) (first, swapped []judge.Verdict) {
	nan := math.NaN()
	half := 0.5
	at := time.Unix(1700000000, 0)
	one := func(id string, crit int, x float64) judge.Verdict {
		return judge.Verdict{ItemID: id, Criterion: crit, Status: judge.StatusOK, Values: map[string]float64{"correct": x}, At: at, Model: "m"}
	}
	first = []judge.Verdict{
		one(items[0].ID, 0, 1), one(items[0].ID, 1, 0), one(items[0].ID, 2, 1),
		{ItemID: items[1].ID, Status: judge.StatusOK, Values: map[string]float64{"correct": 1, "style": 3}, Confidence: &half},
		{ItemID: items[2].ID, Status: judge.StatusTruncated, Error: "cut"},
		{ItemID: items[3].ID, Status: judge.StatusOK, Values: map[string]float64{"correct": 0}, Confidence: &nan, Reason: "why"},
		one(items[4].ID, 0, 0), one(items[4].ID, 0, 1),
		{ItemID: "unknown", Status: judge.StatusOK},
	}
	swapped = []judge.Verdict{one(items[0].ID, 0, 0), {ItemID: items[3].ID, Status: judge.StatusParseError, Raw: "??"}}
	return first, swapped
}

// A run read by LoadEach, in chunks of any size (an item's verdicts
// split between two, too), holds what the same verdicts read whole by
// Load hold; verdicts that came before the load (a re-judge's) are
// replaced by the loaded ones as before.
func TestLoadEachHoldsWhatLoadHolds(t *testing.T) {
	items := testItems(6)
	first, swapped := packedVerdicts(items)
	early := judge.Verdict{ItemID: items[5].ID, Status: judge.StatusOK, Values: map[string]float64{"correct": 1}}
	earlyOver := judge.Verdict{ItemID: items[0].ID, Criterion: 1, Status: judge.StatusOK, Values: map[string]float64{"correct": 1}}
	for _, tc := range []struct {
		name  string
		chunk int
		early []judge.Verdict
	}{
		{"one chunk", 100, nil},
		{"chunks of one", 1, nil},
		{"chunks of two", 2, nil},
		{"after a re-judge's verdicts", 3, []judge.Verdict{early, earlyOver}},
	} {
		whole := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo, Load: func() (Loaded, error) {
			return Loaded{Verdicts: slices.Clone(first), Swapped: slices.Clone(swapped)}, nil
		}}}, nil, 120, 40)
		each := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo, LoadEach: func(put func([]judge.Verdict, bool)) (Loaded, error) {
			for _, l := range []struct {
				vs      []judge.Verdict
				swapped bool
			}{{first, false}, {swapped, true}} {
				for a := 0; a < len(l.vs); a += tc.chunk {
					put(slices.Clone(l.vs[a:min(a+tc.chunk, len(l.vs))]), l.swapped)
				}
			}
			return Loaded{}, nil
		}}}, nil, 120, 40)
		for _, m := range []*Model{whole, each} {
			for _, v := range tc.early {
				m.runs[0].put(m.index, v, false)
			}
		}
		for _, m := range []*Model{whole, each} {
			if cmd := m.nextLoad(); cmd != nil {
				update(t, m, cmd())
			}
		}
		a, b := whole.runs[0], each.runs[0]
		if a.loading || b.loading {
			t.Fatalf("%s: still loading", tc.name)
		}
		if !b.hasVerdict(0) || !b.hasSwapped(0) || b.verdicts.count(0) != 3 || (tc.early != nil) != b.hasVerdict(5) {
			t.Errorf("%s: the loaded verdicts are not there", tc.name)
		}
		if a.nSwapped != b.nSwapped || a.nTruncated != b.nTruncated || a.filled != b.filled {
			t.Errorf("%s: counts %d/%d/%d, want %d/%d/%d", tc.name, b.nSwapped, b.nTruncated, b.filled, a.nSwapped, a.nTruncated, a.filled)
		}
		for i := range items {
			if a.verdicts.count(i) != b.verdicts.count(i) || a.swapped.count(i) != b.swapped.count(i) {
				t.Errorf("%s: item %d has %d+%d verdicts, want %d+%d", tc.name, i, b.verdicts.count(i), b.swapped.count(i), a.verdicts.count(i), a.swapped.count(i))
			}
			for crit := range 3 {
				va, oka := a.verdict(i, crit)
				vb, okb := b.verdict(i, crit)
				sa, soka := a.swappedVerdict(i, crit)
				sb, sokb := b.swappedVerdict(i, crit)
				if oka != okb || soka != sokb || !packedSame(va, vb) || !packedSame(sa, sb) {
					t.Errorf("%s: item %d criterion %d:\n got %+v %+v\nwant %+v %+v", tc.name, i, crit, vb, sb, va, sa)
				}
			}
		}
	}
}

// packedSame compares whole verdicts, a NaN confidence equal to itself.
func packedSame(a, b judge.Verdict) bool {
	ca, cb := a.Confidence, b.Confidence
	a.Confidence, b.Confidence = nil, nil
	if (ca == nil) != (cb == nil) || ca != nil && math.Float64bits(*ca) != math.Float64bits(*cb) {
		return false
	}
	return reflect.DeepEqual(a, b)
}
