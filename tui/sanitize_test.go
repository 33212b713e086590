package tui

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "The answer is (B).\nDone.", "The answer is (B).\nDone."},
		{"escape sequence shown inert", "\x1b[2J\x1b]0;pwned\x07ok", "␛[2J␛]0;pwned␇ok"},
		{"CRLF", "a\r\nb", "a\nb"},
		{"lone CR cannot overwrite the line", "secret\rshown", "secret\nshown"},
		{"tab", "a\tb", "a    b"},
		{"NUL and DEL", "a\x00b\x7f", "a␀b␡"},
		{"C1 CSI", "a\u009b31mb", `a\u009b31mb`},
		{"bidi override", "abc\u202edef", `abc\u202edef`},
		{"invalid UTF-8", "ok\xff\xfeok", "ok\uFFFD\uFFFDok"},
		{"non-ASCII kept", "café – 30°", "café – 30°"},
		{"emoji kept", "👍", "👍"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Sanitize(tc.in); got != tc.want {
				t.Errorf("Sanitize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestSanitizeLine(t *testing.T) {
	if got := SanitizeLine("a\nb\x1b"); got != "a⏎b␛" {
		t.Errorf("SanitizeLine = %q", got)
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b[31mred\x1b[0m", "\x9b2J", "\xff", "a\r\nb\rc", "\u202e", "\x1b]8;;http://x\x07link"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Sanitize(s)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of %q", s)
		}
		for _, r := range out {
			if (r < 0x20 && r != '\n') || (r >= 0x7f && r < 0xa0) || isBidiControl(r) {
				t.Fatalf("control %U survived in %q", r, out)
			}
		}
		if strings.Contains(SanitizeLine(s), "\n") {
			t.Fatalf("SanitizeLine kept a newline")
		}
	})
}
