package match

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tok is one normalised token. Numbers carry their value so that the number
// rules compare values, not spellings ("42", "42.0", "forty-two", "1,000").
type tok struct {
	text  string
	num   float64
	isNum bool
	// decimals is how many digits followed the decimal point in the
	// source, so "2.9166" can be rounded to a gold written as "2.92".
	decimals int
}

// articles are dropped by normalisation, as SQuAD-style matching does.
var articles = map[string]bool{"a": true, "an": true, "the": true}

// months maps full month names to the abbreviations seed 000's list example
// uses (['Jun', 'Aug'] for June and August), so both spellings compare equal.
var months = map[string]string{
	"january": "jan", "february": "feb", "march": "mar", "april": "apr",
	"june": "jun", "july": "jul", "august": "aug", "september": "sep",
	"sept": "sep", "october": "oct", "november": "nov", "december": "dec",
}

// tokens normalises s into comparable tokens: lower case, punctuation and
// articles dropped, apostrophes inside words removed ("can't" → "cant"),
// "%" and "per cent" → "percent", "&" → "and", "n/a" → "na", LaTeX commands
// dropped, numbers canonical (number words folded, "1,000" → "1000",
// "42.0" → "42"), month names abbreviated.
func tokens(s string) []tok {
	return fold(rawTokens(s))
}

// normText is the normalised form of s as one string.
func normText(s string) string {
	return joinTokens(tokens(s))
}

func joinTokens(ts []tok) string {
	var b strings.Builder
	for i, t := range ts {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t.text)
	}
	return b.String()
}

// rawTokens splits s into words, numbers and the few symbols that carry
// meaning; everything else separates tokens.
func rawTokens(s string) []tok {
	out := make([]tok, 0, len(s)/5+1)
	prevAlnum := false
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case isDigit(c) || (startsNumber(s, i) && !prevAlnum):
			t, n := scanNumber(s, i)
			out = append(out, t)
			i += n
			prevAlnum = true
			continue
		case c == '%':
			out = append(out, tok{text: "percent"})
		case c == '&':
			out = append(out, tok{text: "and"})
		case c == '\\':
			// A LaTeX command (\text, \boxed, \frac) is markup, not words.
			j := i + 1
			for j < len(s) && isASCIILetter(s[j]) {
				j++
			}
			i = j
			prevAlnum = false
			continue
		case c < utf8.RuneSelf && !isASCIILetter(c):
			// ASCII punctuation and space separate tokens.
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if !unicode.IsLetter(r) && !unicode.IsMark(r) {
				if r == '％' {
					out = append(out, tok{text: "percent"})
				}
				i += size
				prevAlnum = false
				continue
			}
			w, n := scanWord(s, i)
			if w == "n" && strings.HasPrefix(s[i+n:], "/") && i+n+2 <= len(s) &&
				(s[i+n+1] == 'a' || s[i+n+1] == 'A') && !isWordAt(s, i+n+2) {
				w, n = "na", n+2
			}
			out = append(out, tok{text: w})
			i += n
			prevAlnum = true
			continue
		}
		i++
		prevAlnum = false
	}
	return out
}

func isDigit(c byte) bool       { return c >= '0' && c <= '9' }
func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// isWordAt reports whether a letter or digit starts at s[i].
func isWordAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// startsNumber reports whether a sign or a leading decimal point at s[i]
// begins a number ("-3", "−3", ".5"). The caller checks that no word or
// number comes right before it, so "2014-10-06" and "covid-19" are not
// negative numbers.
func startsNumber(s string, i int) bool {
	switch {
	case s[i] == '-' || s[i] == '.':
		return i+1 < len(s) && isDigit(s[i+1])
	case strings.HasPrefix(s[i:], "−"): // U+2212 minus sign
		return i+3 < len(s) && isDigit(s[i+3])
	}
	return false
}

// scanNumber reads a number at s[i]: an optional sign, digits with optional
// thousands separators ("1,000,000"), and an optional decimal part.
func scanNumber(s string, i int) (tok, int) {
	start := i
	var b strings.Builder
	switch {
	case s[i] == '-':
		b.WriteByte('-')
		i++
	case strings.HasPrefix(s[i:], "−"):
		b.WriteByte('-')
		i += len("−")
	}
	for i < len(s) {
		switch {
		case isDigit(s[i]):
			b.WriteByte(s[i])
			i++
			continue
		case s[i] == ',' && b.Len() > 0 && thousandsGroup(s, i+1):
			i++
			continue
		}
		break
	}
	decimals := 0
	if i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
		b.WriteByte('.')
		i++
		for i < len(s) && isDigit(s[i]) {
			b.WriteByte(s[i])
			i++
			decimals++
		}
	}
	return numberTok(b.String(), decimals), i - start
}

// thousandsGroup reports whether exactly three digits start at s[i].
func thousandsGroup(s string, i int) bool {
	if i+3 > len(s) {
		return false
	}
	for k := i; k < i+3; k++ {
		if !isDigit(s[k]) {
			return false
		}
	}
	return i+3 == len(s) || !isDigit(s[i+3])
}

// numberTok builds the token of a number written with digits.
func numberTok(lit string, decimals int) tok {
	if strings.HasPrefix(lit, ".") || strings.HasPrefix(lit, "-.") {
		lit = strings.Replace(lit, ".", "0.", 1)
	}
	v, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		// Too many digits for a float64: keep the digits as a word.
		return tok{text: strings.TrimLeft(lit, "0")}
	}
	return numTok(v, decimals)
}

func numTok(v float64, decimals int) tok {
	if v == 0 {
		v = 0 // no "-0"
	}
	return tok{text: strconv.FormatFloat(v, 'f', -1, 64), num: v, isNum: true, decimals: decimals}
}

// scanWord reads a run of letters at s[i], lower-cased, with apostrophes
// between letters dropped. Digits end a word, so "1st" splits as "1" "st"
// on both sides of a comparison.
func scanWord(s string, i int) (string, int) {
	// Fast path: an ASCII word, sliced from s without copying when it is
	// already lower case.
	j, upper := i, false
	for j < len(s) && isASCIILetter(s[j]) {
		upper = upper || s[j] < 'a'
		j++
	}
	if j > i && (j == len(s) || (s[j] < utf8.RuneSelf && s[j] != '\'')) {
		if upper {
			return strings.ToLower(s[i:j]), j - i
		}
		return s[i:j], j - i
	}
	var b strings.Builder
	start := i
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsLetter(r) || unicode.IsMark(r):
			b.WriteRune(unicode.ToLower(r))
			i += size
			continue
		case (r == '\'' || r == '’') && isLetterAt(s, i+size) && b.Len() > 0:
			i += size
			continue
		}
		break
	}
	return b.String(), i - start
}

func isLetterAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r)
}

// fold turns raw tokens into normalised ones: number words become numbers,
// "per cent" becomes "percent", months are abbreviated, articles go.
func fold(raw []tok) []tok {
	// Articles go first, so that "a hundred" is 100 and "0 a thousand"
	// folds the same way as "0 thousand" does.
	kept := raw[:0]
	for _, t := range raw {
		if t.isNum || !articles[t.text] {
			kept = append(kept, t)
		}
	}
	raw = kept
	out := make([]tok, 0, len(raw))
	for i := 0; i < len(raw); {
		if v, n, ok := numberPhrase(raw, i); ok {
			decimals := 0
			if n == 1 {
				decimals = raw[i].decimals
			}
			out = append(out, numTok(v, decimals))
			i += n
			continue
		}
		t := raw[i]
		switch {
		case t.isNum:
		case t.text == "per" && i+1 < len(raw) && raw[i+1].text == "cent":
			t = tok{text: "percent"}
			i++
		default:
			if m, ok := months[t.text]; ok {
				t.text = m
			}
		}
		out = append(out, t)
		i++
	}
	return out
}
