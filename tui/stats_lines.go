package tui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// StatsTextWidth is the width `gavel stats` prints at: the inside of the
// statistics screen in an 80-column terminal, so the text is the screen's
// lines.
const StatsTextWidth = 76

// StatsReportFor keeps the part of a report about the given judges (keys
// as in stats.JudgeReport.Judge): their figures, every judge pair with one
// of them on either side, and the agreement between annotators on the
// dimensions they rate. Nil keys keep every judge. The screen shows the
// active judge's part, and `gavel stats --judge` prints the same part in
// every format.
func StatsReportFor(r stats.Report, keys []string) stats.Report {
	if keys == nil {
		return r
	}
	out := r
	out.Judges = []stats.JudgeReport{}
	out.JudgePairs = []stats.JudgePair{}
	out.Humans = []stats.HumanAgreement{}
	type dim struct {
		name  string
		scale judge.Scale
	}
	rated := map[dim]bool{}
	for _, jr := range r.Judges {
		if slices.Contains(keys, jr.Judge) {
			out.Judges = append(out.Judges, jr)
			for _, d := range jr.Dimensions {
				rated[dim{d.Dimension, d.Scale}] = true
			}
		}
	}
	for _, p := range r.JudgePairs {
		if slices.Contains(keys, p.Judge) || slices.Contains(keys, p.Reference) {
			out.JudgePairs = append(out.JudgePairs, p)
		}
	}
	for _, h := range r.Humans {
		if rated[dim{h.Dimension, h.Scale}] {
			out.Humans = append(out.Humans, h)
		}
	}
	return out
}

// StatsLines renders a whole report as the statistics screen shows it:
// each judge's figures per dimension (StatsDimensionLines), judge against
// judge, agreement between annotators, the report's notes and the
// bootstrap settings. Every line fits in width cells (long ones are
// wrapped). Pass a report cut down with StatsReportFor to show some judges
// only; `gavel stats` prints these lines with PlainStyles.
func StatsLines(st Styles, r stats.Report, width int) []string {
	var out []string
	if len(r.Judges) == 0 {
		out = append(out, st.Muted.Render("No judge in this session yet: run one with `gavel review` or `gavel run`."))
	}
	for _, jr := range r.Judges {
		for _, d := range jr.Dimensions {
			out = append(out, StatsDimensionLines(st, jr.Judge, d, width)...)
			out = append(out, "")
		}
		if len(jr.Extras) > 0 {
			out = append(out, extrasLines(st, jr)...)
			out = append(out, "")
		}
	}
	if len(r.Judges) > 0 {
		out = append(out, judgePairLines(st, r)...)
		out = append(out, "")
		out = append(out, humanLines(st, r.Humans)...)
		out = append(out, "")
	}
	for _, n := range r.Notes {
		out = append(out, st.Warning.Render("note: ")+SanitizeLine(n))
	}
	boot := fmt.Sprintf("Intervals are 95%%: Wilson, or bootstrap with %d resamples and seed %d.", r.Resamples, r.Seed)
	if r.Resamples == 0 {
		boot = "Intervals are 95%: Wilson; the bootstrap is off (biases and corrected rates have none)."
	}
	out = append(out, st.Muted.Render(boot))
	return fitLines(out, width)
}

// StatsDimensionLines renders one judge's figures on one dimension: what
// was judged and labelled, the agreement table (with the ordinal figures
// on ternary and Likert scales), the confusion matrix as a coloured grid,
// the binary classifier figures, judge and human score distributions as
// bars, the corrected pass rate, the figures over the unbiased part when
// the labels were mostly reached through a filter, the judge's flip rates
// and the per-segment table. Lines may be wider than width; StatsLines
// wraps them.
func StatsDimensionLines(st Styles, judgeName string, d stats.DimensionReport, width int) []string {
	f := d.Overall
	a := f.VsHumans
	var out []string
	add := func(s ...string) { out = append(out, s...) }

	add(st.Header.Render(fmt.Sprintf("%s · %s (%s)", SanitizeLine(judgeName), SanitizeLine(d.Dimension), d.Scale)))
	add(coverageLines(st, f)...)
	if w := f.Selection.Warning; w != "" {
		add(st.Warning.Render("⚠ " + SanitizeLine(w)))
	}
	add("")
	add(st.Strong.Render(fmt.Sprintf("Judge vs human  (n = %d)", a.N)))
	if a.N == 0 {
		add(st.Muted.Render("  No item has both an ok verdict and a human label yet: label some items first."))
	} else {
		add(agreementRows(st, d.Scale, a, "human")...)
		add("")
		add(confusionLines(st, d.Scale, a.Confusion, "human", "judge")...)
		if b := a.Binary; b != nil {
			add("")
			add(classifierLines(st, b)...)
		}
		add("")
		add(distributionLines(st, d.Scale, a, width)...)
	}
	if c := f.Corrected; c != nil && c.Judged > 0 {
		add("")
		add(correctedLines(st, c)...)
	}
	if p := f.Selection.UnbiasedPart; p != nil {
		add("")
		add(unbiasedLines(st, d.Scale, f.Selection, p)...)
	}
	add("")
	add(flipLines(st, d)...)
	if len(d.Segments) > 0 {
		add("")
		add(segmentLines(st, d.Scale, d.Segments)...)
	}
	return out
}

func statRow(st Styles, name, value string) string {
	return "  " + st.Muted.Render(padRight(name, 24)) + value
}

// coverageLines says how much was judged and labelled, errors apart.
func coverageLines(st Styles, f stats.Figures) []string {
	j := f.Judging
	out := []string{
		st.Muted.Render(fmt.Sprintf("labelled %d of %d (%s) · judged %d · ok %d · no value %d",
			f.Labelled, f.Units, stats.FormatPercent(f.Coverage.Value, 1), j.Judged, j.OK, j.NoValue)),
		st.Muted.Render(fmt.Sprintf("parse errors %d (%s) · API errors %d (%s), kept out of agreement",
			j.ParseErrors, stats.FormatPercent(j.ParseErrorRate.Value, 1), j.APIErrors, stats.FormatPercent(j.APIErrorRate.Value, 1))),
	}
	if f.HumanTies > 0 {
		out = append(out, st.Muted.Render(fmt.Sprintf("%s with annotators tied on the value: no majority, left out",
			plural(f.HumanTies, "labelled item", "labelled items"))))
	}
	return out
}

// agreementRows is the agreement table of a judge against a reference
// (the humans, or another judge), with the ordinal figures on ordinal
// scales.
func agreementRows(st Styles, scale judge.Scale, a stats.Agreement, ref string) []string {
	row := func(name, value string) string { return statRow(st, name, value) }
	out := []string{
		row("percent agreement", interval(a.PercentAgreement, true)+st.Muted.Render("  Wilson 95%")),
		row("Cohen's kappa", estimate(a.CohenKappa, 3)),
		row("Gwet's AC1", estimate(a.GwetAC1, 3)),
		row("Krippendorff's alpha", estimate(a.AlphaNominal, 3)+st.Muted.Render("  nominal")),
	}
	if o := a.Ordinal; o != nil {
		out = append(out,
			row("alpha ordinal/interval", estimate(o.AlphaOrdinal, 3)+" / "+estimate(o.AlphaInterval, 3)),
			row("weighted kappa", "linear "+estimate(o.LinearKappa, 3)+" · quadratic "+estimate(o.QuadraticKappa, 3)),
			row("Spearman / Kendall τb", estimate(o.Spearman, 3)+" / "+estimate(o.KendallTauB, 3)),
			row("MAE / signed diff.", estimate(o.MeanAbsoluteError, 3)+" / "+signed(o.MeanSignedDifference)+st.Muted.Render("  judge − "+ref)),
			row("within one step", interval(o.WithinOne, true)+st.Muted.Render("  step "+stats.FormatNumber(o.Step, 1))),
		)
	}
	return out
}

// confusionLines draws the confusion matrix: rows the reference, columns
// the judge, cells shaded by their share of n, the diagonal in bold.
func confusionLines(st Styles, scale judge.Scale, c stats.Confusion, rowName, colName string) []string {
	out := []string{st.Strong.Render(fmt.Sprintf("Confusion  (rows: %s, columns: %s)", SanitizeLine(rowName), SanitizeLine(colName)))}
	n := max(c.N(), 1)
	const cw = 7
	head := "  " + strings.Repeat(" ", 10)
	for _, v := range c.Categories {
		head += padLeft(scale.Format(v), cw)
	}
	out = append(out, st.Muted.Render(head))
	prefix := "ref "
	if rowName == "human" {
		prefix = "human "
	}
	for i, hv := range c.Categories {
		line := "  " + st.Muted.Render(padRight(prefix+scale.Format(hv), 10))
		for j := range c.Categories {
			count := c.Counts[i][j]
			cell := st.Cell(float64(count) / float64(n))
			if i == j {
				cell = cell.Inherit(st.Strong)
			}
			line += " " + cell.Render(padLeft(fmt.Sprint(count), cw-1))
		}
		out = append(out, line)
	}
	return out
}

// classifierLines are the binary figures with the human as truth.
func classifierLines(st Styles, b *stats.BinaryAgreement) []string {
	row := func(name, value string) string { return statRow(st, name, value) }
	return []string{
		st.Strong.Render("Judge as a classifier  (human = truth)"),
		row("precision", interval(b.Precision, true)),
		row("recall", interval(b.Recall, true)),
		row("specificity", interval(b.Specificity, true)),
		row("F1 · balanced acc.", estimate(b.F1, 3)+" · "+stats.FormatPercent(b.BalancedAccuracy.Value, 1)),
		row("false-pass rate", interval(b.FalsePassRate, true)+st.Muted.Render("  judge YES, human NO")),
		row("false-fail rate", interval(b.FalseFailRate, true)+st.Muted.Render("  judge NO, human YES")),
	}
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
	full, empty := colored(st.BarFull), colored(st.BarEmpty)
	for i, v := range c.Categories {
		for _, who := range []struct {
			name  string
			count int
		}{{"judge", judgeCount[i]}, {"human", humanCount[i]}} {
			share := float64(who.count) / float64(n)
			fill := int(share*float64(barW) + 0.5)
			bar := full.Render(strings.Repeat("█", fill)) + empty.Render(strings.Repeat("░", barW-fill))
			out = append(out, fmt.Sprintf("  %s %s %s %s", padRight(scale.Format(v), 4), padRight(who.name, 6), bar, stats.FormatPercent(share, 0)))
		}
	}
	what := biasWhat(scale)
	bias := a.ScoreBias
	out = append(out, fmt.Sprintf("  %s: judge %s, human %s, bias %s", what, meanText(scale, a.JudgeMean), meanText(scale, a.ReferenceMean), signedInterval(scale, bias)))
	if bias.Defined() && bias.Value != 0 {
		verb := "inflates"
		if bias.Value < 0 {
			verb = "deflates"
		}
		out = append(out, st.Muted.Render(fmt.Sprintf("  the judge %s the %s", verb, what)))
	}
	return out
}

// correctedLines: the judge's pass rate over every judged item, and what
// a human would say it is.
func correctedLines(st Styles, c *stats.Corrected) []string {
	row := func(name, value string) string { return statRow(st, name, value) }
	return []string{
		st.Strong.Render(fmt.Sprintf("Corrected pass rate over all %d judged items", c.Judged)),
		row("the judge says", interval(c.ObservedPassRate, true)),
		row("a human would say", interval(c.PassRate, true)+st.Muted.Render("  Rogan–Gladen, bootstrap 95%")),
		row("from", "sensitivity "+estimatePercent(c.Sensitivity)+" · specificity "+estimatePercent(c.Specificity)),
	}
}

func estimatePercent(e stats.Estimate) string {
	if !e.Defined() {
		return stats.Undefined + reason(e.Reason)
	}
	return stats.FormatPercent(e.Value, 1)
}

// unbiasedLines shows the figures over the labelled items reached in
// order or at random alone: the ones that stand for the whole dataset.
func unbiasedLines(st Styles, scale judge.Scale, sel stats.Selection, p *stats.UnbiasedPart) []string {
	row := func(name, value string) string { return statRow(st, name, value) }
	a := p.VsHumans
	out := []string{
		st.Strong.Render(fmt.Sprintf("Unbiased part  (%s reached in order or at random; n = %d)", plural(sel.Unbiased, "labelled item", "labelled items"), a.N)),
		st.Muted.Render(fmt.Sprintf("  labels reached by %s (%s of items filtered)", provenanceText(sel.ByProvenance), stats.FormatPercent(sel.FilteredShare.Value, 0))),
	}
	if a.N == 0 {
		return append(out, st.Muted.Render("  No unbiased item has both an ok verdict and a label: label some in order (or at random) first."))
	}
	out = append(out,
		row("percent agreement", interval(a.PercentAgreement, true)),
		row("Cohen's kappa", estimate(a.CohenKappa, 3)),
		row("Gwet's AC1", estimate(a.GwetAC1, 3)),
	)
	if o := a.Ordinal; o != nil {
		out = append(out,
			row("quadratic kappa", estimate(o.QuadraticKappa, 3)),
			row("MAE / signed diff.", estimate(o.MeanAbsoluteError, 3)+" / "+signed(o.MeanSignedDifference)),
		)
	}
	if b := a.Binary; b != nil {
		out = append(out,
			row("false-pass rate", interval(b.FalsePassRate, true)),
			row("false-fail rate", interval(b.FalseFailRate, true)),
		)
	}
	out = append(out, row(biasWhat(scale)+" bias", signedInterval(scale, a.ScoreBias)))
	if c := p.Corrected; c != nil && c.Judged > 0 {
		out = append(out, row("corrected pass rate", interval(c.PassRate, true)))
	}
	return out
}

// provenanceText lists label counts by how the items were reached.
func provenanceText(by map[string]int) string {
	if len(by) == 0 {
		return stats.Undefined
	}
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", SanitizeLine(k), by[k])
	}
	return strings.Join(parts, ", ")
}

// flipLines: how often the judge disagreed with itself.
func flipLines(st Styles, d stats.DimensionReport) []string {
	row := func(name, value string) string { return statRow(st, name, value) }
	flip := func(f stats.Flips, what string) string {
		if f.Units == 0 {
			return interval(f.Rate, true)
		}
		return fmt.Sprintf("%s  (%d of %s)", interval(f.Rate, true), f.Flipped, plural(f.Units, what, what+"s"))
	}
	return []string{
		st.Strong.Render("Consistency  (flip rate: the judge changed its value)"),
		row("across re-judges", flip(d.Rejudges, "re-judged item")),
		row("across samples", flip(d.Samples, "sampled verdict")),
	}
}

// segmentLines is the per-segment table.
func segmentLines(st Styles, scale judge.Scale, segs []stats.SegmentFigures) []string {
	out := []string{st.Strong.Render("By segment")}
	out = append(out, st.Muted.Render(fmt.Sprintf("  %-22s %6s %8s %6s %9s %7s %10s", "segment", "items", "labelled", "n", "agreement", "kappa", "bias")))
	for _, s := range segs {
		f := s.Figures
		a := f.VsHumans
		bias := stats.Undefined
		if a.ScoreBias.Defined() {
			f, unit := signedPart(scale)
			bias = f(a.ScoreBias.Value) + unit
		}
		out = append(out, fmt.Sprintf("  %s %6d %8d %6d %9s %7s %10s", fixWidth(segmentName(s), 22), f.Units, f.Labelled, a.N,
			stats.FormatPercent(a.PercentAgreement.Value, 0), stats.FormatNumber(a.CohenKappa.Value, 2), bias))
	}
	return out
}

// segmentName is "field=value", or "field (none)" for units without the
// field.
func segmentName(s stats.SegmentFigures) string {
	if s.Value == "" {
		return SanitizeLine(s.Field) + " (none)"
	}
	return SanitizeLine(s.Field + "=" + s.Value)
}

// extrasLines counts what a judge reported beside its verdicts: bbh's
// error types and reasoning scores, the match judge's rules.
func extrasLines(st Styles, jr stats.JudgeReport) []string {
	out := []string{st.Strong.Render(fmt.Sprintf("What %s reported beside its verdicts", SanitizeLine(jr.Judge)))}
	for _, e := range jr.Extras {
		out = append(out, "  "+st.Muted.Render(padRight(SanitizeLine(e.Field), 22))+SanitizeLine(extraCounts(e)))
	}
	return out
}

// extraCounts is "none 40 · wrong_logic 12 · hallucination 3".
func extraCounts(e stats.ExtraField) string {
	parts := make([]string, len(e.Values))
	for i, v := range e.Values {
		parts[i] = fmt.Sprintf("%s %d", v.Value, v.Count)
	}
	return strings.Join(parts, " · ")
}
