package main

import (
	"strings"
	"testing"
)

// --untag of a tag that is not on the item and --tag of one already on
// are refused (exit 2) and record nothing, with the whole command: no
// action that changes nothing, so one --undo takes back the last real
// change. Tags are each annotator's: bo's tag is not ana's to take off.
func TestLabelTagChangesNothingRefused(t *testing.T) {
	session := labelSession(t, t.TempDir())
	label := func(args ...string) (int, string) {
		t.Helper()
		code, _, errs := run(t, append([]string{"label", session}, args...)...)
		return code, errs
	}
	count := func() int { t.Helper(); return actionCount(t, session) }
	if code, errs := label("q1", "--tag", "format", "--annotator", "bo"); code != 0 {
		t.Fatalf("bo's tag: exit %d: %s", code, errs)
	}
	before := count()
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"q1", "--untag", "format"}, `--untag "format": tag "format" is not on item q1 (ana's tags there: none)`},
		{[]string{"q1", "YES", "--untag", "format"}, `tag "format" is not on item q1`},
	} {
		code, errs := label(append(tc.args, "--annotator", "ana")...)
		if code != 2 || !strings.Contains(errs, tc.msg) || strings.Contains(errs, "Recorded") {
			t.Errorf("%v: exit %d: %s; want 2 and %q", tc.args, code, errs, tc.msg)
		}
	}
	if n := count(); n != before {
		t.Errorf("refused commands recorded %d actions", n-before)
	}
	if code, errs := label("q1", "--tag", "format", "--tag", "too strict", "--annotator", "ana"); code != 0 {
		t.Fatalf("ana's tags: exit %d: %s", code, errs)
	}
	before = count()
	code, errs := label("q1", "--tag", "format", "--annotator", "ana")
	if code != 2 || !strings.Contains(errs, `--tag "format": tag "format" is already on item q1 (ana's tags there: "format", "too strict")`) {
		t.Errorf("a tag already on: exit %d: %s", code, errs)
	}
	if n := count(); n != before {
		t.Errorf("a tag already on recorded %d actions", n-before)
	}
	if code, errs := label("q1", "--untag", "format", "--annotator", "ana"); code != 0 || !strings.Contains(errs, `tag "format" off`) {
		t.Errorf("untag a tag that is on: exit %d: %s", code, errs)
	}
	if code, errs := label("q1", "--untag", "format", "--annotator", "ana"); code != 2 {
		t.Errorf("untag it again: exit %d: %s", code, errs)
	}
	// One undo takes back the real change: the tag is on again.
	if code, errs := label("q1", "--undo", "--annotator", "ana"); code != 0 || !strings.Contains(errs, `tag "format" off`) {
		t.Errorf("undo: exit %d: %s", code, errs)
	}
	if code, errs := label("q1", "--untag", "format", "--annotator", "ana"); code != 0 {
		t.Errorf("untag after the undo: exit %d: %s", code, errs)
	}
}
