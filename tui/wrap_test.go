package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestWrapPlain(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		width int
		want  []string
	}{
		{"fits", "one two", 10, []string{"one two"}},
		{"breaks at space", "one two three", 8, []string{"one two", "three"}},
		{"space at the edge is dropped", "abcd efgh", 4, []string{"abcd", "efgh"}},
		{"long word is cut", "abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"long word breaks after a comma", "mapped question=question,gold=answer,prediction=prediction", 30,
			[]string{"mapped", "question=question,gold=answer,", "prediction=prediction"}},
		{"a space still comes first", "ab,cd ef", 6, []string{"ab,cd", "ef"}},
		{"or after a plus", "verdict=Llama-7B+Llama-70B+EM", 20, []string{"verdict=Llama-7B+", "Llama-70B+EM"}},
		{"a comma-less rest is cut", "a,bcdefgh", 4, []string{"a,", "bcde", "fgh"}},
		{"newlines kept", "a\n\nb", 5, []string{"a", "", "b"}},
		{"wide runes", "日本語です", 4, []string{"日本", "語で", "す"}},
		{"empty", "", 5, []string{""}},
		// Measured as the renderer places cells (ansi's grapheme width),
		// where uniseg would count the two-em dash 3 cells and a keycap
		// digit with VS16 one.
		{"two-em dash is one cell", "⸺⸺⸺⸺", 2, []string{"⸺⸺", "⸺⸺"}},
		{"keycap digit is two cells", "1\ufe0f2\ufe0f", 2, []string{"1\ufe0f", "2\ufe0f"}},
		{"emoji ZWJ sequence is two cells", "👩\u200d💻👩\u200d💻", 3, []string{"👩\u200d💻", "👩\u200d💻"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := wrapPlain(tc.in, tc.width)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("wrapPlain(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
			}
		})
	}
}

func FuzzWrapSpans(f *testing.F) {
	f.Add("hello world, this is a line", 7)
	f.Add("日本語 text 👍🏽 mixed", 3)
	f.Add("\n\n", 1)
	f.Fuzz(func(t *testing.T, s string, width int) {
		s = Sanitize(s)
		width = width%200 + 1
		if width < 1 {
			width += 200
		}
		prev := 0
		for _, sp := range wrapSpans(s, width) {
			if sp.start < prev || sp.end < sp.start || sp.end > len(s) {
				t.Fatalf("bad span %v after %d in %q", sp, prev, s)
			}
			line := s[sp.start:sp.end]
			// A single grapheme wider than the line is allowed to overflow.
			if w := ansi.StringWidth(line); w > width && len([]rune(line)) > 1 {
				t.Fatalf("line %q is %d wide, limit %d", line, w, width)
			}
			prev = sp.end
		}
	})
}
