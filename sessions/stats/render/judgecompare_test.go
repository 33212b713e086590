package render

import (
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

func TestCompareRendersHostileText(t *testing.T) {
	bin := []judge.Dimension{{Name: "correct", Scale: judge.Binary}}
	evil := "judge\x1b]8;;http://x\x07\u202e|*x*|"
	in := stats.Input{Judges: []stats.JudgeSpec{{Key: evil, Dimensions: bin}, {Key: "b", Dimensions: bin}}}
	for i := range 40 {
		id := "item"
		if i == 0 {
			id = "id\x1b[2J|`<b>`"
		}
		h := float64(i % 2)
		in.Units = append(in.Units, stats.Unit{ItemID: id,
			Verdicts: []stats.Verdict{
				{Judge: evil, Status: judge.StatusOK, Values: map[string]float64{"correct": 1 - h}},
				{Judge: "b", Status: judge.StatusOK, Values: map[string]float64{"correct": h}},
			},
			Labels: []stats.Label{{Annotator: "h", Values: map[string]float64{"correct": h}}}})
	}
	c, err := stats.Compare(in, evil, "b", "", stats.Options{Seed: 1, Resamples: -1})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		out  string
	}{
		{"text", CompareText(c, 76, true)},
		{"markdown", CompareMarkdown(c, true)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.ContainsAny(tt.out, "\x1b\x07\u202e") {
				t.Errorf("control or bidi characters reached the output:\n%q", tt.out)
			}
			if tt.name == "markdown" && (strings.Contains(tt.out, "|*x*|") || strings.Contains(tt.out, "<b>")) {
				t.Errorf("markdown not escaped:\n%s", tt.out)
			}
			if !strings.Contains(tt.out, "40") {
				t.Errorf("no count of fixed items:\n%s", tt.out)
			}
		})
	}
	for _, l := range CompareLines(c, 60, false) {
		if l.Width() > 60 {
			t.Errorf("line wider than 60: %q", l.Plain())
		}
	}
}
