package match

// Extraction is the answer found in a prediction (seed 002, step 1).
type Extraction struct {
	// Answer is the answer text exactly as written: Prediction[Start:End].
	// It is empty when the prediction holds no answer text at all.
	Answer string
	// Start and End are the byte offsets of Answer in the prediction, for
	// highlighting; Start == End when there is no answer.
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
	v, fromTrace := finalView(pred)
	none := Extraction{Rule: "none", FromTrace: fromTrace}
	c, ok := findAnswer(v.text)
	if !ok {
		return none, v.text
	}
	s, e, ok := v.locate(c.s, c.e)
	if s, e = trimAnswer(pred, s, e); !ok || e <= s {
		return none, v.text
	}
	return Extraction{Answer: pred[s:e], Start: s, End: e, Rule: c.rule, FromTrace: fromTrace}, v.text
}
