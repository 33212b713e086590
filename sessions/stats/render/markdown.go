package render

import (
	"fmt"
	"strings"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"

	"github.com/gavel-dev/gavel/sessions/safetext"
)

// Markdown renders a report as Markdown for papers and CI summaries: the
// same figures as Lines, written the same way (percentages with one
// decimal, coefficients with three, "—" for undefined values with the
// reason beside them), as tables. Text from the session (judge, segment
// and annotator names) is sanitised and escaped so that it cannot break a
// table.
func Markdown(r stats.Report) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# Agreement statistics\n\n")
	w("%s. %s\n", plural(r.Units, "unit", "units"), intervalsNote(r))
	if r.ParseErrors == "fail" {
		w("\nA binary judge's parse errors count as NO (`--parse-errors fail`).\n")
	}
	if len(r.Judges) == 0 {
		w("\nNo judge in this session yet.\n")
	}
	markdownJudgeTable(&b, r.JudgeTable)
	for _, jr := range r.Judges {
		for _, d := range jr.Dimensions {
			markdownDimension(&b, jr.Judge, d, r.Truncated == "include")
		}
		if len(jr.Extras) > 0 {
			fmt.Fprintf(&b, "\n### What %s reported beside its verdicts\n", MarkdownText(jr.Judge))
			var rows [][]string
			for _, e := range jr.Extras {
				rows = append(rows, []string{MarkdownText(e.Field), MarkdownText(extraCounts(e))})
			}
			mdTable(&b, []string{"Field", "Counts over its current ok verdicts"}, rows)
		}
	}
	markdownGraded(&b, r)
	if len(r.Judges) > 0 {
		markdownPairs(&b, r)
	}
	if len(r.Judges) > 0 || len(r.Humans) > 0 {
		markdownHumans(&b, r.Humans)
	}
	markdownLabelling(&b, r.Labelling)
	markdownPlan(&b, r.Plan)
	if len(r.Notes) > 0 {
		w("\n## Notes\n\n")
		for _, n := range r.Notes {
			w("- %s\n", MarkdownText(n))
		}
	}
	return b.String()
}

// MarkdownText makes session text safe inside Markdown and a table cell:
// sanitised to one line, and every character Markdown or HTML would read
// as markup backslash-escaped — & too, or "&#x202E;" would become a real
// right-to-left override and "&lt;b&gt;" a tag on GitHub; $ (GitHub's
// math: coloured, spoofed text) and @ (a mention pings a user) as well. gavel stats and
// gavel report write their Markdown with it.
func MarkdownText(s string) string {
	s = safetext.SanitizeLine(s)
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_[]<>|#!&~$@", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// mdTable writes a table: the header, then rows; a header cell starting
// with ">" is right-aligned (the ">" dropped).
func mdTable(b *strings.Builder, head []string, rows [][]string) {
	b.WriteString("\n|")
	for _, h := range head {
		b.WriteString(" " + strings.TrimPrefix(h, ">") + " |")
	}
	b.WriteString("\n|")
	for _, h := range head {
		if strings.HasPrefix(h, ">") {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteByte('\n')
	for _, r := range rows {
		b.WriteString("|")
		for _, c := range r {
			b.WriteString(" " + c + " |")
		}
		b.WriteByte('\n')
	}
}

// mdInterval gives a figure's value, its interval and the reason it is
// undefined, as three cells.
func mdInterval(i stats.Interval, percent bool) []string {
	if !i.Defined() {
		return []string{stats.Undefined, "", MarkdownText(i.Reason)}
	}
	f := intervalPart(percent)
	ci := ""
	if i.HasBounds() {
		ci = f(i.Low) + " – " + f(i.High)
	}
	return []string{f(i.Value), ci, ""}
}

func mdEstimate(e stats.Estimate, decimals int) []string {
	if !e.Defined() {
		return []string{stats.Undefined, "", MarkdownText(e.Reason)}
	}
	return []string{stats.FormatNumber(e.Value, decimals), "", ""}
}

func mdSigned(scale judge.Scale, i stats.Interval) []string {
	if !i.Defined() {
		return []string{stats.Undefined, "", MarkdownText(i.Reason)}
	}
	f, unit := signedPart(scale)
	ci := ""
	if i.HasBounds() {
		ci = f(i.Low) + " – " + f(i.High)
	}
	return []string{f(i.Value) + unit, ci, ""}
}

func statRowMD(name string, cells []string, note string) []string {
	if note != "" && cells[2] == "" {
		cells[2] = note
	}
	return append([]string{name}, cells...)
}

var statHead = []string{"Statistic", ">Value", "95% interval", "Note"}

func agreementRowsMD(scale judge.Scale, a stats.Agreement, ref string) [][]string {
	rows := [][]string{
		statRowMD("Percent agreement", mdInterval(a.PercentAgreement, true), "Wilson"),
		statRowMD("Cohen's kappa", mdInterval(a.CohenKappa, false), ""),
		statRowMD("Gwet's AC1", mdInterval(a.GwetAC1, false), ""),
		statRowMD("Krippendorff's alpha (nominal)", mdInterval(a.AlphaNominal, false), ""),
	}
	if o := a.Ordinal; o != nil {
		rows = append(rows,
			statRowMD("Krippendorff's alpha (ordinal)", mdInterval(o.AlphaOrdinal, false), ""),
			statRowMD("Krippendorff's alpha (interval)", mdInterval(o.AlphaInterval, false), ""),
			statRowMD("Linear weighted kappa", mdInterval(o.LinearKappa, false), ""),
			statRowMD("Quadratic weighted kappa", mdInterval(o.QuadraticKappa, false), ""),
			statRowMD("Spearman's rho", mdInterval(o.Spearman, false), ""),
			statRowMD("Kendall's tau-b", mdInterval(o.KendallTauB, false), ""),
			statRowMD("Mean absolute error", mdInterval(o.MeanAbsoluteError, false), "scale points"),
			statRowMD("Mean signed difference", mdInterval(o.MeanSignedDifference, false), "judge − "+ref),
			statRowMD("Within one step", mdInterval(o.WithinOne, true), "step "+stats.FormatNumber(o.Step, 1)),
		)
	}
	if cl := a.Classes; cl != nil {
		rows = append(rows, statRowMD("Macro F1", mdEstimate(cl.MacroF1, 3), ref+" = truth, "+macroNote(cl)))
	}
	if !scale.Numeric() {
		return rows // no mean on a nominal scale
	}
	rows = append(rows,
		statRowMD("Judge "+biasWhat(scale), mdEstimateMean(scale, a.JudgeMean), ""),
		statRowMD(capitalize(ref)+" "+biasWhat(scale), mdEstimateMean(scale, a.ReferenceMean), ""),
		statRowMD("Score bias", mdSigned(scale, a.ScoreBias), "judge − "+ref+", bootstrap"),
	)
	return rows
}

func mdEstimateMean(scale judge.Scale, e stats.Estimate) []string {
	if !e.Defined() {
		return []string{stats.Undefined, "", MarkdownText(e.Reason)}
	}
	return []string{meanText(scale, e), "", ""}
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func markdownConfusion(b *strings.Builder, scale judge.Scale, c stats.Confusion, rowName, colName string) {
	head := []string{MarkdownText(rowName) + " \\\\ " + MarkdownText(colName)}
	for _, v := range c.Categories {
		head = append(head, ">"+MarkdownText(scale.Format(v)))
	}
	var rows [][]string
	for i, v := range c.Categories {
		row := []string{MarkdownText(scale.Format(v))}
		for j := range c.Categories {
			cell := fmt.Sprint(c.Counts[i][j])
			if i == j {
				cell = "**" + cell + "**"
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	mdTable(b, head, rows)
}

func markdownDimension(b *strings.Builder, judgeName string, d stats.DimensionReport, includeTrunc bool) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	f := d.Overall
	j := f.Judging
	a := f.VsHumans
	w("\n## %s · %s (%s)\n\n", MarkdownText(judgeName), MarkdownText(d.Dimension), MarkdownText(string(d.Scale)))
	w("Labelled %d of %d (%s); judged %d: ok %d, no value %d, parse errors %d (%s), API errors %d (%s) — errors are kept out of agreement.",
		f.Labelled, f.Units, stats.FormatPercent(f.Coverage.Value, 1), j.Judged, j.OK, j.NoValue,
		j.ParseErrors, stats.FormatPercent(j.ParseErrorRate.Value, 1), j.APIErrors, stats.FormatPercent(j.APIErrorRate.Value, 1))
	if j.Truncated > 0 {
		how := "kept out of agreement too (`--include-truncated` counts them)"
		if includeTrunc {
			how = "counted in agreement (`--include-truncated`)"
		}
		w(" Truncated %d (%s): the server cut the prompt to its context; %s.", j.Truncated, stats.FormatPercent(j.TruncatedRate.Value, 1), how)
	}
	if a.SmallSample != "" {
		w(" **%s.**", MarkdownText(capitalize(a.SmallSample)))
	}
	if f.HumanTies > 0 {
		w(" %s with annotators tied on the value %s left out.", plural(f.HumanTies, "labelled item", "labelled items"), map[bool]string{true: "is", false: "are"}[f.HumanTies == 1])
	}
	w("\n")
	if s := f.Selection.Warning; s != "" {
		w("\n> **Warning:** %s.\n", MarkdownText(s))
	}
	w("\n### Judge vs human (n = %d)\n", a.N)
	if a.N == 0 {
		w("\nNo item has both an ok verdict and a human label yet.\n")
	} else {
		mdTable(b, statHead, agreementRowsMD(d.Scale, a, "human"))
		w("\nConfusion matrix (rows: human, columns: judge):\n")
		markdownConfusion(b, d.Scale, a.Confusion, "human", "judge")
		if bin := a.Binary; bin != nil {
			w("\n### Judge as a classifier (human = truth)\n")
			mdTable(b, statHead, [][]string{
				statRowMD("Precision", mdInterval(bin.Precision, true), fmt.Sprintf("TP %d, FP %d", bin.TruePositives, bin.FalsePositives)),
				statRowMD("Recall", mdInterval(bin.Recall, true), fmt.Sprintf("FN %d", bin.FalseNegatives)),
				statRowMD("Specificity", mdInterval(bin.Specificity, true), fmt.Sprintf("TN %d", bin.TrueNegatives)),
				statRowMD("F1", mdEstimate(bin.F1, 3), ""),
				statRowMD("Balanced accuracy", mdPercent(bin.BalancedAccuracy), ""),
				statRowMD("False-pass rate", mdInterval(bin.FalsePassRate, true), "judge YES, human NO (leniency)"),
				statRowMD("False-fail rate", mdInterval(bin.FalseFailRate, true), "judge NO, human YES (harshness)"),
			})
		}
		if cl := a.Classes; cl != nil {
			markdownClasses(b, cl, "human")
		}
	}
	markdownHumanScore(b, d.Scale, f)
	markdownLabelsNeeded(b, d.Scale, f.LabelsNeeded)
	if p := f.Selection.UnbiasedPart; p != nil {
		sel := f.Selection
		w("\n### Unbiased part (%s reached at random; n = %d)\n\n", plural(sel.Unbiased, "labelled item", "labelled items"), p.VsHumans.N)
		w("Labels reached by %s (%s of the labelled items through a filter).\n", MarkdownText(provenanceText(sel.ByProvenance)), stats.FormatPercent(sel.FilteredShare.Value, 0))
		if p.VsHumans.N > 0 {
			rows := agreementRowsMD(d.Scale, p.VsHumans, "human")
			if bin := p.VsHumans.Binary; bin != nil {
				rows = append(rows,
					statRowMD("False-pass rate", mdInterval(bin.FalsePassRate, true), ""),
					statRowMD("False-fail rate", mdInterval(bin.FalseFailRate, true), ""))
			}
			mdTable(b, statHead, rows)
		}
	}
	w("\n### Consistency\n")
	flip := func(name string, fl stats.Flips) []string {
		return append([]string{name, fmt.Sprint(fl.Units), fmt.Sprint(fl.Flipped)}, mdInterval(fl.Rate, true)...)
	}
	mdTable(b, []string{"Flip rate", ">Compared", ">Flipped", ">Rate", "95% interval", "Note"}, [][]string{
		flip("Across re-judges", d.Rejudges),
		flip("Across samples", d.Samples),
	})
	if sw := d.Swap; sw != nil {
		markdownSwap(b, d.Scale, sw)
	}
	if len(d.Segments) > 0 {
		w("\n### By segment\n")
		var rows [][]string
		for _, s := range d.Segments {
			sa := s.Figures.VsHumans
			rows = append(rows, []string{MarkdownText(segmentName(s)), fmt.Sprint(s.Figures.Units), fmt.Sprint(s.Figures.Labelled), fmt.Sprint(sa.N),
				bare(interval(sa.PercentAgreement, true)), bare(interval(sa.CohenKappa, false)), bare(interval(sa.GwetAC1, false)),
				bare(signedInterval(d.Scale, sa.ScoreBias))})
		}
		mdTable(b, []string{"Segment", ">Items", ">Labelled", ">n", ">Agreement", ">Kappa", ">AC1", ">Bias"}, rows)
	}
}

func mdPercent(e stats.Estimate) []string {
	if !e.Defined() {
		return []string{stats.Undefined, "", MarkdownText(e.Reason)}
	}
	return []string{stats.FormatPercent(e.Value, 1), "", ""}
}

func markdownPairs(b *strings.Builder, r stats.Report) {
	b.WriteString("\n## Judge against judge\n")
	if len(r.JudgePairs) == 0 {
		b.WriteString("\nNo other judge in this session rates the same dimensions.\n")
		return
	}
	var rows [][]string
	for _, p := range r.JudgePairs {
		a := p.Agreement
		quad := ""
		if a.Ordinal != nil {
			quad = bare(interval(a.Ordinal.QuadraticKappa, false))
		}
		rows = append(rows, []string{MarkdownText(p.Judge), MarkdownText(p.Reference), MarkdownText(p.Dimension) + " (" + MarkdownText(string(p.Scale)) + ")", fmt.Sprint(a.N),
			bare(interval(a.PercentAgreement, true)), bare(interval(a.CohenKappa, false)), bare(interval(a.GwetAC1, false)), quad,
			bare(signedInterval(p.Scale, a.ScoreBias))})
	}
	mdTable(b, []string{"Judge", "Reference", "Dimension", ">n", ">Agreement", ">Kappa", ">AC1", ">Quadratic kappa", ">Bias (judge − reference)"}, rows)
}

func markdownHumans(b *strings.Builder, hs []stats.HumanAgreement) {
	b.WriteString("\n## Between annotators\n")
	if len(hs) == 0 {
		b.WriteString("\nNo dimension to compare.\n")
		return
	}
	var rows [][]string
	for _, h := range hs {
		names := make([]string, len(h.Annotators))
		for i, a := range h.Annotators {
			names[i] = MarkdownText(a)
		}
		rows = append(rows, []string{MarkdownText(h.Dimension) + " (" + MarkdownText(string(h.Scale)) + ")", strings.Join(names, ", "), fmt.Sprint(h.Labelled), fmt.Sprint(h.Pairable), fmt.Sprint(h.MajorityTies)})
	}
	mdTable(b, []string{"Dimension", "Annotators", ">Labelled", ">By two or more", ">Tied"}, rows)
	for _, h := range hs {
		if a := adjudicationText(h); a != "" {
			fmt.Fprintf(b, "\nAdjudication on %s: %s (an adjudicated label is the item's reference; the waiting ones are the queue of gavel review --adjudicate).\n",
				MarkdownText(h.Dimension), a)
		}
	}
	for _, h := range hs {
		if len(h.Annotators) < 2 {
			continue
		}
		fmt.Fprintf(b, "\n### %s (%s): agreement between annotators\n", MarkdownText(h.Dimension), MarkdownText(string(h.Scale)))
		if h.SmallSample != "" {
			fmt.Fprintf(b, "\n**%s.**\n", MarkdownText(capitalize(h.SmallSample)))
		}
		figs := [][]string{
			statRowMD("Percent agreement", mdInterval(h.PercentAgreement, true), "pairs of labels that agree"),
			statRowMD("Krippendorff's alpha (nominal)", mdInterval(h.AlphaNominal, false), ""),
		}
		if h.Scale.Ordinal() {
			figs = append(figs,
				statRowMD("Krippendorff's alpha (ordinal)", mdInterval(h.AlphaOrdinal, false), ""),
				statRowMD("Krippendorff's alpha (interval)", mdInterval(h.AlphaInterval, false), ""),
				statRowMD("Krippendorff's alpha (ratio)", mdInterval(h.AlphaRatio, false), ""))
		}
		figs = append(figs,
			statRowMD("Fleiss' kappa", mdInterval(h.FleissKappa, false), "missing labels as in Gwet's irrCAC"),
			statRowMD("Gwet's AC1", mdInterval(h.GwetAC1, false), ""))
		if h.Scale.Ordinal() {
			figs = append(figs, statRowMD("Gwet's AC2 (quadratic)", mdInterval(h.GwetAC2, false), ""))
		}
		mdTable(b, statHead, figs)
	}
	var pairs [][]string
	for _, h := range hs {
		for _, p := range h.Pairs {
			pairs = append(pairs, []string{MarkdownText(h.Dimension), MarkdownText(p.A), MarkdownText(p.B), fmt.Sprint(p.N), bare(interval(p.PercentAgreement, true)), bare(interval(p.CohenKappa, false))})
		}
	}
	if len(pairs) > 0 {
		b.WriteString("\nPairwise:\n")
		mdTable(b, []string{"Dimension", "Annotator", "Annotator", ">n", ">Agreement", ">Cohen's kappa"}, pairs)
	}
	b.WriteString("\nThe judge against the annotators' majority is each judge's \"Judge vs human\" table.\n")
}
