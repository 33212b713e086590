package tui

import (
	"strings"
	"testing"
)

// A tag's name shows whole when the store would accept it (40
// characters, whatever their bytes), and is cut with "…" only when it is
// longer (a session written by hand); text that is no name is escaped.
func TestTagText(t *testing.T) {
	for _, tc := range []struct {
		name, tag, want string
	}{
		{"short", "too strict", "too strict"},
		{"forty CJK characters (120 bytes)", strings.Repeat("日本", 20), strings.Repeat("日本", 20)},
		{"forty accented letters", strings.Repeat("é", 40), strings.Repeat("é", 40)},
		{"longer than a name", strings.Repeat("日本", 30), strings.Repeat("日本", 19) + "日…"},
		{"an escape sequence", "\x1b[31mred", "␛[31mred"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tagText(tc.tag); got != tc.want {
				t.Errorf("tagText(%q) = %q, want %q", tc.tag, got, tc.want)
			}
		})
	}
}
