package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// healthMsg is what the server's health said, asked off the screen's
// goroutine.
type healthMsg struct{ text string }

// checkHealth asks the server's health in a second; the answer comes back
// as a message, and the next check is asked then.
func (m *Model) checkHealth() tea.Cmd {
	fn := m.healthFn
	if fn == nil {
		return nil
	}
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return healthMsg{text: fn()} })
}

// gotHealth shows a server that stopped answering (or answers again) in
// the log, whatever judge or screen is on display; the status line keeps
// saying so while it lasts.
func (m *Model) gotHealth(msg healthMsg) tea.Cmd {
	switch {
	case msg.text != "" && m.health == "":
		m.fail(msg.text + ". Your labels are saved; judging resumes when it answers.")
	case msg.text == "" && m.health != "":
		m.tell("The judges' server answers again: judging goes on.")
	}
	m.health = msg.text
	return m.checkHealth()
}
