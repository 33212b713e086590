package tui

import (
	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
)

// dialog is a modal part of the screen: note and search prompts, a
// confirmation, the message log, the help overlay. Dialogs sit on a stack
// above the screens and take every key while they are on top. A dialog
// never holds the model: what it decides comes back as a message (a note
// to save, a query to run, a confirmed action).
type dialog interface {
	help.KeyMap
	// update handles a key or a paste; done closes the dialog.
	update(msg tea.Msg) (cmd tea.Cmd, done bool)
}

// lineDialog is drawn on the hint line, under the screen it is about.
type lineDialog interface {
	dialog
	line(st Styles, width int) string
}

// overlay is drawn over the whole terminal.
type overlay interface {
	dialog
	overlay(st Styles, width, height int) string
}

func (m *Model) openDialog(d dialog) { m.dialogs = append(m.dialogs, d) }

func (m *Model) closeDialog() {
	if n := len(m.dialogs); n > 0 {
		m.dialogs = m.dialogs[:n-1]
	}
}

// top is the dialog that takes keys, or nil.
func (m *Model) top() dialog {
	if n := len(m.dialogs); n > 0 {
		return m.dialogs[n-1]
	}
	return nil
}
