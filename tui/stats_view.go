package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/sessions/stats"
	"github.com/gavel-dev/gavel/sessions/stats/render"
)

// statsMsg carries a freshly computed report.
type statsMsg struct {
	report stats.Report
	err    error
}

// statsState is the statistics screen: the last report and where the
// screen is scrolled to.
type statsState struct {
	report  *stats.Report
	err     error
	loading bool
	stale   bool // labels changed while computing: compute again
	scroll  int
}

// computeStats asks for a fresh report. The statistics are computed from
// the session file, off the screen's goroutine, exactly as `gavel stats`
// computes them, so the two always agree.
func (m *Model) computeStats() tea.Cmd {
	if m.statsFn == nil {
		return nil
	}
	if m.stats.loading {
		m.stats.stale = true
		return nil
	}
	m.stats.loading = true
	fn := m.statsFn
	return func() tea.Msg {
		r, err := fn()
		return statsMsg{report: r, err: err}
	}
}

func (m *Model) gotStats(msg statsMsg) tea.Cmd {
	m.stats.loading = false
	m.stats.report, m.stats.err = &msg.report, msg.err
	if msg.err != nil {
		m.stats.report = nil
	}
	if m.stats.stale {
		m.stats.stale = false
		return m.computeStats()
	}
	return nil
}

// statsView draws the statistics screen for the active judge.
func (m *Model) statsView(width, height int) string {
	lines := m.statsLines(max(width-4, 20))
	m.stats.scroll = clampOffset(m.stats.scroll, len(lines), height-2)
	return box(m.styles, "Statistics", lines, m.stats.scroll, width, height, true)
}

// statsLines is the screen's content: the active judge's part of the
// report, drawn by StatsLines exactly as `gavel stats --judge` prints it.
func (m *Model) statsLines(width int) []string {
	st := m.styles
	switch {
	case m.stats.err != nil:
		return fitLines([]string{st.Error.Render("The statistics could not be computed: " + SanitizeLine(m.stats.err.Error()))}, width)
	case m.stats.report == nil:
		return []string{st.Muted.Render("Computing…")}
	}
	r := m.run()
	if r == nil {
		return []string{st.Muted.Render("No judge in this session.")}
	}
	part := render.Select(*m.stats.report, []string{r.key})
	if len(part.Judges) == 0 {
		return []string{st.Muted.Render("No figures for this judge yet.")}
	}
	return styledStatsLines(st, part, width)
}
