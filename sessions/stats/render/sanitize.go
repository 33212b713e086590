package render

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// sanitizeLine makes text from a session safe to print on one line:
// control characters become their Unicode Control Pictures (ESC shows as
// ␛), C1 controls and bidirectional overrides (which can reorder what a
// reader sees, as in "Trojan Source") are shown as \u code points, invalid
// UTF-8 becomes U+FFFD, tabs four spaces and newlines ⏎. It is the rule
// of tui.SanitizeLine, kept here because this package must not depend on
// the screen; the two are tested against the same cases.
func sanitizeLine(s string) string {
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
		case r == '\r':
			if i < len(s) && s[i] == '\n' {
				continue // the \n that follows ends the line
			}
			b.WriteString("⏎")
		case r == '\n':
			b.WriteString("⏎")
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

// isPlain reports whether s is printable ASCII, the common case that
// needs no copy.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
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
