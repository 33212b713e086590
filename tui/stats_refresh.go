package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// While a judge works, the statistics screen computes its figures again
// every statsRefreshEvery, so that they follow the verdicts as they come
// (the judge table, agreement, the confusion): a fresh report for every
// batch would keep a core busy at 100,000 items (0.3 s a report), and
// none until the judge ends left the screen stale for the whole run.
const statsRefreshEvery = 2 * time.Second

// statsRefreshMsg asks for the statistics again, after verdicts came.
type statsRefreshMsg struct{}

// verdictsCame is applyBatch's part: on the statistics screen, a refresh
// is asked statsRefreshEvery after the first batch since the last one.
func (m *Model) verdictsCame() tea.Cmd {
	if m.screen != screenStats || m.stats.refreshAsked {
		return nil
	}
	m.stats.refreshAsked = true
	return tea.Tick(statsRefreshEvery, func(time.Time) tea.Msg { return statsRefreshMsg{} })
}

// refreshStats computes the figures again if the statistics are still on
// screen.
func (m *Model) refreshStats() tea.Cmd {
	m.stats.refreshAsked = false
	if m.screen != screenStats {
		return nil
	}
	return m.computeStats()
}
