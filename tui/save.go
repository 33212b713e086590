package tui

import (
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/sessions"
)

// saveOp is one key press's worth of writing: a group of actions, or an
// undo.
type saveOp struct {
	item int
	acts []sessions.Action
	undo bool
}

// saveQueue keeps human actions in the order they were made and sends them
// to the store one batch at a time, so that an undo can never overtake the
// label it undoes. The screen updates at once; the status line says
// "saving" until the store has committed, and pending counts per item let
// the verdict pane show which label is not yet confirmed.
type saveQueue struct {
	queue    []saveOp
	inflight bool
	sending  []saveOp    // being written (inflight)
	pending  map[int]int // item → actions not yet committed
	err      error       // the last failure, cleared by a success
	// waiting: asked to quit while saving failed, the person chose to
	// wait (unsaved_dialog.go): the program ends once everything is saved,
	// and a failure meanwhile does not ask again. abandoned: they quit
	// anyway, leaving what is queued unsaved.
	waiting, abandoned bool
}

// savedMsg reports a batch written to the store: done were committed, the
// rest (if err is set) were not.
type savedMsg struct {
	done []saveOp
	rest []saveOp
	err  error
}

// retrySaveMsg asks for another attempt after a failed save.
type retrySaveMsg struct{}

// push queues an operation and returns the command that writes it, if
// nothing is being written already.
func (w *workspace) push(op saveOp) tea.Cmd {
	w.save.queue = append(w.save.queue, op)
	w.save.pending[op.item]++
	return w.flush()
}

// flush starts writing everything queued, unless a write is in flight.
func (w *workspace) flush() tea.Cmd {
	if w.save.inflight || len(w.save.queue) == 0 || w.store == nil {
		return nil
	}
	ops := w.save.queue
	w.save.queue = nil
	w.save.inflight = true
	w.save.sending = ops
	store := w.store
	return func() tea.Msg {
		for i, op := range ops {
			if err := op.write(store); err != nil {
				return savedMsg{done: ops[:i], rest: ops[i:], err: err}
			}
		}
		return savedMsg{done: ops}
	}
}

// write commits the operation to store.
func (op saveOp) write(store Recorder) error {
	var err error
	if op.undo {
		_, err = store.Undo()
	} else {
		_, err = store.Record(op.acts)
	}
	return err
}

// saved applies a write's outcome: committed items are confirmed; on a
// failure the unwritten operations go back to the head of the queue and
// are retried shortly, and the error stays on screen until a write works.
func (m *Model) saved(msg savedMsg) tea.Cmd {
	m.save.inflight = false
	m.save.sending = nil
	for _, op := range msg.done {
		if m.save.pending[op.item]--; m.save.pending[op.item] <= 0 {
			delete(m.save.pending, op.item)
		}
	}
	if msg.err != nil {
		if m.save.err == nil {
			m.fail("Could not save your labels: " + SanitizeLine(msg.err.Error()) + " — retrying every 2 seconds; the labels on screen are not in the session until this clears.")
		}
		m.save.err = msg.err
		m.save.queue = append(msg.rest, m.save.queue...)
		if m.quitting && !m.save.waiting {
			// Quit was asked while the last labels were being written:
			// ask before losing them (unsaved_dialog.go).
			m.quitting = false
			m.askUnsaved()
		} else if m.unsavedOpen() != nil {
			m.askUnsaved() // the counts and the error as they are now
		}
		return tea.Tick(2*time.Second, func(time.Time) tea.Msg { return retrySaveMsg{} })
	}
	if len(msg.done) > 0 && m.save.err != nil {
		m.save.err = nil
		m.tell("Saving works again: every label on screen is in the session.")
	}
	if len(m.save.queue) == 0 && (m.quitting || m.unsavedOpen() != nil) {
		// Quit was asked (the question still open counts: waiting is its
		// default) and everything is saved now.
		m.closeUnsaved()
		return tea.Quit
	}
	if m.unsavedOpen() != nil {
		m.askUnsaved()
	}
	return tea.Batch(m.flush(), m.planSaved(msg.done))
}

// Unsaved reports how many actions were made on screen but never committed
// (non-zero only when the store kept failing until quit) and the last error.
func (m *Model) Unsaved() (int, error) {
	n := 0
	for _, op := range append(slices.Clip(m.save.sending), m.save.queue...) {
		n += max(len(op.acts), 1)
	}
	return n, m.save.err
}
