package report

import (
	"fmt"
	"html"
	"html/template"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// verdictParagraph is the report in one paragraph, as sentences: how the
// best judge agrees with the humans, how far it moves the score, what a
// human would say the score is, how the others compare and how sure the
// figures are.
func (d *Data) verdictParagraph() []template.HTML {
	t, at := d.tableRows()
	if len(t) == 0 {
		if d.Labelled == 0 {
			return []template.HTML{plain("No item of this session has a human label yet, so nothing says how far its judges can be trusted: label a random sample (gavel review, gavel sample) and write the report again.")}
		}
		return []template.HTML{plain("No judge of this session rated what the humans labelled; the agreement between the annotators is below.")}
	}
	best := t[0]
	p := fmt.Sprintf("judge_table.%d.", at[0])
	name := html.EscapeString(line(best.Judge))
	unit := "items"
	if jr := d.judgeByName(best.Judge); jr != nil && jr.Report.PerCriterion {
		unit = "rubric criteria"
	}
	var out []template.HTML
	lead := fmt.Sprintf("The judge <strong>%s</strong> agrees with the humans", name)
	if len(t) > 1 {
		lead = fmt.Sprintf("Of %d judges, the one that agrees best with the humans is <strong>%s</strong>: it agrees with them", len(t), name)
	}
	dim := ""
	if multiDimension(t) || best.Dimension != "correct" {
		dim = " on " + html.EscapeString(line(best.Dimension))
	}
	out = append(out, template.HTML(fmt.Sprintf( //nolint:gosec // names escaped, figures from fig
		`%s%s on %s of %s %s, Cohen's κ %s.`,
		lead, dim, pct(p+"percent_agreement", best.PercentAgreement),
		count(p+"n", best.N), unit, coef(p+"cohen_kappa", best.CohenKappa))))
	if best.ScoreBias.Defined() {
		out = append(out, template.HTML(biasSentence(best.Scale, best.ScoreBias, p+"score_bias"))) //nolint:gosec // from fig
	}
	if best.Scale.Kind() == judge.KindBinary && best.FalsePassRate.Defined() && best.FalseFailRate.Defined() {
		out = append(out, template.HTML(fmt.Sprintf( //nolint:gosec // from fig
			`Where the humans said NO it said YES %s of the time (false pass); where they said YES it said NO %s (false fail).`,
			pct(p+"false_pass_rate", best.FalsePassRate), pct(p+"false_fail_rate", best.FalseFailRate))))
	}
	if jr := d.judgeByName(best.Judge); jr != nil {
		for di, dr := range jr.Report.Dimensions {
			c := dr.Overall.Corrected
			if dr.Dimension != best.Dimension || c == nil || !c.PassRate.Defined() {
				continue
			}
			cp := fmt.Sprintf("judges.%d.dimensions.%d.overall.corrected.", jr.Index, di)
			out = append(out, template.HTML(fmt.Sprintf( //nolint:gosec // from fig
				`Over every item it judged it passes %s; corrected for its errors, a human would pass %s.`,
				pct(cp+"observed_pass_rate", c.ObservedPassRate), pct(cp+"pass_rate", c.PassRate))))
		}
	}
	if len(t) > 1 {
		last := t[len(t)-1]
		lp := fmt.Sprintf("judge_table.%d.", at[len(t)-1])
		out = append(out, template.HTML(fmt.Sprintf( //nolint:gosec // names escaped, figures from fig
			`The one that agrees least is <strong>%s</strong>, κ %s.`,
			html.EscapeString(line(last.Judge)), coef(lp+"cohen_kappa", last.CohenKappa))))
	}
	if best.SmallSample != "" {
		out = append(out, plain(line(best.SmallSample)))
	}
	for _, j := range d.Judges {
		for _, dr := range j.Report.Dimensions {
			if w := dr.Overall.Selection.Warning; w != "" && j.Report.Judge == best.Judge {
				out = append(out, plain(line(w)))
			}
		}
	}
	return out
}

// biasSentence says how far the judge moves the score from the humans'.
func biasSentence(scale judge.Scale, b stats.Interval, path string) string {
	f := string(signedI(path, scale, b))
	what, up, down := "mean score", "it scores higher than they do", "it scores lower than they do"
	switch scale.Kind() {
	case judge.KindBinary:
		what, up, down = "pass rate", "it passes more than they do", "it fails more than they do"
	case judge.KindPairwise:
		what, up, down = "share of B", "it prefers B more than they do", "it prefers A more than they do"
	}
	tail := "the interval does not tell a direction"
	switch {
	case b.HasBounds() && b.Low > 0:
		tail = up
	case b.HasBounds() && b.High < 0:
		tail = down
	}
	return fmt.Sprintf(`Its %s minus the humans' on the same items is %s: %s.`, what, f, tail)
}

// plain is plain text for the paragraph, escaped.
func plain(s string) template.HTML { return template.HTML(html.EscapeString(s)) } //nolint:gosec // escaped

// tableRows are the rows of the judge table about the report's judges
// (all of them, or those --judge chose), ranked, with each row's place in
// Stats.JudgeTable.
func (d *Data) tableRows() ([]stats.JudgeRow, []int) {
	var rows []stats.JudgeRow
	var at []int
	for i, r := range d.Stats.JudgeTable {
		if d.judgeByName(r.Judge) != nil {
			rows = append(rows, r)
			at = append(at, i)
		}
	}
	return rows, at
}

func (d *Data) judgeByName(name string) *Judge {
	for i := range d.Judges {
		if d.Judges[i].Report.Judge == name {
			return &d.Judges[i]
		}
	}
	return nil
}
