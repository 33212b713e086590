package render

import (
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// Text and markdown count truncated verdicts and say whether agreement
// counts them; without any they say nothing of them.
func TestTruncatedCounted(t *testing.T) {
	dim := judge.Dimension{Name: "correct", Scale: judge.Binary}
	in := stats.Input{Judges: []stats.JudgeSpec{{Key: "docqa · llama", Dimensions: []judge.Dimension{dim}}}}
	for i := range 4 {
		st := judge.StatusOK
		if i == 0 {
			st = judge.StatusTruncated
		}
		in.Units = append(in.Units, stats.Unit{ItemID: string(rune('a' + i)),
			Verdicts: []stats.Verdict{{Judge: "docqa · llama", Status: st, Values: map[string]float64{"correct": 1}}}})
	}
	for _, include := range []bool{false, true} {
		r := stats.Compute(in, stats.Options{Resamples: -1, IncludeTruncated: include})
		want, wantMD := "API errors 0 (0.0%) · truncated 1 (25.0%), kept out of agreement", "Truncated 1 (25.0%): the server cut the prompt to its context; kept out of agreement too (`--include-truncated` counts them)."
		if include {
			want, wantMD = "kept out of agreement · truncated 1 (25.0%), counted (--include-truncated)", "Truncated 1 (25.0%): the server cut the prompt to its context; counted in agreement (`--include-truncated`)."
		}
		if txt := strings.Join(strings.Fields(Text(r)), " "); !strings.Contains(txt, want) {
			t.Errorf("include=%v: text lacks %q:\n%s", include, want, Text(r))
		}
		if md := Markdown(r); !strings.Contains(md, wantMD) {
			t.Errorf("include=%v: markdown lacks %q:\n%s", include, wantMD, md)
		}
	}
	in.Units[0].Verdicts[0].Status = judge.StatusOK
	r := stats.Compute(in, stats.Options{Resamples: -1})
	if txt, md := Text(r), Markdown(r); strings.Contains(txt, "truncated") || strings.Contains(md, "runcated") {
		t.Errorf("no truncated verdict, yet:\n%s\n%s", txt, md)
	}
}
