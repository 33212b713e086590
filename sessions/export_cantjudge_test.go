package sessions

import (
	"strings"
	"testing"
)

// A label its annotator then marked "can't judge" is set aside as the
// statistics set it aside: --only disagreements does not count it, while
// another person's label on the item still does; undoing the mark brings
// the disagreement back.
func TestExportDisagreementsLeaveCantJudgeOut(t *testing.T) {
	s := exportSession(t)
	ids := func() string {
		t.Helper()
		out, _ := exportString(t, s, "csv", OnlyDisagreements)
		var got []string
		for _, line := range strings.Split(out, "\n")[1:] {
			if id, _, ok := strings.Cut(line, ","); ok && !strings.HasPrefix(line, "or <Paris>") {
				got = append(got, id)
			}
		}
		return strings.Join(got, ",")
	}
	if got := ids(); got != "q1,q2,r1" {
		t.Fatalf("disagreements before any can't judge: %s", got)
	}
	// ann's YES on q1 (match said NO), then can't judge: no disagreement
	// is left on q1. On r1 the mark covers ann's criterion labels too.
	for _, id := range []string{"q1", "r1"} {
		if _, err := s.Record([]Action{{Kind: KindCantJudge, ItemID: id, Reason: ReasonAmbiguous, Via: "order"}}); err != nil {
			t.Fatal(err)
		}
	}
	if got := ids(); got != "q2" {
		t.Errorf("disagreements after ann's can't judge on q1 and r1: %s, want q2", got)
	}
	// ann's mark on q2 leaves bo's disagreeing label there.
	if _, err := s.Record([]Action{{Kind: KindCantJudge, ItemID: "q2", Reason: ReasonGoldWrong, Via: "order"}}); err != nil {
		t.Fatal(err)
	}
	if got := ids(); got != "q2" {
		t.Errorf("disagreements after ann's can't judge on q2 too: %s, want q2 (bo's label)", got)
	}
	if _, err := s.RecordAs("bo", []Action{{Kind: KindCantJudge, ItemID: "q2", Reason: ReasonGoldWrong, Via: "order"}}); err != nil {
		t.Fatal(err)
	}
	if got := ids(); got != "" {
		t.Errorf("disagreements after every label is set aside: %s, want none", got)
	}
	// Undone, bo's mark no longer sets the label aside.
	if _, err := s.UndoItemAs("bo", "q2"); err != nil {
		t.Fatal(err)
	}
	if got := ids(); got != "q2" {
		t.Errorf("disagreements after bo's can't judge is undone: %s, want q2", got)
	}
}
