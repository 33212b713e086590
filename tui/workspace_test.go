package tui

import (
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/sessions"
)

// An item the person cannot judge is reviewed (the first unreviewed item
// is after it, the count includes it) and not compared with the judge,
// even when it was labelled before; undoing the can't judge brings the
// label's comparison back.
func TestCantJudgeCountsAsReviewed(t *testing.T) {
	items := testItems(4)
	history := []sessions.Action{
		// q1 labelled NO (the judge says YES), then marked can't judge.
		{ID: 1, Group: 1, Kind: sessions.KindLabel, ItemID: "q1", Dimension: "correct", Value: 0},
		{ID: 2, Group: 2, Kind: sessions.KindCantJudge, ItemID: "q1", Reason: sessions.ReasonGoldWrong},
		// q2 marked can't judge with no label.
		{ID: 3, Group: 3, Kind: sessions.KindCantJudge, ItemID: "q2", Reason: sessions.ReasonAmbiguous},
	}
	st := &fakeStore{}
	m := openWith(t, Options{Store: st, Items: items, Runs: []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}, History: history}, 120, 40)
	if m.cur != 2 {
		t.Errorf("opened on item %d, want q3 (q1 and q2 are can't judge)", m.cur+1)
	}
	if r, total := m.Progress(); r != 2 || total != 4 {
		t.Errorf("reviewed %d/%d, want 2/4", r, total)
	}
	if m.agreement[0] != -1 || m.agreement[1] != -1 || m.nCompared != 0 {
		t.Errorf("agreement %v, %d compared: can't-judge items must not be compared", m.agreement, m.nCompared)
	}
	if s := plain(m); !strings.Contains(s, "reviewed 2/4") {
		t.Errorf("the status line does not count the can't-judge items:\n%s", s)
	}
	m = press(t, m, "u") // q2's can't judge
	if r, _ := m.Progress(); r != 1 || m.reviewed[1] {
		t.Errorf("after undoing q2's can't judge: %d reviewed, q2 reviewed %v", r, m.reviewed[1])
	}
	m = press(t, m, "u") // q1's: its NO label is compared again
	if r, _ := m.Progress(); r != 1 || !m.reviewed[0] || m.agreement[0] != 0 || m.nCompared != 1 {
		t.Errorf("after undoing q1's can't judge: %d reviewed, q1 agreement %d, %d compared; want q1's label compared (disagrees)",
			r, m.agreement[0], m.nCompared)
	}
}
