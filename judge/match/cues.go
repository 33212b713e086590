package match

import (
	"slices"
	"strings"
)

// cand is one place an answer might be: t[s:e], found by rule, in a tier
// (1 definitive statements, 2 weaker cues, 3 fallbacks).
type cand struct {
	s, e, tier int
	rule       string
}

var (
	// answerTails follow the word "answer" in a cue: "the answer is …",
	// "answers are …", "Final answer: …".
	answerTails = []struct{ tail, rule string }{
		{" is", "answer-is"}, {" would be", "answer-is"}, {" should be", "answer-is"},
		{" will be", "answer-is"}, {" must be", "answer-is"}, {"s are", "answer-is"},
		{" =", "answer-is"}, {":", "answer-label"}, {"s:", "answer-label"},
	}
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

// boxedCues finds the last \boxed{…} or \fbox{…}, with nested braces.
func boxedCues(t, lt string, add func(cand) bool) {
	var opens []int
	for _, cmd := range []string{`\boxed`, `\fbox`} {
		for _, k := range indexes(lt, cmd) {
			j := k + len(cmd)
			for j < len(t) && t[j] == ' ' {
				j++
			}
			if j < len(t) && t[j] == '{' {
				opens = append(opens, j)
			}
		}
	}
	if len(opens) == 0 {
		return
	}
	closes := closingBraces(t, opens)
	slices.Sort(opens)
	for i := len(opens) - 1; i >= 0; i-- {
		if end, ok := closes[opens[i]]; ok && add(cand{s: opens[i] + 1, e: end, tier: 1, rule: "boxed"}) {
			return
		}
	}
}

// closingBraces returns, for each "{" offset in opens, the offset of the
// "}" that closes it, matching every brace of t in one pass (so a text
// full of unclosed braces costs linear time). Escaped braces do not count.
func closingBraces(t string, opens []int) map[int]int {
	want := make(map[int]bool, len(opens))
	for _, o := range opens {
		want[o] = true
	}
	out := make(map[int]int, len(opens))
	var stack []int
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '\\':
			if i+1 < len(t) && (t[i+1] == '{' || t[i+1] == '}') {
				i++
			}
		case '{':
			stack = append(stack, i)
		case '}':
			if n := len(stack); n > 0 {
				if o := stack[n-1]; want[o] {
					out[o] = i
				}
				stack = stack[:n-1]
			}
		}
	}
	return out
}

// answerCues finds "the answer is …" and "Answer: …". When nothing follows
// on the same line (a list below "The answer is:"), the answer is the next
// paragraph. Later cues give later answers and the last one wins, so the
// scan goes backwards and stops at the first cue that holds an answer.
func answerCues(t, lt string, add func(cand) bool) {
	ks := wordStarts(lt, "answer")
	for i := len(ks) - 1; i >= 0; i-- {
		k := ks[i] + len("answer")
		rule := ""
		for _, a := range answerTails {
			if strings.HasPrefix(lt[k:], a.tail) {
				if end := k + len(a.tail); end < len(lt) && isWordByte(lt[end]) && isWordByte(a.tail[len(a.tail)-1]) {
					continue
				}
				k, rule = k+len(a.tail), a.rule
				break
			}
		}
		if rule == "" {
			continue
		}
		s, e := k, sentenceEnd(t, k)
		if ts, te := trimAnswer(t, s, e); te <= ts && e < len(t) && t[e] == '\n' {
			s = e
			for s < len(t) && (t[s] == '\n' || t[s] == '\r' || t[s] == ' ') {
				s++
			}
			e = paragraphEnd(t, s)
		}
		if add(cand{s: s, e: e, tier: 1, rule: rule}) {
			return
		}
	}
}

// correctionCues finds self-corrections after the definitive answer that
// starts at after: a marker ("Wait, no,"), then either a lead ("it is")
// and the new answer, or a bare answer such as "(B)", "42" or "False".
func correctionCues(t, lt string, after int, add func(cand) bool) {
	for _, m := range correctionMarkers {
		ks := wordIndexes(lt[after:], m)
		for i := len(ks) - 1; i >= 0; i-- {
			k := after + ks[i]
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
			if add(cand{s: p, e: e, tier: 1, rule: "self-correction"}) {
				break
			}
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
		ks := wordIndexes(lt, m)
		for i := len(ks) - 1; i >= 0; i-- {
			if !sentenceStart(t, ks[i]) {
				continue
			}
			s := ks[i] + len(m)
			if add(cand{s: s, e: sentenceEnd(t, s), tier: 2, rule: "conclusion"}) {
				break
			}
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
