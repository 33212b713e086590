package sessions

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// An annotator's label on an item they marked "can't judge" (the gold is
// wrong, say) is not a few-shot label: the item leaves the pool when it
// was theirs alone, and the other annotators' labels decide it otherwise.
// A mark undone, answered by a later label, or made at a re-test does not
// count.
func TestFewShotLeavesOutCantJudge(t *testing.T) {
	s, _, parts := fewShotSession(t, 80, 7, 0.5)
	cal := parts[PartCalibration]
	if len(cal) < 6 {
		t.Fatalf("split too small for the test: %d calibration items", len(cal))
	}
	rec := func(who string, acts ...Action) {
		t.Helper()
		var err error
		if who == "ann" {
			_, err = s.Record(acts)
		} else {
			_, err = s.RecordAs(who, acts)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	cantJudge := func(id string) Action { return Action{Kind: KindCantJudge, ItemID: id, Reason: ReasonGoldWrong} }
	rec("ann", label(cal[0], "correct", 1))
	rec("ann", cantJudge(cal[0])) // ann's alone: out
	rec("ann", label(cal[1], "correct", 1))
	rec("bob", label(cal[1], "correct", 0))
	rec("ann", cantJudge(cal[1])) // bob's NO decides, no tie
	rec("ann", label(cal[2], "correct", 1))
	rec("ann", cantJudge(cal[2]))
	rec("ann", label(cal[2], "correct", 1)) // judged after all: counts
	rec("ann", label(cal[3], "correct", 0))
	retest := cantJudge(cal[3])
	retest.Retest = true
	rec("ann", retest) // a re-test's answer marks nothing
	rec("ann", label(cal[4], "correct", 1))
	rec("ann", cantJudge(cal[4]))
	if _, err := s.Undo(); err != nil { // the mark undone: counts
		t.Fatal(err)
	}
	rec("ann", label(cal[5], "correct", 0))
	rec("bob", label(cal[5], "correct", 0))
	rec("bob", cantJudge(cal[5])) // ann's NO is left
	want := map[string]float64{cal[1]: 0, cal[2]: 1, cal[3]: 0, cal[4]: 1, cal[5]: 0}
	for _, packed := range []bool{true, false} {
		t.Run(fmt.Sprintf("packed=%v", packed), func(t *testing.T) {
			setPacked(t, packed)
			ex, err := s.FewShot([]judge.Dimension{{Name: "correct", Scale: judge.Binary}}, 50)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]float64{}
			for _, e := range ex {
				got[e.Item.ID] = e.Labels["correct"]
			}
			if !maps.Equal(got, want) {
				ids := slices.Sorted(maps.Keys(got))
				t.Errorf("examples %v (%v)\nwant %v", got, ids, want)
			}
		})
	}
}
