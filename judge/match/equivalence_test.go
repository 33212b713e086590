package match

import "testing"

// seed002Table is seed 002's table of equivalent answers, row by row: for
// each ground truth every listed equivalent must match, and the
// counter-examples must not.
var seed002Table = []struct {
	gold        string
	rule        string
	equivalents []string
	different   []string
}{
	{
		gold:        "(A)",
		rule:        RuleOptionLetter,
		equivalents: []string{"(A)", "A", "Option A", "[A]", `\boxed{A}`, "Answer: A", "**A**", "a", "option (A)", "A)", `$\boxed{\text{(A)}}$`},
		different:   []string{"B", "(B)", "Option B", "[B]", `\boxed{B}`, "Answer: B", "**B**", "(A) or (B)", "none of the options"},
	},
	{
		gold:        "True",
		rule:        RuleBoolean,
		equivalents: []string{"True", "true", "TRUE", "yes", "correct", "valid", "not false"},
		// "not true" reads as False: a negator flips the word it governs.
		different: []string{"False", "false", "no", "incorrect", "invalid", "not true", "true or false"},
	},
	{
		gold:        "False",
		rule:        RuleBoolean,
		equivalents: []string{"False", "false", "FALSE", "no", "incorrect", "invalid", "not true", "not valid"},
		different:   []string{"True", "true", "yes", "correct", "valid", "not false"},
	},
	{
		gold:        "yes",
		rule:        RulePlausibility,
		equivalents: []string{"yes", "Yes", "plausible", "likely", "possible", "highly likely"},
		different:   []string{"no", "implausible", "unlikely", "impossible", "not plausible", "not very likely"},
	},
	{
		gold:        "no",
		rule:        RulePlausibility,
		equivalents: []string{"no", "No", "implausible", "unlikely", "impossible", "not plausible"},
		different:   []string{"yes", "plausible", "likely", "possible", "not impossible"},
	},
	{
		gold:        "42",
		rule:        RuleNumber,
		equivalents: []string{"42", "forty-two", "42.0", "Forty Two", "42.00", "42."},
		different:   []string{"43", "forty-three", "4.2", "420", "41 or 43", "-42"},
	},
}

func TestSeed002EquivalenceTable(t *testing.T) {
	// Each answer is tried bare, after "So the answer is", and after a
	// <think> trace that holds a different answer (which must be ignored).
	wraps := []struct{ name, pre, post string }{
		{"bare", "", ""},
		{"answer-is", "Let me work through it step by step.\nSo the answer is ", "."},
		{"after-think", "<think>The answer is (C), no wait, 7. Hmm, maybe 13.</think>\n\n", ""},
	}
	for _, row := range seed002Table {
		for _, w := range wraps {
			for _, eq := range row.equivalents {
				pred := w.pre + eq + w.post
				v := judgeOne(t, row.gold, pred, "")
				if !verdictCorrect(v) || verdictRule(v) != row.rule {
					t.Errorf("gold %q, %s prediction %q: correct=%v rule %q, want YES by %q (%s)",
						row.gold, w.name, pred, verdictCorrect(v), verdictRule(v), row.rule, v.Reason)
				}
			}
			for _, d := range row.different {
				pred := w.pre + d + w.post
				v := judgeOne(t, row.gold, pred, "")
				if verdictCorrect(v) || verdictRule(v) != row.rule {
					t.Errorf("gold %q, %s prediction %q: correct=%v rule %q, want NO by %q (%s)",
						row.gold, w.name, pred, verdictCorrect(v), verdictRule(v), row.rule, v.Reason)
				}
			}
		}
	}
}

// TestGoldForms checks that the ground truth itself may be written in any
// of the equivalent forms.
func TestGoldForms(t *testing.T) {
	tests := []struct {
		gold, pred string
		want       bool
	}{
		{"A", "So the answer is (A).", true},
		{"Option C", "The answer is C.", true},
		{"[D]", "The answer is (D).", true},
		{"[A]", "The answer is (B), a good one.", false},
		{"(D)", "The answer is (E).", false},
		{"TRUE", "the statement is true", true},
		{"valid", "So the argument is deductively valid.", true},
		{"valid", "So the argument is invalid.", false},
		{"Yes", "It is plausible.", true},
		{"plausible", "The sentence is implausible.", false},
		{"not plausible", "It is implausible.", true},
		{"forty-two", "The answer is 42.", true},
		{"42.0", "The answer is 42.", true},
	}
	for _, tc := range tests {
		v := judgeOne(t, tc.gold, tc.pred, "")
		if verdictCorrect(v) != tc.want {
			t.Errorf("gold %q, prediction %q: correct=%v, want %v (%s)", tc.gold, tc.pred, verdictCorrect(v), tc.want, v.Reason)
		}
	}
}
