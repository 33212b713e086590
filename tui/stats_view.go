package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// statsMsg carries a freshly computed report.
type statsMsg struct {
	report stats.Report
	err    error
}

// statsState is the statistics screen: the last report and where the
// screen is scrolled to.
type statsState struct {
	report   *stats.Report
	err      error
	loading  bool
	stale    bool // labels changed while computing: compute again
	scroll   int
	segments bool
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

func (m *Model) statsLines(width int) []string {
	st := m.styles
	switch {
	case m.stats.err != nil:
		return []string{st.Error.Render("The statistics could not be computed: " + SanitizeLine(m.stats.err.Error()))}
	case m.stats.report == nil:
		return []string{st.Muted.Render("Computing…")}
	}
	r := m.run()
	if r == nil {
		return []string{st.Muted.Render("No judge in this session.")}
	}
	var jr *stats.JudgeReport
	for i := range m.stats.report.Judges {
		if m.stats.report.Judges[i].Judge == r.key {
			jr = &m.stats.report.Judges[i]
		}
	}
	if jr == nil {
		return []string{st.Muted.Render("No figures for this judge yet.")}
	}
	var out []string
	for _, d := range jr.Dimensions {
		out = append(out, StatsDimensionLines(st, jr.Judge, d, width)...)
		out = append(out, "")
	}
	for _, n := range m.stats.report.Notes {
		out = append(out, st.Warning.Render("note: ")+SanitizeLine(n))
	}
	return out
}

// StatsDimensionLines renders one judge's figures on one dimension: the
// agreement table, the confusion matrix as a coloured grid, the binary
// classifier figures, judge and human score distributions as bars, the
// corrected pass rate and the per-segment table. `gavel stats` prints the
// same lines without colour.
func StatsDimensionLines(st Styles, judgeName string, d stats.DimensionReport, width int) []string {
	f := d.Overall
	a := f.VsHumans
	var out []string
	add := func(s ...string) { out = append(out, s...) }
	row := func(name, value string) string {
		return "  " + st.Muted.Render(padRight(name, 22)) + value
	}

	add(st.Header.Render(fmt.Sprintf("%s · %s (%s)", SanitizeLine(judgeName), SanitizeLine(d.Dimension), d.Scale)))
	add(st.Muted.Render(fmt.Sprintf("labelled %d of %d (%s) · judged %d · parse errors %d (%s) · API errors %d (%s)",
		f.Labelled, f.Units, stats.FormatPercent(f.Coverage.Value, 1), f.Judging.Judged,
		f.Judging.ParseErrors, stats.FormatPercent(f.Judging.ParseErrorRate.Value, 1),
		f.Judging.APIErrors, stats.FormatPercent(f.Judging.APIErrorRate.Value, 1))))
	if w := f.Selection.Warning; w != "" {
		add(st.Warning.Render("⚠ " + SanitizeLine(w)))
	}
	add("")
	add(st.Strong.Render(fmt.Sprintf("Judge vs human  (n = %d)", a.N)))
	if a.N == 0 {
		add(st.Muted.Render("  No item has both an ok verdict and a label yet: label some items first."))
		return out
	}
	add(row("percent agreement", interval(a.PercentAgreement, true)+st.Muted.Render("  Wilson 95%")))
	add(row("Cohen's kappa", estimate(a.CohenKappa, 3)))
	add(row("Gwet's AC1", estimate(a.GwetAC1, 3)))
	add(row("Krippendorff's alpha", estimate(a.AlphaNominal, 3)+st.Muted.Render("  nominal")))
	if o := a.Ordinal; o != nil {
		add(row("alpha ordinal/interval", estimate(o.AlphaOrdinal, 3)+" / "+estimate(o.AlphaInterval, 3)))
		add(row("weighted kappa", "linear "+estimate(o.LinearKappa, 3)+" · quadratic "+estimate(o.QuadraticKappa, 3)))
		add(row("Spearman / Kendall τb", estimate(o.Spearman, 3)+" / "+estimate(o.KendallTauB, 3)))
		add(row("MAE / signed diff.", estimate(o.MeanAbsoluteError, 3)+" / "+signed(o.MeanSignedDifference)))
		add(row("within one step", interval(o.WithinOne, true)))
	}
	add("")
	add(confusionLines(st, d.Scale, a.Confusion)...)
	if b := a.Binary; b != nil {
		add("")
		add(st.Strong.Render("Judge as a classifier  (human = truth)"))
		add(row("precision", interval(b.Precision, true)))
		add(row("recall", interval(b.Recall, true)))
		add(row("specificity", interval(b.Specificity, true)))
		add(row("F1 · balanced acc.", estimate(b.F1, 3)+" · "+stats.FormatPercent(b.BalancedAccuracy.Value, 1)))
		add(row("false-pass rate", interval(b.FalsePassRate, true)+st.Muted.Render("  lenient: YES where you said NO")))
		add(row("false-fail rate", interval(b.FalseFailRate, true)+st.Muted.Render("  harsh: NO where you said YES")))
	}
	add("")
	add(distributionLines(st, d.Scale, a, width)...)
	if c := f.Corrected; c != nil && c.Judged > 0 {
		add("")
		add(st.Strong.Render(fmt.Sprintf("Corrected pass rate over all %d judged items", c.Judged)))
		add(row("the judge says", interval(c.ObservedPassRate, true)))
		add(row("a human would say", interval(c.PassRate, true)+st.Muted.Render("  Rogan–Gladen, bootstrap 95%")))
	}
	if len(d.Segments) > 0 {
		add("")
		add(segmentLines(st, d.Segments)...)
	}
	return out
}

// confusionLines draws the confusion matrix: rows the human, columns the
// judge, cells shaded by their share of n, the diagonal in bold.
func confusionLines(st Styles, scale judge.Scale, c stats.Confusion) []string {
	out := []string{st.Strong.Render("Confusion  (rows: human, columns: judge)")}
	n := max(c.N(), 1)
	const cw = 7
	head := "  " + strings.Repeat(" ", 10)
	for _, v := range c.Categories {
		head += padLeft(scale.Format(v), cw)
	}
	out = append(out, st.Muted.Render(head))
	for i, hv := range c.Categories {
		line := "  " + st.Muted.Render(padRight("human "+scale.Format(hv), 10))
		for j := range c.Categories {
			count := c.Counts[i][j]
			cell := st.Cell(float64(count) / float64(n))
			if i == j {
				cell = cell.Bold(true)
			}
			line += " " + cell.Render(padLeft(fmt.Sprint(count), cw-1))
		}
		out = append(out, line)
	}
	return out
}

// distributionLines shows how often judge and human gave each value, as
// bars, and the score bias between them.
func distributionLines(st Styles, scale judge.Scale, a stats.Agreement, width int) []string {
	c := a.Confusion
	k := len(c.Categories)
	judgeCount, humanCount := make([]int, k), make([]int, k)
	for i := range k {
		for j := range k {
			humanCount[i] += c.Counts[i][j]
			judgeCount[j] += c.Counts[i][j]
		}
	}
	n := max(c.N(), 1)
	barW := max(min(width-34, 30), 5)
	out := []string{st.Strong.Render("Scores on the items both rated")}
	for i, v := range c.Categories {
		for _, who := range []struct {
			name  string
			count int
		}{{"judge", judgeCount[i]}, {"human", humanCount[i]}} {
			share := float64(who.count) / float64(n)
			fill := int(share*float64(barW) + 0.5)
			bar := lipgloss.NewStyle().Foreground(st.BarFull).Render(strings.Repeat("█", fill)) +
				lipgloss.NewStyle().Foreground(st.BarEmpty).Render(strings.Repeat("░", barW-fill))
			out = append(out, fmt.Sprintf("  %s %s %s %s", padRight(scale.Format(v), 4), padRight(who.name, 6), bar, stats.FormatPercent(share, 0)))
		}
	}
	what := "pass rate"
	if scale != judge.Binary {
		what = "mean score"
	}
	bias := a.ScoreBias
	line := fmt.Sprintf("  %s: judge %s, human %s, bias %s", what, meanText(scale, a.JudgeMean), meanText(scale, a.ReferenceMean), signedInterval(scale, bias))
	out = append(out, line)
	if bias.Defined() && bias.Value != 0 {
		verb := "inflates"
		if bias.Value < 0 {
			verb = "deflates"
		}
		out = append(out, st.Muted.Render(fmt.Sprintf("  the judge %s the %s", verb, what)))
	}
	return out
}

func segmentLines(st Styles, segs []stats.SegmentFigures) []string {
	out := []string{st.Strong.Render("By segment")}
	out = append(out, st.Muted.Render(fmt.Sprintf("  %-24s %6s %9s %10s %8s", "segment", "items", "labelled", "agreement", "kappa")))
	for _, s := range segs {
		name := SanitizeLine(s.Field + "=" + s.Value)
		if s.Value == "" {
			name = SanitizeLine(s.Field) + " (none)"
		}
		f := s.Figures
		out = append(out, fmt.Sprintf("  %s %6d %9d %10s %8s", padRight(ansi.Truncate(name, 24, "…"), 24), f.Units, f.Labelled,
			stats.FormatPercent(f.VsHumans.PercentAgreement.Value, 0), stats.FormatNumber(f.VsHumans.CohenKappa.Value, 2)))
	}
	return out
}

// estimate renders a figure, or "—" with its reason.
func estimate(e stats.Estimate, decimals int) string {
	if !e.Defined() {
		return stats.Undefined + reason(e.Reason)
	}
	return stats.FormatNumber(e.Value, decimals)
}

// interval renders "72.0% [65.1%, 78.2%]" (or plain numbers), or "—".
func interval(i stats.Interval, percent bool) string {
	f := func(v float64) string {
		if percent {
			return stats.FormatPercent(v, 1)
		}
		return stats.FormatNumber(v, 3)
	}
	if !i.Defined() {
		return stats.Undefined + reason(i.Reason)
	}
	s := f(i.Value)
	if i.HasBounds() {
		s += fmt.Sprintf(" [%s, %s]", f(i.Low), f(i.High))
	}
	return s
}

func meanText(scale judge.Scale, e stats.Estimate) string {
	if scale == judge.Binary {
		return stats.FormatPercent(e.Value, 1)
	}
	return stats.FormatNumber(e.Value, 2)
}

// signedInterval renders a difference with its sign: percentage points on
// a binary scale, scale points otherwise.
func signedInterval(scale judge.Scale, i stats.Interval) string {
	if !i.Defined() {
		return stats.Undefined + reason(i.Reason)
	}
	f := func(v float64) string { return signedNumber(v, 2) }
	unit := ""
	if scale == judge.Binary {
		f = func(v float64) string { return signedNumber(100*v, 1) }
		unit = " pts"
	}
	s := f(i.Value) + unit
	if i.HasBounds() {
		s += fmt.Sprintf(" [%s, %s]", f(i.Low), f(i.High))
	}
	return s
}

func signed(e stats.Estimate) string {
	if !e.Defined() {
		return stats.Undefined + reason(e.Reason)
	}
	return signedNumber(e.Value, 3)
}

func signedNumber(v float64, decimals int) string {
	s := stats.FormatNumber(v, decimals)
	if v > 0 && s != stats.FormatNumber(0, decimals) {
		return "+" + s
	}
	return s
}

func reason(r string) string {
	if r == "" {
		return ""
	}
	return " (" + r + ")"
}

func padLeft(s string, n int) string {
	if w := ansi.StringWidth(s); w < n {
		return strings.Repeat(" ", n-w) + s
	}
	return s
}
