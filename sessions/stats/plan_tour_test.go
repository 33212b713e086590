package stats

import (
	"math"
	"strings"
	"testing"
)

// The judge's own score needs no label: it is the mean of the plan's
// verdicts whether or not any planned item is labelled, and whatever
// stops the other figures (tour finding 5).
func TestPlanJudgeScoreWithoutLabels(t *testing.T) {
	verdicts := []float64{1, 1, 0, 1, 1, 0, 1, 1, 0, 1}
	for name, pc := range map[string]planCase{
		"no label": {design: "uniform", verdicts: verdicts, probs: repeat(0.4, 10), selected: []int{0, 1, 2, 3}},
		"a stratum unlabelled": {design: "stratified", verdicts: verdicts, probs: repeat(0.4, 10),
			strata: []string{"a", "a", "a", "a", "a", "b", "b", "b", "b", "b"}, selected: []int{0, 1, 5, 6},
			labels: map[int][]Label{0: planLabel(1), 1: planLabel(0)}},
		"every item can't judge": {design: "uniform", verdicts: verdicts, probs: repeat(0.2, 10), selected: []int{0, 1}, cant: []int{0, 1}},
	} {
		r := planReport(planPtr(pc.input()))
		if r.Score.Defined() {
			t.Errorf("%s: the corrected score is defined: the case does not stop the figures", name)
		}
		if !r.JudgeScore.Defined() {
			t.Errorf("%s: judge score undefined (%s), want 0.7", name, r.JudgeScore.Reason)
			continue
		}
		planNear(t, name+": judge score", r.JudgeScore.Value, 0.7)
	}
}

// A plan that takes every item, every one labelled, is a census of the
// items: no sampling error. Its design effect says so rather than "no
// spread", and a note says why its intervals are points while the
// unweighted figures' are not (tour finding 3).
func TestPlanCensus(t *testing.T) {
	pc := planCase{design: "uniform", verdicts: []float64{1, 1, 0, 1, 0}, probs: repeat(1, 5), selected: []int{0, 1, 2, 3, 4},
		labels: map[int][]Label{0: planLabel(1), 1: planLabel(0), 2: planLabel(0), 3: planLabel(1), 4: planLabel(1)}}
	r := planReport(planPtr(pc.input()))
	planNear(t, "score", r.Score.Value, 0.6)
	if r.Score.Low != r.Score.High || math.IsNaN(r.Score.Low) {
		t.Errorf("score interval %+v, want the point", r.Score)
	}
	for what, reason := range map[string]string{"design effect": r.DesignEffect.Reason, "uniform equivalent": r.UniformEquivalent.Reason} {
		if reason != PlanCensusReason {
			t.Errorf("%s: reason %q, want %q", what, reason, PlanCensusReason)
		}
	}
	if !r.Census || !r.Stop.Reached {
		t.Errorf("census %v, stop %+v", r.Census, r.Stop)
	}
	found := false
	for _, n := range r.Notes {
		found = found || (strings.Contains(n, "census") && strings.Contains(n, "sample of the items the benchmark stands for"))
	}
	if !found {
		t.Errorf("no note on the census: %q", r.Notes)
	}

	// One item not labelled yet: the others stand for it (missing at
	// random), so there is sampling error again, and no census note.
	delete(pc.labels, 4)
	r = planReport(planPtr(pc.input()))
	if r.Census || r.DesignEffect.Reason == PlanCensusReason {
		t.Errorf("a census with an item pending: census %v, design effect %+v", r.Census, r.DesignEffect)
	}
}

// A stop rule without a half-width says why in a few words, for the
// review's header (tour finding 6: a stratified plan whose strata are not
// all labelled showed no ± and no reason).
func TestPlanStopWait(t *testing.T) {
	verdicts := []float64{1, 1, 0, 1, 1, 0, 1, 1, 0, 1}
	strata := []string{"a", "a", "a", "a", "a", "b", "b", "b", "b", "b"}
	for want, pc := range map[string]planCase{
		"no label yet":      {design: "uniform", verdicts: verdicts, probs: repeat(0.4, 10), selected: []int{0, 1, 2, 3}},
		"strata unlabelled": {design: "stratified", verdicts: verdicts, probs: repeat(0.4, 10), strata: strata, selected: []int{0, 1, 5, 6}, labels: map[int][]Label{0: planLabel(1), 1: planLabel(0)}},
		"2 labels needed":   {design: "uniform", verdicts: verdicts, probs: repeat(0.4, 10), selected: []int{0, 1, 2, 3}, labels: map[int][]Label{0: planLabel(1)}},
		"":                  {design: "uniform", verdicts: verdicts, probs: repeat(0.4, 10), selected: []int{0, 1, 2, 3}, labels: map[int][]Label{0: planLabel(1), 1: planLabel(0)}},
	} {
		r := planReport(planPtr(pc.input()))
		if r.Stop.Wait != want || r.Stop.HalfWidth.Defined() != (want == "") {
			t.Errorf("want %q: wait %q, half-width %+v", want, r.Stop.Wait, r.Stop.HalfWidth)
		}
	}
}
