package tui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Update routes a message to the part of the screen that owns it. The
// model is a pointer: whatever a screen, a dialog or a message changes is
// changed once, in the one model the program holds.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.route(msg)
	m.review.follow()
	// The item on display may have changed: its verdicts' details are
	// read off the loop (verdict_details.go).
	if read := m.wantDetails(); read != nil {
		cmd = tea.Batch(cmd, read)
	}
	// The filter and order in force follow a switch of judges, however
	// the switch was asked (J, the statistics, the comparison).
	if m.judgeMoved {
		m.judgeMoved = false
		cmd = tea.Batch(cmd, m.reselectForJudge())
	}
	// Another judge's tally is derived a step at a time (tally.go).
	if step := m.wantTally(); step != nil {
		cmd = tea.Batch(cmd, step)
	}
	return m, cmd
}

func (m *Model) route(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		body := max(msg.Height-chromeRows, 0)
		m.review.resize(msg.Width, body)
		m.list.resize(msg.Width, body)
		m.stats.resize(msg.Width, body)
		m.compare.resize(msg.Width, body)
		m.review.cache.clear()
		return nil
	case tea.BackgroundColorMsg:
		m.styles = NewStyles(msg.IsDark())
		m.review.cache.clear()
		return nil
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.PasteMsg:
		if d := m.top(); d != nil {
			cmd, _ := d.update(msg)
			return cmd
		}
		return nil
	case batchMsg:
		return m.applyBatch(msg)
	case othersMsg:
		return m.gotOthers(msg)
	case statsRefreshMsg:
		return m.refreshStats()
	case savedMsg:
		cmd := m.saved(msg)
		if m.screen == screenStats && len(msg.done) > 0 {
			cmd = tea.Batch(cmd, m.computeStats())
		}
		if len(msg.done) > 0 {
			cmd = tea.Batch(cmd, m.labelsChanged(), m.judgeNewLabels(msg.done), m.queueSaved(msg.done))
		}
		return cmd
	case teamMsg:
		return m.gotTeam(msg)
	case TeamUpdate:
		return m.applyTeam(msg)
	case claimedMsg:
		return m.gotClaimed(msg)
	case retrySaveMsg:
		return m.flush()
	case waitQuitMsg, keepLabellingMsg, quitAnywayMsg:
		return m.answerUnsaved(msg)
	case healthMsg:
		return m.gotHealth(msg)
	case statsMsg:
		return m.gotStats(msg)
	case planReadMsg:
		return m.gotPlan(msg)
	case reportMsg:
		return m.gotReport(msg)
	case cancelledMsg:
		m.hint("Cancelled.")
		return nil
	case rejudgeMsg:
		return m.rejudgeStarted(msg)
	case tallyStepMsg:
		m.tallyStep()
		return nil
	case rejudgeAllMsg:
		return m.askRejudgeAllOf(msg)
	case rejudgeTasksMsg:
		return m.startRejudge(msg.run, msg.tasks, msg.what)
	case loadedMsg:
		return m.runLoaded(msg)
	case itemsMsg:
		return m.gotItems(msg)
	case detailsMsg:
		return m.gotDetails(msg)
	case checkMsg:
		return m.gotCheck(msg)
	case storeMsg:
		return m.gotStore(msg)
	case noteMsg:
		return m.saveNote(msg)
	case pickedMsg:
		return m.review.picked(msg)
	case cantJudgeMsg:
		return m.review.cantJudge(msg)
	case tagMsg:
		return m.toggleTag(msg)
	case searchQueryMsg:
		return m.startSearch(msg.query)
	case searchResultMsg:
		return m.searchResult(msg)
	case selectStepMsg:
		return m.selectStep(msg.gen)
	case editFileMsg:
		return m.gotEditFile(msg)
	case editorDoneMsg:
		return m.editorDone(msg)
	case editReadMsg:
		return m.editRead(msg)
	case variantMsg:
		return m.gotVariant(msg)
	case editAgainMsg:
		return m.editAgain()
	case discardEditMsg:
		m.discardEdit()
		return nil
	case variantStartMsg:
		return m.startVariant(msg)
	case variantStartedMsg:
		return m.variantStarted(msg)
	case compareMsg:
		return m.gotCompare(msg)
	case rejudgeCostMsg:
		msg.d.gotCost(msg)
		return nil
	case selectOrderedMsg:
		cmd := m.selectOrdered(msg)
		m.list.cursor = m.sel.pos
		return cmd
	}
	return nil
}

// key sends a key press to quit, then the top dialog, then the keys every
// screen shares, then the screen on display.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	if msg.String() == "ctrl+c" {
		return m.quit()
	}
	if d := m.top(); d != nil {
		cmd, done := d.update(msg)
		if done {
			m.closeDialog()
		}
		return cmd
	}
	m.log.flash = ""
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.openDialog(newHelpDialog(m.current(), k, m.about))
		return nil
	case key.Matches(msg, k.Log):
		m.openDialog(newLogDialog(&m.log, m.retestID()))
		return nil
	case m.waitForItems(msg):
		return nil
	}
	return m.do(m.current().update(msg))
}

// do carries out what a screen asked for after a key.
func (m *Model) do(a action) tea.Cmd {
	if a.open != nil {
		m.openDialog(a.open)
	}
	var cmd tea.Cmd
	switch a.show {
	case showReview:
		m.screen = screenReview
	case showList:
		m.screen = screenList
		m.list.cursor = m.sel.pos
	case showStats:
		m.screen = screenStats
		m.stats.scroll = 0
		cmd = m.computeStats()
	case showCompare:
		m.screen = screenCompare
		m.compare.scroll = 0
		if v := m.compare.variant(); v != nil && v.finished {
			cmd = m.computeCompare(v)
		}
	}
	return tea.Batch(a.cmd, cmd)
}

// quit leaves once every action on screen is committed.
func (m *Model) quit() tea.Cmd {
	// Nothing queued, or no session will ever take it (a new session
	// whose write failed: the caller reports the labels not saved).
	if !m.save.inflight && (len(m.save.queue) == 0 || (m.store == nil && m.waitStore == nil)) {
		return tea.Quit
	}
	if m.save.err != nil && !m.building() {
		// Saving fails: ask before losing anything (unsaved_dialog.go).
		// Asked again (ctrl+c with the question open), it quits anyway.
		if m.unsavedOpen() != nil && m.top() == m.unsavedOpen() {
			return m.answerUnsaved(quitAnywayMsg{})
		}
		m.askUnsaved()
		return nil
	}
	m.quitting = true
	if m.building() {
		// The wait is the session's write (a minute at a million
		// labelled rows), not the labels'.
		n, _ := m.Unsaved()
		m.hint(fmt.Sprintf("Quitting once the session is written and your %s saved…", plural(n, "decision", "decisions")))
		return nil
	}
	m.hint("Saving your last labels before quitting…")
	return m.flush()
}
