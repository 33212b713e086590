package sessions

import (
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// The statistics read each verdict's confidence, packed or not, and a
// confidence the judge withheld is unknown.
func TestStatsInputConfidence(t *testing.T) {
	for _, packed := range []bool{true, false} {
		old := packedReads
		packedReads = packed
		s, _ := newSession(t)
		run, err := s.EnsureRun(binaryInfo("docqa", "gpt-4o"))
		if err != nil {
			t.Fatal(err)
		}
		c1, c2 := 0.8, 0.3
		vs := []judge.Verdict{
			{ItemID: "q1", Status: judge.StatusOK, Values: map[string]float64{"correct": 1}, Confidence: &c1, At: t0},
			{ItemID: "q2", Status: judge.StatusOK, Values: map[string]float64{"correct": 0}, At: t0},
			{ItemID: "q3", Status: judge.StatusOK, Values: map[string]float64{"correct": 0}, Confidence: &c2, At: t0,
				Extra: map[string]any{ExtraConfidenceWithheld: "grammar"}},
			{ItemID: "r1", Status: judge.StatusOK, Values: map[string]float64{"correct": 1}, Confidence: &c2, At: t0},
		}
		if err := s.SaveVerdicts(run.ID, vs); err != nil {
			t.Fatal(err)
		}
		in, err := s.StatsInput()
		packedReads = old
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]any{}
		for _, u := range in.Units {
			for _, v := range u.Verdicts {
				if v.Confidence != nil {
					got[u.ItemID] = *v.Confidence
				} else {
					got[u.ItemID] = nil
				}
			}
		}
		want := map[string]any{"q1": 0.8, "q2": nil, "q3": nil, "r1": 0.3}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("packed %v: %s confidence %v, want %v", packed, k, got[k], w)
			}
		}
	}
}
