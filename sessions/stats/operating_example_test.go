package stats_test

import (
	"fmt"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// A Likert judge read against YES/NO labels: passing scores of 3 and up
// makes one error, the best any cut does when both errors cost the same;
// when a false pass costs five false fails, the best cut rises to 4.
func ExampleCompute_operatingPoints() {
	in := stats.Input{Judges: []stats.JudgeSpec{{Key: "quality", Dimensions: []judge.Dimension{{Name: "score", Scale: judge.Likert}}}}}
	for i, p := range []struct{ score, human float64 }{{1, 0}, {2, 0}, {3, 0}, {3, 1}, {4, 1}, {5, 1}, {2, 0}, {4, 1}} {
		in.Units = append(in.Units, stats.Unit{ItemID: fmt.Sprint(i),
			Verdicts: []stats.Verdict{{Judge: "quality", Status: judge.StatusOK, Values: map[string]float64{"score": p.score}}},
			Labels:   []stats.Label{{Annotator: "ann", Values: map[string]float64{"ok": p.human}}}})
	}
	in.Dimensions = []judge.Dimension{{Name: "ok", Scale: judge.Binary}}
	for _, costs := range []stats.Costs{{FalsePass: 1, FalseFail: 1}, {FalsePass: 5, FalseFail: 1}} {
		op := stats.Compute(in, stats.Options{Resamples: -1, Costs: &costs}).OperatingPoints[0]
		fmt.Printf("costs %v:%v: pass if score ≥ %v, %d false passes, %d false fails\n",
			costs.FalsePass, costs.FalseFail, op.Best.Cut, op.Best.FalsePasses, op.Best.FalseFails)
	}
	// Output:
	// costs 1:1: pass if score ≥ 3, 1 false passes, 0 false fails
	// costs 5:1: pass if score ≥ 4, 0 false passes, 1 false fails
}
