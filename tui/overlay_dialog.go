package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// scrollKeys move through an overlay's text.
type scrollKeys struct {
	Down     key.Binding
	Up       key.Binding
	PageDown key.Binding
	PageUp   key.Binding
	Top      key.Binding
	Bottom   key.Binding
	Close    key.Binding
}

func defaultScrollKeys(close ...string) scrollKeys {
	closeKeys := append([]string{"esc"}, close...)
	return scrollKeys{
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll down")),
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+d", "space"), key.WithHelp("pgdn", "page down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home/g", "top")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end/G", "end")),
		Close:    key.NewBinding(key.WithKeys(closeKeys...), key.WithHelp(joinKeys(closeKeys), "close")),
	}
}

func joinKeys(ks []string) string {
	s := ""
	for i, k := range ks {
		if i > 0 {
			s += "/"
		}
		s += k
	}
	return s
}

// scroller is the scrolling state of an overlay: the offset and the page
// size of the last frame drawn.
type scroller struct {
	keys   scrollKeys
	offset int
	page   int
}

// scroll handles a key; done is true when it closes the overlay.
func (s *scroller) scroll(msg tea.Msg) (done bool) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return false
	}
	page := max(s.page-1, 1)
	switch {
	case key.Matches(k, s.keys.Close):
		return true
	case key.Matches(k, s.keys.Down):
		s.offset++
	case key.Matches(k, s.keys.Up):
		s.offset = max(s.offset-1, 0)
	case key.Matches(k, s.keys.PageDown):
		s.offset += page
	case key.Matches(k, s.keys.PageUp):
		s.offset = max(s.offset-page, 0)
	case key.Matches(k, s.keys.Top):
		s.offset = 0
	case key.Matches(k, s.keys.Bottom):
		s.offset = endOfPane
	}
	return false
}

func (s *scroller) bindings() []key.Binding {
	return []key.Binding{s.keys.Down, s.keys.Up, s.keys.PageDown, s.keys.PageUp, s.keys.Top, s.keys.Bottom, s.keys.Close}
}

// framed draws lines in a box centred on the terminal, as wide as the
// widest line (up to the terminal) and as tall as the lines (likewise),
// scrolled to the offset, which is kept within the text.
func (s *scroller) framed(st Styles, title string, lines []string, width, height int) string {
	w := 0
	for _, l := range lines {
		w = max(w, ansi.StringWidth(l))
	}
	w = min(max(w+4, 30), width)
	h := min(len(lines)+2, height)
	s.page = h - 2
	s.offset = clampOffset(s.offset, len(lines), h-2)
	return lipgloss.Place(width, height, lipgloss.Center, lipgloss.Center, box(st, title, lines, s.offset, w, h, true))
}
