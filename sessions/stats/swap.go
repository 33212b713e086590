package stats

import "github.com/gavel-dev/gavel/judge"

// SwapAudit is a pairwise judge read against itself with the two
// responses shown in the other order (SPEC "Pairwise judgments"). A judge
// that picks a position rather than a response says A in one order and B
// in the other; the share of pairs whose two orders agree, and which
// position wins when they do not, measure that bias. Every figure is over
// Pairs: the units whose current verdict and its second order are both ok
// with a value. Values are in the original order's terms: a swapped
// verdict of B preferred the response shown first.
type SwapAudit struct {
	// Swapped counts the units with a verdict in the swapped order,
	// whatever its status.
	Swapped int `json:"swapped"`
	// Pairs counts the units judged in both orders with an ok value in
	// each; Consistent those whose two orders agree, Inconsistent the rest.
	Pairs        int `json:"pairs"`
	Consistent   int `json:"consistent"`
	Inconsistent int `json:"inconsistent"`
	// PositionalAgreement = Consistent / Pairs, with a Wilson 95 % interval.
	PositionalAgreement Interval `json:"positional_agreement"`
	// KappaBetweenOrders is Cohen's kappa between the two orders' verdicts.
	KappaBetweenOrders Estimate `json:"kappa_between_orders"`
	// Orders is the table of the two orders: rows the original order,
	// columns the swapped order.
	Orders Confusion `json:"orders"`
	// Position says which position won the inconsistent pairs.
	Position SwapPosition `json:"position"`
	// VsHumans is each order against the humans.
	VsHumans SwapVsHumans `json:"vs_humans"`
	// DisagreeAsTie is Options.SwapDisagreeAsTie: the judge's comparison
	// with humans (Figures.VsHumans) counted the inconsistent pairs as ties.
	DisagreeAsTie bool `json:"disagree_as_tie"`
}

// SwapPosition splits the inconsistent pairs by the bias's direction.
type SwapPosition struct {
	// First counts pairs where the judge preferred the response shown
	// first both times: A in the original order, B in the swapped one.
	First int `json:"first"`
	// Second counts pairs where it preferred the response shown second:
	// B in the original order, A in the swapped one.
	Second int `json:"second"`
	// Other counts the inconsistent pairs with a tie in one order.
	Other int `json:"other"`
	// FirstShare = First / (First + Second), with a Wilson 95 % interval:
	// above one half the judge favours the first position, below it the
	// second.
	FirstShare Interval `json:"first_share"`
}

// SwapVsHumans compares each order with the humans' label (the single
// label or the majority) over the pairs that have one.
type SwapVsHumans struct {
	N int `json:"n"`
	// RightOriginal, RightSwapped and RightBoth count the pairs where the
	// original order, the swapped order, and both, equal the humans' label.
	RightOriginal int `json:"right_original"`
	RightSwapped  int `json:"right_swapped"`
	RightBoth     int `json:"right_both"`
	// Original, Swapped and Both are those counts over N, with Wilson 95 %
	// intervals.
	Original Interval `json:"original"`
	Swapped  Interval `json:"swapped"`
	Both     Interval `json:"both"`
}

// swapAudit computes the audit of one judge and dimension over its units;
// nil when the dimension has no second order.
func (c *computation) swapAudit(units []int32, jd *judgeDim, h *humanDim) *SwapAudit {
	if jd.swapState == nil {
		return nil
	}
	cats := jd.key.scale.Values()
	a := &SwapAudit{Orders: NewConfusion(cats), DisagreeAsTie: c.opts.SwapDisagreeAsTie}
	a.Orders.Names = categoryNames(jd.key.scale, a.Orders.Categories)
	hv := &a.VsHumans
	for _, u := range units {
		if jd.swapState[u] == stNone {
			continue
		}
		a.Swapped++
		if jd.state[u] != stOK || jd.swapState[u] != stOK {
			continue
		}
		o, s := jd.code[u], jd.swapCode[u]
		a.Pairs++
		a.Orders.Counts[o][s]++
		switch ov, sv := cats[o], cats[s]; {
		case o == s:
			a.Consistent++
		case ov == judge.PreferA && sv == judge.PreferB:
			a.Position.First++
		case ov == judge.PreferB && sv == judge.PreferA:
			a.Position.Second++
		default:
			a.Position.Other++
		}
		if ref := h.ref[u]; ref >= 0 {
			hv.N++
			if o == ref {
				hv.RightOriginal++
			}
			if s == ref {
				hv.RightSwapped++
			}
			if o == ref && s == ref {
				hv.RightBoth++
			}
		}
	}
	a.Inconsistent = a.Pairs - a.Consistent
	const noPairs = "no pair was judged in both orders with an ok verdict each"
	a.PositionalAgreement = withReason(Wilson(a.Consistent, a.Pairs), noPairs)
	a.KappaBetweenOrders = a.Orders.CohenKappa()
	if a.Pairs == 0 {
		a.KappaBetweenOrders = undefined(noPairs)
	}
	p := &a.Position
	p.FirstShare = withReason(Wilson(p.First, p.First+p.Second), "no pair has a different winner in each order")
	const noHuman = "no pair judged in both orders has a human label"
	hv.Original = withReason(Wilson(hv.RightOriginal, hv.N), noHuman)
	hv.Swapped = withReason(Wilson(hv.RightSwapped, hv.N), noHuman)
	hv.Both = withReason(Wilson(hv.RightBoth, hv.N), noHuman)
	return a
}
