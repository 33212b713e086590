package match

// goldNotAnswerable are golds that say the question has no answer, in
// normalised form (seed 000: "Not answerable" or equivalent).
var goldNotAnswerable = map[string]bool{
	"not answerable": true, "unanswerable": true, "na": true, "no answer": true,
	"not applicable": true, "cannot be answered": true, "cannot answer": true,
}

// goldNotAnswerablePhrases mark a longer gold as "not answerable", as in
// "The question cannot be answered based on the provided context".
var goldNotAnswerablePhrases = []string{
	"not answerable", "unanswerable", "cannot be answered", "can not be answered",
	"cant be answered", "not enough information", "insufficient information",
	"cannot be determined",
}

// declaresUnanswerable are the ways a prediction says the question cannot
// be answered, or why: the information is missing from the context.
var declaresUnanswerable = []string{
	"not answerable", "unanswerable", "cannot be answered", "can not be answered",
	"cant be answered", "could not be answered", "couldnt be answered",
	"impossible to answer", "unable to answer", "cannot answer", "cant answer",
	"can not answer", "not possible to answer", "no answer",
	"cannot be determined", "cant be determined", "can not be determined",
	"cannot determine", "cant determine", "unable to determine",
	"not possible to determine", "impossible to determine", "cannot be found",
	"not provided", "not mentioned", "not specified", "not stated", "not given",
	"not available", "not included", "not found", "not known", "unknown",
	"no information", "not enough information", "insufficient information",
	"not enough context", "insufficient context", "no mention", "not clear", "unclear",
	"na",
}

// missingVerbs, after "not", "doesnt", "dont" or "didnt", say the source
// lacks the answer: "the slides do not mention a year".
var missingVerbs = []string{"mention", "provide", "specify", "say", "contain", "include", "state", "give", "show", "indicate"}

var (
	goldNotAnswerableToks = phraseTokens(goldNotAnswerablePhrases)
	declaresToks          = phraseTokens(withMissingVerbs(declaresUnanswerable))
)

func withMissingVerbs(ps []string) []string {
	out := append([]string(nil), ps...)
	for _, v := range missingVerbs {
		for _, n := range []string{"not", "doesnt", "dont", "didnt"} {
			out = append(out, n+" "+v)
		}
	}
	return out
}

func phraseTokens(ps []string) [][]tok {
	out := make([][]tok, len(ps))
	for i, p := range ps {
		out[i] = tokens(p)
	}
	return out
}

// isNotAnswerableGold reports whether a gold answer says the question
// cannot be answered.
func isNotAnswerableGold(gt []tok) bool {
	if goldNotAnswerable[joinTokens(gt)] {
		return true
	}
	if len(gt) > 14 {
		return false
	}
	for _, p := range goldNotAnswerableToks {
		if countPhrase(gt, p) > 0 {
			return true
		}
	}
	return false
}

// unanswerablePhrase returns the phrase by which a prediction says the
// question cannot be answered, or "".
func unanswerablePhrase(pt []tok) string {
	for _, p := range declaresToks {
		if countPhrase(pt, p) > 0 {
			return joinTokens(p)
		}
	}
	return ""
}

// premiseCorrection finds where a prediction corrects a number in the
// question's premise, as seed 000's Example 1 does ("conducted in 2018,
// not 2022" for a question about 2022): "not N", "rather than N" or
// "instead of N" where N is a number the question uses and the prediction
// uses nowhere else. It returns the phrase, or "".
func premiseCorrection(pt []tok, question string) string {
	var qnums map[string]bool
	var uses map[string]int
	for i := 0; i+1 < len(pt); i++ {
		lead := ""
		switch {
		case pt[i].text == "not":
			lead = "not"
		case pt[i].text == "than" && i > 0 && pt[i-1].text == "rather":
			lead = "rather than"
		case pt[i].text == "of" && i > 0 && pt[i-1].text == "instead":
			lead = "instead of"
		default:
			continue
		}
		n := pt[i+1]
		if !n.isNum {
			continue
		}
		if qnums == nil {
			qnums = make(map[string]bool)
			for _, t := range tokens(question) {
				if t.isNum {
					qnums[t.text] = true
				}
			}
			uses = make(map[string]int)
			for _, t := range pt {
				if t.isNum {
					uses[t.text]++
				}
			}
		}
		if qnums[n.text] && uses[n.text] == 1 {
			return lead + " " + n.text
		}
	}
	return ""
}
