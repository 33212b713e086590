package match

import (
	"strings"
	"unicode"
)

// This file finds the text judge.FinalAnswerText returns — the output
// outside <think> blocks, or the last paragraph of the trace when that is
// empty — while keeping track of where each byte came from, so that the
// extracted answer can be highlighted in the prediction. It follows
// judge.SplitThink's rules (FuzzFinalText checks that the two agree) but
// works on byte offsets: judge.SplitThink lower-cases the whole string and
// slices the original with the offsets it found, which goes wrong (and can
// panic) when lower-casing changes a character's length, as it does for
// invalid UTF-8; and it copies the rest of the text for every block, which
// is quadratic in the number of blocks.

const (
	openTag  = "<think>"
	closeTag = "</think>"
)

// segment is a run of view text copied from the prediction: view bytes
// [at, at+n) are prediction bytes [orig, orig+n).
type segment struct{ at, orig, n int }

// view is text assembled from pieces of a prediction, with the way back to
// each piece. Bytes outside every segment were inserted (the "\n" that
// joins two trace blocks).
type view struct {
	text string
	segs []segment
}

type span struct{ s, e int }

// finalView returns the final answer text of pred, as judge.FinalAnswerText
// defines it, and whether it comes from the end of the trace.
func finalView(pred string) (view, bool) {
	finals, traces := thinkRegions(pred)
	fin := assemble(pred, finals, "")
	if a, b := trimmedRange(fin.text); a < b {
		return fin.sub(a, b), false
	}
	var kept []span
	for _, r := range traces {
		if strings.TrimSpace(pred[r.s:r.e]) != "" {
			kept = append(kept, r)
		}
	}
	tr := assemble(pred, kept, "\n")
	a, b := trimmedRange(tr.text)
	if a >= b {
		return view{}, false
	}
	// The last non-empty paragraph, split as strings.Split(t, "\n\n") does.
	t := tr.text[a:b]
	var starts []int
	for p := 0; ; {
		starts = append(starts, p)
		k := strings.Index(t[p:], "\n\n")
		if k < 0 {
			break
		}
		p += k + 2
	}
	for i := len(starts) - 1; i >= 0; i-- {
		ps, pe := starts[i], len(t)
		if i+1 < len(starts) {
			pe = starts[i+1] - 2
		}
		if x, y := trimmedRange(t[ps:pe]); x < y {
			return tr.sub(a+ps+x, a+ps+y), true
		}
	}
	return tr.sub(a, b), true
}

// thinkRegions splits pred into the regions outside <think> blocks and the
// regions inside them, with judge.SplitThink's rules: tags in any case, an
// unclosed <think> runs to the end, and a </think> with no opening tag
// makes everything before it trace.
func thinkRegions(pred string) (finals, traces []span) {
	if strings.IndexByte(pred, '<') < 0 {
		return []span{{0, len(pred)}}, nil
	}
	lt := asciiLower(pred)
	nextOpen, nextClose := -2, -2 // -2: not searched yet; -1: none left
	find := func(cached *int, tag string, from int) int {
		if *cached == -1 || (*cached >= from) {
			return *cached
		}
		if k := strings.Index(lt[from:], tag); k >= 0 {
			*cached = from + k
		} else {
			*cached = -1
		}
		return *cached
	}
	for pos := 0; ; {
		open := find(&nextOpen, openTag, pos)
		cl := find(&nextClose, closeTag, pos)
		if cl >= 0 && (open < 0 || cl < open) {
			traces = append(traces, span{pos, cl})
			pos = cl + len(closeTag)
			continue
		}
		if open < 0 {
			finals = append(finals, span{pos, len(pred)})
			return finals, traces
		}
		finals = append(finals, span{pos, open})
		body := open + len(openTag)
		end := find(&nextClose, closeTag, body)
		if end < 0 {
			traces = append(traces, span{body, len(pred)})
			return finals, traces
		}
		traces = append(traces, span{body, end})
		pos = end + len(closeTag)
	}
}

// assemble joins the regions of pred with sep between them.
func assemble(pred string, regions []span, sep string) view {
	var b strings.Builder
	segs := make([]segment, 0, len(regions))
	for i, r := range regions {
		if i > 0 {
			b.WriteString(sep)
		}
		if r.e > r.s {
			segs = append(segs, segment{at: b.Len(), orig: r.s, n: r.e - r.s})
			b.WriteString(pred[r.s:r.e])
		}
	}
	if len(regions) == 1 {
		// The common case: no copy.
		r := regions[0]
		return view{text: pred[r.s:r.e], segs: segs}
	}
	return view{text: b.String(), segs: segs}
}

// trimmedRange returns the bounds of s without its leading and trailing
// white space, as strings.TrimSpace cuts it.
func trimmedRange(s string) (int, int) {
	a := len(s) - len(strings.TrimLeftFunc(s, unicode.IsSpace))
	b := len(strings.TrimRightFunc(s, unicode.IsSpace))
	if b < a {
		b = a
	}
	return a, b
}

// sub returns the part [a, b) of the view.
func (v view) sub(a, b int) view {
	out := view{text: v.text[a:b]}
	for _, sg := range v.segs {
		s, e := max(sg.at, a), min(sg.at+sg.n, b)
		if s < e {
			out.segs = append(out.segs, segment{at: s - a, orig: sg.orig + s - sg.at, n: e - s})
		}
	}
	return out
}

// locate maps the view span [s, e) to the prediction. An answer that
// straddles a <think> block is cut to its last piece, so that the span
// always holds exactly the answer.
func (v view) locate(s, e int) (int, int, bool) {
	if e <= s {
		return 0, 0, false
	}
	for i := len(v.segs) - 1; i >= 0; i-- {
		sg := v.segs[i]
		if e-1 >= sg.at && e-1 < sg.at+sg.n {
			s = max(s, sg.at)
			return sg.orig + s - sg.at, sg.orig + e - sg.at, true
		}
	}
	return 0, 0, false
}
