package tui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// selectionKey handles the keys that choose which items are reviewed, in
// which order, and how: shared by the review screen and the list.
func (m Model) selectionKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Filter), key.Matches(msg, k.FilterBack):
		fs := m.filters()
		cur := 0
		for i, f := range fs {
			if f.id == m.sel.filter.id {
				cur = i
			}
		}
		step := 1
		if key.Matches(msg, k.FilterBack) {
			step = len(fs) - 1
		}
		m.sel.filter = fs[(cur+step)%len(fs)]
		m.applySelection()
	case key.Matches(msg, k.Order):
		m.sel.order = (m.sel.order + 1) % numOrders
		m.applySelection()
	case key.Matches(msg, k.Search):
		m.searching = true
		m.query.SetValue("")
		m.query.SetWidth(max(m.width-12, 10))
		return m, m.query.Focus()
	case key.Matches(msg, k.Blind):
		m.blind = !m.blind
		m.cache.clear()
		if m.blind {
			m.setFlash("Blind mode: each verdict stays hidden until you have labelled the item.")
		} else {
			m.setFlash("Blind mode off: verdicts are shown.")
		}
	case key.Matches(msg, k.List):
		if m.screen == screenList {
			m.screen = screenReview
		} else {
			m.openList()
		}
	}
	return m, nil
}

// applySelection recomputes the selection and says what it holds.
func (m *Model) applySelection() {
	m.reselect()
	m.list.cursor = m.sel.pos
	m.setFlash(fmt.Sprintf("%d of %d items · %s · %s", len(m.sel.items), len(m.items), m.sel.filter.name, m.sel.order))
}

func (m Model) searchKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch msg.String() {
	case "esc":
		m.searching = false
		m.query.Blur()
		return m, nil
	case "enter":
		m.searching = false
		m.query.Blur()
		if q := m.query.Value(); q != "" {
			m.sel.filter = searchFilter(q)
		} else {
			m.sel.filter = staticFilters[0]
		}
		m.applySelection()
		return m, nil
	}
	var cmd tea.Cmd
	m.query, cmd = m.query.Update(msg)
	return m, cmd
}
