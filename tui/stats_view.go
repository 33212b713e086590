package tui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/sessions/stats"
	"github.com/gavel-dev/gavel/sessions/stats/render"
)

// statsScreen shows the judge table (every judge and dimension, ranked,
// the active judge's rows highlighted), then the agreement statistics of
// the active judge as `gavel stats --judge` prints them, recomputed after
// each saved label. The figures that count items (the confusion cells,
// the false-pass and false-fail rates) take the focus with tab, and enter
// opens the review on the items behind the one in focus.
type statsScreen struct {
	*workspace
	keys    statsKeys
	width   int
	height  int
	report  *stats.Report
	err     error
	loading bool
	stale   bool // labels changed while computing: compute again
	// refreshAsked: verdicts came and a refresh is on its way
	// (stats_refresh.go).
	refreshAsked bool
	scroll       int
	// focus is the figure in focus, if focused: the nth figure with that
	// target, so that it stays in focus when a new report moves it.
	focus   figureRef
	focused bool
	// reveal scrolls the figure in focus into view at the next frame:
	// set when enter leaves for its items, since coming back starts at
	// the top.
	reveal bool
	// toJudge scrolls, at the next frame, to the part of the judge just
	// switched to when the ranking above it fills the box (many judges
	// at 80×24): judgeChanged.
	toJudge bool
	// cache is the content last drawn: a frame asks for it several
	// times (the view, the hint line, the keys).
	cache statsCache
}

// statsCache keys the content by what it is drawn from.
type statsCache struct {
	valid  bool
	report *stats.Report
	err    error
	act    int
	width  int
	team   int // the team's update count + 1 on a team session
	c      statsContent
}

// statsKeys are the statistics screen's keys.
type statsKeys struct {
	Back key.Binding
	scrollKeys
	Switch     key.Binding
	PrevJudge  key.Binding
	NextJudge  key.Binding
	Figure     key.Binding
	FigureBack key.Binding
	Open       key.Binding
	Report     key.Binding
}

func defaultStatsKeys() statsKeys {
	return statsKeys{
		Back:       key.NewBinding(key.WithKeys("esc", "s"), key.WithHelp("esc/s", "back to review")),
		scrollKeys: defaultScrollKeys(),
		Switch:     key.NewBinding(key.WithKeys("J"), key.WithHelp("J", "the next judge's statistics")),
		PrevJudge:  key.NewBinding(key.WithKeys("left"), key.WithHelp("←", "the previous judge's statistics")),
		NextJudge:  key.NewBinding(key.WithKeys("right"), key.WithHelp("→", "the next judge's statistics")),
		Figure:     key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "the next figure that counts items")),
		FigureBack: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "the previous figure")),
		Open:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "review the items the figure counts")),
		Report:     key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "write the report to send: one HTML file beside the session (gavel report)")),
	}
}

func (s *statsScreen) resize(width, height int) { s.width, s.height = width, height }

func (s *statsScreen) ShortHelp() []key.Binding {
	k := s.keys
	c := s.content(s.inner())
	var out []key.Binding
	if s.focusIndex(c) >= 0 {
		out = append(out, short(k.Open, "open items"))
	}
	if len(c.figures) > 0 {
		out = append(out, short(k.Figure, "figure"))
	}
	if len(s.runs) > 1 {
		out = append(out, relabel(k.NextJudge, "←→", "judge"))
	}
	if s.reportFn != nil {
		out = append(out, short(k.Report, "report"))
	}
	return append(out, short(k.Back, "back"), relabel(k.Down, "↓↑", "scroll"), short(k.PageDown, "page"))
}

func (s *statsScreen) FullHelp() [][]key.Binding {
	k := s.keys
	return [][]key.Binding{
		k.bindings(),
		{k.Figure, k.FigureBack, k.Open},
		{k.Switch, k.PrevJudge, k.NextJudge, k.Report, k.Back},
	}
}

func (s *statsScreen) groups() []string { return []string{"Read", "Figures", "Screens"} }

// inner is the width of the screen's text, inside its box.
func (s *statsScreen) inner() int { return max(s.width-4, 20) }

// rows is how many lines of text the box shows.
func (s *statsScreen) rows() int { return max(s.height-2, 1) }

func (s *statsScreen) update(msg tea.KeyPressMsg) action {
	k := s.keys
	page := max(s.height-3, 1)
	switch {
	case key.Matches(msg, k.Back):
		return action{show: showReview}
	case key.Matches(msg, k.Switch, k.NextJudge):
		s.switchJudge()
		s.judgeChanged()
	case key.Matches(msg, k.PrevJudge):
		s.previousJudge()
		s.judgeChanged()
	case key.Matches(msg, k.Figure):
		s.moveFocus(1)
	case key.Matches(msg, k.FigureBack):
		s.moveFocus(-1)
	case key.Matches(msg, k.Open):
		return s.open()
	case key.Matches(msg, k.Report):
		return action{cmd: s.writeReport()}
	default:
		s.scroll, _ = k.scroll(msg, s.scroll, page)
	}
	s.scroll = clampOffset(s.scroll, len(s.content(s.inner()).lines), s.rows())
	return action{}
}

// judgeChanged starts the new judge's statistics at their top, nothing
// in focus: the ranking of the judges, or, when the ranking leaves no
// room for it, the judge's own part (toJudge).
func (s *statsScreen) judgeChanged() {
	s.scroll = 0
	s.focused = false
	s.toJudge = true
}

// reportMsg says where the report to send was written, or why not.
type reportMsg struct {
	path string
	err  error
}

// writeReport writes the report off the screen's goroutine; a second w
// while it is written is refused.
func (s *statsScreen) writeReport() tea.Cmd {
	if s.reportFn == nil {
		s.refuse("No report can be written from here: run gavel report SESSION.")
		return nil
	}
	if s.refuseBlindReport() {
		return nil
	}
	if s.writing {
		s.refuse("The report is being written…")
		return nil
	}
	s.writing = true
	s.hint("Writing the report…")
	fn := s.reportFn
	return func() tea.Msg {
		path, err := fn()
		return reportMsg{path: path, err: err}
	}
}

func (m *Model) gotReport(msg reportMsg) tea.Cmd {
	m.stats.writing = false
	if msg.err != nil {
		m.fail("The report could not be written: " + SanitizeLine(msg.err.Error()))
		return nil
	}
	m.tell("Report written to " + SanitizeLine(msg.path) + ": one HTML file to open in a browser or send; it loads nothing and runs no script.")
	return nil
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
	m.planStats()
	if s.stale {
		s.stale = false
		return m.computeStats()
	}
	return nil
}

// view draws the statistics screen for the active judge.
func (s *statsScreen) view(width, height int) string {
	c := s.content(max(width-4, 20))
	if s.reveal {
		s.reveal = false
		if k := s.focusIndex(c); k >= 0 {
			s.scrollTo(c.figures[k])
		}
	}
	if s.toJudge {
		s.toJudge = false
		// The part shows when its first lines are in the box; else it
		// starts the box.
		if c.judgeAt > 0 && c.judgeAt+3 > height-2 {
			s.scroll = c.judgeAt
		}
	}
	s.scroll = clampOffset(s.scroll, len(c.lines), height-2)
	title := "Statistics"
	if r := s.run(); r != nil {
		if len(s.runs) > 1 {
			title += fmt.Sprintf(" · judge %d/%d", s.act+1, len(s.runs))
		}
		title += " · " + SanitizeLine(r.name())
	}
	return box(s.styles, title, c.styled(s.styles, s.focusAt(c)), s.scroll, width, height, true)
}

// lines is the screen's content, styled: see content.
func (s *statsScreen) lines(width int) []string {
	c := s.content(width)
	return c.styled(s.styles, s.focusAt(c))
}

// statsContent is what the screen shows: the renderer's lines, and the
// figures among them that count items.
type statsContent struct {
	lines   []render.Line
	figures []figure
	// judgeAt is the line where the active judge's part starts, after
	// the ranking of the judges; 0 when there is none.
	judgeAt int
}

// content is the screen's text at a width: the judge table of the whole
// report (every judge, ranked, the active judge's rows highlighted), then
// the active judge's part of the report, drawn exactly as `gavel stats
// --judge` prints it.
func (s *statsScreen) content(width int) statsContent {
	k := statsCache{valid: true, report: s.report, err: s.err, act: s.act, width: width}
	if s.team != nil {
		k.team = s.team.gen + 1
	}
	if c := s.cache; c.valid && c.report == k.report && c.err == k.err && c.act == k.act && c.width == k.width && c.team == k.team {
		return c.c
	}
	k.c = s.draw(width)
	s.cache = k
	return k.c
}

// draw makes the content; see content. On a team session the team's
// progress comes first (team_stats.go).
func (s *statsScreen) draw(width int) statsContent {
	c := s.drawReport(width)
	if team := s.teamLines(width); len(team) > 0 {
		c.lines = append(append(team, nil), c.lines...)
		c.figures = figures(c.lines)
		if c.judgeAt > 0 {
			c.judgeAt += len(team) + 1
		}
	}
	return c
}

// drawReport makes the report's part of the content.
func (s *statsScreen) drawReport(width int) statsContent {
	note := func(text string) statsContent {
		return statsContent{lines: []render.Line{{{Text: text, Role: render.RoleMuted}}}}
	}
	switch {
	case s.err != nil:
		var c statsContent
		for _, l := range wrapPlain("The statistics could not be computed: "+SanitizeLine(s.err.Error()), width) {
			c.lines = append(c.lines, render.Line{{Text: l}})
		}
		return c
	case s.report == nil && s.statsFn == nil:
		return note("No statistics for this session.")
	case s.report == nil:
		return note("Computing…")
	}
	r := s.run()
	if r == nil {
		return note("No judge in this session.")
	}
	lines := render.JudgeTableLines(*s.report, width, r.key)
	if len(lines) > 0 {
		lines = append(lines, nil)
	}
	judgeAt := len(lines)
	part := render.Select(*s.report, []string{r.key})
	if len(part.Judges) == 0 {
		lines = append(lines, render.Line{{Text: "No figures for this judge yet.", Role: render.RoleMuted}})
	} else {
		lines = append(lines, render.DetailLines(part, width)...)
	}
	return statsContent{lines: lines, figures: figures(lines), judgeAt: judgeAt}
}
