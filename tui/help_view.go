package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

type keyBinding = key.Binding

// helpView lists every key, in groups laid out in as many columns as fit.
func (m *Model) helpView() string {
	st := m.styles
	groups := m.keys.FullHelp()
	cols := make([]string, len(groups))
	colW := 0
	for i, g := range groups {
		var b strings.Builder
		b.WriteString(st.Header.Render(helpGroupTitles[i]))
		for _, k := range g {
			h := k.Help()
			b.WriteString("\n" + st.Key.Render(padRight(h.Key, 10)) + st.KeyDesc.Render(h.Desc))
		}
		cols[i] = b.String()
		colW = max(colW, lipgloss.Width(cols[i]))
	}
	perRow := max(min(len(cols), (m.width-4)/(colW+3)), 1)
	var rows []string
	for i := 0; i < len(cols); i += perRow {
		var line []string
		for j := i; j < min(i+perRow, len(cols)); j++ {
			line = append(line, lipgloss.NewStyle().Width(colW+3).Render(cols[j]))
		}
		rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, line...))
	}
	body := strings.Join(rows, "\n\n")
	title := st.App.Render("gavel") + st.Header.Render(" keys") + st.Muted.Render("  ·  ? or esc closes, j/k scroll")
	content := title + "\n\n" + body
	if m.about != "" {
		about := wrapPlain(SanitizeLine(m.about), max(min(ansi.StringWidth(body), m.width-4), 20))
		content = title + "\n" + st.Muted.Render(strings.Join(about, "\n")) + "\n\n" + body
	}
	lines := strings.Split(content, "\n")
	w := 0
	for _, l := range lines {
		w = max(w, ansi.StringWidth(l))
	}
	w = min(w+4, m.width)
	h := min(len(lines)+2, m.height)
	off := clampOffset(m.helpScroll, len(lines), h-2)
	return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, box(st, "Help", lines, off, w, h, true))
}

func padRight(s string, n int) string {
	if w := ansi.StringWidth(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s + " "
}
