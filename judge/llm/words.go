package llm

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is the first word or number of a piece of model output, found by
// leadingToken, with its byte span in the text it was found in.
type token struct {
	text       string
	start, end int
	// ambiguous is set when the token is followed by "/", "|" or "or" and
	// another word: a copied template such as "YES/NO" is no answer.
	ambiguous bool
}

// leadingToken skips markup (spaces, *, _, `, quotes, brackets, bullets)
// and returns the first run of letters, digits, '_' and inner dots, so
// that "**YES**", "`NO`." and "[0.5]" give YES, NO and 0.5. A '-' right
// before a digit is kept, so that "-1" is not read as 1.
func leadingToken(s string) (token, bool) {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if isTokenRune(r) {
			break
		}
		if r == '-' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
			break
		}
		i += n
	}
	if i == len(s) {
		return token{}, false
	}
	start := i
	if s[i] == '-' {
		i++
	}
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isTokenRune(r) && r != '.' {
			break
		}
		i += n
	}
	end := i
	for end > start && s[end-1] == '.' {
		end--
	}
	if end == start || s[start:end] == "-" {
		return token{}, false
	}
	t := token{text: s[start:end], start: start, end: end}
	rest := strings.TrimLeft(s[end:], " \t*_`'\".")
	lower := strings.ToLower(rest)
	if strings.HasPrefix(rest, "/") || strings.HasPrefix(rest, "|") || strings.HasPrefix(lower, "or ") {
		t.ambiguous = true
	}
	return t, true
}

func isTokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_'
}

// yesNo reads YES or NO in any case as 1 or 0.
func yesNo(word string) (float64, bool) {
	switch {
	case strings.EqualFold(word, "yes"):
		return 1, true
	case strings.EqualFold(word, "no"):
		return 0, true
	}
	return 0, false
}

// onlyToken reports whether s holds nothing but the token t and markup or
// punctuation around it, as in "**YES**." — a line that is only an answer.
func onlyToken(s string, t token) bool {
	rest := s[:t.start] + s[t.end:]
	return strings.IndexFunc(rest, func(r rune) bool { return isTokenRune(r) }) < 0
}
