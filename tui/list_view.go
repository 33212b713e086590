package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// listState is the list screen's cursor, a position in the selection.
type listState struct {
	cursor int
}

// openList shows the list with the cursor on the item under review.
func (m *Model) openList() {
	m.screen = screenList
	m.list.cursor = m.sel.pos
}

func (m Model) listKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	n := len(m.sel.items)
	page := max(m.height-chromeRows-3, 1)
	switch {
	case key.Matches(msg, k.Back, k.List):
		m.screen = screenReview
	case key.Matches(msg, k.Accept):
		if n > 0 {
			m.screen = screenReview
			m.step(m.list.cursor - m.sel.pos)
		}
	case key.Matches(msg, k.Down, k.Next):
		m.list.cursor++
	case key.Matches(msg, k.Up, k.Prev):
		m.list.cursor--
	case key.Matches(msg, k.PageDown):
		m.list.cursor += page
	case key.Matches(msg, k.PageUp):
		m.list.cursor -= page
	case key.Matches(msg, k.Home):
		m.list.cursor = 0
	case key.Matches(msg, k.End):
		m.list.cursor = n - 1
	default:
		return m.selectionKey(msg)
	}
	m.list.cursor = max(min(m.list.cursor, n-1), 0)
	return m, nil
}

// listView draws the filtered items as a table, only the rows that fit:
// the cost of a frame does not grow with the dataset.
func (m *Model) listView(width, height int) string {
	st := m.styles
	n := len(m.sel.items)
	title := fmt.Sprintf("Items · %s · %s · %d of %d", m.sel.filter.name, m.sel.order, n, len(m.items))
	rows := height - 3 // borders and the column header
	inner := width - 4
	lines := []string{st.Muted.Render(m.listRow(-1, inner))}
	if n == 0 {
		lines = append(lines, st.Muted.Render("No item matches: f or F picks another filter, / searches."))
		return box(st, title, lines, 0, width, height, true)
	}
	first := max(min(m.list.cursor-rows/2, n-rows), 0)
	for p := first; p < min(first+rows, n); p++ {
		line := m.listRow(m.sel.items[p], inner)
		if p == m.list.cursor {
			line = st.TitleFocus.Render("▸ ") + line[len("  "):]
		}
		lines = append(lines, line)
	}
	return box(st, title, lines, 0, width, height, true)
}

// listRow is one item as a table row (i = -1 gives the column names).
func (m *Model) listRow(i, inner int) string {
	const idW, segW, valW = 14, 12, 8
	if i < 0 {
		return "  " + padRight("#", 7) + padRight("id", idW) + padRight("segment", segW) + padRight("judge", valW) + padRight("you", valW) + "   question"
	}
	st := m.styles
	it := m.items[i]
	seg := segmentText(it.Segments)
	judgeV, humanV := "…", "—"
	if rows := m.rows(i); len(rows) > 0 {
		rw := rows[0]
		if v, ok := m.run().verdict(i, rw.crit); ok {
			switch {
			case m.hidden(i):
				judgeV = "hidden"
			case !v.OK():
				judgeV = string(v.Status)
			default:
				judgeV = rw.dim.Scale.Format(v.Values[rw.dim.Name])
			}
		}
		if x, ok := m.labels.label(lkey{item: i, crit: rw.crit, dim: rw.dim.Name}); ok {
			humanV = rw.dim.Scale.Format(x)
		}
		if len(rows) > 1 {
			judgeV += "…"
		}
	}
	mark := "  "
	switch {
	case m.agreement[i] == 1 && !m.hidden(i):
		mark = st.Agree.Render("✓ ")
	case m.agreement[i] == 0 && !m.hidden(i):
		mark = st.Disagree.Render("✗ ")
	}
	cells := "  " + padRight(fmt.Sprint(i+1), 7) +
		padRight(ansi.Truncate(SanitizeLine(it.ID), idW-1, "…"), idW) +
		padRight(ansi.Truncate(SanitizeLine(seg), segW-1, "…"), segW) +
		padRight(judgeV, valW) + padRight(humanV, valW) + mark + " "
	q := strings.Join(strings.Fields(SanitizeLine(firstLine(it.Question, 400))), " ")
	return cells + ansi.Truncate(q, max(inner-ansi.StringWidth(cells), 0), "…")
}

// firstLine returns at most n bytes of s, cut at a rune boundary, so that
// a row never sanitises a whole 10 MB field.
func firstLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// hidden reports whether blind mode hides the judge's verdict on item i:
// until the person has labelled it.
func (m *Model) hidden(i int) bool { return m.blind && !m.reviewed[i] }
