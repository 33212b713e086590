package match

import "strings"

// acronymSkip are the small words an acronym leaves out: "National
// Aeronautics and Space Administration" is NASA.
var acronymSkip = map[string]bool{
	"and": true, "of": true, "for": true, "in": true, "on": true, "to": true, "at": true, "by": true,
}

// initials returns the lower-case initials of the words in ts, skipping
// small words, or "" when a token is a number.
func initials(ts []tok) string {
	var b strings.Builder
	for _, t := range ts {
		if t.isNum {
			return ""
		}
		if acronymSkip[t.text] || t.text == "" {
			continue
		}
		b.WriteString(string([]rune(t.text)[:1]))
	}
	return b.String()
}

// isAcronym reports whether s is written as an acronym: 2 to 8 capital
// ASCII letters.
func isAcronym(s string) bool {
	if len(s) < 2 || len(s) > 8 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// abbreviation finds seed 000's abbreviation equivalence between a gold and
// a text, either way round: the gold spelled out and its acronym in the
// text ("National Aeronautics and Space Administration" … "NASA"), or the
// gold an acronym and the words it stands for in the text. It returns the
// acronym, or "".
func abbreviation(gold string, gt []tok, text string) string {
	if g := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(gold), ".")); isAcronym(g) {
		if spelledOut(tokens(text), strings.ToLower(g)) {
			return g
		}
		return ""
	}
	if len(gt) < 2 {
		return ""
	}
	a := strings.ToUpper(initials(gt))
	if len(a) < 2 || !isAcronym(a) {
		return ""
	}
	if len(wordIndexes(text, a)) > 0 {
		return a
	}
	return ""
}

// spelledOut reports whether a run of words in ts has the initials want,
// small words inside the run skipped.
func spelledOut(ts []tok, want string) bool {
	for i := range ts {
		if acronymSkip[ts[i].text] {
			continue
		}
		k := 0
		for j := i; j < len(ts) && k < len(want); j++ {
			t := ts[j]
			if acronymSkip[t.text] && j > i {
				continue
			}
			if t.isNum || t.text == "" || []rune(t.text)[0] != rune(want[k]) {
				break
			}
			k++
		}
		if k == len(want) {
			return true
		}
	}
	return false
}
