package tui

import (
	"image/color"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/gavel-dev/gavel/sessions/stats"
	"github.com/gavel-dev/gavel/sessions/stats/render"
)

// styledStatsLines draws a report as `gavel stats` prints it, with the
// screen's styles: render.Lines tags each piece of a line with a role,
// and the role picks the style. The text is the renderer's, so the screen
// and the command cannot disagree on a figure.
func styledStatsLines(st Styles, rep stats.Report, width int) []string {
	return styleLines(st, render.Lines(rep, width), nil)
}

// spanAt names one span of the screen's lines.
type spanAt struct{ line, span int }

// styleLines styles the renderer's lines. The spans in focus (a figure
// the reviewer moved to with tab) take the focus style, and each line
// holding one is marked with ▸ in its first column, which the renderer
// leaves blank on the lines of a table, so that the focus shows without
// colour too.
func styleLines(st Styles, lines []render.Line, focus map[spanAt]bool) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		var b strings.Builder
		mark := focusedLine(focus, i)
		for j, s := range l {
			text := s.Text
			if j == 0 && mark && strings.HasPrefix(text, " ") {
				b.WriteString(st.TitleFocus.Render("▸"))
				text = text[1:]
			}
			switch {
			case focus[spanAt{i, j}]:
				b.WriteString(st.Focus.Render(text))
			case s.Role == render.RolePlain || text == "":
				b.WriteString(text)
			default:
				b.WriteString(statsStyle(st, s).Render(text))
			}
		}
		out[i] = b.String()
	}
	return out
}

// focusedLine reports whether a line holds a span in focus (a figure is
// a span or two, when the renderer wrapped it).
func focusedLine(focus map[spanAt]bool, line int) bool {
	for at := range focus {
		if at.line == line {
			return true
		}
	}
	return false
}

// statsStyle is the screen's style for a piece of the statistics.
func statsStyle(st Styles, s render.Span) lipgloss.Style {
	switch s.Role {
	case render.RoleMuted:
		return st.Muted
	case render.RoleStrong:
		return st.Strong
	case render.RoleHeader:
		return st.Header
	case render.RoleWarning:
		return st.Warning
	case render.RoleCell:
		return st.Cell(s.Share)
	case render.RoleCellDiagonal:
		return st.Cell(s.Share).Inherit(st.Strong)
	case render.RoleBarFull:
		return colored(st.BarFull)
	case render.RoleBarEmpty:
		return colored(st.BarEmpty)
	}
	return lipgloss.NewStyle()
}

// colored is a style with a foreground colour, or no style at all when
// the colour is nil.
func colored(c color.Color) lipgloss.Style {
	if c == nil {
		return lipgloss.NewStyle()
	}
	return lipgloss.NewStyle().Foreground(c)
}
