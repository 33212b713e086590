package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// labelSession writes a session of three items — q1 and q2 whole items,
// r1 with two rubric criteria — judged by a binary whole-item judge
// (correct) and a per-criterion Likert judge (score): q1 and q2 have one
// row, r1 three. It returns the session's path.
func labelSession(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "label.gavel")
	s, err := sessions.Open(path, sessions.Options{Annotator: "builder"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	items := []judge.Item{
		{Index: 0, ID: "q1", Question: "2+2?", Gold: "4", Prediction: "4"},
		{Index: 1, ID: "q2", Question: "Capital of France?", Gold: "Paris", Prediction: "Lyon"},
		{Index: 2, ID: "r1", Question: "Explain tides", Gold: "moon", Prediction: "The moon.", Rubric: []string{"mentions the moon", "is concise"}},
	}
	if err := s.InitDataset(sessions.DatasetInfo{Path: "label.jsonl", SHA256: "x", Format: "jsonl", Items: len(items)}, items); err != nil {
		t.Fatal(err)
	}
	if _, err := s.EnsureRun(judge.Info{Name: "match", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.EnsureRun(judge.Info{Name: "rubric", PerCriterion: true, Dimensions: []judge.Dimension{{Name: "score", Scale: judge.Likert}}}); err != nil {
		t.Fatal(err)
	}
	return path
}

// actionRow is an action as the tests compare it: what it records, not
// when, by which process, or its ids.
type actionRow struct {
	Kind                 sessions.ActionKind
	Item                 string
	Criterion            int
	Dimension            string
	Value                float64
	Note, Via, Annotator string
	Reason, Tag          string
	Guidelines           int64
	Retest               bool
	// Undoes is the position of the undone action in the list, -1 none;
	// Group the group's position among the groups.
	Undoes, Group int
}

func (r actionRow) String() string {
	return fmt.Sprintf("g%d %s %s c%d %s=%v note=%q via=%s ann=%s reason=%s tag=%q gl=%d retest=%v undoes=%d",
		r.Group, r.Kind, r.Item, r.Criterion, r.Dimension, r.Value, r.Note, r.Via, r.Annotator, r.Reason, r.Tag, r.Guidelines, r.Retest, r.Undoes)
}

// actionRows reads annotator's actions from a session as actionRows.
func actionRows(t *testing.T, path, annotator string) []actionRow {
	t.Helper()
	s, err := sessions.Open(path, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	acts, err := s.Actions(annotator)
	if err != nil {
		t.Fatal(err)
	}
	at := map[int64]int{}
	groups := map[int64]int{}
	var out []actionRow
	for i, a := range acts {
		at[a.ID] = i
		if _, ok := groups[a.Group]; !ok {
			groups[a.Group] = len(groups)
		}
		r := actionRow{Kind: a.Kind, Item: a.ItemID, Criterion: a.Criterion, Dimension: a.Dimension, Value: a.Value,
			Note: a.Note, Via: a.Via, Annotator: a.Annotator, Reason: a.Reason, Tag: a.Tag, Guidelines: a.Guidelines,
			Retest: a.Retest, Undoes: -1, Group: groups[a.Group]}
		if a.Kind == sessions.KindUndo {
			r.Undoes = at[a.Undoes]
		}
		out = append(out, r)
	}
	return out
}

func TestLabelCommand(t *testing.T) {
	label := func(kind sessions.ActionKind, item string, crit int, dim string, v float64) actionRow {
		return actionRow{Kind: kind, Item: item, Criterion: crit, Dimension: dim, Value: v, Via: "script", Annotator: "ana", Undoes: -1}
	}
	with := func(r actionRow, f func(*actionRow)) actionRow { f(&r); return r }
	tests := []struct {
		name string
		args []string
		code int
		msg  string // in stderr
		want []actionRow
	}{
		{"a label", []string{"q1", "YES"}, 0, "Recorded on q1 for ana: correct = YES.",
			[]actionRow{label(sessions.KindLabel, "q1", 0, "correct", 1)}},
		{"read on the scale, --via", []string{"q2", "no", "--via", "order"}, 0, "correct = NO",
			[]actionRow{with(label(sessions.KindLabel, "q2", 0, "correct", 0), func(r *actionRow) { r.Via = "order" })}},
		{"a value off the scale", []string{"q1", "maybe"}, 2, `"maybe" is not on the scale of correct (binary): give YES or NO`, nil},
		{"several rows", []string{"r1", "4"}, 2, `the item "r1" has 3 rows: say which VALUE labels with --criterion K and --dimension D (its rows are correct (YES / NO), score on criterion 1 (1–5), score on criterion 2 (1–5))`, nil},
		{"the dimension leaves two criteria", []string{"r1", "4", "--dimension", "score"}, 2, `has 2 rows "score": say which VALUE labels with --criterion K`, nil},
		{"one criterion", []string{"r1", "4", "--criterion", "2"}, 0, "score on criterion 2 = 4",
			[]actionRow{label(sessions.KindLabel, "r1", 2, "score", 4)}},
		{"off a Likert scale", []string{"r1", "7", "--criterion", "1"}, 2, `"7" is not on the scale of score on criterion 1 (likert): give 1, 2, 3, 4 or 5`, nil},
		{"no such row", []string{"r1", "YES", "--criterion", "3"}, 2, `has no row on criterion 3: its rows are correct`, nil},
		{"the whole item of a rubric item", []string{"r1", "y", "--dimension", "Correct"}, 0, "correct = YES",
			[]actionRow{label(sessions.KindLabel, "r1", 0, "correct", 1)}},
		{"an unknown id", []string{"q3", "YES"}, 2, `has no item "q3": did you mean "q1" or "q2"?`, nil},
		{"an id near none", []string{"zzzzzz", "YES"}, 2, "gavel export", nil},
		{"can't judge", []string{"q1", "--cant-judge", "gold-wrong"}, 0, "can't judge (gold-wrong)",
			[]actionRow{with(label(sessions.KindCantJudge, "q1", 0, "", 0), func(r *actionRow) { r.Reason = "gold-wrong" })}},
		{"can't judge, other, with its note", []string{"q1", "--cant-judge", "other", "--note", " cut off "}, 0, "can't judge (other)",
			[]actionRow{with(label(sessions.KindCantJudge, "q1", 0, "", 0), func(r *actionRow) { r.Reason, r.Note = "other", "cut off" })}},
		{"can't judge with a note of its own", []string{"q1", "--cant-judge", "ambiguous", "--note", "which year?"}, 0, "can't judge (ambiguous), note",
			[]actionRow{with(label(sessions.KindCantJudge, "q1", 0, "", 0), func(r *actionRow) { r.Reason = "ambiguous" }),
				with(label(sessions.KindNote, "q1", 0, "", 0), func(r *actionRow) { r.Note = "which year?" })}},
		{"other without a note", []string{"q1", "--cant-judge", "other"}, 2, "--cant-judge other needs --note", nil},
		{"an unknown reason", []string{"q1", "--cant-judge", "boring"}, 2, `--cant-judge "boring": the reasons are gold-wrong, ambiguous, unreadable, other`, nil},
		{"can't judge and a value", []string{"q1", "YES", "--cant-judge", "ambiguous"}, 2, "give one of them", nil},
		{"tags", []string{"q1", "--tag", "format", "--tag", " too strict "}, 0, `tag "format", tag "too strict"`,
			[]actionRow{with(label(sessions.KindTag, "q1", 0, "", 1), func(r *actionRow) { r.Tag = "format" }),
				with(label(sessions.KindTag, "q1", 0, "", 1), func(r *actionRow) { r.Tag = "too strict" })}},
		{"a label, a note and a tag: one group", []string{"q2", "NO", "--note", "Lyon", "--tag", "format"}, 0, "correct = NO, note, tag",
			[]actionRow{label(sessions.KindLabel, "q2", 0, "correct", 0),
				with(label(sessions.KindNote, "q2", 0, "", 0), func(r *actionRow) { r.Note = "Lyon" }),
				with(label(sessions.KindTag, "q2", 0, "", 1), func(r *actionRow) { r.Tag = "format" })}},
		{"a tag with a comma", []string{"q1", "--tag", "a,b"}, 2, "comma", nil},
		{"untag an unknown tag", []string{"q1", "--untag", "format"}, 2, `--untag "format": the session has no such tag (its tags: none)`, nil},
		{"tag and untag", []string{"q1", "--tag", "x", "--untag", "x"}, 2, "not both", nil},
		{"an empty note where there is none", []string{"q1", "--note", ""}, 0, "Nothing recorded on q1 for ana, already so: note removed.", nil},
		{"nothing", []string{"q1"}, 2, "nothing to record", nil},
		{"a row without a value", []string{"q1", "--dimension", "correct", "--tag", "x"}, 2, "--dimension says which row VALUE labels, and no VALUE was given", nil},
		{"criterion 0", []string{"r1", "3", "--criterion", "0"}, 2, "numbered from 1", nil},
		{"undo and more", []string{"q1", "YES", "--undo"}, 2, "leave out VALUE", nil},
		{"nothing to undo", []string{"q1", "--undo"}, 1, `has no decision of "ana" on q1 left to undo`, nil},
		{"a bad --via", []string{"q1", "YES", "--via", "filter:x"}, 2, "order, random or script", nil},
		{"a missing guidelines file", []string{"q1", "YES", "--guidelines", "/nonexistent/g.md"}, 1, "the guidelines file /nonexistent/g.md does not exist", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			session := labelSession(t, t.TempDir())
			code, _, errs := run(t, append([]string{"label", session, tc.args[0]}, append(tc.args[1:], "--annotator", "ana")...)...)
			if code != tc.code || !strings.Contains(errs, tc.msg) {
				t.Errorf("exit %d, want %d; stderr %q, want %q", code, tc.code, errs, tc.msg)
			}
			got := actionRows(t, session, "ana")
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("actions\n got %v\nwant %v", got, tc.want)
			}
		})
	}
	if code, _, errs := run(t, "label", filepath.Join(t.TempDir(), "none.gavel"), "q1", "YES"); code != 2 || !strings.Contains(errs, "no session") {
		t.Errorf("a missing session: exit %d: %s", code, errs)
	}
}

// --undo takes back the annotator's latest decision on the item, and only
// on that item; another annotator's is not theirs to undo.
func TestLabelUndo(t *testing.T) {
	session := labelSession(t, t.TempDir())
	for _, args := range [][]string{
		{"q1", "YES", "--tag", "format"},
		{"q2", "NO"},
		{"q1", "NO", "--note", "second thoughts"},
		{"q1", "YES", "--annotator", "bo"},
	} {
		if code, _, errs := run(t, append([]string{"label", session, "--annotator", "ana"}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
	}
	steps := []struct {
		code int
		msg  string
	}{
		{0, "Undone on q1 for ana: correct = NO, note."},
		{0, `Undone on q1 for ana: correct = YES, tag "format".`},
		{1, `has no decision of "ana" on q1 left to undo`},
	}
	for _, st := range steps {
		code, _, errs := run(t, "label", session, "q1", "--undo", "--annotator", "ana")
		if code != st.code || !strings.Contains(errs, st.msg) {
			t.Errorf("exit %d: %q, want %d and %q", code, errs, st.code, st.msg)
		}
	}
	s, err := sessions.Open(session, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	labels, err := s.Labels("")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range labels {
		got = append(got, fmt.Sprintf("%s:%s=%v", l.Annotator, l.ItemID, l.Value))
	}
	if strings.Join(got, " ") != "bo:q1=1 ana:q2=0" {
		t.Errorf("current labels after the undos: %v", got)
	}
}

// A session open on the review screen for the same annotator is refused
// with what to do; another annotator labels meanwhile.
func TestLabelRefusesAHeldSession(t *testing.T) {
	session := labelSession(t, t.TempDir())
	held, err := sessions.Open(session, sessions.Options{Annotator: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	code, _, errs := run(t, "label", session, "q1", "YES", "--annotator", "ana")
	if code != 1 || !strings.Contains(errs, `is already open for labelling by annotator "ana"`) ||
		!strings.Contains(errs, "Close that Gavel first, or label as someone else with --annotator NAME") {
		t.Errorf("exit %d: %s", code, errs)
	}
	if code, _, errs := run(t, "label", session, "q1", "YES", "--annotator", "bo"); code != 0 {
		t.Errorf("another annotator: exit %d: %s", code, errs)
	}
}

// A label records the guidelines version in force: the file given (a new
// version when changed), else the config's, else the session's latest.
func TestLabelGuidelines(t *testing.T) {
	dir := t.TempDir()
	session := labelSession(t, dir)
	g := writeFile(t, dir, "g.md", "# Guidelines\nA number written as a word is correct.\n")
	steps := []struct {
		args []string
		item string
		want int64
	}{
		{[]string{"q1", "YES"}, "q1", 0}, // the session has none yet
		{[]string{"q1", "YES", "--guidelines", g}, "q1", 1},
		{[]string{"q2", "NO"}, "q2", 1}, // the session's latest
	}
	for _, st := range steps {
		if code, _, errs := run(t, append([]string{"label", session, "--annotator", "ana"}, st.args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", st.args, code, errs)
		}
		rows := actionRows(t, session, "ana")
		if last := rows[len(rows)-1]; last.Item != st.item || last.Guidelines != st.want {
			t.Errorf("%v: recorded %v, want guidelines %d", st.args, last, st.want)
		}
	}
	writeFile(t, dir, "g.md", "# Guidelines\nA number written as a word is wrong.\n")
	e, _ := configEnv(t, "guidelines: "+g+"\n", nil)
	if code := execute(context.Background(), e, []string{"label", session, "q1", "NO", "--annotator", "ana"}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	rows := actionRows(t, session, "ana")
	if last := rows[len(rows)-1]; last.Guidelines != 2 {
		t.Errorf("the config's changed file: recorded %v, want guidelines version 2", last)
	}
	// A config naming a file that is gone: said, and the latest version stands in.
	if err := os.Remove(g); err != nil {
		t.Fatal(err)
	}
	e, _ = configEnv(t, "guidelines: "+g+"\n", nil)
	var errb strings.Builder
	e.stderr = &errb
	if code := execute(context.Background(), e, []string{"label", session, "q2", "YES", "--annotator", "ana"}); code != 0 || !strings.Contains(errb.String(), "does not exist") {
		t.Errorf("exit %d: %s", code, errb.String())
	}
	rows = actionRows(t, session, "ana")
	if last := rows[len(rows)-1]; last.Guidelines != 2 {
		t.Errorf("recorded %v, want the latest version (2)", last)
	}
}

func TestAcceptedValues(t *testing.T) {
	for _, tc := range []struct {
		scale judge.Scale
		want  string
	}{
		{judge.Binary, "YES or NO (or 1 / 0)"},
		{judge.Ternary, "0, 0.5 or 1"},
		{judge.Likert, "1, 2, 3, 4 or 5"},
		{"ordinal:1-4:poor,fair,good,excellent", "1 (poor), 2 (fair), 3 (good) or 4 (excellent)"},
		{"ordinal:0-100", "a whole number from 0 to 100"},
		{"nominal:CORRECT,INCORRECT,NOT_ATTEMPTED", "CORRECT, INCORRECT or NOT_ATTEMPTED"},
		{judge.Pairwise, "A, B or tie"},
		{judge.PairwiseNoTie, "A or B"},
	} {
		sc, err := judge.ParseScale(string(tc.scale))
		if err != nil {
			t.Fatal(err)
		}
		if got := acceptedValues(sc); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.scale, got, tc.want)
		}
		// Every value it names is read back on the scale.
		for _, v := range sc.Values() {
			if x, ok := sc.Read(sc.Format(v)); !ok || x != v {
				t.Errorf("%s: %q reads as %v, %v", tc.scale, sc.Format(v), x, ok)
			}
		}
	}
}
