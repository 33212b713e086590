package render

import (
	"fmt"
	"strings"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// markdownJudgeTable is the judge table, first in the Markdown report:
// every judge and dimension ranked by Cohen's kappa, each figure with its
// interval.
func markdownJudgeTable(b *strings.Builder, rows []stats.JudgeRow) {
	if len(rows) == 0 {
		return
	}
	b.WriteString("\n## Judges, ranked by Cohen's kappa against the humans\n")
	var cells [][]string
	for _, r := range rows {
		cells = append(cells, []string{fmt.Sprint(r.Rank), MarkdownText(r.Judge), MarkdownText(r.Dimension), fmt.Sprint(r.N),
			bare(interval(r.CohenKappa, false)), bare(interval(r.PercentAgreement, true)), bare(interval(r.GwetAC1, false)),
			bare(signedInterval(r.Scale, r.ScoreBias)), bare(interval(r.FalsePassRate, true)), bare(interval(r.FalseFailRate, true))})
	}
	mdTable(b, []string{">#", "Judge", "Dimension", ">n", ">Kappa", ">Agreement", ">AC1", ">Bias", ">False-pass", ">False-fail"}, cells)
	if small := smallRows(rows); small != "" {
		fmt.Fprintf(b, "\n**%s.**\n", capitalize(small))
	}
}

// markdownHumanScore is the benchmark score a human would give, as the
// text report's humanScoreLines shows it.
func markdownHumanScore(b *strings.Builder, scale judge.Scale, f stats.Figures) {
	c, bm := f.Corrected, f.Benchmark
	if c == nil && bm == nil {
		return
	}
	judged := judgedCount(f)
	if judged == 0 {
		return
	}
	fmt.Fprintf(b, "\n### The %s a human would give (all %s)\n", biasWhat(scale), plural(judged, "judged item", "judged items"))
	var rows [][]string
	if c != nil {
		rows = append(rows, statRowMD("The judge says", mdInterval(c.ObservedPassRate, true), "Wilson"))
	}
	if reason := notGiven(c, bm); reason != "" {
		mdTable(b, statHead, rows)
		fmt.Fprintf(b, "\nNot estimated: %s.\n", MarkdownText(reason))
		return
	}
	if n := f.Selection.Fair; n < stats.MinReliableItems {
		fmt.Fprintf(b, "\n**Only %s: the intervals are unreliable below %d.**\n", plural(n, "random label", "random labels"), stats.MinReliableItems)
	}
	if c != nil {
		rows = append(rows, statRowMD("Rogan–Gladen", mdInterval(c.PassRate, true),
			"bootstrap; sensitivity "+estimatePercent(c.Sensitivity)+", specificity "+estimatePercent(c.Specificity)))
	}
	if bm != nil {
		note := ppiNote(bm)
		if note == "" {
			note = "normal interval"
		}
		share := isShare(scale)
		rows = append(rows,
			statRowMD("PPI++", mdInterval(bm.PPI, share), note),
			statRowMD("Labels alone", mdInterval(bm.LabelsOnly, share), fmt.Sprintf("n = %d", bm.Labelled)))
	}
	mdTable(b, statHead, rows)
}

// markdownLabelsNeeded says how many more random labels would narrow each
// headline interval.
func markdownLabelsNeeded(b *strings.Builder, scale judge.Scale, needs []stats.LabelsNeeded) {
	var rows [][]string
	for _, n := range needs {
		if !n.HalfWidth.Defined() {
			continue
		}
		now, _, _ := neededWidths(scale, n)
		rows = append(rows, []string{neededName(n.Figure), now, fmt.Sprint(n.N), moreText(n.For2), moreText(n.For5)})
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("\n### More random labels for a narrower interval (about)\n")
	mdTable(b, []string{"Figure", ">Now", ">n", ">For ±2 points", ">For ±5 points"}, rows)
}
