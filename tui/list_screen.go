package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// listScreen is a table of the items of the selection: id, segment,
// verdict, label and agreement; enter opens one on the review screen.
type listScreen struct {
	*workspace
	keys   listKeys
	width  int
	height int
	cursor int // a position in the selection
}

// listKeys are the list screen's keys.
type listKeys struct {
	Open     key.Binding
	Down     key.Binding
	Up       key.Binding
	PageDown key.Binding
	PageUp   key.Binding
	Top      key.Binding
	Bottom   key.Binding
	selectionKeys
	Back  key.Binding
	Stats key.Binding
}

func defaultListKeys() listKeys {
	return listKeys{
		Open:          key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "review the item under the cursor")),
		Down:          key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next row")),
		Up:            key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous row")),
		PageDown:      key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), key.WithHelp("pgdn", "page down")),
		PageUp:        key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
		Top:           key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home/g", "first row")),
		Bottom:        key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end/G", "last row")),
		selectionKeys: defaultSelectionKeys(),
		Back:          key.NewBinding(key.WithKeys("esc", "L"), key.WithHelp("esc/L", "back to review")),
		Stats:         key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "statistics")),
	}
}

func (s *listScreen) resize(width, height int) { s.width, s.height = width, height }

func (s *listScreen) ShortHelp() []key.Binding {
	k := s.keys
	return []key.Binding{short(k.Open, "open"), relabel(k.Down, "↓↑", "move"), short(k.Back, "back"), short(k.Filter, "filter"),
		short(k.Search, "search"), short(k.Order, "order"), short(k.Stats, "stats")}
}

func (s *listScreen) FullHelp() [][]key.Binding {
	k := s.keys
	return [][]key.Binding{
		{k.Open, k.Down, k.Up, k.PageDown, k.PageUp, k.Top, k.Bottom},
		{k.Filter, k.FilterBack, k.Order, k.Search, k.Blind},
		{k.Back, k.Stats},
	}
}

func (s *listScreen) groups() []string { return []string{"Move", "Choose", "Screens"} }

func (s *listScreen) update(msg tea.KeyPressMsg) action {
	k := s.keys
	n := len(s.sel.items)
	page := max(s.height-3, 1)
	switch {
	case key.Matches(msg, k.Back):
		return action{show: showReview}
	case key.Matches(msg, k.Stats):
		return action{show: showStats}
	case key.Matches(msg, k.Open):
		if n == 0 {
			s.refuse("No item to open: " + s.emptyAdvice())
			return action{}
		}
		s.sel.pos = max(min(s.cursor, n-1), 0)
		s.cur = s.sel.items[s.sel.pos]
		return action{show: showReview}
	case key.Matches(msg, k.Down):
		s.cursor++
	case key.Matches(msg, k.Up):
		s.cursor--
	case key.Matches(msg, k.PageDown):
		s.cursor += page
	case key.Matches(msg, k.PageUp):
		s.cursor -= page
	case key.Matches(msg, k.Top):
		s.cursor = 0
	case key.Matches(msg, k.Bottom):
		s.cursor = n - 1
	case key.Matches(msg, k.Filter, k.FilterBack, k.Order, k.Search, k.Blind):
		a := s.selectionKey(msg, k.selectionKeys)
		s.cursor = s.sel.pos
		return a
	}
	s.cursor = max(min(s.cursor, n-1), 0)
	return action{}
}

// view draws the filtered items as a table, only the rows that fit: the
// cost of a frame does not grow with the dataset.
func (s *listScreen) view(width, height int) string {
	st := s.styles
	n := len(s.sel.items)
	title := fmt.Sprintf("Items · %s · %s · %d of %d", s.sel.filter.name, s.orderName(), n, len(s.items))
	if s.loading() {
		title = fmt.Sprintf("Items · %s · %s · reading: %s", s.sel.filter.name, s.orderName(), s.loadedText())
	}
	rows := height - 3 // borders and the column header
	inner := width - 4
	lines := []string{st.Muted.Render(s.row(-1, inner))}
	if n == 0 {
		msg := "No item matches: f or F picks another filter, / searches."
		if s.search.running {
			msg = "Searching…"
		}
		lines = append(lines, st.Muted.Render(msg))
		return box(st, title, lines, 0, width, height, true)
	}
	cursor := max(min(s.cursor, n-1), 0)
	first := max(min(cursor-rows/2, n-rows), 0)
	last := min(first+rows, n)
	for p := first; p < last; p++ {
		line := s.row(s.sel.items[p], inner)
		if p == cursor {
			line = st.TitleFocus.Render("▸ ") + line[len("  "):]
		}
		lines = append(lines, line)
	}
	// The rows drawn show the person's labels: an item among them due for
	// a re-test is not re-tested in this sitting (retest.go). The re-test
	// on screen is drawn hidden and stays one.
	s.shownWhileDue(s.sel.items[first:last]...)
	return box(st, title, lines, 0, width, height, true)
}

// row is one item as a table row (i = -1 gives the column names). A
// judge with swapped-order verdicts gets a column saying whether each
// pair's verdict survived the swap.
func (s *listScreen) row(i, inner int) string {
	const idW, segW = 14, 12
	valW := s.valueWidth()
	swapCol := s.run() != nil && s.run().nSwapped > 0
	if i < 0 {
		head := "  " + padRight("#", 7) + padRight("id", idW) + padRight("segment", segW) + padRight("judge", valW)
		if swapCol {
			head += padRight("swap", valW)
		}
		return head + padRight("you", valW) + "   question"
	}
	st := s.styles
	it := s.items[i]
	seg := segmentText(it.Segments)
	judgeV, humanV := "—", "—"
	if r := s.run(); r != nil && (r.judging() || r.loading) {
		judgeV = "…"
	}
	if rows := s.rows(i); len(rows) > 0 {
		rw := rows[0]
		if v, ok := s.run().verdict(i, rw.crit); ok {
			switch {
			case s.hidden(i):
				judgeV = "hidden"
			case !v.OK():
				judgeV = string(v.Status)
			default:
				judgeV = formatValue(rw.dim.Scale, v.Values[rw.dim.Name])
			}
		}
		if x, ok := s.label(i, rw); ok {
			humanV = formatValue(rw.dim.Scale, x)
		}
		if len(rows) > 1 {
			judgeV += "…"
		}
	}
	mark := "  "
	switch {
	case s.agreement[i] == 1 && !s.hidden(i):
		mark = st.Agree.Render("✓ ")
	case s.agreement[i] == 0 && !s.hidden(i):
		mark = st.Disagree.Render("✗ ")
	}
	cells := "  " + padRight(fmt.Sprint(i+1), 7) +
		padRight(ansi.Truncate(SanitizeLine(Clip(it.ID, 256)), idW-1, "…"), idW) +
		padRight(ansi.Truncate(seg, segW-1, "…"), segW) +
		padRight(ansi.Truncate(judgeV, valW-1, "…"), valW)
	if swapCol {
		cells += s.swapCell(i, valW)
	}
	cells += padRight(ansi.Truncate(humanV, valW-1, "…"), valW) + mark + " "
	q := strings.Join(strings.Fields(SanitizeLine(Clip(it.Question, 400))), " ")
	return cells + ansi.Truncate(q, max(inner-ansi.StringWidth(cells), 0), "…")
}

// swapCell says whether an item's verdict is the same in both orders of
// its pair: "same", "differs", or blank (one order only, or blind mode).
func (s *listScreen) swapCell(i, w int) string {
	if s.hidden(i) {
		return padRight("", w)
	}
	switch s.itemSwap(i) {
	case swapConsistent:
		return s.styles.Agree.Render("same") + padRight("", w-len("same"))
	case swapInconsistent:
		return s.styles.Disagree.Render("differs") + padRight("", w-len("differs"))
	}
	return padRight("", w)
}

// valueWidth is the width of the judge and you columns: 8 cells, more for
// a scale whose values are longer (NOT_ATTEMPTED), up to 16; a longer
// value is cut, so the columns stay aligned.
func (s *listScreen) valueWidth() int {
	w := 8
	if r := s.run(); r != nil {
		for _, d := range r.info.Dimensions {
			w = max(w, min(scaleWidth(d.Scale)+1, 16))
		}
	}
	return w
}
