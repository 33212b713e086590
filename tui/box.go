package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// box draws a bordered pane exactly width × height cells: the title sits
// in the top border, the lines from offset on fill the inside (cut to
// fit), and when the content is taller than the pane the bottom border
// says which lines are shown. Lines may carry styles; they are measured
// and cut with the ANSI-aware ansi package, never by bytes.
func box(st Styles, title string, lines []string, offset, width, height int, focused bool) string {
	if width < 4 || height < 2 {
		return ""
	}
	border, titleStyle := st.Border, st.Title
	if focused {
		border, titleStyle = st.BorderFocus, st.TitleFocus
	}
	inner := width - 4
	rows := height - 2
	offset = clampOffset(offset, len(lines), rows)

	var b strings.Builder
	// Top border with the title.
	t := ansi.Truncate(title, max(width-6, 0), "…")
	tw := ansi.StringWidth(t)
	b.WriteString(border.Render("╭─"))
	if tw > 0 {
		b.WriteString(titleStyle.Render(" " + t + " "))
		b.WriteString(border.Render(strings.Repeat("─", max(width-5-tw, 0)) + "╮"))
	} else {
		b.WriteString(border.Render(strings.Repeat("─", width-3) + "╮"))
	}
	b.WriteByte('\n')

	side := border.Render("│")
	for r := range rows {
		line := ""
		if i := offset + r; i < len(lines) {
			line = ansi.Truncate(lines[i], inner, "…")
		}
		b.WriteString(side)
		b.WriteByte(' ')
		b.WriteString(line)
		b.WriteString(strings.Repeat(" ", max(inner-ansi.StringWidth(line), 0)))
		b.WriteByte(' ')
		b.WriteString(side)
		b.WriteByte('\n')
	}

	// Bottom border with the scroll position when not everything shows.
	pos := ""
	if len(lines) > rows && rows > 0 {
		last := min(offset+rows, len(lines))
		pos = fmt.Sprintf(" %d–%d/%d ", offset+1, last, len(lines))
		if ansi.StringWidth(pos) > width-4 {
			pos = ""
		}
	}
	fill := width - 2 - ansi.StringWidth(pos) - 1
	b.WriteString(border.Render("╰" + strings.Repeat("─", max(fill, 0)) + pos + "─╯"))
	return b.String()
}

// clampOffset keeps a scroll offset inside the content.
func clampOffset(offset, n, rows int) int {
	return max(min(offset, n-rows), 0)
}

// padRight pads s with spaces to n cells, and always ends it with at
// least one space, for table columns.
func padRight(s string, n int) string {
	if w := ansi.StringWidth(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s + " "
}
