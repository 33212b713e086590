// Package safetext makes text from datasets, models and file names safe
// to show on a terminal, in a report or on stderr: the one sanitiser that
// the screens, the statistics renderers and the command line share.
package safetext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Sanitize makes text from datasets, models and file names safe to draw,
// and makes its width, as the screen measures it with [ansi.StringWidth],
// the width the terminal draws. It is the one sanitiser: every piece of
// outside text passes through it (or [SanitizeLine]) before it reaches a
// frame, after [Clip] has cut it to what can be shown.
//
// Bubble Tea's renderer (ultraviolet) splits a frame into grapheme clusters
// with the same segmenter and the same width table as ansi.StringWidth (the
// cluster's first rune decides its width, a VS16 right after it makes it
// wide), puts each cluster in a cell of that width, and folds a cluster of
// width 0 into the cell before it. So the app and the renderer agree on
// every line; what they can disagree with is the terminal, about clusters
// the model calls narrow or empty but a terminal draws with a glyph. The
// output of Sanitize therefore holds no cluster of width 0, and no cluster
// whose extra runes a terminal would draw as cells of their own. Class by
// class:
//
//   - Escape and control sequences are shown inert, never executed: C0
//     controls and DEL become their Control Pictures (ESC shows as ␛), C1
//     controls become \u009b-style text. Invalid UTF-8 and noncharacters
//     become U+FFFD.
//   - Line breaks: CRLF, a lone CR (which would let a line overwrite
//     itself) and the separators U+2028 and U+2029 (which terminals do not
//     break at) become newlines; newlines are kept. A tab becomes four
//     spaces.
//   - Bidirectional controls (U+202A–U+202E, U+2066–U+2069, LRM, RLM, ALM)
//     are shown as \u202e-style text: they reorder what a reviewer reads
//     ("Trojan Source"), so the reviewer should see that they are there.
//   - Tag characters (U+E0001, U+E0020–U+E007F) are shown as \U000e0041
//     text, except inside an emoji tag sequence (the flag of Scotland):
//     they are invisible, and a run of them can smuggle a whole hidden
//     instruction to a judge model.
//   - Other format characters and default-ignorable code points are
//     dropped: soft hyphen, zero-width space, ZWNJ, word joiner, BOM,
//     invisible operators, interlinear annotation marks, prepended
//     concatenation marks (U+0600…, which would glue the next letter into
//     a cell of width 0), Hangul fillers, the combining grapheme joiner.
//     They have no glyph of their own, they are common in scraped text,
//     and terminals disagree on them (a soft hyphen is a cell in xterm),
//     so showing them would clutter ordinary text and keeping them would
//     shift a line.
//   - A zero-width joiner is kept only between two emoji that the
//     segmenter joins into one cluster (👩‍💻, 2 cells); elsewhere it is
//     dropped, as a joiner after a letter has no effect but width trouble.
//   - Variation selectors: VS16 (emoji presentation) is kept after an
//     emoji or a keycap base, where it makes a 2-cell emoji; after anything
//     else the model would call the letter 2 cells wide and the terminal
//     draw 1, so it is dropped. VS15 (text presentation) is dropped: a
//     terminal may draw the emoji narrow or wide, the model cannot know.
//     Other selectors are kept after a base (they never change the width)
//     and dropped with no base.
//   - A skin-tone modifier is kept after a wide emoji it can colour and
//     dropped elsewhere (after a letter a terminal draws it as a 2-cell
//     swatch that the model counts as nothing).
//   - A lone regional indicator (half a flag) is shown as \U0001f1eb text:
//     terminals draw it 1 or 2 cells wide, and next to another it would
//     pair into a flag.
//   - A combining mark with no base (at the start of the text or of a
//     line) is drawn on a no-break space, which occupies its cell, as
//     Unicode draws an isolated mark on a dotted circle (U+25CC is avoided:
//     its East Asian width is ambiguous); so is a Hangul vowel or final
//     jamo that starts the text. So the output never starts with a rune
//     that would join the text drawn before it, and never ends with one
//     that would join the text after it (a prepended letter such as
//     U+0D4E or a Hangul initial jamo there is shown as text).
//
// Two sanitised pieces therefore measure, side by side, the sum of their
// widths. Plain printable ASCII is returned as is, without a copy.
func Sanitize(s string) string {
	if isPlain(s) {
		return s
	}
	t, reshape := mapRunes(s)
	if !reshape {
		return t
	}
	return shapeClusters(t)
}

// SanitizeLine is Sanitize for text that must stay on one line (ids,
// field names, status messages, file names): newlines are shown as ⏎.
func SanitizeLine(s string) string {
	return strings.ReplaceAll(Sanitize(s), "\n", "⏎")
}

// Clip returns s cut to at most n bytes, at a rune boundary (never inside
// a UTF-8 sequence), or s itself when it is no longer. Call it before
// Sanitize, wrapping or measuring text whose length the dataset decides (an
// id, a segment value, a reason, a note, a field of 10 MB), with n a
// generous bound on what the place can show, such as 8 bytes per cell of
// the area: Sanitize and ansi.StringWidth read the whole string, and doing
// that for 10 MB on every frame makes each key press take seconds. A cut
// may split a grapheme cluster (an emoji sequence, a flag); Sanitize
// copes with the half that is left. n <= 0 gives "".
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
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

const (
	zwj  = '\u200d'
	vs15 = '\ufe0e'
	vs16 = '\ufe0f'
	nbsp = '\u00a0'
)

// mapRunes does what can be decided one rune at a time, and reports
// whether the result holds something that depends on its grapheme cluster
// (a joiner, a selector, a modifier, a tag, a regional indicator, a mark
// with no base, a prepended letter at the end).
func mapRunes(s string) (string, bool) {
	var b strings.Builder
	b.Grow(len(s) + 16)
	reshape := false
	lineStart := true // nothing kept on this line yet
	last := rune(-1)  // the last rune kept
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case r == '\n', r == 0x2028, r == 0x2029:
			b.WriteByte('\n')
			lineStart, last = true, '\n'
			continue
		case r == '\r':
			if i < len(s) && s[i] == '\n' {
				continue // the \n that follows ends the line
			}
			b.WriteByte('\n')
			lineStart, last = true, '\n'
			continue
		case r == '\t':
			b.WriteString("    ")
		case r < 0x20:
			b.WriteRune(0x2400 + r) // Control Pictures: ␀ … ␟
		case r == 0x7f:
			b.WriteRune('␡')
		case r < 0x7f:
			b.WriteByte(byte(r))
		case r < 0xa0, isBidiControl(r), r == 0xe0001:
			writeEscaped(&b, r)
		case r == zwj, unicode.Is(unicode.Variation_Selector, r), isEmojiModifier(r),
			isTag(r), isRegionalIndicator(r):
			b.WriteRune(r)
			reshape = true
		case unicode.Is(unicode.Cf, r), unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r):
			continue // dropped: see Sanitize
		case unicode.Is(unicode.Noncharacter_Code_Point, r):
			b.WriteRune(utf8.RuneError)
		default:
			if lineStart && joinsPrevious(r) {
				reshape = true // a mark with no base
			}
			b.WriteRune(r)
		}
		lineStart, last = false, r
	}
	if last >= utf8.RuneSelf && joinsNext(last) {
		reshape = true
	}
	return b.String(), reshape
}

// shapeClusters walks t, the output of mapRunes, one grapheme cluster at a
// time (split as the renderer splits it) and decides what depends on the
// cluster: see Sanitize.
func shapeClusters(t string) string {
	var b strings.Builder
	b.Grow(len(t) + 8)
	lineStart := true
	for i := 0; i < len(t); {
		if c := t[i]; c < utf8.RuneSelf && (i+1 == len(t) || t[i+1] < utf8.RuneSelf) {
			b.WriteByte(c) // two ASCII bytes never share a cluster (CR is gone)
			lineStart = c == '\n'
			i++
			continue
		}
		cl, _ := ansi.FirstGraphemeCluster(t[i:], ansi.GraphemeWidth)
		i += len(cl)
		shapeCluster(&b, cl, &lineStart, i == len(t))
	}
	return b.String()
}

// shapeCluster writes one cluster. lineStart says whether nothing has been
// written on the line yet; last whether the cluster ends the text.
func shapeCluster(b *strings.Builder, cl string, lineStart *bool, last bool) {
	first, _ := utf8.DecodeRuneInString(cl)
	prev := rune(-1) // the last rune written for this cluster
	for i := 0; i < len(cl); {
		r, size := utf8.DecodeRuneInString(cl[i:])
		i += size
		next, _ := utf8.DecodeRuneInString(cl[i:]) // RuneError at the end
		end := i == len(cl)
		inert := false
		switch {
		case i == size && isRegionalIndicator(r) && !isRegionalIndicator(next):
			inert = true // half a flag
		case r == zwj:
			if prev < 0 || end || !isExtPict(next) {
				continue // not between two emoji
			}
		case r == vs16:
			if prev < 0 || !(isExtPict(prev) || isKeycapBase(prev)) {
				continue
			}
		case r == vs15:
			continue
		case unicode.Is(unicode.Variation_Selector, r):
			if prev < 0 {
				continue
			}
		case isEmojiModifier(r):
			if prev < 0 || !isExtPict(prev) || ansi.StringWidth(string(prev)) != 2 {
				continue
			}
		case isTag(r):
			inert = i == size || first != 0x1f3f4
		case last && end && r >= utf8.RuneSelf && joinsNext(r):
			inert = true // a prepended letter would join what follows
		case prev < 0 && *lineStart && joinsPrevious(r):
			b.WriteRune(nbsp) // a mark with no base
		}
		if inert {
			writeEscaped(b, r)
			prev = 'x'
		} else {
			b.WriteRune(r)
			prev = r
		}
		*lineStart = r == '\n'
	}
}

// writeEscaped writes r as inert text: \u202e, or \U000e0041 beyond the
// Basic Multilingual Plane.
func writeEscaped(b *strings.Builder, r rune) {
	if r > 0xffff {
		fmt.Fprintf(b, "\\U%08x", r)
		return
	}
	fmt.Fprintf(b, "\\u%04x", r)
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

func isEmojiModifier(r rune) bool     { return r >= 0x1f3fb && r <= 0x1f3ff }
func isRegionalIndicator(r rune) bool { return r >= 0x1f1e6 && r <= 0x1f1ff }
func isTag(r rune) bool               { return r >= 0xe0020 && r <= 0xe007f }
func isKeycapBase(r rune) bool        { return r == '#' || r == '*' || (r >= '0' && r <= '9') }

// The next three ask the grapheme segmenter the renderer uses, rather than
// Go's unicode tables, which lag behind it by a Unicode version or two:
// what the segmenter joins is what ends up in one cell.

// joinsPrevious reports whether r joins the character before it into one
// grapheme cluster: a combining or spacing mark, a joiner, or a Hangul
// vowel or final jamo (which join a syllable such as 가).
func joinsPrevious(r rune) bool {
	if r < utf8.RuneSelf {
		return false
	}
	return sameCluster('a', r) || sameCluster('\uac00', r)
}

// joinsNext reports whether r joins the character after it into one
// grapheme cluster: a prepended letter such as U+0D4E, or a Hangul
// initial jamo (which joins a syllable such as 가).
func joinsNext(r rune) bool {
	if r < utf8.RuneSelf {
		return false
	}
	return sameCluster(r, 'a') || sameCluster(r, '\uac00')
}

// sameCluster reports whether the segmenter puts a and b in one cluster.
func sameCluster(a, b rune) bool {
	var buf [2 * utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], a)
	m := utf8.EncodeRune(buf[n:], b)
	cl, _ := ansi.FirstGraphemeCluster(buf[:n+m], ansi.GraphemeWidth)
	return len(cl) > n
}

// isExtPict reports whether r is Extended_Pictographic, the emoji that a
// zero-width joiner can join: the segmenter joins "😀‍r" into one cluster,
// and r is no mark (which would join "ar" as well).
func isExtPict(r rune) bool {
	if r < 0xa9 {
		return false
	}
	const face = "\U0001f600\u200d"
	var buf [len(face) + utf8.UTFMax]byte
	n := copy(buf[:], face)
	n += utf8.EncodeRune(buf[n:], r)
	if cl, _ := ansi.FirstGraphemeCluster(buf[:n], ansi.GraphemeWidth); len(cl) != n {
		return false
	}
	return !sameCluster('a', r)
}
