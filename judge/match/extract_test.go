package match

import "testing"

func TestExtract(t *testing.T) {
	tests := []struct {
		name, pred, answer, rule string
		fromTrace                bool
	}{
		// <think> traces.
		{"think ignored", "<think>So the answer is (C).</think>\nThe answer is (B).", "(B)", "answer-is", false},
		{"think upper case ignored", "<THINK>answer: 7</THINK> Final answer: 9", "9", "answer-label", false},
		{"trace fallback", "<think>Let me count.\n\nSo the answer is (C).</think>", "(C)", "answer-is", true},
		{"unclosed trace fallback", "<think>Counting…\n\nThe answer is 12", "12", "answer-is", true},
		{"trace fallback without cue", "<think>work\n\nParis</think>\n", "Paris", "whole", true},
		// \boxed{}.
		{"boxed", `We get $\boxed{17}$.`, "17", "boxed", false},
		{"boxed nested braces", `Hence \boxed{\frac{1}{2}} is the result.`, `\frac{1}{2}`, "boxed", false},
		{"boxed inside answer is", `The answer is \boxed{B}.`, "B", "boxed", false},
		{"boxed space before brace", `\boxed {C}`, "C", "boxed", false},
		{"boxed unclosed skipped", `\boxed{B and the answer is (C).`, "(C)", "answer-is", false},
		// "the answer is" and labels.
		{"answer is", "Today is 12/24. So the answer is (B).", "(B)", "answer-is", false},
		{"answer is with decimal", "The answer is 42.5.", "42.5", "answer-is", false},
		{"abbreviations do not end the answer", "The answer is Capt. John Sanders of the U.S. Navy.", "Capt. John Sanders of the U.S. Navy", "answer-is", false},
		{"lower-case word after a period", "The answer is approx. 5 km.", "approx. 5 km", "answer-is", false},
		{"e.g. inside", "The answer is fruit, e.g. apples. Then more.", "fruit, e.g. apples", "answer-is", false},
		{"answer would be", "I believe the answer would be Paris.", "Paris", "answer-is", false},
		{"answer label", "Reasoning…\nAnswer: (D)", "(D)", "answer-label", false},
		{"final answer label", "Final answer: FALSE", "FALSE", "answer-label", false},
		{"bold answer label", "**Answer: B**", "B", "answer-label", false},
		{"answer on next lines", "The answers are:\n- June\n- August\n\nThanks.", "- June\n- August", "answer-is", false},
		// The last definitive statement wins.
		{"last of two", "The answer is (A). Checking again… Final answer: (C)", "(C)", "answer-label", false},
		{"last of three", "Answer: 3\nAnswer: 4\nThe answer is 5.", "5", "answer-is", false},
		// Self-corrections.
		{"self-correction", "Answer is A. Wait, no, it is B", "B", "self-correction", false},
		{"self-correction bare", "The answer is (A). Actually, (D).", "(D)", "self-correction", false},
		{"self-correction number", "The answer is 12. Hmm, no, 14.", "14", "self-correction", false},
		{"self-correction should be", "The answer is True. Sorry, it should be False.", "False", "self-correction", false},
		{"correction inside the sentence", "The answer is A, no wait, B.", "B", "self-correction", false},
		{"not a correction", "The answer is (B). Wait, that's the one I picked.", "(B)", "answer-is", false},
		{"correction before any answer", "Wait, it is a trick question. The answer is (C).", "(C)", "answer-is", false},
		// Weaker cues.
		{"conclusion so", "Two plus two.\nSo, 4.", "4", "conclusion", false},
		{"conclusion therefore", "Therefore, the logical conclusion is obviously False", "the logical conclusion is obviously False", "conclusion", false},
		{"so mid-sentence is not a cue", "It was so cold.\nParis", "Paris", "last-line", false},
		{"bold", "I would go with **Paris** here", "Paris", "bold", false},
		{"last bold", "**Step 1** then **Rome**", "Rome", "bold", false},
		{"strong cue beats later weak one", "The answer is (B). So, I am confident.", "(B)", "answer-is", false},
		// Fallbacks.
		{"last line", "Step 1: add.\nStep 2: check.\nParis", "Paris", "last-line", false},
		{"whole", "  Paris.  ", "Paris", "whole", false},
		{"empty", "", "", "none", false},
		{"only trace tags", "<think></think>", "", "none", false},
		{"punctuation only", "...", "", "none", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ex := Extract(tc.pred)
			if ex.Answer != tc.answer || ex.Rule != tc.rule || ex.FromTrace != tc.fromTrace {
				t.Errorf("Extract(%q) = %q by %q (trace %v); want %q by %q (trace %v)",
					tc.pred, ex.Answer, ex.Rule, ex.FromTrace, tc.answer, tc.rule, tc.fromTrace)
			}
			if ex.End > ex.Start && tc.pred[ex.Start:ex.End] != ex.Answer {
				t.Errorf("span [%d,%d) holds %q, not the answer %q", ex.Start, ex.End, tc.pred[ex.Start:ex.End], ex.Answer)
			}
			if tc.answer != "" && ex.End <= ex.Start {
				t.Errorf("no span for answer %q", ex.Answer)
			}
		})
	}
}

// TestExtractSpanAroundThink checks the highlight lands in the final text,
// not on the same words inside the trace.
func TestExtractSpanAroundThink(t *testing.T) {
	tests := []struct {
		pred, answer string
		start        int
	}{
		{"<think>The answer is (B).</think>The answer is (B).", "(B)", 47},
		{"<think>7</think>The answer is 7", "7", 30},
		// Final text on both sides of the trace: located by the answer.
		{"Sure. <think>x</think> The answer is 7", "7", 37},
	}
	for _, tc := range tests {
		ex := Extract(tc.pred)
		if ex.Answer != tc.answer || ex.Start != tc.start || ex.End != tc.start+len(tc.answer) {
			t.Errorf("Extract(%q) = %q at [%d,%d), want %q at %d", tc.pred, ex.Answer, ex.Start, ex.End, tc.answer, tc.start)
		}
	}
}

func TestExtractionDefinitive(t *testing.T) {
	for rule, want := range map[string]bool{
		"boxed": true, "answer-is": true, "answer-label": true, "self-correction": true,
		"conclusion": true, "bold": true, "last-line": false, "whole": false, "none": false,
	} {
		if got := (Extraction{Rule: rule}).Definitive(); got != want {
			t.Errorf("Extraction{Rule: %q}.Definitive() = %v, want %v", rule, got, want)
		}
	}
}
