package stats

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// The pairs Pairs gives are exactly those behind every judge's confusion
// matrix with the humans, under every option that changes them, on the
// swap fixture and on arbitrary inputs.
func TestPairsAreTheConfusionMatrix(t *testing.T) {
	inputs := map[string]Input{"swap": swapFixture(judge.Pairwise), "fixture": fixture()}
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 200 {
		data := make([]byte, 64+r.IntN(400))
		for j := range data {
			data[j] = byte(r.Uint32())
		}
		inputs[fmt.Sprint("random ", i)] = fuzzInput(data)
	}
	for name, in := range inputs {
		for _, o := range []Options{{}, {SwapDisagreeAsTie: true}, {ParseErrorsFail: true}, {IncludeTruncated: true}, {SwapDisagreeAsTie: true, ParseErrorsFail: true, IncludeTruncated: true}} {
			o.Resamples = -1
			rep := Compute(in, o)
			for _, jr := range rep.Judges {
				pairs, err := Pairs(in, jr.Judge, o)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if len(pairs) != len(jr.Dimensions) {
					t.Fatalf("%s %s: %d dimensions of pairs, %d reported", name, jr.Judge, len(pairs), len(jr.Dimensions))
				}
				for d, dr := range jr.Dimensions {
					want := dr.Overall.VsHumans.Confusion
					got := NewConfusion(want.Categories)
					for k, p := range pairs[d] {
						if k > 0 && p.Unit <= pairs[d][k-1].Unit {
							t.Fatalf("%s %s: pairs out of unit order", name, jr.Judge)
						}
						if !got.Add(p.Judge, p.Human) {
							t.Fatalf("%s %s %s: pair %+v off the scale", name, jr.Judge, dr.Dimension, p)
						}
					}
					for i := range want.Counts {
						if !slices.Equal(got.Counts[i], want.Counts[i]) {
							t.Fatalf("%s %s %s %+v: pairs give %v, the report %v", name, jr.Judge, dr.Dimension, o, got.Counts, want.Counts)
						}
					}
				}
			}
		}
	}
	if _, err := Pairs(fixture(), "no such judge", Options{}); err == nil {
		t.Error("an unknown judge gave no error")
	}
}
