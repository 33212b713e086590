package tui

import (
	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
)

// screen is one of the root's screens (review, list, statistics). Each
// has its own key map: the hint line shows its ShortHelp and the help
// overlay its FullHelp, for the item on screen, so neither can offer a key
// the screen does not handle.
type screen interface {
	help.KeyMap
	// groups names the columns of FullHelp in the help overlay.
	groups() []string
	// update handles a key the dialogs and the shared keys left.
	update(msg tea.KeyPressMsg) action
	// view draws the screen's body, exactly width × height cells.
	view(width, height int) string
	// resize tells the screen the size of its body.
	resize(width, height int)
}

// action is what a screen asks of the root after a key: a command to run,
// a dialog to open, a screen to show. Opening a dialog is immediate (not a
// message), so the very next key already goes to it.
type action struct {
	cmd  tea.Cmd
	open dialog
	show showScreen
}

// showScreen asks the root to switch screens.
type showScreen int

const (
	stay showScreen = iota
	showReview
	showList
	showStats
	showCompare
)

// act wraps a command as an action.
func act(cmd tea.Cmd) action { return action{cmd: cmd} }
