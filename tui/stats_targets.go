package tui

import (
	"fmt"

	"github.com/gavel-dev/gavel/sessions/stats/render"
)

// From a figure to its items: the renderer names, on each span that
// counts items (a confusion cell, the false-pass and false-fail rates),
// the items it counts (render.Target). tab and shift+tab move the focus
// among those spans and enter opens the review screen filtered to the
// focused figure's items (cellFilter).

// figure is a span of the statistics that counts items: one span, or
// the pieces of one the renderer wrapped over two lines.
type figure struct {
	target render.Target
	at     []spanAt
}

// figureRef names a figure across reports: the nth figure (from 0) with
// its target. A confusion cell and the rate drawn from it share a target,
// so the target alone is not enough.
type figureRef struct {
	target render.Target
	nth    int
}

// figures lists the spans of lines that name a target, in reading
// order; the pieces of one wrapped span (the same target, one after the
// other) are one figure.
func figures(lines []render.Line) []figure {
	var out []figure
	var last *render.Target
	for i, l := range lines {
		for j, s := range l {
			if s.Target == nil {
				continue
			}
			if s.Target == last {
				out[len(out)-1].at = append(out[len(out)-1].at, spanAt{i, j})
				continue
			}
			out = append(out, figure{target: *s.Target, at: []spanAt{{i, j}}})
			last = s.Target
		}
	}
	return out
}

// ref names figure k of c.
func (c statsContent) ref(k int) figureRef {
	n := 0
	for _, f := range c.figures[:k] {
		if f.target == c.figures[k].target {
			n++
		}
	}
	return figureRef{target: c.figures[k].target, nth: n}
}

// find returns the index of the figure r names, or -1.
func (c statsContent) find(r figureRef) int {
	n := 0
	for k, f := range c.figures {
		if f.target != r.target {
			continue
		}
		if n == r.nth {
			return k
		}
		n++
	}
	return -1
}

// focusIndex is the index of the figure in focus, or -1.
func (s *statsScreen) focusIndex(c statsContent) int {
	if !s.focused {
		return -1
	}
	return c.find(s.focus)
}

// focusAt is the set of spans of the figure in focus.
func (s *statsScreen) focusAt(c statsContent) map[spanAt]bool {
	k := s.focusIndex(c)
	if k < 0 {
		return nil
	}
	at := map[spanAt]bool{}
	for _, a := range c.figures[k].at {
		at[a] = true
	}
	return at
}

// styled is the content with the screen's styles, the spans in focus
// marked.
func (c statsContent) styled(st Styles, focus map[spanAt]bool) []string {
	return styleLines(st, c.lines, focus)
}

// moveFocus puts the next (step 1) or previous (step -1) figure in focus
// and scrolls it into view. Without a figure in focus, tab starts from
// the first figure on display (shift+tab from the last).
func (s *statsScreen) moveFocus(step int) {
	c := s.content(s.inner())
	n := len(c.figures)
	if n == 0 {
		s.hint(s.noFigure())
		return
	}
	k := s.focusIndex(c)
	switch {
	case k >= 0:
		k = (k + step + n) % n
	case step > 0:
		k = 0
		for i, f := range c.figures {
			if f.at[0].line >= s.scroll {
				k = i
				break
			}
		}
	default:
		k = n - 1
		for i := n - 1; i >= 0; i-- {
			if c.figures[i].at[0].line < s.scroll+s.rows() {
				k = i
				break
			}
		}
	}
	s.focus, s.focused = c.ref(k), true
	s.scrollTo(c.figures[k])
}

// scrollTo brings a figure into view: when it is off the screen, a third
// of the way down, so that its heading shows above it.
func (s *statsScreen) scrollTo(f figure) {
	first, last := f.at[0].line, f.at[len(f.at)-1].line
	rows := s.rows()
	if first >= s.scroll && last < s.scroll+rows {
		return
	}
	s.scroll = max(first-rows/3, 0)
	if last >= s.scroll+rows {
		s.scroll = last - rows + 1
	}
}

// noFigure says why no figure takes the focus.
func (s *statsScreen) noFigure() string {
	if s.report == nil {
		return "No statistics yet: nothing to open."
	}
	return "No figure here counts items yet: label some items the judge has judged, then tab moves between the confusion cells and the false-pass and false-fail rates."
}

// open shows the review screen filtered to the items behind the figure in
// focus, with the figure's judge active.
func (s *statsScreen) open() action {
	c := s.content(s.inner())
	k := s.focusIndex(c)
	if k < 0 {
		if len(c.figures) == 0 {
			s.hint(s.noFigure())
		} else {
			s.hint(fmt.Sprintf("Press %s to pick a figure first (a confusion cell, the false-pass or false-fail rate); enter opens its items.",
				s.keys.Figure.Help().Key))
		}
		return action{}
	}
	t := c.figures[k].target
	if s.blind {
		s.refuse("Blind mode: the items behind a figure would tell the judge's verdicts. Press b on the review screen to show verdicts first.")
		return action{}
	}
	run := -1
	for i, r := range s.runs {
		if r.key == t.Judge {
			run = i
		}
	}
	if run < 0 {
		s.refuse(fmt.Sprintf("%s is not a judge of this screen: open it with gavel review --judge.", SanitizeLine(Clip(t.Judge, 128))))
		return action{}
	}
	dims := s.runs[run].info.Dimensions
	d := -1
	for i, dim := range dims {
		if dim.Name == t.Dimension {
			d = i
		}
	}
	if d < 0 {
		s.refuse(fmt.Sprintf("%s rates no dimension %q.", SanitizeLine(Clip(t.Judge, 128)), SanitizeLine(Clip(t.Dimension, 64))))
		return action{}
	}
	if run != s.act {
		s.useJudge(run)
		// The focus stays on the figure: the judge's own detail shows
		// it, or the table still does.
	}
	_, o := s.wanted()
	cmd := s.selectAs(cellFilter(dims[d], t, len(dims) > 1), o)
	s.blindQueueCell()
	s.reveal = true
	return action{show: showReview, cmd: cmd}
}
