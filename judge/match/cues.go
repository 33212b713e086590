package match

import "strings"

// cand is one place an answer might be: t[s:e], found by rule, in a tier
// (1 definitive statements, 2 weaker cues, 3 fallbacks).
type cand struct {
	s, e, tier int
	rule       string
}

var (
	// answerIsCues introduce an answer in running text.
	answerIsCues = []string{
		"answer is", "answer would be", "answer should be", "answer will be",
		"answer must be", "answers are", "answer =",
	}
	// answerLabelCues label an answer, as in "Final answer: B".
	answerLabelCues = []string{"answer:", "answers:"}
	// correctionMarkers open a self-correction ("Wait, no, it is B").
	correctionMarkers = []string{
		"wait", "actually", "correction", "sorry", "oops", "hmm", "on second thought", "no",
	}
	// correctionFillers may follow a marker before the corrected answer.
	correctionFillers = []string{"no", "sorry", "actually", "wait", "hmm", "oh", "oops", "i think", "i mean"}
	// correctionLeads introduce the corrected answer.
	correctionLeads = []string{
		"it is", "it's", "it’s", "it should be", "it must be", "it should actually be",
		"should be", "make that", "i meant", "rather", "instead",
	}
	// conclusionCues open a concluding sentence.
	conclusionCues = []string{
		"so", "therefore", "thus", "hence", "in conclusion", "in summary", "overall", "finally",
	}
)

// findAnswer picks the answer in the final text t: the last definitive
// statement, else the last weaker cue, else the last line.
func findAnswer(t string) (cand, bool) {
	lt := asciiLower(t)
	var best cand
	found := false
	add := func(c cand) bool {
		c.s, c.e = trimAnswer(t, c.s, c.e)
		if c.e <= c.s {
			return false
		}
		if !found || c.tier < best.tier ||
			(c.tier == best.tier && (c.s > best.s || (c.s == best.s && c.e < best.e))) {
			best, found = c, true
		}
		return true
	}
	boxedCues(t, lt, add)
	answerCues(t, lt, add)
	if found {
		// A self-correction only counts after an earlier definitive answer.
		correctionCues(t, lt, best.s, add)
	}
	if !found {
		conclusionCuesIn(t, lt, add)
		boldCues(t, add)
	}
	if !found {
		lastLine(t, add)
	}
	return best, found
}

// boxedCues finds \boxed{…} and \fbox{…}, with nested braces.
func boxedCues(t, lt string, add func(cand) bool) {
	for _, cmd := range []string{`\boxed`, `\fbox`} {
		for from := 0; ; {
			k := strings.Index(lt[from:], cmd)
			if k < 0 {
				break
			}
			j := from + k + len(cmd)
			from = j
			for j < len(t) && t[j] == ' ' {
				j++
			}
			if j >= len(t) || t[j] != '{' {
				continue
			}
			if end, ok := closingBrace(t, j); ok {
				add(cand{s: j + 1, e: end, tier: 1, rule: "boxed"})
			}
		}
	}
}

// closingBrace returns the offset of the "}" that closes the "{" at t[open].
func closingBrace(t string, open int) (int, bool) {
	depth := 0
	for i := open; i < len(t); i++ {
		switch t[i] {
		case '\\':
			i++ // an escaped brace does not nest
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i, true
			}
		}
	}
	return 0, false
}

// answerCues finds "the answer is …" and "Answer: …". When nothing follows
// on the same line (a list below "The answer is:"), the answer is the next
// paragraph.
func answerCues(t, lt string, add func(cand) bool) {
	scan := func(cues []string, rule string) {
		for _, cue := range cues {
			for _, k := range wordIndexes(lt, cue) {
				s := k + len(cue)
				e := sentenceEnd(t, s)
				if ts, te := trimAnswer(t, s, e); te <= ts && e < len(t) && t[e] == '\n' {
					s = e
					for s < len(t) && (t[s] == '\n' || t[s] == '\r' || t[s] == ' ') {
						s++
					}
					e = paragraphEnd(t, s)
				}
				add(cand{s: s, e: e, tier: 1, rule: rule})
			}
		}
	}
	scan(answerIsCues, "answer-is")
	scan(answerLabelCues, "answer-label")
}

// correctionCues finds self-corrections after the definitive answer that
// starts at after: a marker ("Wait, no,"), then either a lead ("it is")
// and the new answer, or a bare answer such as "(B)", "42" or "False".
func correctionCues(t, lt string, after int, add func(cand) bool) {
	for _, m := range correctionMarkers {
		for _, k := range wordIndexes(lt, m) {
			if k < after {
				continue
			}
			p := skipFillers(lt, k+len(m))
			lead := false
			for _, l := range correctionLeads {
				if wordAt(lt, p, l) {
					p, lead = p+len(l), true
					break
				}
			}
			e := sentenceEnd(t, p)
			if !lead {
				if s2, e2 := trimAnswer(t, p, e); !looksAtomic(t[s2:e2]) {
					continue
				}
			}
			add(cand{s: p, e: e, tier: 1, rule: "self-correction"})
		}
	}
}

// skipFillers skips punctuation, space and filler words after a marker.
func skipFillers(lt string, p int) int {
	for {
		for p < len(lt) && strings.IndexByte(" ,.!:;-\t", lt[p]) >= 0 {
			p++
		}
		moved := false
		for _, f := range correctionFillers {
			if p < len(lt) && wordAt(lt, p, f) {
				p += len(f)
				moved = true
				break
			}
		}
		if !moved {
			return p
		}
	}
}

// looksAtomic reports whether s is a bare answer: an option letter, a
// number, or a yes/no word — what "Wait, no, B." corrects to.
func looksAtomic(s string) bool {
	if s == "" || len(s) > 40 {
		return false
	}
	if _, ok := wholeLetter(s); ok {
		return true
	}
	ts := tokens(s)
	if len(ts) != 1 {
		return false
	}
	_, pol := polarityWords[ts[0].text]
	return ts[0].isNum || pol
}

// conclusionCuesIn finds sentences opening with "So", "Therefore", "Thus"…
func conclusionCuesIn(t, lt string, add func(cand) bool) {
	for _, m := range conclusionCues {
		for _, k := range wordIndexes(lt, m) {
			if !sentenceStart(t, k) {
				continue
			}
			s := k + len(m)
			add(cand{s: s, e: sentenceEnd(t, s), tier: 2, rule: "conclusion"})
		}
	}
}

// sentenceStart reports whether a sentence (or a line, or a list item)
// starts at t[k].
func sentenceStart(t string, k int) bool {
	i := k - 1
	for i >= 0 && strings.IndexByte(" \t*_>-#", t[i]) >= 0 {
		i--
	}
	return i < 0 || strings.IndexByte("\n\r.!?:", t[i]) >= 0
}

// boldCues finds **…** spans on one line.
func boldCues(t string, add func(cand) bool) {
	for from := 0; ; {
		k := strings.Index(t[from:], "**")
		if k < 0 {
			return
		}
		s := from + k + 2
		end := strings.Index(t[s:], "**")
		if end < 0 {
			return
		}
		e := s + end
		if inner := t[s:e]; len(inner) <= 200 && !strings.Contains(inner, "\n") {
			add(cand{s: s, e: e, tier: 2, rule: "bold"})
		}
		from = e + 2
	}
}

// lastLine falls back to the last line that holds an answer, or the whole
// text when it is one line.
func lastLine(t string, add func(cand) bool) {
	for e := len(t); e > 0; {
		s := strings.LastIndexByte(t[:e], '\n') + 1
		rule := "last-line"
		if strings.TrimSpace(t[:s]) == "" {
			rule = "whole"
		}
		if add(cand{s: s, e: e, tier: 3, rule: rule}) {
			return
		}
		e = s - 1
	}
}
