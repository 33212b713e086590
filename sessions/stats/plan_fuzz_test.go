package stats

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// FuzzPlanReport checks that Compute with an arbitrary plan (odd
// probabilities, unit indices out of range, rubric units, verdicts off the
// scale, plan labels of other ids, can't-judge marks) never panics and
// gives valid JSON without NaN, every interval ordered.
func FuzzPlanReport(f *testing.F) {
	f.Add([]byte{}, []byte{})
	f.Add(bytes.Repeat([]byte{1, 7, 0, 3}, 60), []byte{2, 1, 3, 4, 5, 6, 7, 8, 9, 10})
	f.Add(bytes.Repeat([]byte{2, 0, 1, 1, 0, 2, 9}, 80), bytes.Repeat([]byte{1, 2, 3}, 40))
	f.Fuzz(func(t *testing.T, data, plan []byte) {
		in := fuzzInput(data)
		r := &byteReader{b: plan}
		designs := []string{"uniform", "stratified", "active", "odd"}
		dims := []string{"a", "b", "c", "zz"}
		probs := []float64{0.5, 1, 0.1, 0, -1, math.NaN(), 2, 1e-9, 0.999}
		pl := &PlanInput{ID: r.pick(3), Design: designs[r.pick(len(designs))], Judge: []string{"j0", "j1", ""}[r.pick(3)],
			Dimension: dims[r.pick(len(dims))], Target: r.pick(10), TargetWidth: []float64{0, 0.05, -1, math.NaN(), 1e-9}[r.pick(5)]}
		for range r.pick(50) {
			pu := PlanUnit{Unit: r.pick(45) - 2, Probability: probs[r.pick(len(probs))], Selected: r.pick(2) == 0, Stratum: dims[r.pick(2)]}
			if r.pick(3) == 0 { // corrections of plan labels (finding 10)
				pu.PlanAnnotators = []string{"a", "b", "ann"}[:r.pick(4)]
			}
			if r.pick(3) > 0 {
				v := oddValues[r.pick(len(oddValues))]
				pu.Verdict = &v
			}
			pl.Units = append(pl.Units, pu)
		}
		in.Plan = pl
		in.PlanDesigns = map[int]string{r.pick(3): designs[r.pick(len(designs))]}
		for i := range in.Units {
			for j := range in.Units[i].Labels {
				if r.pick(2) == 0 {
					in.Units[i].Labels[j].Provenance = "plan:" + string(rune('0'+r.pick(3)))
				}
			}
		}
		if r.pick(2) == 0 && len(in.Units) > 0 {
			in.Labelling = &LabellingInput{CantJudge: []CantJudgeMark{{ItemID: in.Units[r.pick(len(in.Units))].ItemID, Annotator: "a"}}}
		}
		rep := Compute(in, Options{Seed: 1, Resamples: 10})
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		if bytes.Contains(b, []byte("NaN")) || bytes.Contains(b, []byte("Inf")) || !json.Valid(b) {
			t.Fatalf("bad JSON: %s", b)
		}
		checkIntervals(t, b)
	})
}
