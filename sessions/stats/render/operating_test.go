package render

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// gradedFixture is a binary judge with logprob confidences and a Likert
// judge, against binary labels.
func gradedFixture() stats.Input {
	in := stats.Input{Judges: []stats.JudgeSpec{
		{Key: "docqa", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}},
		{Key: "quality", Dimensions: []judge.Dimension{{Name: "correctness", Scale: judge.Likert}}},
	}}
	for i := range 60 {
		c := 0.5 + float64(i%10)/20
		h := float64(i % 3 % 2)
		v := h
		if i%7 == 0 {
			v = 1 - v
		}
		in.Units = append(in.Units, stats.Unit{ItemID: fmt.Sprint(i),
			Verdicts: []stats.Verdict{
				{Judge: "docqa", Status: judge.StatusOK, Values: map[string]float64{"correct": v}, Confidence: &c},
				{Judge: "quality", Status: judge.StatusOK, Values: map[string]float64{"correctness": float64(1 + i%5)}},
			},
			Labels: []stats.Label{{Annotator: "a", Values: map[string]float64{"correct": h}, Provenance: "random"}}})
	}
	return in
}

func TestOperatingText(t *testing.T) {
	r := stats.Compute(gradedFixture(), stats.Options{Seed: 1, Resamples: 100})
	text := Text(r)
	// docqa's logprob confidence gets a reliability curve, not a sweep (a
	// NO's 1 − c is not a probability of YES).
	if strings.Contains(text, "Operating points: docqa") {
		t.Error("docqa is swept over its logprob confidence")
	}
	for _, want := range []string{"Operating points: quality · correctness against human correct",
		"▸ ≥ ", "Best cut ≥ ", "Ask a human", "Reliability: docqa · correct", "Expected calibration error"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q", want)
		}
	}
	for _, l := range strings.Split(text, "\n") {
		if ansi.StringWidth(l) > TextWidth {
			t.Errorf("line wider than %d: %q", TextWidth, l)
		}
	}
	md := Markdown(r)
	checkMarkdownTables(t, md)
	for _, want := range []string{"## Operating points: quality · correctness", "| Pass if |", "(best)", "## Reliability: docqa · correct", "| Confidence |"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	// Select keeps a judge's own analyses only.
	s := Select(r, []string{"quality"})
	if len(s.OperatingPoints) != 1 || s.OperatingPoints[0].Judge != "quality" || len(s.Reliability) != 0 {
		t.Errorf("Select kept %d operating points, %d reliability curves", len(s.OperatingPoints), len(s.Reliability))
	}
}
