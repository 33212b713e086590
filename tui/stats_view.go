package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/sessions/stats"
	"github.com/gavel-dev/gavel/sessions/stats/render"
)

// statsScreen shows the agreement statistics of the active judge, as
// `gavel stats --judge` prints them, recomputed after each saved label.
type statsScreen struct {
	*workspace
	keys    statsKeys
	width   int
	height  int
	report  *stats.Report
	err     error
	loading bool
	stale   bool // labels changed while computing: compute again
	scroll  int
}

// statsKeys are the statistics screen's keys.
type statsKeys struct {
	Back     key.Binding
	Down     key.Binding
	Up       key.Binding
	PageDown key.Binding
	PageUp   key.Binding
	Top      key.Binding
	Bottom   key.Binding
	Switch   key.Binding
}

func defaultStatsKeys() statsKeys {
	return statsKeys{
		Back:     key.NewBinding(key.WithKeys("esc", "s"), key.WithHelp("esc/s", "back to review")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll down")),
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+d", "space"), key.WithHelp("pgdn", "page down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home/g", "top")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end/G", "end")),
		Switch:   key.NewBinding(key.WithKeys("J"), key.WithHelp("J", "the next judge's statistics")),
	}
}

func (s *statsScreen) resize(width, height int) { s.width, s.height = width, height }

func (s *statsScreen) ShortHelp() []key.Binding {
	k := s.keys
	out := []key.Binding{short(k.Back, "back"), relabel(k.Down, "↓↑", "scroll"), short(k.PageDown, "page")}
	if len(s.runs) > 1 {
		out = append(out, short(k.Switch, "next judge"))
	}
	return out
}

func (s *statsScreen) FullHelp() [][]key.Binding {
	k := s.keys
	return [][]key.Binding{{k.Down, k.Up, k.PageDown, k.PageUp, k.Top, k.Bottom}, {k.Switch, k.Back}}
}

func (s *statsScreen) groups() []string { return []string{"Read", "Screens"} }

func (s *statsScreen) update(msg tea.KeyPressMsg) action {
	k := s.keys
	page := max(s.height-3, 1)
	switch {
	case key.Matches(msg, k.Back):
		return action{show: showReview}
	case key.Matches(msg, k.Switch):
		s.switchJudge()
		s.scroll = 0
	case key.Matches(msg, k.Down):
		s.scroll++
	case key.Matches(msg, k.Up):
		s.scroll = max(s.scroll-1, 0)
	case key.Matches(msg, k.PageDown):
		s.scroll += page
	case key.Matches(msg, k.PageUp):
		s.scroll = max(s.scroll-page, 0)
	case key.Matches(msg, k.Top):
		s.scroll = 0
	case key.Matches(msg, k.Bottom):
		s.scroll = endOfPane
	}
	s.scroll = clampOffset(s.scroll, len(s.lines(max(s.width-4, 20))), s.height-2)
	return action{}
}

// statsMsg carries a freshly computed report.
type statsMsg struct {
	report stats.Report
	err    error
}

// computeStats asks for a fresh report. The statistics are computed from
// the session file, off the screen's goroutine, exactly as `gavel stats`
// computes them, so the two always agree.
func (m *Model) computeStats() tea.Cmd {
	s := m.stats
	if s.statsFn == nil {
		return nil
	}
	if s.loading {
		s.stale = true
		return nil
	}
	s.loading = true
	fn := s.statsFn
	return func() tea.Msg {
		r, err := fn()
		return statsMsg{report: r, err: err}
	}
}

func (m *Model) gotStats(msg statsMsg) tea.Cmd {
	s := m.stats
	s.loading = false
	s.report, s.err = &msg.report, msg.err
	if msg.err != nil {
		s.report = nil
		m.fail("The statistics could not be computed: " + SanitizeLine(msg.err.Error()))
	}
	if s.stale {
		s.stale = false
		return m.computeStats()
	}
	return nil
}

// view draws the statistics screen for the active judge.
func (s *statsScreen) view(width, height int) string {
	lines := s.lines(max(width-4, 20))
	s.scroll = clampOffset(s.scroll, len(lines), height-2)
	title := "Statistics"
	if r := s.run(); r != nil {
		title += " · " + SanitizeLine(r.name())
	}
	return box(s.styles, title, lines, s.scroll, width, height, true)
}

// lines is the screen's content: the active judge's part of the report,
// drawn exactly as `gavel stats --judge` prints it.
func (s *statsScreen) lines(width int) []string {
	st := s.styles
	switch {
	case s.err != nil:
		return wrapPlain("The statistics could not be computed: "+SanitizeLine(s.err.Error()), width)
	case s.report == nil && s.statsFn == nil:
		return []string{st.Muted.Render("No statistics for this session.")}
	case s.report == nil:
		return []string{st.Muted.Render("Computing…")}
	}
	r := s.run()
	if r == nil {
		return []string{st.Muted.Render("No judge in this session.")}
	}
	part := render.Select(*s.report, []string{r.key})
	if len(part.Judges) == 0 {
		return []string{st.Muted.Render("No figures for this judge yet.")}
	}
	return styledStatsLines(st, part, width)
}
