package tui

import (
	"fmt"
	"strings"

	"github.com/gavel-dev/gavel/sessions/stats"
)

// judgePairLines compares judges with each other, dimension by dimension.
func judgePairLines(st Styles, r stats.Report) []string {
	out := []string{st.Strong.Render("Judge against judge")}
	if len(r.JudgePairs) == 0 {
		return append(out, st.Muted.Render("  No other judge in this session rates the same dimensions: run another judge on this dataset to compare them."))
	}
	for i, p := range r.JudgePairs {
		if i > 0 {
			out = append(out, "")
		}
		a := p.Agreement
		judgeName, refName := SanitizeLine(p.Judge), SanitizeLine(p.Reference)
		out = append(out, st.Header.Render(fmt.Sprintf("%s vs %s · %s (%s)  (n = %d)", judgeName, refName, SanitizeLine(p.Dimension), p.Scale, a.N)))
		if a.N == 0 {
			out = append(out, st.Muted.Render("  No item has an ok verdict from both judges yet."))
			continue
		}
		out = append(out, agreementRows(st, p.Scale, a, "reference")...)
		out = append(out, statRow(st, biasWhat(p.Scale)+" bias", signedInterval(p.Scale, a.ScoreBias)+st.Muted.Render("  "+judgeName+" − "+refName)))
		out = append(out, "")
		out = append(out, confusionLines(st, p.Scale, a.Confusion, refName, judgeName)...)
	}
	return out
}

// humanLines is the agreement between annotators on each dimension.
func humanLines(st Styles, hs []stats.HumanAgreement) []string {
	row := func(name, value string) string { return statRow(st, name, value) }
	var out []string
	for i, h := range hs {
		if i > 0 {
			out = append(out, "")
		}
		out = append(out, st.Strong.Render(fmt.Sprintf("Between annotators · %s (%s)", SanitizeLine(h.Dimension), h.Scale)))
		if len(h.Annotators) == 0 {
			out = append(out, st.Muted.Render("  Nobody has labelled this yet."))
			continue
		}
		names := make([]string, len(h.Annotators))
		for k, a := range h.Annotators {
			names[k] = SanitizeLine(a)
		}
		out = append(out,
			row("annotators", strings.Join(names, ", ")),
			row("labelled", fmt.Sprintf("%s · %d by two or more · %d tied", plural(h.Labelled, "item", "items"), h.Pairable, h.MajorityTies)),
		)
		if len(h.Annotators) < 2 {
			out = append(out, st.Muted.Render("  Agreement between annotators needs a second one: label the same items with another --annotator."))
			continue
		}
		out = append(out, row("Krippendorff's alpha", estimate(h.AlphaNominal, 3)+st.Muted.Render("  nominal")))
		if h.Scale.Ordinal() {
			out = append(out, row("alpha ordinal/interval", estimate(h.AlphaOrdinal, 3)+" / "+estimate(h.AlphaInterval, 3)))
		}
		out = append(out, row("Fleiss' kappa", estimate(h.FleissKappa, 3)))
		out = append(out, st.Muted.Render(fmt.Sprintf("  %-24s %5s  %-24s %s", "pair", "n", "agreement", "Cohen's kappa")))
		for _, p := range h.Pairs {
			out = append(out, fmt.Sprintf("  %s %5d  %s %s", fixWidth(SanitizeLine(p.A)+" – "+SanitizeLine(p.B), 24), p.N,
				fixWidth(bare(interval(p.PercentAgreement, true)), 24), bare(estimate(p.CohenKappa, 3))))
		}
		out = append(out, st.Muted.Render("  The judge vs the annotators' majority: \"Judge vs human\" above."))
	}
	return out
}
