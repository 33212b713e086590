package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// gavel export --cant-judge [--reason R] and --tag NAME: the items someone
// marked or tagged, labelled or not, with their reasons; bad values are
// refused with what to use.
func TestExportCantJudgeAndTags(t *testing.T) {
	session := labelSession(t, t.TempDir())
	for _, args := range [][]string{
		{"q1", "--cant-judge", "gold-wrong", "--annotator", "ana"},
		{"q2", "NO", "--tag", "too strict", "--annotator", "ana"},
		{"r1", "--cant-judge", "ambiguous", "--tag", "format", "--annotator", "bo"},
	} {
		if code, _, errs := run(t, append([]string{"label", session}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
	}
	ids := func(out string) []string {
		var ids []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			ids = append(ids, line[:strings.IndexByte(line, ',')])
		}
		return ids
	}
	for _, tc := range []struct {
		args []string
		code int
		ids  []string
		msg  string
	}{
		{[]string{"--cant-judge"}, 0, []string{"q1", "r1"}, "Wrote 2 of 3 items (all, can't judge) to standard output."},
		{[]string{"--cant-judge", "--reason", "gold-wrong"}, 0, []string{"q1"}, "(all, can't judge: gold-wrong)"},
		{[]string{"--reason", "ambiguous"}, 0, []string{"r1"}, "can't judge: ambiguous"},
		{[]string{"--tag", "format"}, 0, []string{"r1"}, `(all, tagged "format")`},
		{[]string{"--tag", "too strict", "--only", "reviewed"}, 0, []string{"q2"}, `(reviewed, tagged "too strict")`},
		{[]string{"--reason", "unreadable"}, 0, nil, "No item matches"},
		{[]string{"--reason", "boring"}, 2, nil, `unknown --reason "boring": use gold-wrong, ambiguous, unreadable, other`},
		{[]string{"--tag", "nope"}, 2, nil, `--tag "nope": ` + session + ` has no such tag (its tags: "too strict", "format")`},
	} {
		code, out, errs := run(t, append([]string{"export", session, "--format", "csv"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errs, tc.msg) {
			t.Errorf("%v: exit %d: %s", tc.args, code, errs)
			continue
		}
		if code == 0 && strings.Join(ids(out), ",") != strings.Join(tc.ids, ",") {
			t.Errorf("%v: rows %q, want %q", tc.args, ids(out), tc.ids)
		}
		if code == 0 && len(tc.ids) > 0 && !strings.Contains(strings.SplitN(out, "\n", 2)[0], "cant_judge:ana") {
			t.Errorf("%v: no reason column: %s", tc.args, strings.SplitN(out, "\n", 2)[0])
		}
	}

	// The export's record comes back with gavel import, which says so.
	dir := t.TempDir()
	exported := filepath.Join(dir, "all.jsonl")
	if code, _, errs := run(t, "export", session, "--only", "all", "-o", exported); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errs)
	}
	code, out, errs := run(t, "import", exported, "--session", filepath.Join(dir, "back.gavel"))
	if code != 0 || !strings.Contains(out, "annotator ana: 1 label, 1 can't judge, 1 tag\n") || !strings.Contains(out, "annotator bo: 0 labels, 1 can't judge, 1 tag\n") {
		t.Errorf("import: exit %d: %s%s", code, out, errs)
	}
}
