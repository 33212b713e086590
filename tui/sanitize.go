package tui

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Sanitize makes text from datasets and models safe to draw: escape and
// control sequences are shown inert instead of being executed by the
// terminal, invalid UTF-8 becomes U+FFFD, CRLF and lone CR become newlines
// (a bare CR would let a line overwrite itself), tabs become four spaces,
// and bidirectional-override characters (which can reorder what a reviewer
// sees, as in "Trojan Source") are shown as their code points.
//
// C0 controls and DEL become their Unicode Control Pictures (ESC shows as
// ␛), C1 controls become \u0085-style text. Newlines are kept.
func Sanitize(s string) string {
	if isPlain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
			i++
			continue
		}
		i += size
		switch {
		case r == '\n':
			b.WriteByte('\n')
		case r == '\r':
			if i < len(s) && s[i] == '\n' {
				continue // the \n that follows ends the line
			}
			b.WriteByte('\n')
		case r == '\t':
			b.WriteString("    ")
		case r < 0x20:
			b.WriteRune(0x2400 + r) // Control Pictures: ␀ … ␟
		case r == 0x7f:
			b.WriteRune('␡')
		case r >= 0x80 && r < 0xa0, isBidiControl(r):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isPlain reports whether s is printable ASCII and newlines only, the
// common case that needs no copy.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 0x20 && c != '\n') || c >= 0x7f {
			return false
		}
	}
	return true
}

func isBidiControl(r rune) bool {
	switch {
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// SanitizeLine is Sanitize for text that must stay on one line (ids,
// field names, status messages): newlines are shown as ⏎.
func SanitizeLine(s string) string {
	return strings.ReplaceAll(Sanitize(s), "\n", "⏎")
}
