package match

import (
	"strings"
	"unicode/utf8"
)

// asciiLower lower-cases ASCII letters only, so that every byte offset in
// the result is the same offset in s (strings.ToLower may change lengths).
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// isWordByte reports whether b can be part of a word. Bytes of multi-byte
// UTF-8 characters count as word bytes, so a cue is never found inside a
// non-ASCII word.
func isWordByte(b byte) bool {
	return isASCIILetter(b) || isDigit(b) || b == '_' || b >= 0x80
}

// wordAt reports whether the phrase w occurs in lt at i as whole words.
func wordAt(lt string, i int, w string) bool {
	if !strings.HasPrefix(lt[i:], w) {
		return false
	}
	if i > 0 && isWordByte(lt[i-1]) {
		return false
	}
	end := i + len(w)
	return end >= len(lt) || !isWordByte(lt[end]) || !isWordByte(w[len(w)-1])
}

// wordIndexes returns every offset where the phrase w occurs in lt as whole
// words.
func wordIndexes(lt, w string) []int {
	var out []int
	for from := 0; from < len(lt); {
		k := strings.Index(lt[from:], w)
		if k < 0 {
			break
		}
		if wordAt(lt, from+k, w) {
			out = append(out, from+k)
		}
		from += k + 1
	}
	return out
}

// wordStarts returns every offset where w occurs in lt at the start of a
// word (the end is the caller's to check).
func wordStarts(lt, w string) []int {
	var out []int
	for _, k := range indexes(lt, w) {
		if k == 0 || !isWordByte(lt[k-1]) {
			out = append(out, k)
		}
	}
	return out
}

// indexes returns every offset where w occurs in s.
func indexes(s, w string) []int {
	var out []int
	for from := 0; from < len(s); {
		k := strings.Index(s[from:], w)
		if k < 0 {
			break
		}
		out = append(out, from+k)
		from += k + 1
	}
	return out
}

// sentenceEnd returns where the sentence that contains t[from] ends: at a
// line break, or at ".", "!" or "?" followed by a space or the end of the
// text. A decimal point ("42.5") and the period of an abbreviation ("Mr.",
// "U.S.", "e.g.", or any period followed by a lower-case word) do not end
// a sentence; a single capital letter does ("The answer is A. Wait…").
func sentenceEnd(t string, from int) int {
	for i := from; i < len(t); i++ {
		switch t[i] {
		case '\n':
			return i
		case '!', '?':
			if i+1 == len(t) || isSpace(t[i+1]) {
				return i
			}
		case '.':
			if i+1 == len(t) {
				return i
			}
			if isSpace(t[i+1]) && !abbreviationDot(t, i) {
				return i
			}
		}
	}
	return len(t)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// abbreviations are words whose period does not end a sentence.
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "st": true, "capt": true, "prof": true,
	"jr": true, "sr": true, "vs": true, "inc": true, "ltd": true, "co": true, "corp": true,
	"fig": true, "eq": true, "approx": true, "excl": true, "incl": true, "vol": true,
	"pp": true, "gen": true, "col": true, "lt": true, "sgt": true, "rev": true, "dept": true,
	"univ": true, "ca": true, "cf": true, "al": true,
}

// abbreviationDot reports whether the period at t[i], followed by a space,
// belongs to an abbreviation rather than ending a sentence.
func abbreviationDot(t string, i int) bool {
	j := i + 1
	for j < len(t) && (t[j] == ' ' || t[j] == '\t') {
		j++
	}
	if j < len(t) && t[j] >= 'a' && t[j] <= 'z' {
		return true // "w. logical", "approx. 5" read on
	}
	k := i
	for k > 0 && isASCIILetter(t[k-1]) {
		k--
	}
	word := t[k:i]
	switch {
	case len(word) == 1 && k > 0 && t[k-1] == '.':
		return true // the last letter of "U.S." or "V.K.K."
	case len(word) == 1 && word[0] >= 'a' && word[0] <= 'z':
		return true // "e.g." "i.e."
	}
	return len(word) > 1 && abbreviations[asciiLower(word)]
}

// paragraphEnd returns where the paragraph that starts at t[from] ends:
// at a blank line or the end of the text.
func paragraphEnd(t string, from int) int {
	if k := strings.Index(t[from:], "\n\n"); k >= 0 {
		return from + k
	}
	if k := strings.Index(t[from:], "\n\r\n"); k >= 0 {
		return from + k
	}
	return len(t)
}

// trimLead and trimTail are the characters stripped around an extracted
// answer: space, markdown emphasis, quotes, LaTeX dollars and the
// punctuation that ends a sentence. Parentheses and brackets stay, since
// "(B)" and "[A]" are answers.
const (
	trimLead = " \t\r\n*_`\"'“”‘’:$>#=,"
	trimTail = " \t\r\n*_`\"'“”‘’:$.,;!?"
)

// trimAnswer narrows t[s:e] to the answer without its surrounding space,
// markup and final punctuation.
func trimAnswer(t string, s, e int) (int, int) {
	for s < e {
		if r, size := utf8.DecodeRuneInString(t[s:e]); strings.ContainsRune(trimLead, r) {
			s += size
			continue
		}
		break
	}
	for e > s {
		if r, size := utf8.DecodeLastRuneInString(t[s:e]); strings.ContainsRune(trimTail, r) {
			e -= size
			continue
		}
		break
	}
	return s, e
}
