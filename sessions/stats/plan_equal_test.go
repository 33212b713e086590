package stats

import (
	"strings"
	"testing"
)

// An active plan drawn when no confidence was known gives every item the
// same probability: it is read as a uniform plan — its labels are fair
// for the unweighted figures, no "active sampling did not help" and no
// caution on the human-only means — and a note says why.
func TestPlanActiveWithEqualProbabilitiesIsUniform(t *testing.T) {
	for _, tc := range []struct {
		name    string
		probs   []float64
		uniform bool
	}{
		{"equal", repeat(0.4, 10), true},
		{"unequal", []float64{0.4, 0.4, 0.4, 0.4, 0.3, 0.3, 0.5, 0.5, 0.4, 0.4}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pc := planCase{design: "active", verdicts: []float64{1, 1, 0, 1, 1, 0, 1, 1, 1, 0}, probs: tc.probs, selected: []int{0, 1, 2, 3},
				labels: map[int][]Label{0: planLabel(1), 1: planLabel(0), 2: planLabel(0), 3: planLabel(1)}}
			in := pc.input()
			r := planReport(planPtr(in))
			note := strings.Contains(strings.Join(r.Notes, " "), "read as a uniform plan")
			if note != tc.uniform || (r.HumanMeanCaution == "") != tc.uniform || strings.Contains(r.DesignEffectNote, "Active sampling") && tc.uniform {
				t.Errorf("notes %q, caution %q, design effect note %q", r.Notes, r.HumanMeanCaution, r.DesignEffectNote)
			}
			sel := Compute(in, Options{Resamples: -1}).Judges[0].Dimensions[0].Overall.Selection
			if fair := sel.Planned == 0; fair != tc.uniform {
				t.Errorf("selection %+v: the plan's labels fair %v, want %v", sel, fair, tc.uniform)
			}
		})
	}
}
