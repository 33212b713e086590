package safetext

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// knownWidths are the cells a terminal in grapheme mode (mode 2027, as
// Bubble Tea draws) gives each line of the sanitised text, written by
// hand rather than computed, so that the app's measure is checked against
// something other than itself.
var knownWidths = []struct {
	name, in string
	want     []int // one width per line of the sanitised text
}{
	{"ASCII", "Paris", []int{5}},
	{"ASCII with spaces", "a b  c", []int{6}},
	{"Latin-1", "café", []int{4}},
	{"CJK", "日本語", []int{6}},
	{"Hangul syllables", "한국어", []int{6}},
	{"fullwidth letter", "Ａ", []int{2}},
	{"emoji", "👍", []int{2}},
	{"emoji with skin tone", "👍🏽", []int{2}},
	{"emoji ZWJ sequence", "👩\u200d💻", []int{2}},
	{"emoji ZWJ family", "👨\u200d👩\u200d👧\u200d👦", []int{2}},
	{"flag", "🇫🇷", []int{2}},
	{"two flags", "🇫🇷🇩🇪", []int{4}},
	{"subdivision flag", "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f", []int{2}},
	{"text heart with VS16", "❤\ufe0f", []int{2}},
	{"text heart", "❤", []int{1}},
	{"keycap", "1\ufe0f\u20e3", []int{2}},
	{"combining accent", "e\u0301", []int{1}},
	{"precomposed accent", "é", []int{1}},
	{"stacked marks", "e\u0301\u0323\u0302", []int{1}},
	{"lone combining mark", "\u0301", []int{1}},
	{"soft hyphen", "hy\u00adphen", []int{6}},
	{"ZWJ after a letter", "a\u200db", []int{2}},
	{"ZWJ before an emoji", "a\u200d💻", []int{3}},
	{"zero-width space", "a\u200bb", []int{2}},
	{"word joiner", "a\u2060b", []int{2}},
	{"BOM", "\ufeffid", []int{2}},
	{"VS16 after a letter", "a\ufe0f", []int{1}},
	{"VS15 after an emoji", "😀\ufe0e", []int{2}},
	{"skin tone after a letter", "a🏻", []int{1}},
	{"half a flag", "🇫", []int{10}}, // \U0001f1eb
	{"Hangul filler", "a\u3164b", []int{2}},
	{"prepended number sign", "\u0600123", []int{3}},
	{"bidi override", "a\u202eb", []int{8}},                                // a\u202eb
	{"tag characters", "\U000e0041", []int{10}},                            // \U000e0041
	{"ESC", "\x1b[31mred", []int{8}},                                       // ␛[31mred
	{"OSC 8 hyperlink", "\x1b]8;;http://x\x07link\x1b]8;;\x07", []int{24}}, // ␛]8;;http://x␇link␛]8;;␇
	{"C1 CSI", "\u009b2J", []int{8}},                                       // \u009b2J
	{"tab", "a\tb", []int{6}},
	{"line separator", "a\u2028bc", []int{1, 2}},
	{"CRLF", "ab\r\nc", []int{2, 1}},
}

func TestKnownWidths(t *testing.T) {
	for _, tc := range knownWidths {
		t.Run(tc.name, func(t *testing.T) {
			out := Sanitize(tc.in)
			lines := strings.Split(out, "\n")
			if len(lines) != len(tc.want) {
				t.Fatalf("Sanitize(%q) = %q: %d lines, want %d", tc.in, out, len(lines), len(tc.want))
			}
			for i, l := range lines {
				if got := ansi.StringWidth(l); got != tc.want[i] {
					t.Errorf("line %d of Sanitize(%q) = %q is %d cells, want %d", i, tc.in, l, got, tc.want[i])
				}
				if msg := rendererDisagrees(l); msg != "" {
					t.Errorf("line %d of Sanitize(%q) = %q: %s", i, tc.in, l, msg)
				}
			}
			if got, want := ansi.StringWidth(SanitizeLine(tc.in)), sum(tc.want)+len(tc.want)-1; got != want {
				t.Errorf("SanitizeLine(%q) is %d cells, want %d", tc.in, got, want)
			}
		})
	}
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
