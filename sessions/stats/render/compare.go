package render

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/sessions/stats"

	"github.com/gavel-dev/gavel/sessions/safetext"
)

// judgePairLines compares judges with each other, dimension by dimension.
func judgePairLines(r stats.Report) []Line {
	out := []Line{text(RoleStrong, "Judge against judge")}
	if len(r.JudgePairs) == 0 {
		return append(out, text(RoleMuted, "  No other judge in this session rates the same dimensions: run another judge on this dataset to compare them."))
	}
	for i, p := range r.JudgePairs {
		if i > 0 {
			out = append(out, nil)
		}
		a := p.Agreement
		judgeName, refName := safetext.SanitizeLine(p.Judge), safetext.SanitizeLine(p.Reference)
		out = append(out, text(RoleHeader, fmt.Sprintf("%s vs %s · %s (%s)  (n = %d)", judgeName, refName, safetext.SanitizeLine(p.Dimension), scaleText(p.Scale), a.N)))
		if a.N == 0 {
			out = append(out, text(RoleMuted, "  No item has an ok verdict from both judges yet."))
			continue
		}
		out = append(out, agreementRows(p.Scale, a, "reference")...)
		if p.Scale.Numeric() {
			out = append(out, statRow(biasWhat(p.Scale)+" bias", plain(signedInterval(p.Scale, a.ScoreBias)), muted("  "+judgeName+" − "+refName)))
		}
		out = append(out, nil)
		out = append(out, confusionLines(p.Scale, a.Confusion, refName, judgeName)...)
	}
	return out
}

// humanLines is the agreement between annotators on each dimension.
// With no judge in the report, there is no "Judge vs human" to point to.
func humanLines(hs []stats.HumanAgreement, judges bool) []Line {
	row := func(name, value string) Line { return statRow(name, plain(value)) }
	var out []Line
	for i, h := range hs {
		if i > 0 {
			out = append(out, nil)
		}
		out = append(out, text(RoleStrong, fmt.Sprintf("Between annotators · %s (%s)", safetext.SanitizeLine(h.Dimension), scaleText(h.Scale))))
		if len(h.Annotators) == 0 {
			out = append(out, text(RoleMuted, "  Nobody has labelled this yet."))
			continue
		}
		names := make([]string, len(h.Annotators))
		for k, a := range h.Annotators {
			names[k] = safetext.SanitizeLine(a)
		}
		out = append(out,
			row("annotators", strings.Join(names, ", ")),
			row("labelled", fmt.Sprintf("%s · %d by two or more · %d tied", plural(h.Labelled, "item", "items"), h.Pairable, h.MajorityTies)),
		)
		if a := adjudicationText(h); a != "" {
			out = append(out, row("adjudication", a))
		}
		if len(h.Annotators) < 2 {
			out = append(out, text(RoleMuted, "  Agreement between annotators needs a second one: label the same items with another --annotator."))
			continue
		}
		if h.SmallSample != "" {
			out = append(out, text(RoleWarning, "  ⚠ "+h.SmallSample))
		}
		out = append(out,
			statRow("percent agreement", plain(interval(h.PercentAgreement, true)), muted("  pairs of labels")),
			statRow("Krippendorff's alpha", plain(interval(h.AlphaNominal, false)), muted("  nominal")))
		if h.Scale.Ordinal() {
			out = append(out,
				row("alpha ordinal", interval(h.AlphaOrdinal, false)),
				row("alpha interval", interval(h.AlphaInterval, false)),
				row("alpha ratio", interval(h.AlphaRatio, false)))
		}
		out = append(out,
			statRow("Fleiss' kappa", plain(interval(h.FleissKappa, false)), muted("  irrCAC, missing labels")),
			row("Gwet's AC1", interval(h.GwetAC1, false)))
		if h.Scale.Ordinal() {
			out = append(out, statRow("Gwet's AC2", plain(interval(h.GwetAC2, false)), muted("  quadratic weights")))
		}
		// The pair column is as wide as its longest pair, within 20–40
		// cells: cut at 20, "annotator1 – annotator2" and
		// "annotator1 – annotator3" read the same.
		pairs := make([]string, len(h.Pairs))
		width := 20
		for i, p := range h.Pairs {
			pairs[i] = safetext.SanitizeLine(p.A) + " – " + safetext.SanitizeLine(p.B)
			width = max(width, min(ansi.StringWidth(pairs[i]), 40))
		}
		out = append(out, text(RoleMuted, fmt.Sprintf("  %s %5s  %-22s %s", fixWidth("pair", width), "n", "agreement", "Cohen's kappa")))
		for i, p := range h.Pairs {
			out = append(out, text(RolePlain, fmt.Sprintf("  %s %5d  %s %s", fixWidth(pairs[i], width), p.N,
				fixWidth(bare(interval(p.PercentAgreement, true)), 22), bare(interval(p.CohenKappa, false)))))
		}
		if judges {
			out = append(out, text(RoleMuted, "  The judge vs the annotators' majority: \"Judge vs human\" above."))
		}
	}
	return out
}

// adjudicationText says how many references an adjudicator settled and
// how many disagreements between people wait for one; "" when neither.
func adjudicationText(h stats.HumanAgreement) string {
	if h.Adjudicated == 0 && h.AwaitingAdjudication == 0 {
		return ""
	}
	return fmt.Sprintf("%s adjudicated · %s waiting",
		plural(h.Adjudicated, "reference", "references"), plural(h.AwaitingAdjudication, "disagreement", "disagreements"))
}
