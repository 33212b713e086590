package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// span is a byte range [start, end) of a string.
type span struct{ start, end int }

// wrapSpans word-wraps s to lines of at most width cells and returns each
// line as a byte range of s, so that a highlight given as a byte range can
// be drawn across wrapped lines. Lines break at spaces where possible and
// inside a word only when the word alone is wider than the line. Widths are
// measured per grapheme cluster with ansi's grapheme width, the measure
// the renderer places cells by. s must already be sanitised (no control
// characters but newlines) and clipped: wrapping reads all of it.
func wrapSpans(s string, width int) []span {
	width = max(width, 1)
	var out []span
	for ps := 0; ps <= len(s); {
		pe := strings.IndexByte(s[ps:], '\n')
		if pe < 0 {
			pe = len(s)
		} else {
			pe += ps
		}
		out = wrapParagraph(s, ps, pe, width, out)
		ps = pe + 1
	}
	return out
}

func wrapParagraph(s string, ps, pe, width int, out []span) []span {
	// lastComma is just after the line's last comma or plus: a word
	// wider than the line (a mapping, a list of columns joined by + or ,
	// without spaces) breaks there, the sign kept, rather than inside a
	// name.
	lineStart, lineW, lastSpace, lastComma := ps, 0, -1, -1
	for i := ps; i < pe; {
		n, w := 1, 1
		cluster := s[i : i+1]
		if s[i] >= 0x80 || (i+1 < pe && s[i+1] >= 0x80) {
			// Two ASCII bytes never share a cluster; anything else asks the
			// segmenter.
			cluster, w = ansi.FirstGraphemeCluster(s[i:pe], ansi.GraphemeWidth)
			n = len(cluster)
		}
		if lineW+w > width && lineW > 0 {
			switch {
			case cluster == " ":
				// Break at this space and drop it.
				out = append(out, span{lineStart, i})
				lineStart, lineW, lastSpace, lastComma = i+n, 0, -1, -1
				i += n
				continue
			case lastSpace > lineStart:
				out = append(out, span{lineStart, lastSpace})
				lineStart, lastSpace = lastSpace+1, -1
				lineW = ansi.StringWidth(s[lineStart:i])
			case lastComma > lineStart && lastComma < i:
				out = append(out, span{lineStart, lastComma})
				lineStart, lastComma = lastComma, -1
				lineW = ansi.StringWidth(s[lineStart:i])
			default:
				out = append(out, span{lineStart, i})
				lineStart, lineW, lastSpace, lastComma = i, 0, -1, -1
			}
		}
		switch cluster {
		case " ":
			lastSpace = i
		case ",", "+":
			lastComma = i + n
		}
		lineW += w
		i += n
	}
	return append(out, span{lineStart, pe})
}

// wrapPlain wraps s and returns the lines as strings.
func wrapPlain(s string, width int) []string {
	spans := wrapSpans(s, width)
	lines := make([]string, len(spans))
	for i, sp := range spans {
		lines[i] = s[sp.start:sp.end]
	}
	return lines
}
