package render

import (
	"fmt"
	"math"
	"strings"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/safetext"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// The plan section (SPEC "Labels where they count"): a labelling plan's
// design-based estimates, written once here for the screen and `gavel
// stats` text (and so the HTML fragment); markdownPlan and gavel report
// write the same figures with the same words (PlanTitle, PlanMeasureText,
// PlanHalfWidth, PlanStopText, PlanWorthText).

// PlanTitle heads the section: "Labelling plan 3 · active · judge match ·
// correct (pass rate)", session text made inert.
func PlanTitle(p *stats.PlanReport) string {
	s := fmt.Sprintf("Labelling plan %d · %s", p.ID, safetext.SanitizeLine(p.Design))
	if p.Judge != "" {
		s += " · judge " + safetext.SanitizeLine(p.Judge)
	}
	if p.Dimension != "" {
		s += " · " + safetext.SanitizeLine(p.Dimension)
	}
	if m := PlanMeasureText(p); m != "" {
		s += " (" + m + ")"
	}
	return s
}

// PlanMeasureText names what the plan estimates: "pass rate" or "mean
// score"; "" when the scale gives none.
func PlanMeasureText(p *stats.PlanReport) string {
	switch p.Measure {
	case stats.MeasurePassRate:
		return "pass rate"
	case stats.MeasureMeanScore:
		return "mean score"
	}
	return ""
}

// planShare reports whether the plan's figures are proportions, written
// as percentages and their widths in points.
func planShare(p *stats.PlanReport) bool {
	return p.Scale == "" || p.Scale.Kind() == judge.KindBinary
}

// PlanHalfWidth writes a half-width: "±4.2 pts" on a rate, "±0.042" on a
// score.
func PlanHalfWidth(p *stats.PlanReport, h float64) string {
	if planShare(p) {
		return "±" + stats.FormatNumber(100*h, 1) + " pts"
	}
	return "±" + stats.FormatNumber(h, 3)
}

// PlanStopText says where the stop rule stands: "reached: ±4.2 pts, asked
// ±5.0 pts", or how many more planned labels are expected to get there.
func PlanStopText(p *stats.PlanReport) string {
	st := p.Stop
	asked := PlanHalfWidth(p, st.TargetWidth)
	if !st.HalfWidth.Defined() {
		return fmt.Sprintf("asked %s; %s", asked, stats.Undefined+reason(st.HalfWidth.Reason))
	}
	now := PlanHalfWidth(p, st.HalfWidth.Value)
	if st.Reached && p.Census {
		return "reached: " + stats.PlanCensusReason
	}
	if st.Reached {
		return fmt.Sprintf("reached: %s, asked %s", now, asked)
	}
	if !st.More.Defined() {
		return fmt.Sprintf("%s now, asked %s; %s", now, asked, stats.Undefined+reason(st.More.Reason))
	}
	word := "planned labels"
	if int(st.More.Value) == 1 {
		word = "planned label"
	}
	s := fmt.Sprintf("%s now, asked %s: about %d more %s", now, asked, int(st.More.Value), word)
	if ps := st.PlanSize; ps.Defined() && int(ps.Value) > p.Target {
		s += fmt.Sprintf(" (extend the plan from %d to %d items)", p.Target, int(ps.Value))
	} else if p.Pending > 0 {
		s += " (the plan's unlabelled items may be enough)"
	}
	return s
}

// PlanWorthText is the design effect with what the labels are worth:
// "0.43: the 80 labels are worth about 186 of a uniform plan".
func PlanWorthText(p *stats.PlanReport) string {
	if !p.DesignEffect.Defined() {
		return stats.Undefined + reason(p.DesignEffect.Reason)
	}
	s := stats.FormatNumber(p.DesignEffect.Value, 2)
	if u := p.UniformEquivalent; u.Defined() && p.Design != "uniform" {
		s += fmt.Sprintf(": the %s worth about %s of a uniform plan", plural(p.Labelled, "label is", "labels are"), stats.FormatNumber(math.Round(u.Value), 0))
	}
	return s
}

// planCounts is the plan's progress in a line: "100 of 2000 items (seed 7)
// · 80 labelled · 5 can't judge or tied · 15 not yet".
func planCounts(p *stats.PlanReport) string {
	return fmt.Sprintf("%d of %d items planned (seed %d) · %d labelled · %d can't judge or tied · %d not yet",
		p.Selected, p.Items, p.Seed, p.Labelled, p.Nonresponse, p.Pending)
}

// planOffText describes the labels off the plan, or "" when none.
func planOffText(p *stats.PlanReport) string {
	o := p.OffPlan
	if o.Labels == 0 {
		return ""
	}
	mean := stats.Undefined
	if o.Mean.Defined() {
		mean = intervalPart(planShare(p))(o.Mean.Value)
	}
	return fmt.Sprintf("%s on %d of its items, kept out of the estimates (their unweighted mean %s)",
		plural(o.Labels, "label", "labels"), o.Items, mean)
}

// planRow is one figure of the section, for every format.
type planRow struct {
	name, note string
	value      stats.Interval
	estimate   *stats.Estimate
}

func planRows(p *stats.PlanReport) []planRow {
	what := PlanMeasureText(p)
	if what == "" {
		what = "mean"
	}
	judgeNote := fmt.Sprintf("over %s", plural(p.Verdicts, "verdict", "verdicts"))
	return []planRow{
		{name: "corrected score", value: p.Score, note: "active PPI: every verdict, corrected by the weighted labels"},
		{name: "human " + what + " (HT)", value: p.HumanMean, note: "Horvitz–Thompson, labels alone"},
		{name: "human " + what + " (Hájek)", value: p.HumanMeanHajek, note: "Hájek ratio, labels alone"},
		{name: "judge's own " + what, estimate: &p.JudgeScore, note: judgeNote},
		{name: "agreement with judge", value: p.Agreement, note: "weighted share of labels equal to the verdict"},
	}
}

// planLines renders the plan section; none when the report has no plan.
func planLines(p *stats.PlanReport) []Line {
	if p == nil {
		return nil
	}
	share := planShare(p)
	out := []Line{text(RoleStrong, PlanTitle(p))}
	add := func(ls ...Line) { out = append(out, ls...) }
	add(statRow("plan", plain(planCounts(p))))
	if off := planOffText(p); off != "" {
		add(statRow("off the plan", plain(off)))
	}
	for _, r := range planRows(p) {
		v := ""
		if r.estimate != nil {
			v = estimate(*r.estimate, 3)
			if share && r.estimate.Defined() {
				v = stats.FormatPercent(r.estimate.Value, 1)
			}
		} else {
			v = interval(r.value, share || r.name == "agreement with judge")
		}
		add(statRow(r.name, plain(v), muted("  "+r.note)))
	}
	add(statRow("design effect", plain(PlanWorthText(p))))
	add(statRow("stop rule", plain(PlanStopText(p))))
	for _, w := range []string{p.Assumption, p.HumanMeanCaution} {
		if w != "" {
			add(Line{{Text: "⚠ ", Role: RoleWarning}, {Text: safetext.SanitizeLine(sentence(w)), Role: RoleWarning}})
		}
	}
	if p.DesignEffectNote != "" {
		if p.DesignEffect.Value > 1 { // the design cost precision: a warning
			add(Line{{Text: "⚠ ", Role: RoleWarning}, {Text: safetext.SanitizeLine(sentence(p.DesignEffectNote)), Role: RoleWarning}})
		} else {
			add(text(RoleMuted, safetext.SanitizeLine(sentence(p.DesignEffectNote))))
		}
	}
	for _, n := range p.Notes {
		add(Line{{Text: "note: ", Role: RoleWarning}, plain(safetext.SanitizeLine(n))})
	}
	add(text(RoleMuted, PlanIntervalsNote))
	return out
}

// PlanIntervalsNote says how the plan's intervals are made.
const PlanIntervalsNote = "Plan intervals are 95% and design-based: each label weighted by 1/π, the Hájek–Rosén variance (a stratum with one label estimated with its nearest neighbour), a t quantile with Satterthwaite's degrees of freedom; while the labels show no spread, the rule of three (about 3 in m may differ)."

// withPlan appends the plan section and a blank line to out; out as it
// is when the report has no plan.
func withPlan(out []Line, p *stats.PlanReport) []Line {
	if pl := planLines(p); len(pl) > 0 {
		out = append(append(out, pl...), nil)
	}
	return out
}

// sentence ends s with a full stop.
func sentence(s string) string {
	if strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}

// markdownPlan writes the plan section: the same figures and words as
// planLines, as tables. Nothing when the report has no plan.
func markdownPlan(b *strings.Builder, p *stats.PlanReport) {
	if p == nil {
		return
	}
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("\n## %s\n\n", MarkdownText(PlanTitle(p)))
	w("%s.", MarkdownText(capitalize(planCounts(p))))
	if off := planOffText(p); off != "" {
		w(" Off the plan: %s.", MarkdownText(off))
	}
	w("\n")
	share := planShare(p)
	var rows [][]string
	for _, r := range planRows(p) {
		cells := mdInterval(r.value, share || r.name == "agreement with judge")
		if r.estimate != nil {
			cells = mdEstimate(*r.estimate, 3)
			if share && r.estimate.Defined() {
				cells[0] = stats.FormatPercent(r.estimate.Value, 1)
			}
		}
		rows = append(rows, statRowMD(capitalize(r.name), cells, MarkdownText(r.note)))
	}
	rows = append(rows,
		[]string{"Design effect", MarkdownText(PlanWorthText(p)), "", "vs a uniform plan of the same size"},
		[]string{"Stop rule", MarkdownText(PlanStopText(p)), "", "corrected score's half-width"},
	)
	mdTable(b, statHead, rows)
	for _, s := range []string{p.Assumption, p.HumanMeanCaution} {
		if s != "" {
			w("\n⚠ %s\n", MarkdownText(sentence(s)))
		}
	}
	if p.DesignEffectNote != "" {
		mark := ""
		if p.DesignEffect.Value > 1 {
			mark = "⚠ "
		}
		w("\n%s%s\n", mark, MarkdownText(sentence(p.DesignEffectNote)))
	}
	for _, n := range p.Notes {
		w("\nnote: %s\n", MarkdownText(n))
	}
	w("\n%s\n", PlanIntervalsNote)
}
