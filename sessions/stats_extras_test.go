package sessions

import (
	"reflect"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// bbh's error_type and reasoning_score reach the report's counts from the
// session; long text, offsets and non-ok verdicts do not.
func TestStatsInputCountsJudgeExtras(t *testing.T) {
	s, _ := newSession(t)
	run, err := s.EnsureRun(binaryInfo("bbh", "m"))
	if err != nil {
		t.Fatal(err)
	}
	ok := func(item string, extra map[string]any) judge.Verdict {
		return judge.Verdict{ItemID: item, Status: judge.StatusOK, Values: map[string]float64{"correct": 1}, Extra: extra}
	}
	vs := []judge.Verdict{
		ok("q1", map[string]any{"error_type": "wrong_logic", "reasoning_score": 2}),
		ok("q1", map[string]any{"error_type": "none", "reasoning_score": 5, "answer_start": 3, "comment": "a long comment that is not a category at all"}), // re-judge
		ok("q2", map[string]any{"error_type": "none", "reasoning_score": 4, "cached": true}),
		{ItemID: "q3", Status: judge.StatusParseError, Extra: map[string]any{"error_type": "none"}},
	}
	if err := s.SaveVerdicts(run.ID, vs); err != nil {
		t.Fatal(err)
	}
	in, err := s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	r := stats.Compute(in, stats.Options{Resamples: -1})
	want := []stats.ExtraField{
		{Field: "cached", Values: []stats.ExtraValue{{Value: "true", Count: 1}}},
		{Field: "error_type", Values: []stats.ExtraValue{{Value: "none", Count: 2}}},
		{Field: "reasoning_score", Values: []stats.ExtraValue{{Value: "4", Count: 1}, {Value: "5", Count: 1}}},
	}
	if got := r.Judges[0].Extras; !reflect.DeepEqual(got, want) {
		t.Errorf("extras = %+v\nwant %+v", got, want)
	}
}
