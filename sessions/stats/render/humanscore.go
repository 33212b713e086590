package render

import (
	"fmt"

	"github.com/dustin/go-humanize"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// humanScoreLines is the benchmark score a human would give the judged
// items: the judge's own figure, Rogan–Gladen's correction (binary
// scales), prediction-powered inference and the fair labels alone, or
// why they are not given.
func humanScoreLines(scale judge.Scale, f stats.Figures) []Line {
	c, b := f.Corrected, f.Benchmark
	if c == nil && b == nil {
		return nil
	}
	judged := judgedCount(f)
	if judged == 0 {
		return nil
	}
	share := isShare(scale)
	out := []Line{text(RoleStrong, fmt.Sprintf("The %s a human would give  (all %s)", biasWhat(scale), plural(judged, "judged item", "judged items")))}
	if c != nil {
		out = append(out, statRow("the judge says", plain(interval(c.ObservedPassRate, true))))
	}
	// One reason, said once, when no estimate can be given.
	if reason := notGiven(c, b); reason != "" {
		return append(out, text(RoleMuted, "  not estimated: "+reason))
	}
	if n := f.Selection.Fair; n < stats.MinReliableItems {
		out = append(out, text(RoleWarning, fmt.Sprintf("  ⚠ only %s: the intervals are unreliable below %d",
			plural(n, "random label", "random labels"), stats.MinReliableItems)))
	}
	if c != nil {
		out = append(out, statRow("Rogan–Gladen", plain(interval(c.PassRate, true))),
			statRow("", muted("from sensitivity "+estimatePercent(c.Sensitivity)+" · specificity "+estimatePercent(c.Specificity))))
	}
	if b != nil {
		out = append(out, statRow("PPI++", plain(interval(b.PPI, share))))
		if note := ppiNote(b); note != "" {
			out = append(out, statRow("", muted(note)))
		}
		out = append(out, statRow("labels alone", plain(interval(b.LabelsOnly, share)), muted(fmt.Sprintf("  n = %d", b.Labelled))))
	}
	return out
}

// judgedCount is the number of judged items the human score is over.
func judgedCount(f stats.Figures) int {
	if b := f.Benchmark; b != nil {
		return b.Judged
	}
	return f.Judging.OK
}

// ppiNote says what PPI's interval is worth: on a census, that the labels
// are every judged item; otherwise the labels alone it equals, and PPI++'s
// weight on the judge. Empty when neither is known.
func ppiNote(b *stats.Benchmark) string {
	switch {
	case b.Labelled == b.Judged:
		return "every judged item is labelled"
	case !b.EffectiveLabels.Defined():
		return ""
	}
	note := fmt.Sprintf("worth about %s labels alone", humanize.Comma(int64(b.EffectiveLabels.Value+0.5)))
	if b.Lambda.Defined() {
		note += fmt.Sprintf(" (λ %s)", stats.FormatNumber(b.Lambda.Value, 2))
	}
	return note
}

// notGiven is the reason shared by every estimate of the human score when
// none is defined, or "" when one is.
func notGiven(c *stats.Corrected, b *stats.Benchmark) string {
	reason := ""
	if c != nil {
		if c.PassRate.Defined() {
			return ""
		}
		reason = c.PassRate.Reason
	}
	if b != nil {
		if b.PPI.Defined() {
			return ""
		}
		if reason == "" {
			reason = b.PPI.Reason
		}
	}
	if reason == "" {
		reason = "undefined"
	}
	return reason
}

// labelsNeededLines says about how many more random labels would narrow
// each headline interval to ±2 and ±5 points.
func labelsNeededLines(scale judge.Scale, needs []stats.LabelsNeeded) []Line {
	var rows []Line
	for _, n := range needs {
		if !n.HalfWidth.Defined() {
			continue
		}
		now, two, five := neededWidths(scale, n)
		rows = append(rows, statRow(neededName(n.Figure), plain(now+" now"),
			muted(fmt.Sprintf(" → %s: %s · %s: %s", two, moreText(n.For2), five, moreText(n.For5)))))
	}
	if len(rows) == 0 {
		return nil
	}
	return append([]Line{text(RoleStrong, "More random labels for a narrower interval  (about)")}, rows...)
}

// neededWidths writes a figure's current half-width and the two it aims
// at: in percentage points for rates ("±1.5 pts", "±2", "±5"), as
// numbers for coefficients and mean scores ("±0.024", "±0.02", "±0.05").
func neededWidths(scale judge.Scale, n stats.LabelsNeeded) (now, two, five string) {
	rate := n.Figure != "cohen_kappa" && (n.Figure != "benchmark" || isShare(scale))
	if rate {
		return "±" + stats.FormatNumber(100*n.HalfWidth.Value, 1) + " pts", "±2", "±5"
	}
	return "±" + stats.FormatNumber(n.HalfWidth.Value, 3), "±0.02", "±0.05"
}

func neededName(figure string) string {
	switch figure {
	case "percent_agreement":
		return "percent agreement"
	case "cohen_kappa":
		return "Cohen's kappa"
	case "corrected_pass_rate":
		return "corrected pass rate"
	case "benchmark":
		return "PPI++ score"
	}
	return figure
}

// moreText is "reached", or "1,240 more".
func moreText(e stats.Estimate) string {
	switch {
	case !e.Defined():
		return stats.Undefined
	case e.Value <= 0:
		return "reached"
	}
	return humanize.Comma(int64(e.Value)) + " more"
}
