package main

import (
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/sessions"
)

// A gavel label call that would only repeat the annotator's current
// decision records nothing and says so (exit 0: a script run twice
// succeeds twice), as the review screen does; a changed value, a
// decision under a new provenance (an adjudication) or another person's
// same label records. A mixed call records only what changes.
func TestLabelRepeatRecordsNothing(t *testing.T) {
	session := labelSession(t, t.TempDir())
	count := func() int { t.Helper(); return actionCount(t, session) }
	for _, tc := range []struct {
		name  string
		args  []string
		added int
		msg   string
	}{
		{"first label", []string{"q1", "YES", "--annotator", "ana"}, 1, "Recorded on q1 for ana"},
		{"the same label again", []string{"q1", "YES", "--annotator", "ana"}, 0, "Nothing recorded on q1 for ana"},
		{"the same label by another person", []string{"q1", "YES", "--annotator", "bo"}, 1, "Recorded on q1 for bo"},
		{"a changed label", []string{"q1", "NO", "--annotator", "ana"}, 1, "Recorded on q1 for ana"},
		{"back to the first value", []string{"q1", "YES", "--annotator", "ana"}, 1, "Recorded on q1 for ana"},
		{"a note", []string{"q1", "--note", "gold is short", "--annotator", "ana"}, 1, "Recorded on q1 for ana"},
		{"the same note", []string{"q1", "--note", "gold is short", "--annotator", "ana"}, 0, "Nothing recorded"},
		{"the same label with a new note", []string{"q1", "YES", "--note", "fine after all", "--annotator", "ana"}, 1, "Left out on q1 for ana, already so"},
		{"the note removed", []string{"q1", "--note", "", "--annotator", "ana"}, 1, "Recorded on q1 for ana: note removed"},
		{"removed again", []string{"q1", "--note", "", "--annotator", "ana"}, 0, "Nothing recorded on q1"},
		{"can't judge", []string{"q2", "--cant-judge", "ambiguous", "--annotator", "ana"}, 1, "Recorded on q2 for ana"},
		{"the same can't judge", []string{"q2", "--cant-judge", "ambiguous", "--annotator", "ana"}, 0, "Nothing recorded on q2"},
		{"a label takes the can't judge back", []string{"q2", "NO", "--annotator", "ana"}, 1, "Recorded on q2 for ana"},
		{"a criterion", []string{"r1", "4", "--criterion", "1", "--annotator", "ana"}, 1, "Recorded on r1"},
		{"the same criterion again", []string{"r1", "4", "--criterion", "1", "--annotator", "ana"}, 0, "Nothing recorded on r1"},
		{"another criterion", []string{"r1", "4", "--criterion", "2", "--annotator", "ana"}, 1, "Recorded on r1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := count()
			code, _, errs := run(t, append([]string{"label", session}, tc.args...)...)
			if code != 0 || !strings.Contains(errs, tc.msg) {
				t.Errorf("exit %d: %s; want 0 and %q", code, errs, tc.msg)
			}
			if n := count() - before; n != tc.added {
				t.Errorf("recorded %d actions, want %d: %s", n, tc.added, errs)
			}
		})
	}
	// After an undo the label before is current again: labelling it
	// again is a repeat, the undone value is not.
	if code, _, errs := run(t, "label", session, "q1", "--undo", "--annotator", "bo"); code != 0 {
		t.Fatalf("undo: exit %d: %s", code, errs)
	}
	before := count()
	if code, _, errs := run(t, "label", session, "q1", "YES", "--annotator", "bo"); code != 0 || count() != before+1 {
		t.Errorf("bo's label after bo's undo: exit %d, %d actions: %s", code, count()-before, errs)
	}
}

// actionCount is how many actions the session at path holds, undo rows
// included.
func actionCount(t *testing.T, path string) int {
	t.Helper()
	s, err := sessions.Open(path, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	acts, err := s.Actions("")
	if err != nil {
		t.Fatal(err)
	}
	return len(acts)
}
