package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/sessions"
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

// Arrivals is what a new dataset's written session holds that the screen
// opened without: the runs and labels imported from the dataset's own
// verdict and label columns, which are read into the session as it is
// written (gavel review of a labelled file).
type Arrivals struct {
	// Runs are the session's runs the screen does not show yet, each
	// with its Load (read once every item is, as the others).
	Runs []Run
	// Others and OthersCantJudge are the other annotators' current
	// labels and can't judges (as Options.Others); the screen takes
	// Others over.
	Others          *OtherLabels
	OthersCantJudge []sessions.CantJudge
}

// LateArrivals is what a store StoreReady returns may also implement:
// what the session brings that the screen did not have (Arrivals), added
// when the store arrives.
type LateArrivals interface {
	Arrivals() Arrivals
}

// arrive adds what the written session brings: its runs after the
// screen's, their verdicts read at once when every item is (else with the
// others' once they are), and the other annotators' labels.
func (m *Model) arrive(a Arrivals) tea.Cmd {
	if a.Others.Len() > 0 || len(a.OthersCantJudge) > 0 {
		m.setOthers(a.Others, a.OthersCantJudge)
	}
	m.addRuns(a.Runs)
	m.review.cache.clear()
	return m.nextLoad()
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
	var arrived tea.Cmd
	if a, ok := msg.store.(LateArrivals); ok {
		arrived = m.arrive(a.Arrivals())
	}
	if len(m.save.queue) > 0 {
		m.tell("The session is written: saving the labels made meanwhile.")
	}
	cmd := m.flush()
	if cmd == nil && m.quitting {
		return tea.Quit
	}
	return tea.Batch(cmd, arrived)
}
