package sessions

import (
	"fmt"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// Two judges, every label made with only judge A active (as the screen
// records them: blind, or with A's verdict on screen): B, whose verdict
// nobody saw, has blind decisions and no shown side, and no alarm though
// the person, following A, agreed with B far less when A was on screen;
// A's figures are the hand count. Both the packed and the row read.
func TestAnchoringOnlyTheRunShown(t *testing.T) {
	for _, packed := range []bool{true, false} {
		t.Run(fmt.Sprint("packed=", packed), func(t *testing.T) {
			setPacked(t, packed)
			s := openStore(t, sessionPath(t), "ann")
			var items []judge.Item
			for k := 1; k <= 40; k++ {
				items = append(items, judge.Item{Index: k - 1, ID: fmt.Sprintf("i%d", k), Question: "q", Gold: "g", Prediction: "p"})
			}
			if err := s.InitDataset(DatasetInfo{Path: "data.jsonl", SHA256: "abc", Format: "jsonl"}, items); err != nil {
				t.Fatal(err)
			}
			bin := []judge.Dimension{{Name: "correct", Scale: judge.Binary}}
			// B first, so that A's id is not 1: a read that took any
			// shown decision for the first run would be caught.
			b, _ := s.EnsureRun(judge.Info{Name: "docqa", Model: "m", Dimensions: bin})
			a, _ := s.EnsureRun(judge.Info{Name: "match", Dimensions: bin})
			var va, vb []judge.Verdict
			for _, it := range items {
				va = append(va, judge.Verdict{ItemID: it.ID, Status: judge.StatusOK, Values: map[string]float64{"correct": 1}})
				vb = append(vb, judge.Verdict{ItemID: it.ID, Status: judge.StatusOK, Values: map[string]float64{"correct": 0}})
			}
			if err := s.SaveVerdicts(a.ID, va); err != nil {
				t.Fatal(err)
			}
			if err := s.SaveVerdicts(b.ID, vb); err != nil {
				t.Fatal(err)
			}
			// i1–i20 blind, YES on i1–i8 (A agreed 8, B 12); i21–i40 with
			// A's verdict on screen, YES on all but i40 (A agreed 19).
			for k := 1; k <= 40; k++ {
				act := Action{Kind: KindLabel, ItemID: fmt.Sprintf("i%d", k), Dimension: "correct", Via: "random", Shown: ShownBlind}
				if k <= 8 {
					act.Value = 1
				}
				if k > 20 {
					act.Shown, act.ShownRun, act.Value = ShownVerdict, a.ID, 1
					if k == 40 {
						act.Value = 0
					}
				}
				if _, err := s.Record([]Action{act}); err != nil {
					t.Fatal(err)
				}
			}
			in, err := s.StatsInputWith(StatsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			rep := stats.Compute(in, stats.Options{Seed: 1, Resamples: -1})
			if rep.Labelling == nil || len(rep.Labelling.Annotators) != 1 {
				t.Fatalf("labelling = %+v", rep.Labelling)
			}
			byJudge := map[string]stats.Anchoring{}
			for _, x := range rep.Labelling.Annotators[0].Anchoring {
				byJudge[x.Judge] = x
			}
			ax, bx := byJudge["match"], byJudge["docqa · m"]
			if ax.Blind.N != 20 || ax.Blind.Agreed != 8 || ax.Shown.N != 20 || ax.Shown.Agreed != 19 {
				t.Errorf("A (match): %+v, want blind 8/20, shown 19/20", ax)
			}
			if want := stats.NewcombeIndependent(19, 20, 8, 20); ax.Difference != want || !ax.Large {
				t.Errorf("A's difference %+v, want %+v, large", ax.Difference, want)
			}
			if bx.Blind.N != 20 || bx.Blind.Agreed != 12 || bx.Shown.N != 0 {
				t.Errorf("B (docqa · m): %+v, want blind 12/20 and no shown side", bx)
			}
			if bx.Difference.Defined() || bx.Large || bx.Sentence != "" {
				t.Errorf("B's difference %+v, large %v %q: want none and no alarm", bx.Difference, bx.Large, bx.Sentence)
			}
		})
	}
}
