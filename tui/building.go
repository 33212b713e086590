package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// storeMsg reports that the session of a new dataset is written (or could
// not be): from then on labels are saved as they are made.
type storeMsg struct {
	store Recorder
	err   error
}

// awaitStore waits for the session being written, off the screen's
// goroutine.
func awaitStore(ready func() (Recorder, error)) tea.Cmd {
	return func() tea.Msg {
		s, err := ready()
		return storeMsg{store: s, err: err}
	}
}

// LateNotices is what a store StoreReady returns may also implement: what
// was found about the dataset only once it was read to its end (a role
// empty on some items, repaired text), told when the store arrives.
type LateNotices interface {
	Notices() []string
}

// building reports whether the session is still being written.
func (w *workspace) building() bool { return w.waitStore != nil }

// gotStore takes the written session's store and saves the labels queued
// meanwhile; they were shown as not yet saved until then. When the session
// could not be written (a dataset found bad further on, a full disk),
// nothing can be saved: with labels queued the person is told on the
// screen, and a quit asked meanwhile ends the program (main reports what
// was not saved); with none, the program ends at once and main says why,
// as it would have had the screen not opened yet.
func (m *Model) gotStore(msg storeMsg) tea.Cmd {
	m.waitStore = nil
	if msg.err != nil || msg.store == nil {
		text := "The session could not be written"
		if msg.err != nil {
			text += ": " + SanitizeLine(msg.err.Error())
		}
		m.save.err = msg.err
		m.stopLoading()
		m.fail(text + " — labels made on this screen are not saved; quit, and start again.")
		if m.quitting || len(m.save.queue) == 0 {
			m.quitting = true
			return tea.Quit
		}
		return nil
	}
	m.store = msg.store
	if n, ok := msg.store.(LateNotices); ok {
		for _, text := range n.Notices() {
			if strings.TrimSpace(text) != "" {
				m.warn(SanitizeLine(text))
			}
		}
	}
	if len(m.save.queue) > 0 {
		m.tell("The session is written: saving the labels made meanwhile.")
	}
	cmd := m.flush()
	if cmd == nil && m.quitting {
		return tea.Quit
	}
	return cmd
}
