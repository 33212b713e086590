package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// helpDialog lists every key of the screen it was opened on, for the item
// on screen then (a 1–5 item's help shows 1–5, not y and n), grouped in as
// many columns as fit, with the keys every screen shares.
type helpDialog struct {
	groups [][]key.Binding
	titles []string
	about  string
	scroller
}

func newHelpDialog(s screen, app appKeys, about string) *helpDialog {
	groups := append(s.FullHelp(), app.all())
	titles := append(s.groups(), "Everywhere")
	return &helpDialog{groups: groups, titles: titles, about: about,
		scroller: scroller{keys: defaultOverlayKeys("?", "q")}}
}

func (d *helpDialog) update(msg tea.Msg) (tea.Cmd, bool) { return nil, d.scroll(msg) }

func (d *helpDialog) overlay(st Styles, width, height int) string {
	cols := make([]string, 0, len(d.groups))
	colW := 0
	for i, g := range d.groups {
		var b strings.Builder
		if i < len(d.titles) {
			b.WriteString(st.Header.Render(d.titles[i]))
		}
		for _, k := range g {
			h := k.Help()
			b.WriteString("\n" + st.Key.Render(padRight(h.Key, 10)) + st.KeyDesc.Render(h.Desc))
		}
		cols = append(cols, b.String())
		colW = max(colW, lipgloss.Width(cols[len(cols)-1]))
	}
	perRow := max(min(len(cols), (width-4)/(colW+3)), 1)
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
	if d.about != "" {
		about := wrapPlain(SanitizeLine(d.about), max(min(ansi.StringWidth(body), width-4), 20))
		content = title + "\n" + st.Muted.Render(strings.Join(about, "\n")) + "\n\n" + body
	}
	lines := strings.Split(content, "\n")
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, width-4, "…")
	}
	return d.framed(st, "Help", lines, width, height)
}

func (d *helpDialog) ShortHelp() []key.Binding {
	return []key.Binding{d.keys.Down, d.keys.Up, d.keys.Close}
}

func (d *helpDialog) FullHelp() [][]key.Binding { return [][]key.Binding{d.bindings()} }
