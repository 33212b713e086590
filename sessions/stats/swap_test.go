package stats

import (
	"slices"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

const (
	prefA   = judge.PreferA
	prefTie = judge.PreferTie
	prefB   = judge.PreferB
)

func pref(j string, v float64) Verdict { return ok(j, vals{"pref": v}) }

func swapped(j string, v float64) Verdict {
	s := pref(j, v)
	s.Swapped = true
	return s
}

func human(v float64) []Label { return []Label{lab("ann", vals{"pref": v}, "random")} }

// swapFixture is a pairwise judge "pw" judged in both orders, worked by
// hand in TestSwapAuditByHand; "other" judges the original order only,
// the same as pw, and "bin" is a binary judge with a stray swapped
// verdict.
func swapFixture(scale judge.Scale) Input {
	dim := judge.Dimension{Name: "pref", Scale: scale}
	in := Input{Judges: []JudgeSpec{
		{Key: "pw", Dimensions: []judge.Dimension{dim}},
		{Key: "other", Dimensions: []judge.Dimension{dim}},
		{Key: "bin", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}},
	}}
	unit := func(id string, labels []Label, vs ...Verdict) {
		in.Units = append(in.Units, Unit{ItemID: id, Verdicts: vs, Labels: labels})
	}
	first, last := pref("pw", prefA), swapped("pw", prefA)
	first.Extra, last.Extra = map[string]string{"rule": "x"}, map[string]string{"rule": "y"}
	badSwap := Verdict{Judge: "pw", Status: judge.StatusParseError, Swapped: true}
	// u1: re-judged B then A, the swapped order B then A: consistent.
	unit("u1", human(prefA), pref("pw", prefB), swapped("pw", prefB), first, last, pref("other", prefA),
		ok("bin", vals{"correct": 1}), Verdict{Judge: "bin", Status: judge.StatusOK, Swapped: true, Values: vals{"correct": 0}})
	in.Units[0].Labels[0].Values["correct"] = 1
	unit("u2", human(prefB), pref("pw", prefA), swapped("pw", prefB), pref("other", prefA))     // the first position wins
	unit("u3", human(prefB), pref("pw", prefB), swapped("pw", prefA), pref("other", prefB))     // the second position wins
	unit("u4", human(prefA), pref("pw", prefTie), swapped("pw", prefA), pref("other", prefTie)) // a tie in one order
	unit("u5", human(prefB), pref("pw", prefB), badSwap, pref("other", prefB))                  // no second order to compare
	unit("u6", human(prefA), swapped("pw", prefA))                                              // no original order: not judged
	unit("u7", human(prefA), pref("pw", prefA), pref("other", prefA))                           // judged in one order only
	unit("u8", nil, pref("pw", prefB), swapped("pw", prefB), pref("other", prefB))              // no human
	unit("u9", human(prefA), pref("pw", prefA), swapped("pw", prefA), pref("other", prefA))
	return in
}

func TestSwapAuditByHand(t *testing.T) {
	r := Compute(swapFixture(judge.Pairwise), Options{Resamples: -1})
	d := r.Judges[0].Dimensions[0]
	a := d.Swap
	if a == nil {
		t.Fatal("no swap audit")
	}
	// Judged in the swapped order: u1–u5, u8, u9 (u6 has no current
	// verdict). Pairs: u1 u2 u3 u4 u8 u9; consistent u1 u8 u9.
	wantInt(t, "swapped", a.Swapped, 7)
	wantInt(t, "pairs", a.Pairs, 6)
	wantInt(t, "consistent", a.Consistent, 3)
	wantInt(t, "inconsistent", a.Inconsistent, 3)
	wantNum(t, "positional agreement", a.PositionalAgreement.Estimate(), 0.5)
	// Orders (rows original): A→A 2, A→B 1, tie→A 1, B→A 1, B→B 1. po =
	// 1/2; rows A 3, tie 1, B 2; columns A 4, B 2; pe = (12 + 4)/36 = 4/9;
	// kappa = (1/2 − 4/9) / (5/9) = 1/10.
	wantNum(t, "kappa between orders", a.KappaBetweenOrders, 0.1)
	if got := a.Orders.Counts; !slices.Equal(got[0], []int{2, 0, 1}) || !slices.Equal(got[1], []int{1, 0, 0}) || !slices.Equal(got[2], []int{1, 0, 1}) {
		t.Errorf("orders %v", got)
	}
	if strings.Join(a.Orders.Names, ",") != "A,tie,B" {
		t.Errorf("orders names %q", a.Orders.Names)
	}
	if p := a.Position; p.First != 1 || p.Second != 1 || p.Other != 1 || p.FirstShare.Value != 0.5 {
		t.Errorf("position %+v", p)
	}
	// With a human label: u1 (A: A, A), u2 (B: A, B), u3 (B: B, A),
	// u4 (A: tie, A), u9 (A: A, A).
	h := a.VsHumans
	if h.N != 5 || h.RightOriginal != 3 || h.RightSwapped != 4 || h.RightBoth != 2 {
		t.Errorf("vs humans %+v", h)
	}
	wantNum(t, "right in the original order", h.Original.Estimate(), 0.6)
	wantNum(t, "right in the swapped order", h.Swapped.Estimate(), 0.8)
	wantNum(t, "right in both", h.Both.Estimate(), 0.4)

	// The current verdict is the last one in the original order: u1 A,
	// u2 A, u3 B, u4 tie, u5 B, u7 A, u8 B, u9 A; u6 is not judged.
	f := d.Overall
	wantInt(t, "judged", f.Judging.Judged, 8)
	wantInt(t, "n", f.VsHumans.N, 7)
	wantNum(t, "agreement", f.VsHumans.PercentAgreement.Estimate(), 5.0/7)
	// Only u1's two original-order verdicts are re-judges.
	if d.Rejudges.Units != 1 || d.Rejudges.Flipped != 1 {
		t.Errorf("rejudges %+v", d.Rejudges)
	}
	if a.DisagreeAsTie {
		t.Error("DisagreeAsTie set without the option")
	}
	// Extras come from the current verdict, not the swapped one.
	if ex := r.Judges[0].Extras; len(ex) != 1 || len(ex[0].Values) != 1 || ex[0].Values[0].Value != "x" {
		t.Errorf("extras %+v", ex)
	}

	// No swapped verdict, no audit; a binary dimension never has one, and
	// its stray swapped verdict is not its current one.
	if r.Judges[1].Dimensions[0].Swap != nil || r.Judges[2].Dimensions[0].Swap != nil {
		t.Error("a swap audit without swapped pairwise verdicts")
	}
	if b := r.Judges[2].Dimensions[0].Overall.VsHumans; b.N != 1 || b.PercentAgreement.Value != 1 {
		t.Errorf("binary judge vs humans %+v", b)
	}
	// pw against other uses the original order: they agree everywhere.
	if p := r.JudgePairs[0]; p.Judge != "pw" || p.Reference != "other" || p.Agreement.N != 8 || p.Agreement.PercentAgreement.Value != 1 {
		t.Errorf("pair %s vs %s: n %d, agreement %v", p.Judge, p.Reference, p.Agreement.N, p.Agreement.PercentAgreement.Value)
	}
	for _, want := range []string{"without one in the original order", "which is not pairwise"} {
		if !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, want) }) {
			t.Errorf("no note says %q: %q", want, r.Notes)
		}
	}
}

// Options.SwapDisagreeAsTie counts a pair whose orders disagree as a tie
// against the humans, or leaves it out on a scale without a tie; the
// audit, the judge's counts and judge against judge do not move.
func TestSwapDisagreeAsTie(t *testing.T) {
	notie := Input{Judges: []JudgeSpec{{Key: "pw", Dimensions: []judge.Dimension{{Name: "pref", Scale: judge.PairwiseNoTie}}}}}
	for i, u := range [][3]float64{{prefA, prefA, prefA}, {prefA, prefB, prefB}, {prefB, prefB, prefA}} {
		notie.Units = append(notie.Units, Unit{ItemID: string(rune('a' + i)),
			Verdicts: []Verdict{pref("pw", u[0]), swapped("pw", u[1])}, Labels: human(u[2])})
	}
	tests := []struct {
		name      string
		in        Input
		asTie     bool
		n, agreed int
		note      bool
	}{
		{"pairwise, off", swapFixture(judge.Pairwise), false, 7, 5, false},
		// u2 and u3 become ties and stop agreeing; u4 was a tie already.
		{"pairwise, on", swapFixture(judge.Pairwise), true, 7, 4, false},
		{"notie, off", notie, false, 3, 1, false},
		// b's orders disagree and there is no tie: left out.
		{"notie, on", notie, true, 2, 1, true},
	}
	for _, tc := range tests {
		r := Compute(tc.in, Options{Resamples: -1, SwapDisagreeAsTie: tc.asTie})
		d := r.Judges[0].Dimensions[0]
		a := d.Overall.VsHumans
		if a.N != tc.n || a.Confusion.N()-tc.n != 0 || int(a.PercentAgreement.Value*float64(a.N)+0.5) != tc.agreed {
			t.Errorf("%s: n %d, agreement %v; want n %d, %d agreed", tc.name, a.N, a.PercentAgreement.Value, tc.n, tc.agreed)
		}
		if d.Swap == nil || d.Swap.DisagreeAsTie != tc.asTie {
			t.Fatalf("%s: swap %+v", tc.name, d.Swap)
		}
		hasNote := slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "no tie to count as") })
		if hasNote != tc.note {
			t.Errorf("%s: note %v, want %v: %q", tc.name, hasNote, tc.note, r.Notes)
		}
		off := Compute(tc.in, Options{Resamples: -1})
		if got, want := d.Swap.VsHumans, off.Judges[0].Dimensions[0].Swap.VsHumans; got != want {
			t.Errorf("%s: the audit moved: %+v, want %+v", tc.name, got, want)
		}
		if d.Overall.Judging != off.Judges[0].Dimensions[0].Overall.Judging {
			t.Errorf("%s: the judge's counts moved", tc.name)
		}
		if len(r.JudgePairs) > 0 && r.JudgePairs[0].Agreement.PercentAgreement != off.JudgePairs[0].Agreement.PercentAgreement {
			t.Errorf("%s: judge against judge moved", tc.name)
		}
	}
}
