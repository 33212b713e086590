package match

import (
	"strings"
	"testing"
)

// TestLargeInputs judges inputs built to make careless scanning quadratic:
// many cues, unclosed braces, long gold phrases. Each is about 300 KB; the
// test only checks the verdicts, but a quadratic scan would not finish in
// the suite's time.
func TestLargeInputs(t *testing.T) {
	const n = 30000
	tests := []struct{ name, gold, pred string }{
		{"many answer cues", "(B)", strings.Repeat("the answer is ", n) + "(B)"},
		{"many cues, long tail", "(B)", strings.Repeat("answer is ", n) + "(B)" + strings.Repeat(" ", 300000)},
		{"unclosed boxes", "7", strings.Repeat(`\boxed{`, n) + "7"},
		{"many corrections", "(B)", "The answer is (A). " + strings.Repeat("Wait, no, ", n) + "it is (B)"},
		{"many conclusions", "x y", strings.Repeat("So ", n) + "x y"},
		{"many bold", "z", strings.Repeat("**a** ", n) + "**z**"},
		{"long repetitive gold", strings.Repeat("x ", n) + "y", strings.Repeat("x ", 2*n) + "y"},
		{"many think blocks", "(B)", strings.Repeat("<think>x</think>y", n) + " So the answer is (B)."},
		{"many stray closing tags", "(B)", strings.Repeat("x</think>", n) + "The answer is (B)."},
		{"many negated numbers", "Not answerable", strings.Repeat("not 2022 ", n)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := judgeOne(t, tc.gold, tc.pred, "")
			if !verdictCorrect(v) && tc.name != "many negated numbers" {
				t.Errorf("want correct, got %s", v.Reason)
			}
		})
	}
}
