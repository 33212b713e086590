package tui

import (
	"strings"
	"testing"
)

// The note field of "other" reads as one question after its "why "
// label, the placeholder not repeating the word.
func TestCantJudgeNotePlaceholderReadsOnce(t *testing.T) {
	st := &fakeStore{}
	m := decisionModel(t, st, testItems(2), 80, 24, nil)
	m = press(t, m, "x", "4")
	s := plain(m)
	if strings.Contains(s, "why why") {
		t.Errorf("the note's placeholder repeats \"why\":\n%s", s)
	}
	screenHas(t, m, 80, 24, "why can it not be judged?")
}
