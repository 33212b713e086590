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
	lines := render.Lines(rep, width)
	out := make([]string, len(lines))
	for i, l := range lines {
		var b strings.Builder
		for _, s := range l {
			if s.Role == render.RolePlain || s.Text == "" {
				b.WriteString(s.Text)
				continue
			}
			b.WriteString(statsStyle(st, s).Render(s.Text))
		}
		out[i] = b.String()
	}
	return out
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
