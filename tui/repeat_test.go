package tui

import (
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/sessions"
)

// A key repeating the person's current decision records nothing, counts
// as no decision, says "already …" and moves on as the decision would;
// any change (another value, a label over an accept, a can't judge with
// another reason) records as before, and u takes back the last real
// change.
func TestRepeatedDecisionRecordsNothing(t *testing.T) {
	items := testItems(3) // the judge: q1 YES, q2 NO, q3 YES
	st := &fakeStore{}
	m := decisionModel(t, st, items, 80, 24, nil)
	m = press(t, m, "a", "a", "a")
	if h := hintLineOf(m); !strings.Contains(h, "That was the last item here") {
		t.Fatalf("after three accepts: %q", h)
	}
	count := func(want int, what string) {
		t.Helper()
		if n := len(st.allActions()); n != want {
			t.Errorf("%s: the store holds %d actions, want %d: %+v", what, n, want, st.allActions())
		}
		if d := m.labels.Decisions(); d != want {
			t.Errorf("%s: %d decisions, want %d", what, d, want)
		}
	}
	// The tour: a pressed again and again on the last item.
	for range 15 {
		m = press(t, m, "a")
	}
	count(3, "a ×15 on the last item")
	if h := hintLineOf(m); !strings.Contains(h, "q3 is already accepted: nothing recorded.") || m.cur != 2 {
		t.Errorf("a on the accepted last item: on %d, hint %q", m.cur, h)
	}
	// ← then a on a reviewed item: nothing recorded, on to the next.
	m = press(t, m, "h", "a")
	count(3, "← a")
	if h := hintLineOf(m); !strings.Contains(h, "q2 is already accepted: nothing recorded.") || m.cur != 2 {
		t.Errorf("← a: on %d, hint %q; want item 2 and the q2 hint", m.cur, h)
	}
	// y over an accept of YES is a label by hand: a change, recorded; y
	// again is not.
	m = press(t, m, "<", "y")
	count(4, "y over an accept")
	m = press(t, m, "<", "y")
	count(4, "y on YES")
	if h := hintLineOf(m); !strings.Contains(h, "q1 is already labelled YES: nothing recorded.") {
		t.Errorf("y on YES: hint %q", h)
	}
	// n changes it; u takes that back to YES, y is then a repeat again.
	m = press(t, m, "<", "n")
	count(5, "n")
	m = press(t, m, "u")
	if v, _ := m.labels.Label(sessions.LabelKey{ItemID: "q1", Dimension: "correct"}); v != 1 || m.cur != 0 {
		t.Fatalf("after u: q1 = %v, on %d", v, m.cur)
	}
	m = press(t, m, "y")
	count(4, "y after u")
	// Can't judge: the same reason again records nothing; another does.
	m = press(t, m, "<", "x", "2")
	count(5, "x 2")
	m = press(t, m, "<", "x", "2")
	count(5, "x 2 again")
	if h := hintLineOf(m); !strings.Contains(h, "q1 is already marked can't judge (question ambiguous): nothing recorded.") {
		t.Errorf("x 2 again: hint %q", h)
	}
	m = press(t, m, "<", "x", "1")
	count(6, "x 1")
	// A label takes the can't judge back, even of the value it had.
	m = press(t, m, "<", "y")
	count(7, "y under a can't judge")
	if _, _, ok := m.labels.CantJudge("q1"); ok {
		t.Error("y left q1 can't judge")
	}
}
