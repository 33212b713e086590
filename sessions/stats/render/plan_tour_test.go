package render

import (
	"math"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/sessions/stats"
)

// A census's stop rule and design effect say there is no sampling error,
// not "no spread" (tour finding 3).
func TestPlanCensusWords(t *testing.T) {
	p := &stats.PlanReport{ID: 1, Design: "uniform", Measure: stats.MeasurePassRate, Items: 5, Target: 5, Selected: 5, Labelled: 5, Census: true,
		DesignEffect: stats.Estimate{Value: math.NaN(), Reason: stats.PlanCensusReason}, UniformEquivalent: stats.Estimate{Value: math.NaN(), Reason: stats.PlanCensusReason},
		Stop: stats.StopRule{Figure: "score", TargetWidth: 0.05, HalfWidth: stats.Estimate{Value: 0}, Reached: true}}
	if got := PlanStopText(p); got != "reached: the plan takes every item: no sampling error" {
		t.Errorf("stop rule %q", got)
	}
	if got := PlanWorthText(p); !strings.Contains(got, stats.PlanCensusReason) || strings.Contains(got, "spread") {
		t.Errorf("design effect %q", got)
	}
}
