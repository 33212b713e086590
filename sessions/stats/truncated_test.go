package stats

import (
	"math"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// A truncated verdict (the server cut the prompt to its context) keeps
// its values, is counted apart, and is left out of agreement unless
// IncludeTruncated.
func TestTruncatedVerdicts(t *testing.T) {
	trunc := func(v vals) Verdict { return Verdict{Judge: "llm", Status: judge.StatusTruncated, Values: v} }
	in := Input{Judges: []JudgeSpec{{Key: "llm", Dimensions: []judge.Dimension{correct}}, {Key: "match", Dimensions: []judge.Dimension{correct}}}}
	for i := range 10 {
		v := ok("llm", vals{"correct": 1})
		if i < 3 {
			v = trunc(vals{"correct": 0}) // wrong: the judge never saw the task
		}
		in.Units = append(in.Units, Unit{ItemID: string(rune('a' + i)),
			Verdicts: []Verdict{v, ok("match", vals{"correct": 1})},
			Labels:   []Label{lab("ann", vals{"correct": 1}, "random")}})
	}
	for _, include := range []bool{false, true} {
		rep := Compute(in, Options{Resamples: -1, IncludeTruncated: include})
		f := rep.Judges[0].Dimensions[0].Overall
		j := f.Judging
		if j.Truncated != 3 || j.OK != 7 || j.Judged != 10 || j.TruncatedRate.Value != 0.3 {
			t.Errorf("include=%v: judging %+v", include, j)
		}
		wantN, wantAgree := 7, 1.0
		wantReport := "exclude"
		if include {
			wantN, wantAgree, wantReport = 10, 0.7, "include"
		}
		if f.VsHumans.N != wantN || math.Abs(f.VsHumans.PercentAgreement.Value-wantAgree) > 1e-9 {
			t.Errorf("include=%v: vs humans n=%d agreement %v, want %d and %v", include, f.VsHumans.N, f.VsHumans.PercentAgreement.Value, wantN, wantAgree)
		}
		if rep.Truncated != wantReport {
			t.Errorf("include=%v: report says truncated %q", include, rep.Truncated)
		}
		if len(rep.JudgePairs) != 1 || rep.JudgePairs[0].Agreement.N != wantN {
			t.Errorf("include=%v: judge pairs %+v, want n=%d", include, rep.JudgePairs, wantN)
		}
		for _, n := range rep.Notes {
			t.Errorf("include=%v: note %q", include, n)
		}
	}
}
