package match

import "strings"

// letterPrefixes are the words that may name an option before its letter.
var letterPrefixes = []string{"option", "choice", "answer", "letter"}

// wholeLetter reads an answer that is nothing but an option letter, in any
// of seed 002's forms: "B", "(B)", "[B]", "Option B", "option (B)", "B)",
// "\boxed{B}" or "\text{B}", "**B**", "$B$". Case is ignored.
func wholeLetter(s string) (byte, bool) {
	s = stripMarkup(s)
	ls := asciiLower(s)
	for _, p := range letterPrefixes {
		if strings.HasPrefix(ls, p) && len(ls) > len(p) && !isASCIILetter(ls[len(p)]) {
			s = strings.TrimLeft(s[len(p):], " :#")
			break
		}
	}
	s = strings.TrimRight(s, " .)]")
	s = strings.TrimLeft(s, " ([")
	if len(s) == 1 && isASCIILetter(s[0]) {
		return s[0] &^ 0x20, true
	}
	return 0, false
}

// stripMarkup removes LaTeX commands, braces, markdown emphasis and the
// punctuation trimAnswer strips, keeping the text inside.
func stripMarkup(s string) string {
	if strings.ContainsAny(s, `\{}*$`) {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c == '\\':
				for i+1 < len(s) && isASCIILetter(s[i+1]) {
					i++
				}
			case strings.IndexByte("{}*$", c) >= 0:
			default:
				b.WriteByte(c)
			}
		}
		s = b.String()
	}
	st, en := trimAnswer(s, 0, len(s))
	return s[st:en]
}

// optionLetters lists the distinct option letters an answer names: the
// whole answer as a letter, "(B)" or "[B]" anywhere, "option B" anywhere,
// or a leading "B)", "B." or "B:" before the option's text.
func optionLetters(ans string) []byte {
	if l, ok := wholeLetter(ans); ok {
		return []byte{l}
	}
	var out []byte
	addLetter := func(l byte) {
		if strings.IndexByte(string(out), l) < 0 {
			out = append(out, l)
		}
	}
	for i := 1; i+1 < len(ans); i++ {
		c := ans[i]
		if c >= 'A' && c <= 'Z' &&
			(ans[i-1] == '(' && ans[i+1] == ')' || ans[i-1] == '[' && ans[i+1] == ']') {
			addLetter(c)
		}
	}
	la := asciiLower(ans)
	for _, p := range []string{"option", "choice"} {
		for _, k := range wordIndexes(la, p) {
			j := k + len(p)
			for j < len(ans) && (ans[j] == ' ' || ans[j] == '(' || ans[j] == ':') {
				j++
			}
			if j < len(ans) && isASCIILetter(ans[j]) && (j+1 == len(ans) || !isWordByte(ans[j+1])) {
				addLetter(ans[j] &^ 0x20)
			}
		}
	}
	if len(out) == 0 {
		if l, ok := leadingLetter(stripMarkup(ans)); ok {
			addLetter(l)
		}
	}
	return out
}

// leadingLetter reads an answer that opens with its option letter, as in
// "B) 12/25/1937", "B. 12/25/1937" or "B because …". "A" and "I" followed
// by a lower-case word are read as words, not letters.
func leadingLetter(s string) (byte, bool) {
	if len(s) < 2 || s[0] < 'A' || s[0] > 'Z' {
		return 0, false
	}
	switch s[1] {
	case ')', '.', ':':
		return s[0], true
	case ' ':
		if (s[0] == 'A' || s[0] == 'I') && len(s) > 2 && s[2] >= 'a' && s[2] <= 'z' {
			return 0, false
		}
		return s[0], true
	}
	return 0, false
}

// questionOptions reads the options of a multiple-choice question, lines
// like "(B) 12/25/1937" after the last "Options:" (few-shot prompts hold
// earlier questions with their own options), or anywhere when there is no
// such header, later lines winning.
func questionOptions(q string) map[byte]string {
	if k := strings.LastIndex(asciiLower(q), "options:"); k >= 0 {
		q = q[k:]
	}
	var opts map[byte]string
	for line := range strings.Lines(q) {
		line = strings.TrimSpace(line)
		var l byte
		var rest string
		switch {
		case len(line) >= 4 && line[0] == '(' && line[2] == ')' && line[1] >= 'A' && line[1] <= 'Z':
			l, rest = line[1], line[3:]
		case len(line) >= 3 && line[1] == ')' && line[0] >= 'A' && line[0] <= 'Z':
			l, rest = line[0], line[2:]
		default:
			continue
		}
		if rest = strings.TrimSpace(rest); rest == "" {
			continue
		}
		if opts == nil {
			opts = make(map[byte]string)
		}
		opts[l] = rest
	}
	return opts
}

// letterByOptionText finds the option whose text the answer gives: an
// option whose text equals the answer, else, of the options whose text the
// answer contains, the one it mentions last (the last statement wins, as
// in "today is 04/19/1969, so yesterday was 04/18/1969").
func letterByOptionText(ans string, opts map[byte]string) (byte, bool) {
	if len(opts) == 0 {
		return 0, false
	}
	at := tokens(ans)
	na := joinTokens(at)
	var best byte
	bestEnd, bestLen, tie := -1, 0, false
	for l := byte('A'); l <= 'Z'; l++ {
		text, ok := opts[l]
		if !ok {
			continue
		}
		ot := tokens(text)
		if len(ot) == 0 {
			continue
		}
		if joinTokens(ot) == na {
			return l, true
		}
		// On the same end, the longer text wins: "Paris, France" over "France".
		switch end := lastPhrase(at, ot); {
		case end > bestEnd || (end == bestEnd && end >= 0 && len(ot) > bestLen):
			best, bestEnd, bestLen, tie = l, end, len(ot), false
		case end == bestEnd && end >= 0 && len(ot) == bestLen:
			tie = true
		}
	}
	return best, bestEnd >= 0 && !tie
}
