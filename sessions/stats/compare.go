package stats

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gavel-dev/gavel/judge"
)

// Comparison sets two judges of one session side by side on the same
// human-labelled items (`gavel compare`, SPEC "Improving a judge"): each
// judge's agreement with the humans, then the paired comparison of their
// correctness item by item.
type Comparison struct {
	// A and B are the two judges' keys (JudgeSpec.Key), A the baseline.
	A string `json:"a"`
	B string `json:"b"`
	// Dimensions holds one comparison per dimension both judges rate
	// (same name and scale), in A's order.
	Dimensions []DimensionComparison `json:"dimensions"`
	// Notes say what was left out of the figures and why, as in Report.
	Notes []string `json:"notes"`
}

// DimensionComparison compares the two judges on one dimension.
type DimensionComparison struct {
	Dimension string      `json:"dimension"`
	Scale     judge.Scale `json:"scale"`
	// Right says what counts as a judge being right on an item.
	Right string `json:"right"`
	// A and B are each judge against the humans, as `gavel stats` reports
	// it (the same figures, the same bootstrap seeds).
	A ComparedJudge `json:"a"`
	B ComparedJudge `json:"b"`
	// Paired is the item-by-item comparison of the two.
	Paired PairedComparison `json:"paired"`
}

// ComparedJudge is one judge's side of a comparison.
type ComparedJudge struct {
	Judge string `json:"judge"`
	// Judging counts the judge's current verdicts over its dataset.
	Judging Judging `json:"judging"`
	// VsHumans is the judge against the humans over the items where it has
	// an ok value and the humans a reference label (Figures.VsHumans):
	// n, percent agreement (Wilson), Cohen's kappa (bootstrap), and on a
	// binary scale the false-pass and false-fail rates (Wilson) in Binary.
	VsHumans Agreement `json:"vs_humans"`
	// NoVerdict counts the compared items (PairedComparison.N) where the
	// judge has no ok value: they count as wrong in the paired comparison.
	NoVerdict int `json:"no_verdict"`
}

// PairedComparison is the two judges' correctness on the same items:
// every unit with a humans' reference label (the single label, or the
// annotators' majority). A judge without an ok value on an item is wrong
// there, so both judges are scored on exactly the same N items.
type PairedComparison struct {
	// N is the number of items compared.
	N int `json:"n"`
	// SmallSample is set when N is below MinReliableItems.
	SmallSample string `json:"small_sample,omitempty"`
	// HumanTies counts labelled items left out because the annotators
	// tie on the most common value.
	HumanTies int `json:"human_ties"`
	// The 2×2 table: BothRight + OnlyA + OnlyB + BothWrong = N.
	BothRight int `json:"both_right"`
	OnlyA     int `json:"only_a_right"`
	OnlyB     int `json:"only_b_right"`
	BothWrong int `json:"both_wrong"`
	// AccuracyA and AccuracyB are each judge's share right of the N
	// items, with Wilson 95 % intervals.
	AccuracyA Interval `json:"accuracy_a"`
	AccuracyB Interval `json:"accuracy_b"`
	// Difference is AccuracyB − AccuracyA = (OnlyB − OnlyA)/N with
	// Newcombe's method 10 interval (NewcombePaired): positive when B is
	// right more often.
	Difference Interval `json:"difference"`
	// McNemarP is the exact two-sided McNemar p-value on OnlyA and OnlyB
	// (McNemarExact); undefined when N is 0.
	McNemarP Estimate `json:"mcnemar_p"`
	// Fixed lists the items B fixed (A wrong, B right), Broken those it
	// broke (A right, B wrong), in dataset order.
	Fixed  []UnitRef `json:"fixed"`
	Broken []UnitRef `json:"broken"`
}

// UnitRef names a unit: an item, or one rubric criterion of it.
type UnitRef struct {
	ItemID    string `json:"item_id"`
	Criterion int    `json:"criterion,omitempty"`
}

// RightMeaning is what DimensionComparison.Right says on each kind of scale.
func RightMeaning(scale judge.Scale) string {
	if scale.Kind() == judge.KindBinary {
		return "the judge's YES or NO equals the humans' label"
	}
	return "the judge's value equals the humans' label exactly (" + string(scale.Kind()) + " scale: a near miss is wrong)"
}

// Compare compares judge b with judge a (both JudgeSpec keys of in) on
// every dimension both rate with the same scale, or on dimension alone
// when it is not empty. Per-judge figures are those Compute gives with
// the same Options (the same seeds); the paired comparison counts a judge
// with no ok value on a labelled item as wrong there. It returns an error
// when a judge is not in the input, a and b are the same, the two judges
// rate different kinds of unit (whole items and rubric criteria), or they
// share no dimension (or not the one named).
func Compare(in Input, a, b, dimension string, opts Options) (Comparison, error) {
	if a == b {
		return Comparison{}, fmt.Errorf("judge %q is compared with itself: name two different judges", a)
	}
	c := &computation{in: &in, opts: opts.withDefaults(), scopes: map[bool]*scope{}, humans: map[dimKey]*humanDim{}}
	judges := c.judges()
	find := func(key string) (JudgeSpec, error) {
		i := slices.IndexFunc(judges, func(j JudgeSpec) bool { return j.Key == key })
		if i < 0 {
			return JudgeSpec{}, fmt.Errorf("no judge %q in the input", key)
		}
		return judges[i], nil
	}
	ja, err := find(a)
	if err != nil {
		return Comparison{}, err
	}
	jb, err := find(b)
	if err != nil {
		return Comparison{}, err
	}
	if ja.PerCriterion != jb.PerCriterion {
		return Comparison{}, fmt.Errorf("%q and %q rate different things (whole items and rubric criteria): they cannot be compared item by item", a, b)
	}
	var shared []judge.Dimension
	var names []string
	for _, d := range ja.Dimensions {
		if slices.ContainsFunc(jb.Dimensions, func(e judge.Dimension) bool { return e.Name == d.Name && e.Scale == d.Scale }) {
			shared = append(shared, d)
			names = append(names, d.Name)
		}
	}
	if len(shared) == 0 {
		return Comparison{}, fmt.Errorf("%q and %q share no dimension on the same scale (%s rates %s; %s rates %s)",
			a, b, a, dimList(ja.Dimensions), b, dimList(jb.Dimensions))
	}
	if dimension != "" {
		i := slices.IndexFunc(shared, func(d judge.Dimension) bool { return strings.EqualFold(d.Name, dimension) })
		if i < 0 {
			return Comparison{}, fmt.Errorf("%q and %q do not both rate dimension %q: they share %s", a, b, dimension, strings.Join(names, ", "))
		}
		shared = shared[i : i+1]
	}
	ja.Dimensions, jb.Dimensions = shared, shared
	sc := c.scopeOf(ja.PerCriterion)
	for _, d := range shared {
		k := dimKey{d.Name, d.Scale}
		// Only the reference labels are used: no bootstrap of the
		// annotators' agreement (References does the same).
		c.humans[k] = buildHumansWith(c.in, k, &c.notes, 0, 0)
	}
	da, db := c.judgeDims(ja, &c.notes), c.judgeDims(jb, &c.notes)
	out := Comparison{A: a, B: b, Dimensions: []DimensionComparison{}}
	for i, d := range shared {
		h := c.humans[dimKey{d.Name, d.Scale}]
		fa := c.figures(sc.units, da[i], h, a)
		fb := c.figures(sc.units, db[i], h, b)
		dc := DimensionComparison{
			Dimension: d.Name, Scale: d.Scale, Right: RightMeaning(d.Scale),
			A: ComparedJudge{Judge: a, Judging: fa.Judging, VsHumans: fa.VsHumans},
			B: ComparedJudge{Judge: b, Judging: fb.Judging, VsHumans: fb.VsHumans},
		}
		dc.Paired = c.paired(sc.units, da[i], db[i], h, &dc.A, &dc.B)
		out.Dimensions = append(out.Dimensions, dc)
	}
	out.Notes = c.notes.list()
	return out, nil
}

// paired scores both judges on every unit with a reference label.
func (c *computation) paired(units []int32, ja, jb *judgeDim, h *humanDim, sa, sb *ComparedJudge) PairedComparison {
	p := PairedComparison{Fixed: []UnitRef{}, Broken: []UnitRef{}}
	right := func(jd *judgeDim, u int32, ref int8) bool {
		return jd.vsState[u] == stOK && jd.vsCode[u] == ref
	}
	for _, u := range units {
		ref := h.ref[u]
		if ref == refTie {
			p.HumanTies++
		}
		if ref < 0 {
			continue
		}
		p.N++
		if ja.vsState[u] != stOK {
			sa.NoVerdict++
		}
		if jb.vsState[u] != stOK {
			sb.NoVerdict++
		}
		ra, rb := right(ja, u, ref), right(jb, u, ref)
		unit := &c.in.Units[u]
		switch {
		case ra && rb:
			p.BothRight++
		case ra:
			p.OnlyA++
			p.Broken = append(p.Broken, UnitRef{ItemID: unit.ItemID, Criterion: unit.Criterion})
		case rb:
			p.OnlyB++
			p.Fixed = append(p.Fixed, UnitRef{ItemID: unit.ItemID, Criterion: unit.Criterion})
		default:
			p.BothWrong++
		}
	}
	const noItems = "no item has a human label"
	if p.N == 0 {
		p.AccuracyA, p.AccuracyB = undefinedInterval(noItems), undefinedInterval(noItems)
		p.Difference, p.McNemarP = undefinedInterval(noItems), undefined(noItems)
		return p
	}
	if p.N < MinReliableItems {
		p.SmallSample = fmt.Sprintf("only %s: below %d the figures are not yet stable", itemsWord(p.N), MinReliableItems)
	}
	p.AccuracyA = Wilson(p.BothRight+p.OnlyA, p.N)
	p.AccuracyB = Wilson(p.BothRight+p.OnlyB, p.N)
	// B first: the difference is B − A.
	p.Difference = NewcombePaired(p.BothRight, p.OnlyB, p.OnlyA, p.BothWrong)
	p.McNemarP = defined(McNemarExact(p.OnlyA, p.OnlyB))
	return p
}

func dimList(ds []judge.Dimension) string {
	if len(ds) == 0 {
		return "nothing"
	}
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = fmt.Sprintf("%s (%s)", d.Name, d.Scale)
	}
	return strings.Join(s, ", ")
}
