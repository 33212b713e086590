package tui

import (
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/sessions"
)

// A label the person then marked "can't judge" is compared with nothing:
// the verdict pane shows it set aside, with no ✓ agree / ✗ disagree and
// no other person's "≠ you", as every agreement figure leaves it out; a
// label made again takes the mark back and the comparison returns.
func TestCantJudgeSetsTheLabelAsideInThePane(t *testing.T) {
	items := testItems(3)
	st := &fakeStore{}
	others := []sessions.Label{{Annotator: "bo", ItemID: "q1", Dimension: "correct", Value: 1}}
	m := decisionModel(t, st, items, 120, 50, func(o *Options) { o.Others = others })
	// q1: the judge says YES; the person says NO, then can't judge.
	m = press(t, m, "n", "<")
	screenHas(t, m, 120, 50, "you NO ✗ disagree", "≠ you")
	m = press(t, m, "x", "2", "<")
	s := plain(m)
	screenHas(t, m, 120, 50, "can't judge: question ambiguous", "you NO set aside")
	for _, bad := range []string{"disagree", "agree", "≠ you"} {
		if strings.Contains(s, bad) {
			t.Errorf("the pane compares a label set aside by can't judge (%q):\n%s", bad, s)
		}
	}
	// A label again takes the can't judge back.
	m = press(t, m, "n", "<")
	screenHas(t, m, 120, 50, "you NO ✗ disagree", "≠ you")
	if strings.Contains(plain(m), "set aside") {
		t.Errorf("the label is still shown set aside:\n%s", plain(m))
	}
}
