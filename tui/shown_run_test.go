package tui

import (
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// A decision made with a verdict on screen names the active judge's run:
// after J, the other one's; a run whose id comes with its verdicts (a new
// dataset's session, written meanwhile) is named once loaded.
func TestShownRunIsTheActiveJudge(t *testing.T) {
	items := testItems(4)
	other := judge.Info{Name: "docqa", Model: "m", Dimensions: matchInfo.Dimensions}
	st := &fakeStore{}
	m := newTestModel(t, st, items, []Run{
		{Info: matchInfo, ID: 3, Verdicts: verdictsFor(items)},
		{Info: other, Load: func() (Loaded, error) { return Loaded{ID: 8, Verdicts: verdictsFor(items)}, nil }},
	}, nil, 120, 40)
	m = runCmd(t, m, m.Init(), 0)
	m = press(t, m, "y")
	if a := st.lastGroup(t)[0]; a.ItemID != "q1" || a.Shown != sessions.ShownVerdict || a.ShownRun != 3 {
		t.Errorf("label with match active: %+v, want shown run 3", a)
	}
	m = press(t, m, "J", "a")
	if a := st.lastGroup(t)[0]; a.ItemID != "q2" || a.Kind != sessions.KindAccept || a.Shown != sessions.ShownVerdict || a.ShownRun != 8 {
		t.Errorf("accept with docqa active: %+v, want shown run 8 (its id, given by its load)", a)
	}
}
