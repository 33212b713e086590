package match

import (
	"strings"
	"unicode"

	"github.com/gavel-dev/gavel/judge"
)

// This file finds the text judge.FinalAnswerText returns — the output
// outside <think> blocks, or the last paragraph of the trace when that is
// empty — while keeping track of where each byte came from, so that the
// extracted answer can be highlighted in the prediction. The regions come
// from judge.ThinkRegions (FuzzFinalText checks that the texts agree).

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

// thinkRegions is judge.ThinkRegions in this package's span type.
func thinkRegions(pred string) (finals, traces []span) {
	f, t := judge.ThinkRegions(pred)
	return spans(f), spans(t)
}

func spans(rs []judge.Span) []span {
	out := make([]span, len(rs))
	for i, r := range rs {
		out[i] = span{r.Start, r.End}
	}
	return out
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
