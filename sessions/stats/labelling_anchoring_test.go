package stats

import (
	"fmt"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// twoJudgeAnchoring is two judges, A and B, on 60 items; A says YES on
// every item, B says NO on every item. One annotator labels every item,
// the first 30 blind, the others with shownWith's verdict on screen: a
// blind label is YES on blindYes of 30 items, a shown one YES on all 30
// (the person follows A, whose verdict they saw).
func twoJudgeAnchoring(blindYes int, shownWith string) Input {
	bin := []judge.Dimension{{Name: "correct", Scale: judge.Binary}}
	in := Input{Judges: []JudgeSpec{{Key: "A", Dimensions: bin}, {Key: "B", Dimensions: bin}}}
	li := &LabellingInput{}
	for i := range 60 {
		id := fmt.Sprint("i", i)
		in.Units = append(in.Units, Unit{ItemID: id, Verdicts: []Verdict{
			{Judge: "A", Status: judge.StatusOK, Values: map[string]float64{"correct": 1}},
			{Judge: "B", Status: judge.StatusOK, Values: map[string]float64{"correct": 0}},
		}})
		d := Decision{Group: int64(i + 1), Annotator: "ann", ItemID: id, Kind: KindLabel, Dimension: "correct", HasValue: true,
			Shown: ShownBlind, Seconds: 3, Timed: true, Sitting: "s1"}
		if i < blindYes {
			d.Value = 1
		}
		if i >= 30 {
			d.Shown, d.ShownJudge, d.Value = ShownVerdict, shownWith, 1
		}
		li.Decisions = append(li.Decisions, d)
	}
	in.Labelling = li
	return in
}

// Labels made with only judge A active: A's anchoring counts the shown
// decisions as a hand count says; B, whose verdict nobody saw, has blind
// decisions (the verdict hidden: every judge's) but no shown side, and
// no alarm, though the person agreed with B far less with A on screen.
func TestAnchoringOnlyTheJudgeShown(t *testing.T) {
	rep := Compute(twoJudgeAnchoring(15, "A"), Options{Seed: 1, Resamples: -1})
	as := rep.Labelling.Annotators[0].Anchoring
	if len(as) != 2 || as[0].Judge != "A" || as[1].Judge != "B" {
		t.Fatalf("anchoring = %+v", as)
	}
	a, b := as[0], as[1]
	// A: blind 15 of 30 YES = agreed; shown 30 of 30.
	if a.Blind.N != 30 || a.Blind.Agreed != 15 || a.Shown.N != 30 || a.Shown.Agreed != 30 {
		t.Errorf("A's anchoring = %+v, want blind 15/30, shown 30/30", a)
	}
	if want := NewcombeIndependent(30, 30, 15, 30); a.Difference != want || !a.Large || a.Sentence == "" {
		t.Errorf("A's difference = %+v, want %+v and the alarm", a.Difference, want)
	}
	// B: blind 15 of 30 NO = agreed; the 30 labels made with A on screen
	// are not B's shown side (they would read as 0/30, a 50-point drop).
	if b.Blind.N != 30 || b.Blind.Agreed != 15 || b.Shown.N != 0 || b.Shown.Agreed != 0 {
		t.Errorf("B's anchoring = %+v, want blind 15/30 and no shown side", b)
	}
	if b.Difference.Defined() || b.Large || b.Sentence != "" || b.Difference.Reason == "" {
		t.Errorf("B's difference = %+v, large %v %q: want none, with its reason, and no alarm", b.Difference, b.Large, b.Sentence)
	}

	// The same labels made with B on screen are B's shown side and not
	// A's.
	rep = Compute(twoJudgeAnchoring(15, "B"), Options{Seed: 1, Resamples: -1})
	as = rep.Labelling.Annotators[0].Anchoring
	if a, b := as[0], as[1]; a.Shown.N != 0 || b.Shown.N != 30 || b.Shown.Agreed != 0 || !b.Large {
		t.Errorf("with B shown: A %+v, B %+v", a, b)
	}

	// A decision shown without its judge named counts for no judge's
	// shown side.
	rep = Compute(twoJudgeAnchoring(15, ""), Options{Seed: 1, Resamples: -1})
	for _, x := range rep.Labelling.Annotators[0].Anchoring {
		if x.Shown.N != 0 || x.Blind.N != 30 || x.Large {
			t.Errorf("a shown decision without its judge counted: %+v", x)
		}
	}
}
