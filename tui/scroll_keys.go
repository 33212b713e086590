package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// scrollKeys move a pane of text that is read from top to bottom: the
// statistics and comparison screens embed them in their key maps, so the
// same keys scroll both.
type scrollKeys struct {
	Down     key.Binding
	Up       key.Binding
	PageDown key.Binding
	PageUp   key.Binding
	Top      key.Binding
	Bottom   key.Binding
}

func defaultScrollKeys() scrollKeys {
	return scrollKeys{
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll down")),
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+d", "space"), key.WithHelp("pgdn", "page down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home/g", "top")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end/G", "end")),
	}
}

// bindings are the keys in the order the help lists them.
func (k scrollKeys) bindings() []key.Binding {
	return []key.Binding{k.Down, k.Up, k.PageDown, k.PageUp, k.Top, k.Bottom}
}

// scroll returns the offset a scroll key moves to from offset, a page
// being page lines (Bottom gives endOfPane, which the view clamps), and
// whether msg is one of the keys.
func (k scrollKeys) scroll(msg tea.KeyPressMsg, offset, page int) (int, bool) {
	switch {
	case key.Matches(msg, k.Down):
		return offset + 1, true
	case key.Matches(msg, k.Up):
		return max(offset-1, 0), true
	case key.Matches(msg, k.PageDown):
		return offset + page, true
	case key.Matches(msg, k.PageUp):
		return max(offset-page, 0), true
	case key.Matches(msg, k.Top):
		return 0, true
	case key.Matches(msg, k.Bottom):
		return endOfPane, true
	}
	return offset, false
}
