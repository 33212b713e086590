package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/sessions"
)

// batchMsg carries verdicts a run has committed; closed means the run has
// nothing more to send.
type batchMsg struct {
	run    int
	batch  sessions.Batch
	closed bool
}

// waitBatch reads the next committed batch of a run. It is re-issued after
// every batch, so verdicts stream onto the screen as they arrive.
func waitBatch(run int, ch <-chan sessions.Batch) tea.Cmd {
	return func() tea.Msg {
		b, ok := <-ch
		return batchMsg{run: run, batch: b, closed: !ok}
	}
}
