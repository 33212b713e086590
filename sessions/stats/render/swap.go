package render

import (
	"fmt"
	"strings"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// The swap audit of a pairwise judge: the same pair judged with the two
// responses in each order. A judge that follows the response says the
// same both times; one that follows the position does not, and which
// position wins is the direction of its bias.

// swapLines is the swap audit as text.
func swapLines(scale judge.Scale, a *stats.SwapAudit) []Line {
	out := []Line{text(RoleStrong, "Swap audit  (each pair judged with the responses in both orders)")}
	if a.Pairs == 0 {
		return append(out, text(RoleMuted, fmt.Sprintf("  %s judged in the swapped order, none with an ok verdict in each order yet.",
			plural(a.Swapped, "item", "items"))))
	}
	h := a.VsHumans
	right := func(n int) Span {
		if h.N == 0 {
			return muted("")
		}
		return muted(fmt.Sprintf("  %d of %d with a human label", n, h.N))
	}
	out = append(out,
		statRow("judged in both orders", plain(fmt.Sprintf("%s · %d consistent · %d inconsistent", plural(a.Pairs, "pair", "pairs"), a.Consistent, a.Inconsistent))),
		statRow("positional agreement", plain(interval(a.PositionalAgreement, true)), muted("  the two orders agree")),
		statRow("kappa between orders", plain(estimate(a.KappaBetweenOrders, 3))),
		statRow("right, original order", plain(interval(h.Original, true)), right(h.RightOriginal)),
		statRow("right, swapped order", plain(interval(h.Swapped, true)), right(h.RightSwapped)),
		statRow("right in both orders", plain(interval(h.Both, true)), right(h.RightBoth)),
		statRow("when they disagree", plain(positionCounts(a.Position))),
		statRow("first shown wins", plain(interval(a.Position.FirstShare, true)), muted(winnersNote(a.Position))),
		statRow("position bias", plain(biasDirection(a.Position))),
	)
	if left := a.Swapped - a.Pairs; left > 0 {
		out = append(out, text(RoleMuted, fmt.Sprintf("  %s judged in the swapped order without an ok verdict in each order %s left out",
			plural(left, "item", "items"), isAre(left))))
	}
	if a.DisagreeAsTie {
		out = append(out, text(RoleMuted, "  \"Judge vs human\" "+disagreeAsTieText(scale)+"."))
	}
	out = append(out, nil)
	return append(out, confusionGrid(scale, a.Orders, "Orders  (rows: original order, columns: swapped order)", "orig ", nil)...)
}

// positionCounts splits the inconsistent pairs: "first shown 25 · second
// shown 4 · with a tie 0" (the response the judge preferred both times,
// or a tie in one order).
func positionCounts(p stats.SwapPosition) string {
	return fmt.Sprintf("first shown %d · second shown %d · with a tie %d", p.First, p.Second, p.Other)
}

// winnersNote says what the first position's share is over.
func winnersNote(p stats.SwapPosition) string {
	if n := p.First + p.Second; n > 0 {
		return fmt.Sprintf("  of %d without a tie", n)
	}
	return ""
}

// biasDirection says which position the judge favours: the one that wins
// the pairs whose orders name different winners, when its Wilson interval
// excludes one half.
func biasDirection(p stats.SwapPosition) string {
	if p.First+p.Second == 0 {
		return "none seen: the two orders never name different winners"
	}
	switch s := p.FirstShare; {
	case s.HasBounds() && s.Low > 0.5:
		return "towards the response shown first"
	case s.HasBounds() && s.High < 0.5:
		return "towards the response shown second"
	}
	return "no clear direction"
}

// disagreeAsTieText says what Options.SwapDisagreeAsTie did.
func disagreeAsTieText(scale judge.Scale) string {
	if scale.AllowsTie() {
		return "counts a pair whose two orders disagree as a tie"
	}
	return "leaves out a pair whose two orders disagree (the scale has no tie)"
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// markdownSwap is the swap audit as Markdown.
func markdownSwap(b *strings.Builder, scale judge.Scale, a *stats.SwapAudit) {
	fmt.Fprintf(b, "\n### Swap audit (%s judged in both orders)\n", plural(a.Pairs, "pair", "pairs"))
	if a.Pairs == 0 {
		fmt.Fprintf(b, "\n%s judged in the swapped order, none with an ok verdict in each order yet.\n", plural(a.Swapped, "item", "items"))
		return
	}
	h := a.VsHumans
	of := func(n int) string {
		if h.N == 0 {
			return ""
		}
		return fmt.Sprintf("%d of %d with a human label", n, h.N)
	}
	count := func(n int) []string { return []string{fmt.Sprint(n), "", ""} }
	mdTable(b, statHead, [][]string{
		statRowMD("Consistent", count(a.Consistent), "the two orders agree"),
		statRowMD("Inconsistent", count(a.Inconsistent), ""),
		statRowMD("Positional agreement", mdInterval(a.PositionalAgreement, true), "Wilson"),
		statRowMD("Kappa between orders", mdEstimate(a.KappaBetweenOrders, 3), "Cohen's"),
		statRowMD("Right, original order", mdInterval(h.Original, true), of(h.RightOriginal)),
		statRowMD("Right, swapped order", mdInterval(h.Swapped, true), of(h.RightSwapped)),
		statRowMD("Right in both orders", mdInterval(h.Both, true), of(h.RightBoth)),
		statRowMD("First shown wins", mdInterval(a.Position.FirstShare, true), positionCounts(a.Position)),
	})
	fmt.Fprintf(b, "\nPosition bias: %s.", biasDirection(a.Position))
	if left := a.Swapped - a.Pairs; left > 0 {
		fmt.Fprintf(b, " %s judged in the swapped order without an ok verdict in each order %s left out.", plural(left, "item", "items"), isAre(left))
	}
	if a.DisagreeAsTie {
		fmt.Fprintf(b, " \"Judge vs human\" %s.", disagreeAsTieText(scale))
	}
	b.WriteString("\n\nOrders (rows: original order, columns: swapped order):\n")
	markdownConfusion(b, scale, a.Orders, "original", "swapped")
}
