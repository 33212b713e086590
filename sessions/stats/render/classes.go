package render

import (
	"fmt"
	"strings"

	"github.com/gavel-dev/gavel/sessions/safetext"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// The per-category table of a judge on a scale of named categories
// (nominal, pairwise): where kappa says how much the judge agrees, this
// says with which answers it does not — a judge that never says "tie", or
// calls everything CORRECT.

// classLines is the per-category table with the reference (ref: "human")
// as truth, as text.
func classLines(cl *stats.ClassAgreement, ref string) []Line {
	row := "  %s %6s %6s %10s %10s %7s"
	out := []Line{
		text(RoleStrong, fmt.Sprintf("By category  (%s = truth)", ref)),
		text(RoleMuted, fmt.Sprintf(row, fixWidth("category", maxCategoryWidth), ref, "judge", "precision", "recall", "F1")),
	}
	for _, f := range cl.PerClass {
		out = append(out, text(RolePlain, fmt.Sprintf(row, fixWidth(safetext.SanitizeLine(f.Category), maxCategoryWidth),
			fmt.Sprint(f.Support), fmt.Sprint(f.Predicted), percentOrDash(f.Precision.Value), percentOrDash(f.Recall.Value),
			stats.FormatNumber(f.F1.Value, 3))))
	}
	out = append(out, Line{
		plain(fmt.Sprintf(row, fixWidth("macro average", maxCategoryWidth), "", "",
			percentOrDash(cl.MacroPrecision.Value), percentOrDash(cl.MacroRecall.Value), stats.FormatNumber(cl.MacroF1.Value, 3))),
		muted("  " + macroNote(cl)),
	})
	return out
}

// macroNote says what the macro average is over.
func macroNote(cl *stats.ClassAgreement) string {
	return "over " + plural(cl.MacroClasses, "category", "categories") + " used"
}

func percentOrDash(v float64) string { return stats.FormatPercent(v, 1) }

// markdownClasses is the per-category table as Markdown.
func markdownClasses(b *strings.Builder, cl *stats.ClassAgreement, ref string) {
	fmt.Fprintf(b, "\n### By category (%s = truth)\n", ref)
	pct := func(i stats.Interval) string {
		if !i.Defined() {
			return stats.Undefined
		}
		s := stats.FormatPercent(i.Value, 1)
		if i.HasBounds() {
			s += " (" + stats.FormatPercent(i.Low, 1) + " – " + stats.FormatPercent(i.High, 1) + ")"
		}
		return s
	}
	var rows [][]string
	for _, f := range cl.PerClass {
		rows = append(rows, []string{MarkdownText(f.Category), fmt.Sprint(f.Support), fmt.Sprint(f.Predicted),
			pct(f.Precision), pct(f.Recall), stats.FormatNumber(f.F1.Value, 3)})
	}
	rows = append(rows, []string{"Macro average, " + macroNote(cl), "", "",
		percentOrDash(cl.MacroPrecision.Value), percentOrDash(cl.MacroRecall.Value), stats.FormatNumber(cl.MacroF1.Value, 3)})
	mdTable(b, []string{"Category", ">" + capitalize(ref), ">Judge", ">Precision (95%)", ">Recall (95%)", ">F1"}, rows)
}
