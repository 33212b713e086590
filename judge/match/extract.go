package match

import (
	"strings"

	"github.com/gavel-dev/gavel/judge"
)

// Extraction is the answer found in a prediction (seed 002, step 1).
type Extraction struct {
	// Answer is the answer text exactly as written: Prediction[Start:End].
	// It is empty when the prediction holds no answer text at all.
	Answer string
	// Start and End are the byte offsets of Answer in the prediction, for
	// highlighting. Start == End means there is nothing to highlight.
	Start, End int
	// Rule says how the answer was found, strongest first:
	//   "boxed"           \boxed{…} (nested braces allowed)
	//   "answer-is"       "the answer is …", "answer would be …", "answers are …"
	//   "answer-label"    "Answer: …", "Final answer: …"
	//   "self-correction" "Wait, no, it is B" after an earlier answer
	//   "conclusion"      a sentence opening "So, …", "Therefore, …", "Thus, …"
	//   "bold"            **…**
	//   "last-line"       no cue: the last line of a longer text
	//   "whole"           no cue: the whole (one-line) final text
	//   "none"            nothing to extract
	// Within the first four (the definitive statements) the last one in
	// the text wins, then within the next two; the rest are fallbacks.
	Rule string
	// FromTrace is set when the final text was empty and the answer comes
	// from the end of the <think> trace.
	FromTrace bool
}

// Definitive reports whether the answer was found by a cue rather than by
// falling back to the last line or the whole text.
func (e Extraction) Definitive() bool {
	switch e.Rule {
	case "last-line", "whole", "none", "":
		return false
	}
	return true
}

// Extract finds the answer in a prediction: outside <think> traces (or at
// the end of the trace when nothing follows it), the last definitive
// statement. It is deterministic, allocation-light and safe for concurrent
// use.
func Extract(prediction string) Extraction {
	ex, _ := extract(prediction)
	return ex
}

// extract is Extract that also returns the final text it read, which the
// list, "contains" and "not answerable" rules search when the answer was
// not found by a cue.
func extract(pred string) (Extraction, string) {
	text, fromTrace := judge.FinalAnswerText(pred)
	c, ok := findAnswer(text)
	if !ok {
		return Extraction{Rule: "none", FromTrace: fromTrace}, text
	}
	ex := Extraction{Answer: text[c.s:c.e], Rule: c.rule, FromTrace: fromTrace}
	if base := strings.LastIndex(pred, text); base >= 0 {
		ex.Start, ex.End = base+c.s, base+c.e
	} else if k := strings.LastIndex(pred, ex.Answer); k >= 0 {
		// The final text was joined from pieces around a <think> block.
		ex.Start, ex.End = k, k+len(ex.Answer)
	}
	return ex, text
}
