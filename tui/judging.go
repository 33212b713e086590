package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// applyBatch shows newly committed verdicts and keeps listening; when a
// stream ends it logs the run's summary, or why it stopped.
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
		m.judgingEnded(r, st)
		var fresh tea.Cmd
		if m.screen == screenStats {
			// The figures on screen were computed while the judge
			// worked: they count every verdict now.
			fresh = m.computeStats()
		}
		if v := m.variantOf(r); v != nil && !r.judging() {
			v.stopped = st.last.Stopped != nil || (r.stopped != nil && r.stopped() != nil)
			return tea.Batch(fresh, m.variantFinished(v))
		}
		return fresh
	}
	b := msg.batch
	st.last = b
	if b.Err != nil {
		m.fail(fmt.Sprintf("Could not save %d verdicts of %s: %v", len(b.Unsaved), SanitizeLine(r.name()), b.Err))
	}
	for _, v := range b.Verdicts {
		m.elide(&v) // committed: read back when shown
		if i := r.put(m.index, v, true); i >= 0 {
			m.verdictChanged(msg.run, i)
			if msg.run == m.act && i == m.cur {
				m.review.cache.clear() // the highlight follows the new verdict
			}
		}
	}
	if len(b.Verdicts) > 0 {
		return tea.Batch(waitBatch(msg.run, msg.stream, st.ch), m.verdictsCame())
	}
	return waitBatch(msg.run, msg.stream, st.ch)
}

// judgingEnded says how a stream of a run ended: a fatal error with its
// whole advice, or a summary of what was judged.
func (m *Model) judgingEnded(r *runView, st *stream) {
	b := st.last
	stopped := b.Stopped
	if stopped == nil && r.stopped != nil {
		stopped = r.stopped()
	}
	if stopped != nil {
		m.fail(fmt.Sprintf("%s stopped judging after %d of %s: %s", SanitizeLine(r.name()), b.Done, plural(b.Total, "task", "tasks"), SanitizeLine(stopped.Error())))
		return
	}
	if b.Total == 0 || (st.quiet && b.Errors == 0) {
		return
	}
	msg := fmt.Sprintf("%s finished judging: %d of %s done", SanitizeLine(r.name()), b.Done, plural(b.Total, "task", "tasks"))
	if b.Errors > 0 {
		msg += fmt.Sprintf(", %d ok, %s", b.Done-b.Errors, strings.Join(problems(b), ", "))
	}
	if b.Retries > 0 {
		msg += fmt.Sprintf(", %s", plural(b.Retries, "retry", "retries"))
	}
	if b.Tokens > 0 {
		msg += fmt.Sprintf(", %s tokens", compact(b.Tokens))
	}
	msg += "."
	if b.Truncated > 0 {
		msg += fmt.Sprintf(" %s: the server read only part of the prompt, cut to its context, so the judge never saw the whole task; "+
			"they are left out of agreement and asked again when the session is next opened. Raise the server's context "+
			"(Ollama: PARAMETER num_ctx in a Modelfile, or OLLAMA_CONTEXT_LENGTH; llama.cpp: --ctx-size); f shows them (filter \"truncated prompts\").",
			plural(b.Truncated, "answer was truncated", "answers were truncated"))
	}
	if b.Errors > b.Truncated {
		m.warn(msg + " f shows the errors (filter \"parse or API errors\"); r re-judges one.")
	} else if b.Errors > 0 {
		m.warn(msg)
	} else {
		m.mention(msg)
	}
}

// rejudgeTasksMsg asks to judge tasks again (sent by the confirmation of
// R, or at once by r).
type rejudgeTasksMsg struct {
	run   int
	tasks []judge.Task
	what  string // what is re-judged, for the messages
}

// rejudgeNow judges tasks of a run again.
func (w *workspace) rejudgeNow(run int, tasks []judge.Task, what string) tea.Cmd {
	return func() tea.Msg { return rejudgeTasksMsg{run: run, tasks: tasks, what: what} }
}

// startRejudge asks a judge again about tasks, bypassing cached answers;
// the earlier verdicts stay in the session as history.
func (m *Model) startRejudge(run int, tasks []judge.Task, what string) tea.Cmd {
	if run >= len(m.runs) || len(tasks) == 0 {
		return nil
	}
	r := m.runs[run]
	if r.rejudge == nil {
		m.fail(cannotRejudge(r))
		return nil
	}
	rejudge := r.rejudge
	m.tell(fmt.Sprintf("Re-judging %s (%s) with %s…", what, plural(len(tasks), "task", "tasks"), SanitizeLine(r.name())))
	return func() tea.Msg {
		j, err := rejudge(tasks)
		return rejudgeMsg{run: run, judging: j, tasks: len(tasks), err: err}
	}
}

func (m *Model) rejudgeStarted(msg rejudgeMsg) tea.Cmd {
	if msg.err != nil {
		m.fail("Could not re-judge: " + SanitizeLine(msg.err.Error()))
		return nil
	}
	if msg.judging == nil || msg.run >= len(m.runs) {
		return nil
	}
	r := m.runs[msg.run]
	id := r.add(msg.judging, msg.tasks)
	r.streams[id].quiet = msg.quiet
	return waitBatch(msg.run, id, r.streams[id].ch)
}

// switchJudge makes the next run active.
func (w *workspace) switchJudge() {
	if len(w.runs) < 2 {
		if w.waitStore != nil {
			// A new dataset's session is still being written: the
			// judges its file carries come with it.
			w.refuse("One judge so far: a judge the file carries joins once the session is written.")
			return
		}
		w.refuse("This session has one judge. Name more with --judge to compare them.")
		return
	}
	w.useJudge((w.act + 1) % len(w.runs))
}

// previousJudge makes the run before the active one active (switchJudge
// is the next one).
func (w *workspace) previousJudge() {
	if len(w.runs) < 2 {
		w.switchJudge() // says why there is nothing to switch to
		return
	}
	w.useJudge((w.act + len(w.runs) - 1) % len(w.runs))
}

// runLoaded shows a run's verdicts once read, starts following its
// judging, and reads the next run's.
func (m *Model) runLoaded(msg loadedMsg) tea.Cmd {
	m.reading = false
	cmd := m.placeLoaded(msg)
	return tea.Batch(cmd, m.nextLoad())
}

// placeLoaded takes in a run's verdicts and starts following its judging.
func (m *Model) placeLoaded(msg loadedMsg) tea.Cmd {
	if msg.run >= len(m.runs) {
		return nil
	}
	r := m.runs[msg.run]
	r.loading = false
	if msg.err != nil {
		m.fail(fmt.Sprintf("Could not read the verdicts of %s: %s", SanitizeLine(r.name()), SanitizeLine(msg.err.Error())))
		return nil
	}
	if msg.loaded.ID != 0 {
		r.id = msg.loaded.ID
	}
	if msg.packed != nil {
		r.adopt(msg.packed)
	}
	r.putAll(m.index, msg.loaded.Verdicts, false)
	r.putAll(m.index, msg.loaded.Swapped, true)
	if msg.run == m.act {
		m.recount()
		m.review.row = m.review.firstOpenRow(m.cur)
		m.review.cache.clear()
	} else {
		m.keepTally(msg.run)
	}
	if msg.loaded.Judging == nil {
		return nil
	}
	id := r.add(msg.loaded.Judging, msg.loaded.Pending)
	return waitBatch(msg.run, id, r.streams[id].ch)
}

// problems counts a batch's verdicts that are not ok by kind: parse
// errors, API errors and truncated apart ("2 parse errors", "1 truncated");
// any other is an "error".
func problems(b sessions.Batch) []string {
	var out []string
	if b.ParseErrors > 0 {
		out = append(out, plural(b.ParseErrors, "parse error", "parse errors"))
	}
	if b.APIErrors > 0 {
		out = append(out, plural(b.APIErrors, "API error", "API errors"))
	}
	if b.Truncated > 0 {
		out = append(out, fmt.Sprintf("%d truncated", b.Truncated))
	}
	if other := b.Errors - b.ParseErrors - b.APIErrors - b.Truncated; other > 0 {
		out = append(out, plural(other, "error", "errors"))
	}
	return out
}
