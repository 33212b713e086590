package render

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/safetext"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// CompareItemsShown is how many fixed and broken item ids the text and
// Markdown of a comparison show before "…" unless all are asked for.
const CompareItemsShown = 5

// CompareText is a comparison of two judges as `gavel compare` prints it:
// CompareLines at width, one per line of output. allItems lists every
// fixed and broken item instead of the first CompareItemsShown.
func CompareText(c stats.Comparison, width int, allItems bool) string {
	var b strings.Builder
	for _, l := range CompareLines(c, width, allItems) {
		b.WriteString(l.Plain())
		b.WriteByte('\n')
	}
	return b.String()
}

// compareCol is the width of each judge's column.
const compareCol = 24

// CompareLines renders a comparison of two judges (stats.Compare) as
// lines that fit in width cells: per dimension, each judge against the
// humans side by side, then the paired table, the difference B − A with
// its interval, McNemar's exact p and the items B fixed and broke.
func CompareLines(c stats.Comparison, width int, allItems bool) []Line {
	nameA, nameB := safetext.SanitizeLine(c.A), safetext.SanitizeLine(c.B)
	out := []Line{
		text(RoleStrong, "Comparing two judges on the same human-labelled items"),
		{plain("  "), muted("A  "), plain(nameA), muted("  (baseline)")},
		{plain("  "), muted("B  "), plain(nameB)},
	}
	for _, d := range c.Dimensions {
		out = append(out, nil)
		out = append(out, compareDimensionLines(d, allItems)...)
	}
	if len(c.Notes) > 0 {
		out = append(out, nil, text(RoleStrong, "Notes"))
		for _, n := range c.Notes {
			out = append(out, text(RoleWarning, "  "+safetext.SanitizeLine(n)))
		}
	}
	out = append(out, nil, text(RoleMuted, "Percent agreement, accuracy and the rates: Wilson 95% intervals; kappa: item bootstrap 95%; difference: Newcombe (1998) method 10; McNemar: exact, two-sided."))
	return fit(out, width)
}

func compareDimensionLines(d stats.DimensionComparison, allItems bool) []Line {
	a, b, p := d.A.VsHumans, d.B.VsHumans, d.Paired
	out := []Line{
		text(RoleHeader, fmt.Sprintf("%s (%s)", safetext.SanitizeLine(d.Dimension), scaleText(d.Scale))),
		text(RoleMuted, "  right: "+d.Right),
		nil,
		text(RoleStrong, "Each judge against the humans"),
		{plain("  "), muted(padRight("", 24)), muted(padRight("A", compareCol)), muted("B")},
		pairRow("n", fmt.Sprint(a.N), fmt.Sprint(b.N)),
		pairRow("percent agreement", bare(interval(a.PercentAgreement, true)), bare(interval(b.PercentAgreement, true))),
		pairRow("Cohen's kappa", bare(interval(a.CohenKappa, false)), bare(interval(b.CohenKappa, false))),
	}
	if d.Scale.Kind() == judge.KindBinary && a.Binary != nil && b.Binary != nil {
		out = append(out,
			pairRow("false-pass rate", bare(interval(a.Binary.FalsePassRate, true)), bare(interval(b.Binary.FalsePassRate, true))),
			pairRow("false-fail rate", bare(interval(a.Binary.FalseFailRate, true)), bare(interval(b.Binary.FalseFailRate, true))),
		)
	} else {
		out = append(out, text(RoleMuted, "  (false-pass and false-fail rates are for binary scales only)"))
	}
	if a.SmallSample != "" || b.SmallSample != "" {
		out = append(out, text(RoleWarning, fmt.Sprintf("  ! fewer than %d items: these figures are not yet stable", stats.MinReliableItems)))
	}
	out = append(out, nil,
		text(RoleStrong, fmt.Sprintf("Paired, on the %s with a human label", plural(p.N, "item", "items"))))
	if p.N == 0 {
		return append(out, text(RoleMuted, "  No item has a human label on this dimension: label some (gavel review), then compare."))
	}
	note := "  an item without an ok verdict counts as wrong"
	if d.A.NoVerdict > 0 || d.B.NoVerdict > 0 {
		note += fmt.Sprintf(" (A: %d, B: %d)", d.A.NoVerdict, d.B.NoVerdict)
	}
	if p.HumanTies > 0 {
		note += fmt.Sprintf("; %s with tied annotators left out", plural(p.HumanTies, "item", "items"))
	}
	out = append(out, text(RoleMuted, note))
	if p.SmallSample != "" {
		out = append(out, text(RoleWarning, "  ! "+p.SmallSample))
	}
	cw := max(9, len(fmt.Sprint(p.N))+2)
	out = append(out,
		Line{plain("  "), muted(padRight("", 12)), muted(padLeft("B right", cw)), muted(padLeft("B wrong", cw))},
		Line{plain("  "), muted(padRight("A right", 12)), plain(padLeft(fmt.Sprint(p.BothRight), cw)), plain(padLeft(fmt.Sprint(p.OnlyA), cw))},
		Line{plain("  "), muted(padRight("A wrong", 12)), plain(padLeft(fmt.Sprint(p.OnlyB), cw)), plain(padLeft(fmt.Sprint(p.BothWrong), cw))},
		nil,
		statRow("accuracy A", plain(interval(p.AccuracyA, true))),
		statRow("accuracy B", plain(interval(p.AccuracyB, true))),
		statRow("difference B − A", plain(differenceText(p.Difference)), muted("  Newcombe 95%")),
		statRow("McNemar exact p", plain(PValue(p.McNemarP)), muted("  "+verdictOf(p))),
		statRow("fixed by B", plain(itemList(p.Fixed, allItems))),
		statRow("broken by B", plain(itemList(p.Broken, allItems))),
	)
	if !allItems && (len(p.Fixed) > CompareItemsShown || len(p.Broken) > CompareItemsShown) {
		out = append(out, text(RoleMuted, "  --items lists them all; --format json gives every id"))
	}
	return out
}

// pairRow is a row with A's and B's figure in two columns.
func pairRow(name, a, b string) Line {
	return Line{plain("  "), muted(padRight(name, 24)), plain(padRight(a, compareCol)), plain(b)}
}

// differenceText is a difference of proportions in percentage points.
func differenceText(i stats.Interval) string {
	return signedInterval(judge.Binary, i)
}

// PValue writes a p-value: three decimals, or "< 0.001" with the value in
// scientific notation below that.
func PValue(e stats.Estimate) string {
	if !e.Defined() {
		return stats.Undefined + reason(e.Reason)
	}
	if e.Value >= 0.001 {
		return stats.FormatNumber(e.Value, 3)
	}
	return fmt.Sprintf("< 0.001 (%.1e)", e.Value)
}

// verdictOf says in words what the test found.
func verdictOf(p stats.PairedComparison) string {
	switch {
	case !p.McNemarP.Defined():
		return ""
	case p.OnlyA+p.OnlyB == 0:
		return "the judges are right on the same items"
	case p.McNemarP.Value < 0.05 && p.OnlyB > p.OnlyA:
		return "B right more often (p < 0.05)"
	case p.McNemarP.Value < 0.05:
		return "A right more often (p < 0.05)"
	}
	return "no difference beyond chance (p ≥ 0.05)"
}

// itemRef is an item id as shown, made inert.
func itemRef(u stats.UnitRef) string {
	s := safetext.SanitizeLine(u.ItemID)
	if u.Criterion > 0 {
		s += fmt.Sprintf(" (criterion %d)", u.Criterion)
	}
	return s
}

// maxItemWidth cuts a long id in a list.
const maxItemWidth = 40

// itemList is "N: id, id, id …".
func itemList(us []stats.UnitRef, all bool) string {
	if len(us) == 0 {
		return "0"
	}
	n := len(us)
	if !all {
		n = min(n, CompareItemsShown)
	}
	ids := make([]string, n)
	for i := range n {
		ids[i] = ansi.Truncate(itemRef(us[i]), maxItemWidth, "…")
	}
	s := fmt.Sprintf("%d: %s", len(us), strings.Join(ids, ", "))
	if n < len(us) {
		s += " …"
	}
	return s
}

// CompareMarkdown renders a comparison as Markdown: the same figures as
// CompareLines, as tables, every name and id sanitised and escaped.
func CompareMarkdown(c stats.Comparison, allItems bool) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# Comparing two judges\n\n")
	w("- **A** (baseline): %s\n- **B**: %s\n", MarkdownText(c.A), MarkdownText(c.B))
	for _, d := range c.Dimensions {
		a, bb, p := d.A.VsHumans, d.B.VsHumans, d.Paired
		w("\n## %s (%s)\n\nRight: %s.\n", MarkdownText(d.Dimension), MarkdownText(string(d.Scale)), MarkdownText(d.Right))
		w("\n### Each judge against the humans\n")
		cell := func(i stats.Interval, percent bool) string {
			s := mdInterval(i, percent)
			if s[1] != "" {
				return s[0] + " (" + s[1] + ")"
			}
			return s[0]
		}
		rows := [][]string{
			{"n", fmt.Sprint(a.N), fmt.Sprint(bb.N)},
			{"percent agreement", cell(a.PercentAgreement, true), cell(bb.PercentAgreement, true)},
			{"Cohen's kappa", cell(a.CohenKappa, false), cell(bb.CohenKappa, false)},
		}
		if a.Binary != nil && bb.Binary != nil {
			rows = append(rows,
				[]string{"false-pass rate", cell(a.Binary.FalsePassRate, true), cell(bb.Binary.FalsePassRate, true)},
				[]string{"false-fail rate", cell(a.Binary.FalseFailRate, true), cell(bb.Binary.FalseFailRate, true)})
		}
		mdTable(&b, []string{"Statistic", ">A", ">B"}, rows)
		if a.SmallSample != "" || bb.SmallSample != "" {
			w("\n> Fewer than %d items: these figures are not yet stable.\n", stats.MinReliableItems)
		}
		w("\n### Paired, on the %s with a human label\n\n", plural(p.N, "item", "items"))
		if p.N == 0 {
			w("No item has a human label on this dimension.\n")
			continue
		}
		w("An item without an ok verdict counts as wrong (A: %d, B: %d).", d.A.NoVerdict, d.B.NoVerdict)
		if p.HumanTies > 0 {
			w(" %s with tied annotators left out.", plural(p.HumanTies, "item", "items"))
		}
		w("\n")
		if p.SmallSample != "" {
			w("\n> %s\n", MarkdownText(capitalize(p.SmallSample)))
		}
		mdTable(&b, []string{"", ">B right", ">B wrong"}, [][]string{
			{"**A right**", fmt.Sprint(p.BothRight), fmt.Sprint(p.OnlyA)},
			{"**A wrong**", fmt.Sprint(p.OnlyB), fmt.Sprint(p.BothWrong)},
		})
		diff := mdSigned(judge.Binary, p.Difference)
		mdTable(&b, statHead, [][]string{
			statRowMD("accuracy A", mdInterval(p.AccuracyA, true), ""),
			statRowMD("accuracy B", mdInterval(p.AccuracyB, true), ""),
			statRowMD("difference B − A", diff, "Newcombe method 10"),
			{"McNemar exact p", MarkdownText(PValue(p.McNemarP)), "", MarkdownText(verdictOf(p))},
		})
		w("\n**Fixed by B** (A wrong, B right): %s\n", mdItems(p.Fixed, allItems))
		w("\n**Broken by B** (A right, B wrong): %s\n", mdItems(p.Broken, allItems))
	}
	if len(c.Notes) > 0 {
		w("\n## Notes\n\n")
		for _, n := range c.Notes {
			w("- %s\n", MarkdownText(n))
		}
	}
	w("\nPercent agreement, accuracy and the rates: Wilson 95%% intervals; kappa: item bootstrap 95%%; difference: Newcombe (1998) method 10; McNemar: exact, two-sided.\n")
	return b.String()
}

// mdItems is "N: id, id …" with every id escaped.
func mdItems(us []stats.UnitRef, all bool) string {
	if len(us) == 0 {
		return "none"
	}
	n := len(us)
	if !all {
		n = min(n, CompareItemsShown)
	}
	ids := make([]string, n)
	for i := range n {
		ids[i] = MarkdownText(itemRef(us[i]))
	}
	s := fmt.Sprintf("%d — %s", len(us), strings.Join(ids, ", "))
	if n < len(us) {
		s += " …"
	}
	return s
}
