package tui

import (
	"fmt"
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
)

// Search runs off the event loop: the items are matched in chunks by
// commands, and each chunk's matches are added to the selection as they
// come, so a key press stays instant on a million items. Only the items'
// text is read there; it never changes while the screen is open.

// searchChunk is how many items one command matches.
const searchChunk = 20_000

// searchState follows the search in progress.
type searchState struct {
	gen     int // bumped by every new search; older results are dropped
	running bool
	query   string
}

// searchQueryMsg is the query typed in the search dialog.
type searchQueryMsg struct{ query string }

// searchResultMsg is one chunk's matches.
type searchResultMsg struct {
	gen     int
	next    int // the first item of the next chunk
	matches []int
}

// searchFilter keeps the items whose text holds the query, ignoring case.
func searchFilter(query string) filter {
	return filter{id: "search", name: fmt.Sprintf("text %q", SanitizeLine(Clip(query, 80))), match: func(w *workspace, i int) bool {
		return itemHolds(w, i, strings.ToLower(query))
	}}
}

// startSearch begins a search, or goes back to every item for an empty
// query.
func (m *Model) startSearch(query string) tea.Cmd {
	m.search.gen++
	m.sel.job.gen++ // a search replaces a filter or order still being computed
	m.sel.job.running = false
	if query == "" {
		m.search.running, m.sel.searching = false, false
		_, o := m.wanted()
		return m.selectAs(staticFilters[0], o)
	}
	m.search.running, m.search.query = true, query
	m.sel.searching = true
	m.sel.filter = searchFilter(query)
	m.sel.items = nil
	m.sel.pos = 0
	m.hint(fmt.Sprintf("Searching %d items for %q…", len(m.items), SanitizeLine(Clip(query, 80))))
	return m.searchFrom(0)
}

// searchFrom matches the chunk of items starting at from.
func (m *Model) searchFrom(from int) tea.Cmd {
	w, gen, q := m.workspace, m.search.gen, strings.ToLower(m.search.query)
	n := len(m.items)
	return func() tea.Msg {
		end := min(from+searchChunk, n)
		var found []int
		for i := from; i < end; i++ {
			if itemHolds(w, i, q) {
				found = append(found, i)
			}
		}
		return searchResultMsg{gen: gen, next: end, matches: found}
	}
}

// searchResult adds a chunk's matches and asks for the next chunk.
func (m *Model) searchResult(msg searchResultMsg) tea.Cmd {
	if msg.gen != m.search.gen || !m.search.running || !m.sel.searching {
		return nil // replaced by a newer search, a filter or an order
	}
	first := len(m.sel.items) == 0
	m.sel.items = append(m.sel.items, msg.matches...)
	if first && len(m.sel.items) > 0 {
		m.sel.pos = 0
		m.cur = m.sel.items[0]
		m.list.cursor = 0
	}
	if msg.next < len(m.items) {
		return m.searchFrom(msg.next)
	}
	m.search.running, m.sel.searching = false, false
	var cmd tea.Cmd
	if m.sel.order != orderDataset {
		cmd = m.orderAs(m.sel.order) // off the loop on a large dataset
	} else {
		m.placeSelection(m.sel.items)
		m.saySelection()
	}
	m.list.cursor = m.sel.pos
	return cmd
}

// itemHolds reports whether an item's id, question, gold, prediction or
// pair of responses holds q (already lower-case), ignoring case.
func itemHolds(w *workspace, i int, q string) bool {
	it := &w.items[i]
	return containsFold(it.ID, q) || containsFold(it.Question, q) || containsFold(it.Gold, q) || containsFold(it.Prediction, q) ||
		containsFold(it.ResponseA, q) || containsFold(it.ResponseB, q)
}

// containsFold reports whether s holds the lower-case needle q, ignoring
// case, without allocating a lower-case copy of s when q is ASCII.
func containsFold(s, q string) bool {
	if q == "" {
		return true
	}
	if !isASCII(q) {
		return strings.Contains(strings.ToLower(s), q)
	}
	c0 := q[0]
	up := c0
	if 'a' <= c0 && c0 <= 'z' {
		up = c0 - 'a' + 'A'
	}
	for i := 0; i+len(q) <= len(s); i++ {
		if c := s[i]; c != c0 && c != up {
			continue
		}
		if asciiEqualFold(s[i:i+len(q)], q) {
			return true
		}
	}
	return false
}

func asciiEqualFold(a, lower string) bool {
	for i := 0; i < len(a); i++ {
		c := a[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
