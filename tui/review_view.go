package tui

import (
	"sort"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// view draws the four panes where layout placed them, or says why there
// is no item to show.
func (s *reviewScreen) view(width, height int) string {
	if !s.hasItem() {
		msg := "No item: " + s.emptyAdvice()
		if s.search.running {
			msg = "Searching…"
		}
		return lipgloss.Place(width, height, lipgloss.Center, lipgloss.Center, ansi.Wordwrap(msg, max(width-4, 10), ""))
	}
	rects := s.layout(width, height)
	type placed struct {
		r     rect
		lines []string
	}
	var ps []placed
	for p := range numPanes {
		rc := rects[p]
		if rc.w < 4 || rc.h < 2 {
			continue
		}
		inner := rc.w - 4
		lines := s.paneLines(p, inner)
		if p == paneVerdict {
			lines = append(s.decisionLines(inner), lines...)
		}
		off := s.offset(p, lines, rc.h-2)
		b := box(s.styles, s.paneTitle(p, off, len(lines) > rc.h-2), lines, off, rc.w, rc.h, p == s.focus)
		ps = append(ps, placed{rc, strings.Split(b, "\n")})
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].r.x < ps[j].r.x })
	rows := make([]string, height)
	for y := range rows {
		var b strings.Builder
		for _, p := range ps {
			if sy := y - p.r.y; sy >= 0 && sy < len(p.lines) && sy < p.r.h {
				b.WriteString(p.lines[sy])
			}
		}
		rows[y] = b.String()
	}
	return strings.Join(rows, "\n")
}

// offset is the line a pane is drawn from, within its text: the end for
// a pane kept there, the question's last paragraph when it opens.
func (s *reviewScreen) offset(p pane, lines []string, rows int) int {
	switch {
	case s.atEnd[p]:
		return clampOffset(endOfPane, len(lines), rows)
	case p == paneQuestion && s.lastParagraph:
		return questionOffset(lines, rows)
	}
	return clampOffset(s.scroll[p], len(lines), rows)
}

// questionOffset shows a question longer than its pane from the start of
// its last paragraph, or its end when that paragraph fits: a few-shot
// prompt asks its question last, and the question's first line is what
// it asks (the options under it may be cut; the pane says so). A question
// of one paragraph opens at its top.
func questionOffset(lines []string, rows int) int {
	end := max(len(lines)-rows, 0)
	for i := len(lines) - 1; i > 0; i-- {
		if strings.TrimSpace(lines[i-1]) == "" {
			return min(i, end)
		}
	}
	return 0
}

// paneTitle names a pane; a pane whose text does not fit says where it is
// (a few-shot question opens at its end: the title says so).
func (s *reviewScreen) paneTitle(p pane, offset int, overflows bool) string {
	title := paneTitles[p]
	switch {
	case p == panePrediction && s.pairwise():
		title = "A"
	case p == paneGold && s.pairwise():
		title = "Reference"
	}
	if p == paneVerdict {
		if r := s.run(); r != nil {
			title = "Verdict · " + SanitizeLine(r.name())
		}
	}
	switch {
	case s.zoom && p == s.focus:
		title += " · z unzooms"
	case overflows && offset > 0 && p == paneQuestion && s.focus == paneQuestion:
		title += " · ↑ " + plural(offset, "line", "lines") + " above (home: top)"
	case overflows && offset > 0 && p == paneQuestion:
		title += " · ↑ " + plural(offset, "line", "lines") + " above (tab to it, home: top)"
	}
	return title
}

// decisionLines open the verdict pane with what the person decided on the
// item besides labels: can't judge and why, the failure tags.
func (s *reviewScreen) decisionLines(inner int) []string {
	if inner < 1 || s.retesting(s.cur) {
		// A re-test hides the person's first decision, can't judge and
		// tags included, as it hides their label.
		return nil
	}
	lines := append(s.cantJudgeLines(inner), s.tagLines(inner)...)
	if len(lines) > 0 {
		lines = append(lines, s.styles.Muted.Render(strings.Repeat("─", inner)))
	}
	return lines
}
