package render

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// gradeScale is a SimpleQA-style grader's scale.
const gradeScale = judge.Scale("nominal:CORRECT,INCORRECT,NOT_ATTEMPTED")

// pairwiseFixture is 30 pairs judged by a pairwise judge in both orders
// (it favours the response shown first), graded by a SimpleQA-style
// nominal judge, and labelled by one annotator.
func pairwiseFixture() stats.Input {
	in := stats.Input{Judges: []stats.JudgeSpec{
		{Key: "pairwise · gpt-4o", Dimensions: []judge.Dimension{{Name: "preference", Scale: judge.Pairwise}}},
		{Key: "simpleqa", Dimensions: []judge.Dimension{{Name: "grade", Scale: gradeScale}}},
	}}
	prefs := []float64{judge.PreferA, judge.PreferTie, judge.PreferB}
	for i := range 30 {
		orig := prefs[i%3]
		swap := orig
		if orig == judge.PreferA && i < 24 {
			swap = judge.PreferB // shown first in the swapped order
		}
		in.Units = append(in.Units, stats.Unit{ItemID: fmt.Sprintf("p%d", i),
			Verdicts: []stats.Verdict{
				{Judge: "pairwise · gpt-4o", Status: judge.StatusOK, Values: map[string]float64{"preference": orig}},
				{Judge: "pairwise · gpt-4o", Status: judge.StatusOK, Swapped: true, Values: map[string]float64{"preference": swap}},
				{Judge: "simpleqa", Status: judge.StatusOK, Values: map[string]float64{"grade": float64(i % 3 % 2)}},
			},
			Labels: []stats.Label{{Annotator: "ana", Provenance: "random",
				Values: map[string]float64{"preference": prefs[(i+i/5)%3], "grade": float64(i % 3)}}},
		})
	}
	return in
}

// The new blocks appear on the scales they belong to, with the scale's
// own names for values and never their codes.
func TestPairwiseAndNominalLines(t *testing.T) {
	r := stats.Compute(pairwiseFixture(), stats.Options{Seed: 1})
	for _, width := range []int{TextWidth, 40} {
		for _, l := range Lines(r, width) {
			if l.Width() > width {
				t.Errorf("width %d: line %d cells wide: %q", width, l.Width(), l.Plain())
			}
		}
	}
	pw := TextAt(Select(r, []string{"pairwise · gpt-4o"}), 200)
	grade := TextAt(Select(r, []string{"simpleqa"}), 200)
	tests := []struct {
		name, out string
		want      []string
		not       []string
	}{
		{"pairwise", pw, []string{
			"pairwise · gpt-4o · preference (pairwise)",
			"By category  (human = truth)", "macro average", "macro F1",
			"share of B: judge ", " pts",
			"Swap audit  (each pair judged with the responses in both orders)",
			"judged in both orders   30 pairs · 22 consistent · 8 inconsistent",
			"positional agreement", "kappa between orders", "right, original order", "right, swapped order", "right in both orders",
			"when they disagree      first shown 8 · second shown 0 · with a tie 0",
			"first shown wins        100.0% [67.6%, 100.0%]  of 8 without a tie",
			"position bias           towards the response shown first",
			"Orders  (rows: original order, columns: swapped order)",
			"orig tie", "human tie", "      A    tie      B", "the judge prefers B more often than the humans do",
		}, []string{"human 0.5", "0.5  judge", "alpha ordinal", "weighted kappa", "within one step", "mean score", "Judge as a classifier"}},
		{"nominal", grade, []string{
			"simpleqa · grade (nominal:CORRECT,INCORRECT,NOT_ATTEMPTED)",
			"human NOT_ATTEMPTED", "NOT_ATTEMPTED  judge", "CORRECT", "macro F1",
			"NOT_ATTEMPTED      10      0          —       0.0%   0.000", "Answers on the items both rated",
		}, []string{"mean score", ", bias ", "Swap audit", "alpha ordinal", "share of B"}},
	}
	for _, tc := range tests {
		for _, w := range tc.want {
			if !strings.Contains(tc.out, w) {
				t.Errorf("%s: the text lacks %q:\n%s", tc.name, w, tc.out)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(tc.out, w) {
				t.Errorf("%s: the text holds %q:\n%s", tc.name, w, tc.out)
			}
		}
	}

	md := Markdown(r)
	checkMarkdownTables(t, md)
	for _, want := range []string{
		"## pairwise · gpt-4o · preference (pairwise)", "### By category (human = truth)", "| Macro F1 |",
		"### Swap audit (30 pairs judged in both orders)", "| Positional agreement |", "| Kappa between orders |",
		"| Right in both orders |", "| First shown wins |", "Position bias: towards the response shown first.",
		"| original \\\\ swapped |", "| Judge share of B |",
		"## simpleqa · grade (nominal:CORRECT,INCORRECT,NOT\\_ATTEMPTED)", "| NOT\\_ATTEMPTED | 10 | 0 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	if strings.Contains(md, "Judge mean score") {
		t.Error("Markdown shows a mean on a nominal scale")
	}
	if h := HTML(r); !strings.Contains(h, `<span class="strong">Swap audit`) {
		t.Error("the HTML lacks the swap audit")
	}
}

// The swap audit's states: nothing to compare yet, and the option that
// counts disagreements as ties.
func TestSwapAuditStates(t *testing.T) {
	none := pairwiseFixture()
	for i := range none.Units {
		none.Units[i].Verdicts[1].Status, none.Units[i].Verdicts[1].Values = judge.StatusAPIError, nil
	}
	tests := []struct {
		name string
		in   stats.Input
		opts stats.Options
		want []string
	}{
		{"no pairs", none, stats.Options{Seed: 1}, []string{"30 items judged in the swapped order, none with an ok verdict in each order yet."}},
		{"as ties", pairwiseFixture(), stats.Options{Seed: 1, SwapDisagreeAsTie: true}, []string{"\"Judge vs human\" counts a pair whose two orders disagree as a tie."}},
	}
	for _, tc := range tests {
		r := Select(stats.Compute(tc.in, tc.opts), []string{"pairwise · gpt-4o"})
		out := Text(r) + Markdown(r) + HTML(r)
		for _, w := range tc.want {
			if wide := TextAt(r, 200); !strings.Contains(wide, w) {
				t.Errorf("%s: the text lacks %q:\n%s", tc.name, w, wide)
			}
		}
		for _, bad := range []string{"NaN", "Inf", "%!"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s: the output shows %q", tc.name, bad)
			}
		}
	}
}

// Category names come from judge files: they are shown inert.
func TestHostileCategoryNames(t *testing.T) {
	scale := judge.Scale("nominal:OK,BAD\x1b[31m,x<script>|`*\u202e")
	if !scale.Known() {
		t.Fatalf("scale refused: %v", scale.Err())
	}
	in := stats.Input{Judges: []stats.JudgeSpec{{Key: "j", Dimensions: []judge.Dimension{{Name: "grade", Scale: scale}}}}}
	for i := range 9 {
		in.Units = append(in.Units, stats.Unit{ItemID: fmt.Sprint(i),
			Verdicts: []stats.Verdict{{Judge: "j", Status: judge.StatusOK, Values: map[string]float64{"grade": float64(i % 3)}}},
			Labels:   []stats.Label{{Annotator: "a", Values: map[string]float64{"grade": float64(i / 3)}}}})
	}
	r := stats.Compute(in, stats.Options{Seed: 1, Resamples: -1})
	for _, l := range Lines(r, TextWidth) {
		if p := l.Plain(); strings.ContainsAny(p, "\x1b\u202e") {
			t.Errorf("control character reaches the text: %q", p)
		}
	}
	md := Markdown(r)
	if strings.ContainsAny(md, "\x1b\u202e") {
		t.Error("control character reaches the Markdown")
	}
	if m := regexp.MustCompile(`[^\\\n][<>]`).FindString(md); m != "" {
		t.Errorf("markup reaches the Markdown unescaped: %q", m)
	}
	checkMarkdownTables(t, md)
	if h := HTML(r); strings.Contains(h, "<script") || strings.ContainsAny(h, "\x1b\u202e") {
		t.Error("the category name reaches the HTML unescaped")
	}
}
