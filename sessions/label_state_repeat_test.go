package sessions

import "testing"

// Repeats is true only for an action that would leave the current
// decision exactly as it is.
func TestLabelStateRepeats(t *testing.T) {
	var st LabelState
	must := func(acts ...Action) {
		t.Helper()
		if err := st.Apply(acts); err != nil {
			t.Fatal(err)
		}
	}
	retest := func(a Action) Action { a.Retest = true; return a }
	if st.Repeats(label("q1", "correct", 1)) || st.Repeats(accept("q1", "correct", 1)) {
		t.Error("a first label repeats nothing")
	}
	must(accept("q1", "correct", 1), onCrit(label("q2", "score", 4), 2))
	must(cantJudge("q3", ReasonOther, "cut off"))
	for _, tc := range []struct {
		name string
		a    Action
		want bool
	}{
		{"the same accept", accept("q1", "correct", 1), true},
		{"the same accept reached another way", func() Action { a := accept("q1", "correct", 1); a.Via = "random"; return a }(), true},
		{"a label of the accepted value", label("q1", "correct", 1), false},
		{"another value", accept("q1", "correct", 0), false},
		{"under another guidelines version", underGuidelines(accept("q1", "correct", 1), 2), false},
		{"another dimension", accept("q1", "other", 1), false},
		{"another item", accept("q9", "correct", 1), false},
		{"a re-test", retest(accept("q1", "correct", 1)), false},
		{"the same criterion label", onCrit(label("q2", "score", 4), 2), true},
		{"another criterion", onCrit(label("q2", "score", 4), 1), false},
		{"the whole item", label("q2", "score", 4), false},
		{"the same can't judge", cantJudge("q3", ReasonOther, "cut off"), true},
		{"another note", cantJudge("q3", ReasonOther, "cut"), false},
		{"another reason", cantJudge("q3", ReasonAmbiguous, ""), false},
		{"can't judge where there is none", cantJudge("q1", ReasonAmbiguous, ""), false},
		{"a note", note("q1", ""), false},
		{"a tag", tagged("q1", "x", false), false},
	} {
		if got := st.Repeats(tc.a); got != tc.want {
			t.Errorf("%s: Repeats = %v, want %v", tc.name, got, tc.want)
		}
	}
	// A label under a can't judge takes it back: no repeat, even of the
	// value the row had before.
	must(label("q4", "correct", 0))
	must(cantJudge("q4", ReasonGoldWrong, ""))
	if st.Repeats(label("q4", "correct", 0)) {
		t.Error("a label taking back a can't judge repeats")
	}
	// Undone, the decision before is the one repeated.
	st.Undo()
	if !st.Repeats(label("q4", "correct", 0)) || st.Repeats(cantJudge("q4", ReasonGoldWrong, "")) {
		t.Error("after undoing the can't judge")
	}
	// Guidelines: the same version repeats.
	must(underGuidelines(label("q5", "correct", 1), 3))
	if !st.Repeats(underGuidelines(label("q5", "correct", 1), 3)) || st.Repeats(label("q5", "correct", 1)) {
		t.Error("guidelines versions")
	}
}
