package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// Update routes a message to the screen that owns it.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.cache.clear()
		return m, nil
	case tea.BackgroundColorMsg:
		m.styles = NewStyles(msg.IsDark())
		m.cache.clear()
		return m, nil
	case batchMsg:
		return m, m.applyBatch(msg)
	case savedMsg:
		cmd := m.saved(msg)
		if m.screen == screenStats && len(msg.done) > 0 {
			cmd = tea.Batch(cmd, m.computeStats())
		}
		return m, cmd
	case statsMsg:
		return m, m.gotStats(msg)
	case rejudgeMsg:
		return m, m.rejudgeStarted(msg)
	case loadedMsg:
		return m, m.runLoaded(msg)
	case retrySaveMsg:
		return m, m.flush()
	case tea.PasteMsg:
		var cmd tea.Cmd
		switch {
		case m.noting:
			m.note, cmd = m.note.Update(msg)
		case m.searching:
			m.query, cmd = m.query.Update(msg)
		}
		return m, cmd
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	return m, nil
}

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
				r.failure = err
				m.setError(fmt.Sprintf("%s stopped judging: %v", r.name(), err))
			}
		}
		return nil
	}
	b := msg.batch
	st.last = b
	if b.Err != nil {
		r.failure = b.Err
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

func (m Model) key(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if m.noting {
		return m.noteKey(msg)
	}
	if m.searching {
		return m.searchKey(msg)
	}
	if c := m.confirm; c != nil {
		m.confirm = nil
		m.flash = ""
		if msg.String() == "y" {
			return m, c.onYes()
		}
		m.setFlash("Cancelled.")
		return m, nil
	}
	if m.showHelp {
		switch {
		case key.Matches(msg, m.keys.Quit) && msg.String() == "ctrl+c":
			return m, m.quit()
		case key.Matches(msg, m.keys.Help, m.keys.Back, m.keys.Quit):
			m.showHelp = false
		case key.Matches(msg, m.keys.Down):
			m.helpScroll++
		case key.Matches(msg, m.keys.Up):
			m.helpScroll = max(m.helpScroll-1, 0)
		case key.Matches(msg, m.keys.PageDown):
			m.helpScroll += max(m.height-3, 1)
		case key.Matches(msg, m.keys.PageUp):
			m.helpScroll = max(m.helpScroll-max(m.height-3, 1), 0)
		}
		return m, nil
	}
	m.flash, m.flashError = "", false
	switch {
	case key.Matches(msg, m.keys.Quit):
		return m, m.quit()
	case key.Matches(msg, m.keys.Help):
		m.showHelp = true
		m.helpScroll = 0
		return m, nil
	}
	if m.screen == screenList {
		return m.listKey(msg)
	}
	if m.screen == screenStats {
		switch {
		case key.Matches(msg, m.keys.Back, m.keys.Stats):
			m.screen = screenReview
		case key.Matches(msg, m.keys.Down):
			m.stats.scroll++
		case key.Matches(msg, m.keys.Up):
			m.stats.scroll = max(m.stats.scroll-1, 0)
		case key.Matches(msg, m.keys.PageDown):
			m.stats.scroll += max(m.height-chromeRows-3, 1)
		case key.Matches(msg, m.keys.PageUp):
			m.stats.scroll = max(m.stats.scroll-max(m.height-chromeRows-3, 1), 0)
		}
		m.stats.scroll = clampOffset(m.stats.scroll, len(m.statsLines(max(m.width-4, 20))), m.height-chromeRows-2)
		return m, nil
	}
	return m.reviewKey(msg)
}

func (m Model) reviewKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Stats):
		m.screen = screenStats
		return m, m.computeStats()
	case key.Matches(msg, k.Yes):
		return m, m.labelSelected(1, sessions.KindLabel)
	case key.Matches(msg, k.No):
		return m, m.labelSelected(0, sessions.KindLabel)
	case key.Matches(msg, k.Score):
		return m, m.score(msg.String())
	case key.Matches(msg, k.Accept):
		return m, m.accept()
	case key.Matches(msg, k.Undo):
		return m, m.undo()
	case key.Matches(msg, k.Note):
		return m, m.startNote()
	case key.Matches(msg, k.Rejudge):
		if len(m.items) > 0 {
			return m, m.startRejudge(judge.Tasks(m.run().info, m.items[m.cur]))
		}
	case key.Matches(msg, k.RejudgeAll):
		return m, m.askRejudgeAll()
	case key.Matches(msg, k.Switch):
		m.switchJudge()
	case key.Matches(msg, k.Next):
		m.step(1)
	case key.Matches(msg, k.Prev):
		m.step(-1)
	case key.Matches(msg, k.Skip):
		m.skip()
	case key.Matches(msg, k.First):
		if p := m.nextUnreviewed(0); p >= 0 {
			m.step(p - m.sel.pos)
		} else {
			m.setFlash("Every item here is reviewed.")
		}
	case key.Matches(msg, k.Home):
		m.step(-m.sel.pos)
	case key.Matches(msg, k.End):
		m.step(len(m.sel.items) - 1 - m.sel.pos)
	case key.Matches(msg, k.NextRow):
		m.row = min(m.row+1, max(len(m.rows(m.cur))-1, 0))
	case key.Matches(msg, k.PrevRow):
		m.row = max(m.row-1, 0)
	case key.Matches(msg, k.Focus):
		m.focus = (m.focus + 1) % numPanes
	case key.Matches(msg, k.FocusBack):
		m.focus = (m.focus + numPanes - 1) % numPanes
	case key.Matches(msg, k.Down):
		m.scroll[m.focus]++
	case key.Matches(msg, k.Up):
		m.scroll[m.focus] = max(m.scroll[m.focus]-1, 0)
	case key.Matches(msg, k.PageDown):
		m.scroll[m.focus] += max(m.paneRows(m.focus)-1, 1)
	case key.Matches(msg, k.PageUp):
		m.scroll[m.focus] = max(m.scroll[m.focus]-max(m.paneRows(m.focus)-1, 1), 0)
	case key.Matches(msg, k.Think):
		m.showThink = !m.showThink
		m.cache.clear()
	case key.Matches(msg, k.List, k.Filter, k.FilterBack, k.Order, k.Search, k.Blind):
		return m.selectionKey(msg)
	}
	m.scroll[m.focus] = clampOffset(m.scroll[m.focus], m.paneLen(m.focus), m.paneRows(m.focus))
	return m, nil
}

// quit leaves once every action on screen is committed.
func (m *Model) quit() tea.Cmd {
	if !m.save.inflight && len(m.save.queue) == 0 {
		return tea.Quit
	}
	m.quitting = true
	m.setFlash("Saving your last labels before quitting…")
	return m.flush()
}

// skip moves on to the next unreviewed item after this one.
func (m *Model) skip() {
	n := len(m.sel.items)
	if n == 0 {
		return
	}
	p := m.nextUnreviewed((m.sel.pos + 1) % n)
	if p < 0 || p == m.sel.pos {
		m.setFlash("No other item here is waiting for a label.")
		return
	}
	m.step(p - m.sel.pos)
}

// labelSelected labels the selected row.
func (m *Model) labelSelected(value float64, kind sessions.ActionKind) tea.Cmd {
	rows := m.rows(m.cur)
	if len(rows) == 0 {
		m.setFlash("The active judge has nothing to label on this item.")
		return nil
	}
	rw := rows[min(m.row, len(rows)-1)]
	if !rw.dim.Scale.Valid(value) {
		m.setError(fmt.Sprintf("%s is not a %s value for %q: %s.", formatValue(rw.dim.Scale, value), rw.dim.Scale, rw.dim.Name, scaleKeys(rw.dim.Scale)))
		return nil
	}
	return m.record([]sessions.Action{m.action(kind, rw, value)})
}

// score turns a digit key into a value on the selected row's scale.
func (m *Model) score(digit string) tea.Cmd {
	rows := m.rows(m.cur)
	if len(rows) == 0 {
		return nil
	}
	rw := rows[min(m.row, len(rows)-1)]
	d := float64(digit[0] - '0')
	switch rw.dim.Scale {
	case judge.Binary:
		if d > 1 {
			m.setError("This is a YES/NO label: press y or n (or 1 / 0).")
			return nil
		}
	case judge.Ternary:
		if d == 5 {
			d = 0.5
		}
	}
	return m.labelSelected(d, sessions.KindLabel)
}

// accept labels every row of the item with the judge's value.
func (m *Model) accept() tea.Cmd {
	r := m.run()
	if r == nil {
		return nil
	}
	if m.hidden(m.cur) {
		m.setFlash("Blind mode: label this item yourself; the verdict shows afterwards.")
		return nil
	}
	var acts []sessions.Action
	missing := 0
	for _, rw := range m.rows(m.cur) {
		v, ok := r.judgeValue(m.cur, rw)
		if !ok {
			missing++
			continue
		}
		acts = append(acts, m.action(sessions.KindAccept, rw, v))
	}
	if len(acts) == 0 {
		if vd, ok := r.verdict(m.cur, 0); ok && !vd.OK() {
			m.setFlash(fmt.Sprintf("The verdict is a %s: there is nothing to accept. Label it yourself (%s).", vd.Status, scaleKeys(m.rows(m.cur)[0].dim.Scale)))
		} else {
			m.setFlash("No verdict yet for this item: label it yourself, or wait for the judge.")
		}
		return nil
	}
	if missing > 0 {
		m.setFlash(fmt.Sprintf("Accepted %d verdicts; %d have no usable verdict and still need your label.", len(acts), missing))
	}
	return m.record(acts)
}

func (m *Model) action(kind sessions.ActionKind, rw row, v float64) sessions.Action {
	return sessions.Action{
		Kind:      kind,
		ItemID:    m.items[m.cur].ID,
		Criterion: rw.crit,
		Dimension: rw.dim.Name,
		Value:     v,
		Via:       m.via,
	}
}

// record applies a group of label actions on screen, queues them for the
// store, and moves on: to the next open row of the item, or, when the item
// is fully labelled, to the next item.
func (m *Model) record(acts []sessions.Action) tea.Cmd {
	item := m.cur
	keys := make([]lkey, len(acts))
	entries := make([]entry, len(acts))
	for i, a := range acts {
		keys[i], entries[i] = keyOf(a, item)
	}
	m.labels.apply(keys, entries)
	m.refresh(item)
	cmd := m.push(saveOp{item: item, acts: acts})
	if m.reviewed[item] {
		if m.sel.pos+1 < len(m.sel.items) {
			m.step(1)
		} else {
			m.setFlash("That was the last item here. Press g for any item still unreviewed, s for statistics.")
		}
	} else {
		m.row = m.firstOpenRow(item)
	}
	return cmd
}

// undo reverts the latest group of actions and shows its item.
func (m *Model) undo() tea.Cmd {
	keys := m.labels.undo()
	if keys == nil {
		m.setFlash("Nothing to undo.")
		return nil
	}
	item := keys[0].item
	m.refresh(item)
	m.goTo(item)
	m.setFlash(fmt.Sprintf("Undone on %s.", SanitizeLine(m.items[item].ID)))
	return m.push(saveOp{item: item, undo: true})
}

// startNote opens the note editor on the current item's note.
func (m *Model) startNote() tea.Cmd {
	if len(m.items) == 0 {
		return nil
	}
	m.noting = true
	m.note.SetValue(m.labels.note(m.cur))
	m.note.CursorEnd()
	m.note.SetWidth(max(m.width-12, 10))
	return m.note.Focus()
}

func (m Model) noteKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch msg.String() {
	case "esc":
		m.noting = false
		m.note.Blur()
		return m, nil
	case "enter":
		m.noting = false
		m.note.Blur()
		text := strings.TrimSpace(m.note.Value())
		if text == m.labels.note(m.cur) {
			return m, nil
		}
		a := sessions.Action{Kind: sessions.KindNote, ItemID: m.items[m.cur].ID, Note: text, Via: m.via}
		k, e := keyOf(a, m.cur)
		m.labels.apply([]lkey{k}, []entry{e})
		m.cache.clear()
		return m, m.push(saveOp{item: m.cur, acts: []sessions.Action{a}})
	}
	var cmd tea.Cmd
	m.note, cmd = m.note.Update(msg)
	return m, cmd
}

func (m *Model) setFlash(s string) { m.flash, m.flashError = s, false }
func (m *Model) setError(s string) { m.flash, m.flashError = s, true }

// scaleKeys says which keys label a scale.
func scaleKeys(s judge.Scale) string {
	switch s {
	case judge.Ternary:
		return "0, 5 (= 0.5) or 1"
	case judge.Likert:
		return "1 to 5"
	}
	return "y or n"
}

func formatValue(s judge.Scale, v float64) string { return s.Format(v) }

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
		r.failure = msg.err
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
