package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/sessions"
)

// The other annotators' current labels are read after the first frame
// when the screen is given Options.OthersLater instead of Others: a
// session holding a million imported labels took 8 s to read them, 0.7 s
// more to index this person's history against them, before the first
// frame (the reopen of 1M is to open in under a second). Until they
// arrive the screen shows none, as while a new dataset's session is
// written (building.go).

// OthersLater reads the other annotators' current labels and can't
// judges (Options.OthersLater).
type OthersLater func() (*OtherLabels, []sessions.CantJudge, error)

// othersMsg carries the others' labels read late, with this person's
// adjudication state built against them off the loop.
type othersMsg struct {
	others    *OtherLabels
	cantJudge []sessions.CantJudge
	adj       *adjState
	err       error
}

// readOthers reads the others' labels, and indexes history (this
// person's, as the screen opened with it) against them, off the loop.
func readOthers(read OthersLater, history []sessions.Action) tea.Cmd {
	return func() tea.Msg {
		others, cantJudge, err := read()
		if err != nil {
			return othersMsg{err: err}
		}
		return othersMsg{others: others, cantJudge: cantJudge, adj: newAdjState(history, others)}
	}
}

// gotOthers shows the others' labels read late. What this person
// recorded and undid since the screen opened is done again, in order, on
// the adjudication state built with them (adjState.late).
func (m *Model) gotOthers(msg othersMsg) tea.Cmd {
	if msg.err != nil {
		m.fail("The other annotators' labels could not be read: " + SanitizeLine(msg.err.Error()) + " — they are not shown; quit and reopen the session to read them again.")
		if m.adj != nil {
			m.adj.late = nil
		}
		return nil
	}
	if m.adj != nil {
		for _, op := range m.adj.late {
			if op.undo {
				msg.adj.undone(op.undone)
			} else {
				msg.adj.recorded(op.recorded)
			}
		}
	}
	m.adj = msg.adj
	if msg.others.Len() > 0 || len(msg.cantJudge) > 0 {
		m.setOthers(msg.others, msg.cantJudge)
		m.review.cache.clear()
	}
	return nil
}

// adjOp is a label group recorded or an undo, kept while the others'
// labels are read (adjState.late).
type adjOp struct {
	undo     bool
	recorded []sessions.Action
	undone   []sessions.LabelKey
}
