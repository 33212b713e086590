package sessions

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

var t0 = time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)

func ptr(f float64) *float64 { return &f }

// sampleVerdicts covers every field, both statuses with and without values,
// and a rubric item's criteria.
func sampleVerdicts() []judge.Verdict {
	return []judge.Verdict{
		{ItemID: "q2", Values: map[string]float64{"correct": 0}, Reason: "Lyon is not Paris", Status: judge.StatusOK,
			Model: "gpt-4o", PromptTokens: 120, CompletionTokens: 30, Latency: 1234567 * time.Microsecond,
			At: t0, Confidence: ptr(0.93), Raw: "reason: …\nresult: NO"},
		{ItemID: "q1", Values: map[string]float64{"correct": 1}, Status: judge.StatusOK, At: t0.Add(time.Second),
			Extra: map[string]any{"extracted_answer": "4", "reasoning_score": 4.0, "tags": []any{"a", "b"}}},
		{ItemID: "r1", Criterion: 2, Values: map[string]float64{"correct": 0.5}, Status: judge.StatusOK, At: t0},
		{ItemID: "r1", Criterion: 1, Status: judge.StatusParseError, Raw: "I think yes?", Error: "no result line", At: t0},
		{ItemID: "q3", Status: judge.StatusAPIError, Error: "503 after 5 tries", At: t0},
	}
}

func TestVerdictsRoundTrip(t *testing.T) {
	s, _ := newSession(t)
	run, err := s.EnsureRun(binaryInfo("docqa", "gpt-4o"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveVerdicts(run.ID, sampleVerdicts()); err != nil {
		t.Fatal(err)
	}
	got, err := s.Verdicts(run.ID)
	if err != nil {
		t.Fatal(err)
	}
	in := sampleVerdicts()
	want := []judge.Verdict{in[1], in[0], in[3], in[2], in[4]} // item order, then criterion
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Verdicts() =\n%+v\nwant\n%+v", got, want)
	}
}

func TestVerdictHistoryAndCurrent(t *testing.T) {
	s, _ := newSession(t)
	run, _ := s.EnsureRun(binaryInfo("docqa", "gpt-4o"))
	other, _ := s.EnsureRun(binaryInfo("match", ""))
	v := func(item string, crit int, val float64, sec int) judge.Verdict {
		return judge.Verdict{ItemID: item, Criterion: crit, Values: map[string]float64{"correct": val},
			Status: judge.StatusOK, At: t0.Add(time.Duration(sec) * time.Second)}
	}
	batches := [][]judge.Verdict{
		{v("q1", 0, 1, 1), v("r1", 1, 1, 1)},
		{v("q1", 0, 0, 2)},                   // re-judge flips q1
		{v("q1", 0, 1, 3), v("r1", 2, 0, 3)}, // and back; r1 gains criterion 2
	}
	for _, b := range batches {
		if err := s.SaveVerdicts(run.ID, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SaveVerdicts(other.ID, []judge.Verdict{v("q1", 0, 0, 9)}); err != nil {
		t.Fatal(err)
	}

	hist, err := s.VerdictHistory(run.ID, "q1")
	if err != nil {
		t.Fatal(err)
	}
	var vals []float64
	for _, h := range hist {
		vals = append(vals, h.Values["correct"])
	}
	if !reflect.DeepEqual(vals, []float64{1, 0, 1}) {
		t.Errorf("history of q1 = %v, want [1 0 1] oldest first", vals)
	}
	if hist, _ := s.VerdictHistory(run.ID, "r1"); len(hist) != 2 || hist[0].Criterion != 1 || hist[1].Criterion != 2 {
		t.Errorf("history of r1 = %+v", hist)
	}
	if hist, _ := s.VerdictHistory(run.ID, "q2"); len(hist) != 0 {
		t.Errorf("history of an unjudged item = %+v", hist)
	}

	cur, err := s.Verdicts(run.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []judge.Verdict{v("q1", 0, 1, 3), v("r1", 1, 1, 1), v("r1", 2, 0, 3)}
	if !reflect.DeepEqual(cur, want) {
		t.Errorf("current = %+v\nwant %+v", cur, want)
	}
	if cur, _ := s.Verdicts(other.ID); len(cur) != 1 || cur[0].Values["correct"] != 0 {
		t.Errorf("other run's verdicts leak or are missing: %+v", cur)
	}
}

func TestSaveVerdictsIsAllOrNothing(t *testing.T) {
	s, _ := newSession(t)
	run, _ := s.EnsureRun(binaryInfo("docqa", "gpt-4o"))
	for _, tc := range []struct {
		name  string
		runID int64
		vs    []judge.Verdict
		want  string
	}{
		{"unknown item", run.ID, []judge.Verdict{{ItemID: "q1", Status: judge.StatusOK}, {ItemID: "nope", Status: judge.StatusOK}}, `unknown item "nope"`},
		{"unknown run", run.ID + 100, []judge.Verdict{{ItemID: "q1"}}, "no judge run"},
		{"negative criterion", run.ID, []judge.Verdict{{ItemID: "q1", Criterion: -1}}, "criterion -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := s.SaveVerdicts(tc.runID, tc.vs)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
			if got, _ := s.Verdicts(run.ID); len(got) != 0 {
				t.Errorf("a refused batch left verdicts: %+v", got)
			}
		})
	}
}

func TestSaveVerdictsFillsTime(t *testing.T) {
	s, _ := newSession(t)
	run, _ := s.EnsureRun(binaryInfo("docqa", "gpt-4o"))
	before := time.Now().Add(-time.Second)
	if err := s.SaveVerdicts(run.ID, []judge.Verdict{{ItemID: "q1", Status: judge.StatusOK}}); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Verdicts(run.ID)
	if len(got) != 1 || got[0].At.Before(before) {
		t.Errorf("a verdict without a time got %v", got)
	}
}
