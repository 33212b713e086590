package render

import (
	"fmt"
	"strings"

	"github.com/gavel-dev/gavel/sessions/stats"
)

// markdownGraded writes the operating points and reliability curves as
// tables.
func markdownGraded(b *strings.Builder, r stats.Report) {
	for _, op := range r.OperatingPoints {
		fmt.Fprintf(b, "\n## Operating points: %s\n\n", MarkdownText(OperatingTitle(op)))
		fmt.Fprintf(b, "Graded by %s; %s graded, %d without a grade, %d labelled %s. An item passes a cut when its grade is at least the cut; %s.\n",
			gradeText(op.Grade), plural(op.Graded, "item", "items"), op.Unknown, op.Labelled, MarkdownText(op.Against), costText(op.Costs))
		if op.SmallSample != "" {
			fmt.Fprintf(b, "\n**Warning:** %s.\n", MarkdownText(op.SmallSample))
		}
		var rows [][]string
		for _, c := range op.Cuts {
			cut := CutText(op, c.Cut)
			if op.Best != nil && c.Cut == op.Best.Cut {
				cut = "**" + cut + "** (best)"
			}
			rows = append(rows, []string{cut, pct(c.PassRate), pct(c.Agreement.Estimate()), pct(c.FalsePassRate.Estimate()),
				pct(c.FalseFailRate.Estimate()), num(c.CohenKappa, 3), fmt.Sprint(c.FalsePasses), fmt.Sprint(c.FalseFails), num(c.Cost, 3)})
		}
		mdTable(b, []string{"Pass if", ">Pass rate", ">Agreement", ">False-pass rate", ">False-fail rate", ">Kappa", ">False passes", ">False fails", ">Cost"}, rows)
		if best := op.Best; best != nil {
			fmt.Fprintf(b, "\n**Best cut %s**: agreement %s, false-pass rate %s, false-fail rate %s, kappa %s.\n",
				CutText(op, best.Cut), interval(best.Agreement, true), interval(best.FalsePassRate, true),
				interval(best.FalseFailRate, true), estimate(best.CohenKappa, 3))
		}
		fmt.Fprintf(b, "\n**Ask a human** %s.\n", MarkdownText(BandSentence(op)))
	}
	for _, rel := range r.Reliability {
		fmt.Fprintf(b, "\n## Reliability: %s · %s\n\n", MarkdownText(rel.Judge), MarkdownText(rel.Dimension))
		src := ConfidenceText(rel.Confidence)
		fmt.Fprintf(b, "Confidence: %s; %d labelled, %d without a confidence. Expected calibration error **%s**.\n",
			src, rel.N, rel.Unknown, interval(rel.ECE, false))
		var rows [][]string
		for _, bin := range rel.Bins {
			if bin.N == 0 {
				continue
			}
			ag := mdInterval(bin.Agreement, true)
			rows = append(rows, []string{binText(bin), fmt.Sprint(bin.N), num(bin.Confidence, 3), ag[0], ag[1]})
		}
		mdTable(b, []string{"Confidence", ">Items", ">Mean confidence", ">Agreement", "95% interval"}, rows)
	}
}
