package tui

import (
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
	rc := m.layout()[m.focus]
	m.scroll[m.focus] = clampOffset(m.scroll[m.focus], m.paneLenAt(m.focus, rc.w-4), rc.h-2)
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

func (m *Model) setFlash(s string) { m.flash, m.flashError = s, false }
func (m *Model) setError(s string) { m.flash, m.flashError = s, true }
