package plan_test

import (
	"fmt"

	"github.com/gavel-dev/gavel/sessions/plan"
)

// Four items, one of which the judge is very unsure of. Each share is
// 0.2/4 + 0.8·size/1.1: a 0.705, b and c 0.123, d 0.05. With n = 2, a's
// probability would be 1.41: it is capped at 1 (certain), and the other
// label is spread over b, c and d in proportion to their shares
// (0.123/0.295 = 0.415; d, which the judge is sure of, keeps the floor's
// share scaled up: 0.169).
func ExampleProbabilities() {
	units := []plan.Unit{
		{ItemID: "a", Size: 0.9},
		{ItemID: "b", Size: 0.1},
		{ItemID: "c", Size: 0.1},
		{ItemID: "d", Size: 0},
	}
	for i, p := range plan.Probabilities(plan.Active, units, 2, plan.DefaultFloor) {
		fmt.Printf("%s %.3f\n", units[i].ItemID, p)
	}
	// Output:
	// a 1.000
	// b 0.415
	// c 0.415
	// d 0.169
}

func ExampleUncertainty() {
	c := 0.75
	for _, e := range []plan.Evidence{
		{Confidence: &c},
		{Value: 1, Samples: []float64{1, 1, 0, 1}},
		{Ordinal: true, Lo: 1, Hi: 5, Cut: plan.DefaultCut(1, 5), Value: 4},
		{Value: 1},
	} {
		u, how, ok := plan.Uncertainty(e)
		fmt.Printf("%.2f %q %v\n", u, how, ok)
	}
	// Output:
	// 0.50 "confidence 0.75" true
	// 0.50 "3 of 4 samples agree" true
	// 0.50 "score 4, cut 3" true
	// 0.00 "" false
}
