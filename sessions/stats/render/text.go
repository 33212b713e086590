package render

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"

	"github.com/gavel-dev/gavel/sessions/safetext"
)

// Text is a report as `gavel stats --format text` prints it: Lines at
// TextWidth, without roles, one per line of output.
func Text(r stats.Report) string { return TextAt(r, TextWidth) }

// TextAt is Text wrapped at width cells (a terminal's width).
func TextAt(r stats.Report, width int) string {
	var b strings.Builder
	for _, l := range Lines(r, width) {
		b.WriteString(l.Plain())
		b.WriteByte('\n')
	}
	return b.String()
}

// Lines renders a whole report as the statistics screen shows it: the
// judge table first, then DetailLines. Every line fits in width cells
// (long ones are wrapped). Pass a report cut down with Select to show
// some judges only.
func Lines(r stats.Report, width int) []Line {
	var out []Line
	if t := JudgeTableLines(r, width, ""); len(t) > 0 {
		out = append(append(out, t...), nil)
	}
	return append(out, DetailLines(r, width)...)
}

// DetailLines is everything but the judge table: each judge's figures per
// dimension, judge against judge, agreement between annotators, how
// people labelled (guidelines, "can't judge", tags, each annotator's
// reliability), the report's notes and how the intervals were made.
func DetailLines(r stats.Report, width int) []Line {
	var out []Line
	if len(r.Judges) == 0 {
		out = append(out, text(RoleMuted, "No judge in this session yet: run one with `gavel review` or `gavel run`."), nil)
	}
	parseFail := r.ParseErrors == "fail"
	includeTrunc := r.Truncated == "include"
	for _, jr := range r.Judges {
		for _, d := range jr.Dimensions {
			out = append(out, dimensionLines(jr.Judge, d, width, parseFail, includeTrunc)...)
			out = append(out, nil)
		}
		if len(jr.Extras) > 0 {
			out = append(out, extrasLines(jr)...)
			out = append(out, nil)
		}
	}
	out = append(out, gradedLines(r)...)
	if len(r.Judges) > 0 {
		out = append(out, judgePairLines(r)...)
		out = append(out, nil)
	}
	if len(r.Humans) > 0 {
		out = append(out, humanLines(r.Humans, len(r.Judges) > 0)...)
		out = append(out, nil)
	}
	if ll := labellingLines(r.Labelling); len(ll) > 0 {
		out = append(append(out, ll...), nil)
	}
	out = withPlan(out, r.Plan)
	for _, n := range r.Notes {
		out = append(out, Line{{Text: "note: ", Role: RoleWarning}, plain(safetext.SanitizeLine(n))})
	}
	out = append(out, text(RoleMuted, intervalsNote(r)))
	return fit(out, width)
}

// intervalsNote says how the report's intervals were made.
func intervalsNote(r stats.Report) string {
	if r.Resamples == 0 {
		return "Intervals are 95%: Wilson for rates, normal for PPI; the bootstrap is off (coefficients, biases and corrected rates have none)."
	}
	return fmt.Sprintf("Intervals are 95%%: Wilson for rates, normal for PPI, otherwise an item bootstrap with %d resamples and seed %d.", r.Resamples, r.Seed)
}

// dimensionLines renders one judge's figures on one dimension: what was
// judged and labelled, the agreement table (with the ordinal figures on
// ordinal scales), the confusion matrix as a shaded grid, the binary
// classifier figures, the per-category table on nominal and pairwise
// scales, judge and human distributions as bars, the corrected pass rate,
// the figures over the unbiased part when the labels were mostly reached
// through a filter, the judge's flip rates, the swap audit of a pairwise
// judge and the per-segment table. Values are the scale's names (YES,
// tie, CORRECT), never their codes. Lines may be wider than width; Lines
// wraps them.
func dimensionLines(judgeName string, d stats.DimensionReport, width int, parseFail, includeTrunc bool) []Line {
	f := d.Overall
	a := f.VsHumans
	var out []Line
	add := func(l ...Line) { out = append(out, l...) }
	target := func(human, verdict float64) *Target {
		return &Target{Judge: judgeName, Dimension: d.Dimension, Human: human, Verdict: verdict}
	}

	add(text(RoleHeader, fmt.Sprintf("%s · %s (%s)", safetext.SanitizeLine(judgeName), safetext.SanitizeLine(d.Dimension), scaleText(d.Scale))))
	add(coverageLines(f, parseFail && d.Scale.Kind() == judge.KindBinary, includeTrunc)...)
	if w := f.Selection.Warning; w != "" {
		add(text(RoleWarning, "⚠ "+safetext.SanitizeLine(w)))
	}
	add(nil)
	add(text(RoleStrong, fmt.Sprintf("Judge vs human  (n = %d)", a.N)))
	if a.N == 0 {
		add(text(RoleMuted, "  No item has both an ok verdict and a human label yet: label some items first."))
	} else {
		if a.SmallSample != "" {
			add(text(RoleWarning, "  ⚠ "+a.SmallSample))
		}
		add(agreementRows(d.Scale, a, "human")...)
		add(nil)
		add(confusionGrid(d.Scale, a.Confusion, "Confusion  (rows: human, columns: judge)", "human ", target)...)
		if b := a.Binary; b != nil {
			add(nil)
			add(classifierLines(b, target(0, 1), target(1, 0))...)
		}
		if cl := a.Classes; cl != nil {
			add(nil)
			add(classLines(cl, "human")...)
		}
		add(nil)
		add(distributionLines(d.Scale, a, width)...)
	}
	if hb := humanScoreLines(d.Scale, f); len(hb) > 0 {
		add(nil)
		add(hb...)
	}
	if ln := labelsNeededLines(d.Scale, f.LabelsNeeded); len(ln) > 0 {
		add(nil)
		add(ln...)
	}
	if p := f.Selection.UnbiasedPart; p != nil {
		add(nil)
		add(unbiasedLines(d.Scale, f.Selection, p)...)
	}
	add(nil)
	add(flipLines(d)...)
	if sw := d.Swap; sw != nil {
		add(nil)
		add(swapLines(d.Scale, sw)...)
	}
	if len(d.Segments) > 0 {
		add(nil)
		add(segmentLines(d.Scale, d.Segments)...)
	}
	return out
}

// statRow is a row of a figures table: a muted name in a 24-cell column,
// then the value.
func statRow(name string, value ...Span) Line {
	return append(Line{plain("  "), muted(padRight(name, 24))}, value...)
}

// coverageLines says how much was judged and labelled, errors apart.
func coverageLines(f stats.Figures, parseFail, includeTrunc bool) []Line {
	j := f.Judging
	trunc := ""
	if j.Truncated > 0 {
		trunc = fmt.Sprintf(" · truncated %d (%s)", j.Truncated, stats.FormatPercent(j.TruncatedRate.Value, 1))
	}
	kept, counted := trunc, ""
	if includeTrunc {
		kept, counted = "", trunc+", counted (--include-truncated)"
	}
	errs := fmt.Sprintf("parse errors %d (%s) · API errors %d (%s)%s, kept out of agreement%s",
		j.ParseErrors, stats.FormatPercent(j.ParseErrorRate.Value, 1), j.APIErrors, stats.FormatPercent(j.APIErrorRate.Value, 1), kept, counted)
	if parseFail {
		errs = fmt.Sprintf("parse errors %d (%s), counted as NO · API errors %d (%s)%s, kept out%s",
			j.ParseErrors, stats.FormatPercent(j.ParseErrorRate.Value, 1), j.APIErrors, stats.FormatPercent(j.APIErrorRate.Value, 1), kept, counted)
	}
	out := []Line{
		text(RoleMuted, fmt.Sprintf("labelled %d of %d (%s) · judged %d · ok %d · no value %d",
			f.Labelled, f.Units, stats.FormatPercent(f.Coverage.Value, 1), j.Judged, j.OK, j.NoValue)),
		text(RoleMuted, errs),
	}
	if f.HumanTies > 0 {
		out = append(out, text(RoleMuted, fmt.Sprintf("%s with annotators tied on the value: no majority, left out",
			plural(f.HumanTies, "labelled item", "labelled items"))))
	}
	return out
}

// agreementRows is the agreement table of a judge against a reference
// (the humans, or another judge), with the ordinal figures on ordinal
// scales and the macro F1 on scales of named categories.
func agreementRows(scale judge.Scale, a stats.Agreement, ref string) []Line {
	out := []Line{
		statRow("percent agreement", plain(interval(a.PercentAgreement, true)), muted("  Wilson 95%")),
		statRow("Cohen's kappa", plain(interval(a.CohenKappa, false)), muted("  bootstrap 95%")),
		statRow("Gwet's AC1", plain(interval(a.GwetAC1, false))),
		statRow("Krippendorff's alpha", plain(interval(a.AlphaNominal, false)), muted("  nominal")),
	}
	if o := a.Ordinal; o != nil {
		out = append(out,
			statRow("alpha ordinal", plain(interval(o.AlphaOrdinal, false))),
			statRow("alpha interval", plain(interval(o.AlphaInterval, false))),
			statRow("linear weighted kappa", plain(interval(o.LinearKappa, false))),
			statRow("quadratic kappa", plain(interval(o.QuadraticKappa, false))),
			statRow("Spearman's rho", plain(interval(o.Spearman, false))),
			statRow("Kendall's tau-b", plain(interval(o.KendallTauB, false))),
			statRow("mean abs. error", plain(interval(o.MeanAbsoluteError, false))),
			statRow("mean signed diff.", plain(signedIntervalNumber(o.MeanSignedDifference)), muted("  judge − "+ref)),
			statRow("within one step", plain(interval(o.WithinOne, true)), muted("  step "+stats.FormatNumber(o.Step, 1))),
		)
	}
	if cl := a.Classes; cl != nil {
		out = append(out, statRow("macro F1", plain(estimate(cl.MacroF1, 3)), muted("  "+ref+" = truth, by category below")))
	}
	return out
}

// confusionLines draws the confusion matrix: rows the reference, columns
// the judge, each cell tagged with its share of n so the screen can shade
// it, the diagonal apart.
// Between two judges there is no human side, so no cell opens items.
func confusionLines(scale judge.Scale, c stats.Confusion, rowName, colName string) []Line {
	title := fmt.Sprintf("Confusion  (rows: %s, columns: %s)", safetext.SanitizeLine(rowName), safetext.SanitizeLine(colName))
	return confusionGrid(scale, c, title, "ref ", nil)
}

// maxCategoryWidth is the widest a category name is shown in a grid.
const maxCategoryWidth = 14

// confusionGrid draws a table of counts under title, each row's name
// being prefix and the row's category. Columns are 7 cells wide, wider
// for long category names (cut at maxCategoryWidth). With target set, each
// count names its items (row value, column value).
func confusionGrid(scale judge.Scale, c stats.Confusion, title, prefix string, target func(row, col float64) *Target) []Line {
	out := []Line{text(RoleStrong, title)}
	n := max(c.N(), 1)
	nw := min(namesWidth(scale, c), maxCategoryWidth)
	cw := max(7, nw+1)
	lw := max(10, ansi.StringWidth(prefix)+nw+1)
	name := func(v float64) string { return ansi.Truncate(category(scale, v), maxCategoryWidth, "…") }
	head := "  " + strings.Repeat(" ", lw)
	for _, v := range c.Categories {
		head += padLeft(name(v), cw)
	}
	out = append(out, text(RoleMuted, head))
	for i, hv := range c.Categories {
		line := Line{plain("  "), muted(padRight(prefix+name(hv), lw))}
		for j := range c.Categories {
			count := c.Counts[i][j]
			role := RoleCell
			if i == j {
				role = RoleCellDiagonal
			}
			cell := Span{Text: padLeft(fmt.Sprint(count), cw-1), Role: role, Share: float64(count) / float64(n)}
			if target != nil {
				cell.Target = target(hv, c.Categories[j])
			}
			line = append(line, plain(" "), cell)
		}
		out = append(out, line)
	}
	return out
}

// classifierLines are the binary figures with the human as truth.
// falsePass and falseFail name the items behind those two rates.
func classifierLines(b *stats.BinaryAgreement, falsePass, falseFail *Target) []Line {
	return []Line{
		text(RoleStrong, "Judge as a classifier  (human = truth)"),
		statRow("precision", plain(interval(b.Precision, true))),
		statRow("recall", plain(interval(b.Recall, true))),
		statRow("specificity", plain(interval(b.Specificity, true))),
		statRow("F1 · balanced acc.", plain(estimate(b.F1, 3)+" · "+stats.FormatPercent(b.BalancedAccuracy.Value, 1))),
		statRow("false-pass rate", Span{Text: interval(b.FalsePassRate, true), Target: falsePass}, muted("  judge YES, human NO")),
		statRow("false-fail rate", Span{Text: interval(b.FalseFailRate, true), Target: falseFail}, muted("  judge NO, human YES")),
	}
}

// distributionLines shows how often judge and human gave each value, as
// bars, and the score bias between them.
func distributionLines(scale judge.Scale, a stats.Agreement, width int) []Line {
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
	nw := max(4, min(namesWidth(scale, c), maxCategoryWidth)+1)
	title := "Scores on the items both rated"
	if scale.Categorical() {
		title = "Answers on the items both rated"
	}
	out := []Line{text(RoleStrong, title)}
	for i, v := range c.Categories {
		for _, who := range []struct {
			name  string
			count int
		}{{"judge", judgeCount[i]}, {"human", humanCount[i]}} {
			share := float64(who.count) / float64(n)
			fill := int(share*float64(barW) + 0.5)
			out = append(out, Line{
				plain(fmt.Sprintf("  %s %s ", padRight(ansi.Truncate(category(scale, v), maxCategoryWidth, "…"), nw), padRight(who.name, 6))),
				{Text: strings.Repeat("█", fill), Role: RoleBarFull},
				{Text: strings.Repeat("░", barW-fill), Role: RoleBarEmpty},
				plain(" " + stats.FormatPercent(share, 0)),
			})
		}
	}
	if !scale.Numeric() {
		return out // no mean on a nominal scale
	}
	what := biasWhat(scale)
	bias := a.ScoreBias
	out = append(out, text(RolePlain, fmt.Sprintf("  %s: judge %s, human %s, bias %s", what, meanText(scale, a.JudgeMean), meanText(scale, a.ReferenceMean), signedInterval(scale, bias))))
	if bias.Defined() && bias.Value != 0 {
		out = append(out, text(RoleMuted, "  "+biasSentence(scale, bias.Value)))
	}
	return out
}

// biasSentence says which way a score bias goes.
func biasSentence(scale judge.Scale, bias float64) string {
	if scale.Kind() == judge.KindPairwise {
		if bias > 0 {
			return "the judge prefers B more often than the humans do"
		}
		return "the judge prefers A more often than the humans do"
	}
	verb := "inflates"
	if bias < 0 {
		verb = "deflates"
	}
	return fmt.Sprintf("the judge %s the %s", verb, biasWhat(scale))
}

func estimatePercent(e stats.Estimate) string {
	if !e.Defined() {
		return stats.Undefined + reason(e.Reason)
	}
	return stats.FormatPercent(e.Value, 1)
}

// unbiasedLines shows the figures over the labelled items reached at
// random alone: the ones that stand for the whole dataset.
func unbiasedLines(scale judge.Scale, sel stats.Selection, p *stats.UnbiasedPart) []Line {
	a := p.VsHumans
	out := []Line{
		text(RoleStrong, fmt.Sprintf("Unbiased part  (%s reached at random; n = %d)", plural(sel.Unbiased, "labelled item", "labelled items"), a.N)),
		text(RoleMuted, fmt.Sprintf("  labels reached by %s (%s of items filtered)", provenanceText(sel.ByProvenance), stats.FormatPercent(sel.FilteredShare.Value, 0))),
	}
	if a.N == 0 {
		return append(out, text(RoleMuted, "  No item reached at random has both an ok verdict and a label: label some in random order first."))
	}
	out = append(out,
		statRow("percent agreement", plain(interval(a.PercentAgreement, true))),
		statRow("Cohen's kappa", plain(interval(a.CohenKappa, false))),
		statRow("Gwet's AC1", plain(interval(a.GwetAC1, false))),
	)
	if o := a.Ordinal; o != nil {
		out = append(out,
			statRow("quadratic kappa", plain(interval(o.QuadraticKappa, false))),
			statRow("MAE / signed diff.", plain(bare(interval(o.MeanAbsoluteError, false))+" / "+bare(signedIntervalNumber(o.MeanSignedDifference)))),
		)
	}
	if b := a.Binary; b != nil {
		out = append(out,
			statRow("false-pass rate", plain(interval(b.FalsePassRate, true))),
			statRow("false-fail rate", plain(interval(b.FalseFailRate, true))),
		)
	}
	if cl := a.Classes; cl != nil {
		out = append(out, statRow("macro F1", plain(estimate(cl.MacroF1, 3))))
	}
	if scale.Numeric() {
		out = append(out, statRow(biasWhat(scale)+" bias", plain(signedInterval(scale, a.ScoreBias))))
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
		parts[i] = fmt.Sprintf("%s %d", safetext.SanitizeLine(k), by[k])
	}
	return strings.Join(parts, ", ")
}

// flipLines: how often the judge disagreed with itself.
func flipLines(d stats.DimensionReport) []Line {
	flip := func(f stats.Flips, what string) string {
		if f.Units == 0 {
			return interval(f.Rate, true)
		}
		return fmt.Sprintf("%s  (%d of %s)", interval(f.Rate, true), f.Flipped, plural(f.Units, what, what+"s"))
	}
	return []Line{
		text(RoleStrong, "Consistency  (flip rate: the judge changed its value)"),
		statRow("across re-judges", plain(flip(d.Rejudges, "re-judged item"))),
		statRow("across samples", plain(flip(d.Samples, "sampled verdict"))),
	}
}

// segmentLines is the per-segment table.
func segmentLines(scale judge.Scale, segs []stats.SegmentFigures) []Line {
	out := []Line{
		text(RoleStrong, "By segment"),
		text(RoleMuted, fmt.Sprintf("  %-22s %6s %8s %6s %9s %7s %10s", "segment", "items", "labelled", "n", "agreement", "kappa", "bias")),
	}
	for _, s := range segs {
		f := s.Figures
		a := f.VsHumans
		bias := stats.Undefined
		if a.ScoreBias.Defined() {
			f, unit := signedPart(scale)
			bias = f(a.ScoreBias.Value) + unit
		}
		out = append(out, text(RolePlain, fmt.Sprintf("  %s %6d %8d %6d %9s %7s %10s", fixWidth(segmentName(s), 22), f.Units, f.Labelled, a.N,
			stats.FormatPercent(a.PercentAgreement.Value, 0), stats.FormatNumber(a.CohenKappa.Value, 2), bias)))
	}
	return out
}

// segmentName is "field=value", or "field (none)" for units without the
// field.
func segmentName(s stats.SegmentFigures) string {
	if s.Value == "" {
		return safetext.SanitizeLine(s.Field) + " (none)"
	}
	return safetext.SanitizeLine(s.Field + "=" + s.Value)
}

// extrasLines counts what a judge reported beside its verdicts: bbh's
// error types and reasoning scores, the match judge's rules.
func extrasLines(jr stats.JudgeReport) []Line {
	out := []Line{text(RoleStrong, fmt.Sprintf("What %s reported beside its verdicts", safetext.SanitizeLine(jr.Judge)))}
	for _, e := range jr.Extras {
		out = append(out, Line{plain("  "), muted(padRight(safetext.SanitizeLine(e.Field), 22)), plain(safetext.SanitizeLine(extraCounts(e)))})
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
