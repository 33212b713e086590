package render

import (
	"fmt"
	"strings"

	"github.com/gavel-dev/gavel/sessions/safetext"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// CutText is a cut as the sweep reads it: "≥ 4" for a score, "≥ 0.70" for
// a probability.
func CutText(op stats.OperatingPoints, cut float64) string {
	if op.Grade == stats.GradeScore {
		return "≥ " + stats.FormatNumber(cut, -1)
	}
	return "≥ " + stats.FormatNumber(cut, 2)
}

// gradeText says what a grade is, for a heading.
func gradeText(grade string) string {
	switch grade {
	case stats.GradeScore:
		return "its score"
	case stats.GradeLogprob:
		return "P(YES) from its logprob confidence"
	case stats.GradeSamples:
		return "P(YES) as the share of samples saying YES"
	}
	return grade
}

// ConfidenceText says what a reliability curve's confidence is ("logprob
// confidence", "share of agreeing samples"), as the text, the Markdown
// and the report write it.
func ConfidenceText(source string) string {
	if source == stats.GradeSamples {
		return "share of agreeing samples"
	}
	return "logprob confidence"
}

// OperatingTitle names an operating-point analysis: the judge's
// dimension and the human dimension it is read against.
func OperatingTitle(op stats.OperatingPoints) string {
	t := safetext.SanitizeLine(op.Judge) + " · " + safetext.SanitizeLine(op.Dimension)
	if op.Against != op.Dimension {
		t += " against human " + safetext.SanitizeLine(op.Against)
	}
	return t
}

// costText is "1 per false pass, 1 per false fail".
func costText(c stats.Costs) string {
	return fmt.Sprintf("cost %s per false pass, %s per false fail", stats.FormatNumber(c.FalsePass, -1), stats.FormatNumber(c.FalseFail, -1))
}

// operatingLines renders the operating points of one graded judge: the
// sweep as a table, the best cut and the "ask a human" band.
func operatingLines(op stats.OperatingPoints) []Line {
	out := []Line{
		text(RoleHeader, "Operating points: "+OperatingTitle(op)),
		text(RoleMuted, fmt.Sprintf("graded by %s; %s graded, %d without a grade, %d labelled %s",
			gradeText(op.Grade), plural(op.Graded, "item", "items"), op.Unknown, op.Labelled, safetext.SanitizeLine(op.Against))),
	}
	if op.SmallSample != "" {
		out = append(out, Line{{Text: "warning: ", Role: RoleWarning}, plain(op.SmallSample)})
	}
	head := padRight("pass if", 15) + padLeft("pass", 7) + padLeft("agree", 8) + padLeft("false pass", 12) + padLeft("false fail", 12) + padLeft("kappa", 8) + padLeft("cost", 7)
	out = append(out, text(RoleMuted, "  "+head))
	for _, g := range CutGroups(op) {
		c := op.Cuts[g[0]]
		mark := "  "
		if op.Best != nil && op.Best.Cut >= c.Cut && op.Best.Cut <= op.Cuts[g[1]].Cut {
			mark = "▸ "
		}
		label := CutText(op, c.Cut)
		if g[1] > g[0] {
			label += " to " + gradeNumber(op, op.Cuts[g[1]].Cut)
		}
		row := padRight(label, 15) + padLeft(pct(c.PassRate), 7) + padLeft(pct(c.Agreement.Estimate()), 8) +
			padLeft(pct(c.FalsePassRate.Estimate()), 12) + padLeft(pct(c.FalseFailRate.Estimate()), 12) +
			padLeft(num(c.CohenKappa, 3), 8) + padLeft(num(c.Cost, 3), 7)
		out = append(out, Line{muted(mark), plain(row)})
	}
	if b := op.Best; b != nil {
		out = append(out, Line{strong("Best cut "), plain(fmt.Sprintf("%s (%s): agreement %s, false pass %s, false fail %s, kappa %s",
			CutText(op, b.Cut), costText(op.Costs), interval(b.Agreement, true), interval(b.FalsePassRate, true),
			interval(b.FalseFailRate, true), estimate(b.CohenKappa, 3)))})
	} else {
		out = append(out, Line{strong("Best cut "), muted(stats.Undefined + " (no labelled item)")})
	}
	out = append(out, bandLine(op))
	return out
}

// CutGroups groups the consecutive cuts of a sweep that pass the same
// items (the same pass rate, false passes and false fails): [first, last]
// indexes into op.Cuts. A judge whose grades take few values (two
// samples, a few distinct confidences) has long runs of identical cuts.
func CutGroups(op stats.OperatingPoints) [][2]int {
	var out [][2]int
	for k, c := range op.Cuts {
		if n := len(out); n > 0 {
			p := op.Cuts[out[n-1][1]]
			if p.PassRate == c.PassRate && p.FalsePasses == c.FalsePasses && p.FalseFails == c.FalseFails {
				out[n-1][1] = k
				continue
			}
		}
		out = append(out, [2]int{k, k})
	}
	return out
}

// bandLine says which items the "ask a human" band sends to people.
func bandLine(op stats.OperatingPoints) Line {
	if op.Band == nil && !strings.HasPrefix(op.BandReason, "none needed") {
		return Line{strong("Ask a human "), muted(BandSentence(op))}
	}
	return Line{strong("Ask a human "), plain(BandSentence(op))}
}

// BandSentence says, after "Ask a human", which items the band sends to
// people and how the judge does on the rest; or why there is none — none
// needed, when one cut alone reaches the target. Text and Markdown write
// it alike.
func BandSentence(op stats.OperatingPoints) string {
	b := op.Band
	switch {
	case b == nil && strings.HasPrefix(op.BandReason, "none needed"):
		return safetext.SanitizeLine(op.BandReason)
	case b == nil:
		return stats.Undefined + reason(safetext.SanitizeLine(op.BandReason))
	}
	return fmt.Sprintf("when the grade is at least %s and below %s: %s of the items (%d) go to people; the judge agrees with them on %s of the %s it keeps (target %s)",
		gradeNumber(op, b.Low), gradeNumber(op, b.High), pct(b.Sent), b.SentItems, interval(b.Agreement, true),
		plural(b.Rest, "labelled item", "labelled items"), stats.FormatPercent(op.Costs.BandAgreement, 0))
}

// gradeNumber is a cut without its "≥".
func gradeNumber(op stats.OperatingPoints, v float64) string {
	return strings.TrimPrefix(CutText(op, v), "≥ ")
}

// reliabilityLines renders a reliability curve: the non-empty bins and the
// expected calibration error.
func reliabilityLines(r stats.Reliability) []Line {
	src := ConfidenceText(r.Confidence)
	out := []Line{
		text(RoleHeader, "Reliability: "+safetext.SanitizeLine(r.Judge)+" · "+safetext.SanitizeLine(r.Dimension)),
		text(RoleMuted, fmt.Sprintf("confidence: %s; %d labelled, %d without a confidence", src, r.N, r.Unknown)),
	}
	if r.SmallSample != "" {
		out = append(out, Line{{Text: "warning: ", Role: RoleWarning}, plain(r.SmallSample)})
	}
	out = append(out, text(RoleMuted, "  "+padRight("confidence", 12)+padLeft("items", 6)+padLeft("mean", 8)+"  agreement"))
	for _, b := range r.Bins {
		if b.N == 0 {
			continue
		}
		out = append(out, Line{plain("  " + padRight(binText(b), 12) + padLeft(fmt.Sprint(b.N), 6) + padLeft(num(b.Confidence, 3), 8) + "  " + interval(b.Agreement, true))})
	}
	out = append(out, Line{strong("Expected calibration error "), plain(interval(r.ECE, false))})
	return out
}

// binText is "0.50–0.60".
func binText(b stats.ReliabilityBin) string {
	return stats.FormatNumber(b.Low, 2) + "–" + stats.FormatNumber(b.High, 2)
}

// pct is a proportion with one decimal, or "—".
func pct(e stats.Estimate) string {
	if !e.Defined() {
		return stats.Undefined
	}
	return stats.FormatPercent(e.Value, 1)
}

// num is a number, or "—".
func num(e stats.Estimate, decimals int) string {
	if !e.Defined() {
		return stats.Undefined
	}
	return stats.FormatNumber(e.Value, decimals)
}

// gradedLines renders every operating point and reliability curve of a
// report.
func gradedLines(r stats.Report) []Line {
	var out []Line
	for _, op := range r.OperatingPoints {
		out = append(append(out, operatingLines(op)...), nil)
	}
	for _, rel := range r.Reliability {
		out = append(append(out, reliabilityLines(rel)...), nil)
	}
	return out
}
