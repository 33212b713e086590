package safetext

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

func TestSanitize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "The answer is (B).\nDone.", "The answer is (B).\nDone."},
		{"escape sequence shown inert", "\x1b[2J\x1b]0;pwned\x07ok", "␛[2J␛]0;pwned␇ok"},
		{"CRLF", "a\r\nb", "a\nb"},
		{"lone CR cannot overwrite the line", "secret\rshown", "secret\nshown"},
		{"line and paragraph separators break lines", "a\u2028b\u2029c", "a\nb\nc"},
		{"tab", "a\tb", "a    b"},
		{"NUL and DEL", "a\x00b\x7f", "a␀b␡"},
		{"C1 CSI", "a\u009b31mb", `a\u009b31mb`},
		{"raw C1 byte is invalid UTF-8", "a\x9b31mb", "a\uFFFD31mb"},
		{"bidi override", "abc\u202edef", `abc\u202edef`},
		{"bidi isolate", "a\u2067b", `a\u2067b`},
		{"invalid UTF-8", "ok\xff\xfeok", "ok\uFFFD\uFFFDok"},
		{"noncharacter", "a\uffffb", "a\uFFFDb"},
		{"non-ASCII kept", "café – 30°", "café – 30°"},
		{"emoji kept", "👍", "👍"},
		{"soft hyphen dropped", "hy\u00adphen", "hyphen"},
		{"zero-width space dropped", "a\u200bb", "ab"},
		{"ZWNJ dropped", "a\u200cb", "ab"},
		{"word joiner dropped", "a\u2060b", "ab"},
		{"BOM dropped", "\ufeffid", "id"},
		{"prepended concatenation mark dropped", "\u0600123", "123"},
		{"Hangul filler dropped", "a\u3164b", "ab"},
		{"ZWJ after a letter dropped", "a\u200db", "ab"},
		{"ZWJ before an emoji after a letter dropped", "a\u200d💻", "a💻"},
		{"dangling ZWJ after an emoji dropped", "👩\u200d", "👩"},
		{"emoji ZWJ sequence kept", "👩\u200d💻", "👩\u200d💻"},
		{"family kept", "👨\u200d👩\u200d👧\u200d👦", "👨\u200d👩\u200d👧\u200d👦"},
		{"skin tone in a ZWJ sequence kept", "👩🏽\u200d💻", "👩🏽\u200d💻"},
		{"VS16 after an emoji kept", "❤\ufe0f", "❤\ufe0f"},
		{"VS16 in a ZWJ sequence kept", "❤\ufe0f\u200d🔥", "❤\ufe0f\u200d🔥"},
		{"keycap kept", "1\ufe0f\u20e3", "1\ufe0f\u20e3"},
		{"VS16 after a letter dropped", "a\ufe0fb", "ab"},
		{"VS15 dropped", "😀\ufe0e", "😀"},
		{"VS with no base dropped", "\ufe0fa", "a"},
		{"ideographic VS after a base kept", "葛\U000e0100", "葛\U000e0100"},
		{"skin tone after a letter dropped", "a🏻", "a"},
		{"skin tone on an emoji kept", "👍🏽", "👍🏽"},
		{"flag kept", "🇫🇷", "🇫🇷"},
		{"half a flag shown", "🇫🇷🇩", `🇫🇷\U0001f1e9`},
		{"subdivision flag kept", "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f", "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"},
		{"tags shown", "ok\U000e0041\U000e0042", `ok\U000e0041\U000e0042`},
		{"combining accent kept", "e\u0301", "e\u0301"},
		{"lone mark at the start gets a base", "\u0301x", "\u00a0\u0301x"},
		{"lone mark after a newline gets a base", "a\n\u0301", "a\n\u00a0\u0301"},
		{"lone mark after dropped characters gets a base", "\u200b\u0301", "\u00a0\u0301"},
		{"mark after a control picture", "\x1b\u0301", "␛\u0301"},
		{"prepended letter at the end shown", "a\u0d4e", `a\u0d4e`},
		{"prepended letter before a letter kept", "\u0d4eക", "\u0d4eക"},
		{"CJK kept", "日本語", "日本語"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Sanitize(tc.in); got != tc.want {
				t.Errorf("Sanitize(%q) = %q, want %q", tc.in, got, tc.want)
			}
			checkSanitized(t, tc.in, Sanitize(tc.in))
		})
	}
}

func TestSanitizeLine(t *testing.T) {
	if got := SanitizeLine("a\nb\x1b"); got != "a⏎b␛" {
		t.Errorf("SanitizeLine = %q", got)
	}
	if got := SanitizeLine("a\u2028b"); got != "a⏎b" {
		t.Errorf("SanitizeLine = %q", got)
	}
}

func TestSanitizePlainASCIIIsNotCopied(t *testing.T) {
	s := strings.Repeat("plain ASCII text\n", 100)
	if got := Sanitize(s); got != s {
		t.Fatal("plain text changed")
	}
	if allocs := testing.AllocsPerRun(10, func() { _ = Sanitize(s) }); allocs != 0 {
		t.Errorf("Sanitize of plain ASCII allocates %v times", allocs)
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello", 3, "hel"},
		{"hello", 0, ""},
		{"hello", -1, ""},
		{"", 3, ""},
		{"héllo", 2, "h"}, // é is two bytes: not cut in half
		{"héllo", 3, "hé"},
		{"👍👍", 5, "👍"},
		{"👍👍", 3, ""},
	}
	for _, tc := range tests {
		if got := Clip(tc.in, tc.n); got != tc.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
	// A cut inside an emoji sequence leaves something Sanitize copes with.
	fam := "👨\u200d👩\u200d👧"
	for n := range len(fam) + 1 {
		checkSanitized(t, Clip(fam, n), Sanitize(Clip(fam, n)))
	}
}

// TestEveryRune puts every code point in the places where the classes of
// Sanitize differ (alone, between letters, after an emoji, before a mark,
// at a line start) and checks the output's invariants against the
// segmenter and the renderer.
func TestEveryRune(t *testing.T) {
	if testing.Short() {
		t.Skip("walks all of Unicode")
	}
	const parts = 4
	for part := range parts {
		t.Run(fmt.Sprint(part), func(t *testing.T) {
			t.Parallel()
			for r := rune(0x80 + part); r <= utf8.MaxRune; r += parts {
				checkRune(t, r)
			}
		})
	}
}

func checkRune(t *testing.T, r rune) {
	if r >= 0xd800 && r <= 0xdfff {
		return
	}
	// Every rune of the Basic Multilingual Plane, of the emoji blocks and
	// of the tags and variation selectors plane; a sample of the large
	// blocks of one class (ideographs, syllables, historic scripts,
	// unassigned planes, private use).
	all := r < 0x3400 || r >= 0xa000 && r < 0xac00 || r >= 0xd7a4 && r < 0xe000 || r >= 0xf900 && r <= 0xffff ||
		r >= 0x1f000 && r <= 0x1ffff || r >= 0xe0000 && r <= 0xe0fff
	if !all && r%61 != 0 {
		return
	}
	c := string(r)
	// A rune that Sanitize keeps, that joins nothing and takes one or two
	// cells behaves like a letter: check one in 29 of those.
	if w := ansi.StringWidth(c); Sanitize(c) == c && (w == 1 || w == 2) && !joinsPrevious(r) && !joinsNext(r) &&
		!sameCluster(r, r) && r%29 != 0 {
		return
	}
	for _, s := range []string{c, "👍" + c, "x\n" + c, "가" + c + "가"} {
		out := Sanitize(s)
		if msg := sanitizedProblem(out); msg != "" {
			t.Fatalf("Sanitize(%q) = %q: %s", s, out, msg)
		}
	}
	checkSanitized(t, "a"+c+"b", Sanitize("a"+c+"b"))
	// Pieces sanitised apart measure, side by side, the sum of their
	// widths, whatever their neighbours.
	sc := Sanitize(c)
	for _, n := range neighbours {
		if w := ansi.StringWidth(sc + n); w != ansi.StringWidth(sc)+ansi.StringWidth(n) {
			t.Fatalf("%q then %q measures %d", sc, n, w)
		}
		if w := ansi.StringWidth(n + sc); w != ansi.StringWidth(sc)+ansi.StringWidth(n) {
			t.Fatalf("%q then %q measures %d", n, sc, w)
		}
	}
}

// neighbours are sanitised pieces that runes tend to join with.
var neighbours = func() []string {
	var out []string
	for _, s := range []string{"a", "가", "\u1100", "\u1161", "👍", "🇫🇷", "\u0301", "\u0d4e"} {
		out = append(out, Sanitize(s))
	}
	return out
}()

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{
		"", "plain", "\x1b[31mred\x1b[0m", "\x9b2J", "\xff", "a\r\nb\rc", "\u202e",
		"\x1b]8;;http://x\x07link", "\x1b]52;c;cHduZWQ=\x07", "\x1b[5mblink\x1b[8mhidden",
		"hy\u00adphen", "a\u200db", "👩\u200d💻", "🇫🇷🇩", "\u0301", "a\ufe0f", "❤\ufe0f",
		"👍🏽", "a🏻", "\U000e0041", "\u0600a", "a\u0d4e", "ｶﾞ", "\u3164", "a\u2028b",
		"e\u0301\u0301\u0301", "\ufeff\u200b\u2060", "1\ufe0f\u20e3",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Sanitize(s)
		checkSanitized(t, s, out)
		if again := Sanitize(out); again != out {
			t.Fatalf("Sanitize is not idempotent on %q: %q then %q", s, out, again)
		}
		if strings.Contains(SanitizeLine(s), "\n") {
			t.Fatalf("SanitizeLine kept a newline")
		}
		// Pieces sanitised apart measure, side by side, the sum of their
		// widths, wherever the text was clipped.
		a := Clip(s, len(s)/2)
		sa, sb := Sanitize(a), Sanitize(s[len(a):])
		if w, wa, wb := ansi.StringWidth(sa+sb), ansi.StringWidth(sa), ansi.StringWidth(sb); w != wa+wb {
			t.Fatalf("%q (%d) next to %q (%d) measures %d", sa, wa, sb, wb, w)
		}
	})
}

// checkSanitized fails t when out, the sanitised form of in, breaks one of
// Sanitize's promises.
func checkSanitized(t *testing.T, in, out string) {
	t.Helper()
	if msg := sanitizedProblem(out); msg != "" {
		t.Fatalf("Sanitize(%q) = %q: %s", in, out, msg)
	}
	for _, line := range strings.Split(out, "\n") {
		if msg := rendererDisagrees(line); msg != "" {
			t.Fatalf("Sanitize(%q) = %q: %s", in, out, msg)
		}
	}
}

// sanitizedProblem says what is wrong with sanitised text, or "".
func sanitizedProblem(out string) string {
	if !utf8.ValidString(out) {
		return "invalid UTF-8"
	}
	for _, r := range out {
		switch {
		case r < 0x20 && r != '\n', r == 0x7f, r >= 0x80 && r < 0xa0:
			return "a control character survived: " + string(r)
		case isBidiControl(r):
			return "a bidi control survived"
		}
	}
	// Every grapheme cluster takes at least one cell: a cluster of width 0
	// is folded by the renderer into the cell before it, where the
	// terminal may draw it with a width of its own.
	for line := range strings.SplitSeq(out, "\n") {
		for rest := line; rest != ""; {
			cl, w := ansi.FirstGraphemeCluster(rest, ansi.GraphemeWidth)
			if w == 0 {
				return "a cluster of width 0: " + cl
			}
			rest = rest[len(cl):]
		}
		if r, _ := utf8.DecodeRuneInString(line); joinsPrevious(r) {
			return "a line starts with a rune that joins the text before it"
		}
	}
	if r, _ := utf8.DecodeLastRuneInString(out); joinsNext(r) {
		return "the text ends with a rune that joins the text after it"
	}
	return ""
}

// rendererDisagrees draws line as Bubble Tea's renderer does (ultraviolet,
// grapheme width) and says how the cells it fills disagree with
// ansi.StringWidth and with the text, or "".
func rendererDisagrees(line string) string {
	want := ansi.StringWidth(line)
	w := want + 2
	buf := uv.NewScreenBuffer(w, 1)
	buf.Method = ansi.GraphemeWidth
	uv.NewStyledString(line).Draw(buf, uv.Rect(0, 0, w, 1))
	var text strings.Builder
	x := 0
	for x < w {
		c := buf.CellAt(x, 0)
		if c == nil || c.Width == 0 {
			return "a cell with no width where a cluster should start"
		}
		if x >= want {
			if c.Content != " " {
				return "text drawn past the measured width"
			}
			x++
			continue
		}
		if got := ansi.StringWidth(c.Content); got != c.Width {
			return "a cell's content measures other than its width: " + c.Content
		}
		if cl, _ := ansi.FirstGraphemeCluster(c.Content, ansi.GraphemeWidth); cl != c.Content {
			return "a cell holds more than one cluster: " + c.Content
		}
		text.WriteString(c.Content)
		x += c.Width
	}
	if text.String() != line {
		return "the renderer's cells hold " + text.String()
	}
	return ""
}
