package tui

import (
	"strings"

	"github.com/rivo/uniseg"
)

// span is a byte range [start, end) of a string.
type span struct{ start, end int }

// wrapSpans word-wraps s to lines of at most width cells and returns each
// line as a byte range of s, so that a highlight given as a byte range can
// be drawn across wrapped lines. Lines break at spaces where possible and
// inside a word only when the word alone is wider than the line. Widths are
// measured per grapheme cluster, as terminals draw them. s must already be
// sanitised (no control characters but newlines).
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
	lineStart, lineW, lastSpace := ps, 0, -1
	for i := ps; i < pe; {
		cluster, _, w, _ := uniseg.FirstGraphemeClusterInString(s[i:pe], -1)
		n := len(cluster)
		if lineW+w > width && lineW > 0 {
			switch {
			case cluster == " ":
				// Break at this space and drop it.
				out = append(out, span{lineStart, i})
				lineStart, lineW, lastSpace = i+n, 0, -1
				i += n
				continue
			case lastSpace > lineStart:
				out = append(out, span{lineStart, lastSpace})
				lineStart, lastSpace = lastSpace+1, -1
				lineW = uniseg.StringWidth(s[lineStart:i])
			default:
				out = append(out, span{lineStart, i})
				lineStart, lineW, lastSpace = i, 0, -1
			}
		}
		if cluster == " " {
			lastSpace = i
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
