package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/sessions"
)

// batchMsg carries verdicts a run has committed; closed means the stream
// has nothing more to send.
type batchMsg struct {
	run, stream int
	batch       sessions.Batch
	closed      bool
}

// waitBatch reads the next committed batch of a stream. It is re-issued
// after every batch, so verdicts stream onto the screen as they arrive.
func waitBatch(run, stream int, ch <-chan sessions.Batch) tea.Cmd {
	return func() tea.Msg {
		b, ok := <-ch
		return batchMsg{run: run, stream: stream, batch: b, closed: !ok}
	}
}

// rejudgeMsg reports a re-judge that started (or could not).
type rejudgeMsg struct {
	run     int
	judging *sessions.Judging
	tasks   int
	err     error
	// quiet: a variant judging items labelled since it ran, which the
	// log does not report unless it fails.
	quiet bool
}
