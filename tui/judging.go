package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
)

// applyBatch shows newly committed verdicts and keeps listening.
func (m *Model) applyBatch(msg batchMsg) tea.Cmd {
	if msg.run >= len(m.runs) {
		return nil
	}
	r := m.runs[msg.run]
	st, ok := r.streams[msg.stream]
	if !ok {
		return nil
	}
	if msg.closed {
		delete(r.streams, msg.stream)
		if r.stopped != nil {
			if err := r.stopped(); err != nil {
				m.setError(fmt.Sprintf("%s stopped judging: %v", r.name(), err))
			}
		}
		return nil
	}
	b := msg.batch
	st.last = b
	if b.Err != nil {
		m.setError(fmt.Sprintf("Could not save %d verdicts of %s: %v", len(b.Unsaved), r.name(), b.Err))
	}
	for _, v := range b.Verdicts {
		if i := r.put(m.index, v, true); i >= 0 && msg.run == m.act {
			m.refresh(i)
		}
	}
	return waitBatch(msg.run, msg.stream, st.ch)
}

// startRejudge asks the active judge again about tasks, bypassing cached
// answers; the earlier verdicts stay in the session as history.
func (m *Model) startRejudge(tasks []judge.Task) tea.Cmd {
	r := m.run()
	if r == nil || len(tasks) == 0 {
		return nil
	}
	if r.rejudge == nil {
		m.setError(fmt.Sprintf("%s cannot re-judge from here: reopen the session with --judge %s (and its --model and server flags).", r.name(), r.info.Name))
		return nil
	}
	run, rejudge := m.act, r.rejudge
	m.setFlash(fmt.Sprintf("Re-judging %d tasks with %s…", len(tasks), r.name()))
	return func() tea.Msg {
		j, err := rejudge(tasks)
		return rejudgeMsg{run: run, judging: j, tasks: len(tasks), err: err}
	}
}

func (m *Model) rejudgeStarted(msg rejudgeMsg) tea.Cmd {
	if msg.err != nil {
		m.setError("Could not re-judge: " + msg.err.Error())
		return nil
	}
	if msg.judging == nil || msg.run >= len(m.runs) {
		return nil
	}
	r := m.runs[msg.run]
	id := r.add(msg.judging, msg.tasks)
	return waitBatch(msg.run, id, r.streams[id].ch)
}

// switchJudge makes the next run active.
func (m *Model) switchJudge() {
	if len(m.runs) < 2 {
		m.setFlash("This session has one judge. Name more with --judge to compare them.")
		return
	}
	m.act = (m.act + 1) % len(m.runs)
	m.recount()
	m.row = m.firstOpenRow(m.cur)
	m.cache.clear()
	m.setFlash(fmt.Sprintf("Judge %d of %d: %s", m.act+1, len(m.runs), m.run().name()))
}

// askRejudgeAll confirms before re-judging every item: it may cost money.
func (m *Model) askRejudgeAll() tea.Cmd {
	r := m.run()
	if r == nil {
		return nil
	}
	var tasks []judge.Task
	for _, i := range m.sel.items {
		tasks = append(tasks, judge.Tasks(r.info, m.items[i])...)
	}
	if len(tasks) == 0 {
		return nil
	}
	m.confirm = &confirmation{
		question: fmt.Sprintf("Re-judge the %d tasks of %s with %s, asking the model again? y to confirm, any other key to cancel", len(tasks), m.sel.filter.name, r.name()),
		onYes:    func() tea.Cmd { return m.startRejudge(tasks) },
	}
	return nil
}

// runLoaded shows a run's verdicts once read, and starts following its
// judging.
func (m *Model) runLoaded(msg loadedMsg) tea.Cmd {
	if msg.run >= len(m.runs) {
		return nil
	}
	r := m.runs[msg.run]
	r.loading = false
	if msg.err != nil {
		m.setError(fmt.Sprintf("Could not read the verdicts of %s: %v", r.name(), msg.err))
		return nil
	}
	for _, v := range msg.loaded.Verdicts {
		r.put(m.index, v, false)
	}
	if msg.run == m.act {
		m.recount()
		m.row = m.firstOpenRow(m.cur)
		m.cache.clear()
	}
	if msg.loaded.Judging == nil {
		return nil
	}
	id := r.add(msg.loaded.Judging, msg.loaded.Pending)
	return waitBatch(msg.run, id, r.streams[id].ch)
}
