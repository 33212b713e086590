package sessions

import (
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// Only a unit's current verdict lends its extra fields to the statistics:
// a re-judge without extra fields, or one that failed, takes the place of
// an earlier one that had some, and a re-judge with them replaces the
// earlier ones' values. Every verdict is still listed, oldest first.
func TestStatsInputExtrasOfCurrentVerdictsOnly(t *testing.T) {
	s, _ := newSession(t)
	run, err := s.EnsureRun(binaryInfo("bbh", "m"))
	if err != nil {
		t.Fatal(err)
	}
	ok := func(item string, extra map[string]any) judge.Verdict {
		return judge.Verdict{ItemID: item, Status: judge.StatusOK, Values: map[string]float64{"correct": 1}, Extra: extra}
	}
	vs := []judge.Verdict{
		ok("q1", map[string]any{"error_type": "wrong_logic"}),
		{ItemID: "q1", Status: judge.StatusParseError, Extra: map[string]any{"error_type": "none"}},
		ok("q2", map[string]any{"error_type": "wrong_logic"}),
		ok("q2", nil),
		ok("q3", map[string]any{"error_type": "wrong_logic"}),
		ok("q3", map[string]any{"error_type": "none"}),
	}
	if err := s.SaveVerdicts(run.ID, vs); err != nil {
		t.Fatal(err)
	}
	in, err := s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	extras := map[string][]map[string]string{}
	for _, u := range in.Units {
		for _, v := range u.Verdicts {
			extras[u.ItemID] = append(extras[u.ItemID], v.Extra)
		}
	}
	check := func(item string, want ...string) {
		t.Helper()
		got := extras[item]
		if len(got) != len(want) {
			t.Fatalf("%s has %d verdicts, want %d", item, len(got), len(want))
		}
		for i, w := range want {
			if got[i]["error_type"] != w || (w == "" && got[i] != nil) {
				t.Errorf("%s verdict %d extra = %v, want error_type %q", item, i, got[i], w)
			}
		}
	}
	check("q1", "", "")
	check("q2", "", "")
	check("q3", "", "none")
	if len(in.Units[0].Verdicts) != 2 || in.Units[0].Verdicts[1].Status != judge.StatusParseError {
		t.Errorf("q1's verdicts %+v, want the ok one then the parse error", in.Units[0].Verdicts)
	}
	_ = stats.Compute(in, stats.Options{Resamples: -1})
}
