package sessions

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// step is one key press in a scripted review: a group to Record, or an
// Undo (with the item ids of the actions it must undo; nil: nothing to
// undo).
type step struct {
	record []Action
	undo   bool
	undone []string
}

func label(item, dim string, v float64) Action {
	return Action{Kind: KindLabel, ItemID: item, Dimension: dim, Value: v, Via: "order"}
}

func accept(item, dim string, v float64) Action {
	return Action{Kind: KindAccept, ItemID: item, Dimension: dim, Value: v, Via: "filter:disagreements"}
}

func note(item, text string) Action { return Action{Kind: KindNote, ItemID: item, Note: text} }

func rec(acts ...Action) step { return step{record: acts} }

func undo(items ...string) step { return step{undo: true, undone: items} }

// labelKey renders a label for comparison: item/criterion/dimension=value,
// with a trailing * when accepted.
func labelKey(l Label) string {
	s := fmt.Sprintf("%s/%d/%s=%g", l.ItemID, l.Criterion, l.Dimension, l.Value)
	if l.Accepted {
		s += "*"
	}
	return s
}

func TestRecordUndoDerivesCurrentState(t *testing.T) {
	crit := func(a Action, k int) Action { a.Criterion = k; return a }
	for _, tc := range []struct {
		name   string
		steps  []step
		labels []string
		notes  []string
	}{
		{"one label", []step{rec(label("q1", "correct", 1))}, []string{"q1/0/correct=1"}, nil},
		{"relabel keeps the latest", []step{rec(label("q1", "correct", 1)), rec(label("q1", "correct", 0))},
			[]string{"q1/0/correct=0"}, nil},
		{"undo restores the previous value", []step{
			rec(label("q1", "correct", 1)), rec(label("q1", "correct", 0)), undo("q1")},
			[]string{"q1/0/correct=1"}, nil},
		{"undo of a multi-action group undoes all of it", []step{
			rec(label("q2", "correct", 1)),
			rec(label("q1", "completeness", 4), label("q1", "correctness", 2), note("q1", "half right")),
			undo("q1", "q1", "q1")},
			[]string{"q2/0/correct=1"}, nil},
		{"repeated undo walks back", []step{
			rec(label("q1", "correct", 1)), rec(label("q2", "correct", 0)), rec(label("q3", "correct", 1)),
			undo("q3"), undo("q2")},
			[]string{"q1/0/correct=1"}, nil},
		{"undo past the beginning", []step{
			rec(label("q1", "correct", 1)), undo("q1"), undo(), undo()}, nil, nil},
		{"undo on an empty session", []step{undo()}, nil, nil},
		{"record after undo, then undo again", []step{
			rec(label("q1", "correct", 1)), rec(label("q2", "correct", 1)), undo("q2"),
			rec(label("q3", "correct", 0)), undo("q3"), undo("q1")}, nil, nil},
		{"accept is a label marked accepted", []step{
			rec(accept("q1", "correct", 1)), rec(accept("q2", "correct", 0)), rec(label("q2", "correct", 1))},
			[]string{"q1/0/correct=1*", "q2/0/correct=1"}, nil},
		{"rubric criteria are separate labels", []step{
			rec(crit(label("r1", "score", 1), 1), crit(label("r1", "score", 0.5), 2)),
			rec(crit(label("r1", "score", 0), 2))},
			[]string{"r1/1/score=1", "r1/2/score=0"}, nil},
		{"labels come in item order", []step{
			rec(label("q3", "correct", 1)), rec(label("q1", "b", 1)), rec(label("q1", "a", 0))},
			[]string{"q1/0/a=0", "q1/0/b=1", "q3/0/correct=1"}, nil},
		{"note and its update", []step{rec(note("q1", "first")), rec(note("q1", "second"))}, nil, []string{"q1:second"}},
		{"empty note clears", []step{rec(note("q1", "first")), rec(note("q1", ""))}, nil, nil},
		{"undo of a clear brings the note back", []step{rec(note("q1", "first")), rec(note("q1", "")), undo("q1")},
			nil, []string{"q1:first"}},
		{"notes and labels together", []step{
			rec(label("q2", "correct", 0), note("q2", "Lyon ≠ Paris")), rec(note("q1", "ok"))},
			[]string{"q2/0/correct=0"}, []string{"q1:ok", "q2:Lyon ≠ Paris"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newSession(t)
			var groups [][]Action
			for i, st := range tc.steps {
				if !st.undo {
					got, err := s.Record(st.record)
					if err != nil {
						t.Fatalf("step %d: Record: %v", i, err)
					}
					checkRecorded(t, s, st.record, got)
					groups = append(groups, got)
					continue
				}
				got, err := s.Undo()
				if err != nil {
					t.Fatalf("step %d: Undo: %v", i, err)
				}
				if st.undone == nil {
					if got != nil {
						t.Errorf("step %d: Undo with nothing to undo returned %+v", i, got)
					}
					continue
				}
				var items []string
				for _, a := range got {
					items = append(items, a.ItemID)
				}
				if !reflect.DeepEqual(items, st.undone) {
					t.Errorf("step %d: Undo undid items %v, want %v", i, items, st.undone)
				}
				if !undoneGroupRecorded(groups, got) {
					t.Errorf("step %d: Undo returned %+v, which is not a whole recorded group", i, got)
				}
			}

			labels, err := s.Labels("ann")
			if err != nil {
				t.Fatal(err)
			}
			var gotLabels []string
			for _, l := range labels {
				gotLabels = append(gotLabels, labelKey(l))
			}
			if !reflect.DeepEqual(gotLabels, tc.labels) {
				t.Errorf("labels = %v, want %v", gotLabels, tc.labels)
			}
			notes, err := s.Notes("ann")
			if err != nil {
				t.Fatal(err)
			}
			var gotNotes []string
			for _, n := range notes {
				gotNotes = append(gotNotes, n.ItemID+":"+n.Text)
			}
			if !reflect.DeepEqual(gotNotes, tc.notes) {
				t.Errorf("notes = %v, want %v", gotNotes, tc.notes)
			}
			// The same state straight from the views, as sqlite3 users see it.
			var n int
			if err := s.db.QueryRow(`SELECT count(*) FROM current_labels`).Scan(&n); err != nil || n != len(tc.labels) {
				t.Errorf("current_labels has %d rows (%v), want %d", n, err, len(tc.labels))
			}
		})
	}
}

// checkRecorded checks what Record filled in.
func checkRecorded(t *testing.T, s *Store, in, out []Action) {
	t.Helper()
	if len(out) != len(in) {
		t.Fatalf("Record returned %d actions for %d", len(out), len(in))
	}
	for i := range out {
		a := out[i]
		if a.ID == 0 || a.Group != out[0].Group || a.Annotator != s.Annotator() || a.At.IsZero() || !a.At.Equal(out[0].At) {
			t.Errorf("recorded action %+v: ID, Group, Annotator or At not set consistently", a)
		}
		if i > 0 && a.ID <= out[i-1].ID {
			t.Errorf("action IDs not increasing: %d after %d", a.ID, out[i-1].ID)
		}
		// Record also stamps the sitting: the store's lock token, the same
		// on every action this store writes.
		if a.Sitting == "" || a.Sitting != out[0].Sitting {
			t.Errorf("recorded action %+v: Sitting not set to the store's lock token", a)
		}
		a.ID, a.Group, a.Annotator, a.At, a.Sitting = 0, 0, "", in[i].At, in[i].Sitting
		if !reflect.DeepEqual(a, in[i]) {
			t.Errorf("Record changed the action: %+v, gave %+v", a, in[i])
		}
	}
}

// undoneGroupRecorded reports whether undone equals one recorded group.
func undoneGroupRecorded(groups [][]Action, undone []Action) bool {
	for _, g := range groups {
		if reflect.DeepEqual(g, undone) {
			return true
		}
	}
	return false
}

func TestHistoryIsAppendOnly(t *testing.T) {
	s, _ := newSession(t)
	first, _ := s.Record([]Action{label("q1", "correct", 1), note("q1", "x")})
	if _, err := s.Undo(); err != nil {
		t.Fatal(err)
	}
	hist, err := s.Actions("")
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 4 {
		t.Fatalf("history has %d rows, want 2 actions and 2 undo rows: %+v", len(hist), hist)
	}
	for i, a := range hist[2:] {
		if a.Kind != KindUndo || a.Undoes != first[i].ID || a.Group == first[0].Group || a.ItemID != "q1" {
			t.Errorf("undo row %+v does not undo %+v", a, first[i])
		}
	}
	if hist[0].Kind != KindLabel || hist[0].Value != 1 || hist[1].Note != "x" {
		t.Errorf("original actions changed: %+v", hist[:2])
	}
}

func TestRecordRefusesBadActions(t *testing.T) {
	for _, tc := range []struct {
		name string
		acts []Action
		want string
	}{
		{"unknown item", []Action{label("q1", "correct", 1), label("zz", "correct", 1)}, `unknown item "zz"`},
		{"no item", []Action{{Kind: KindNote}}, "needs an item id"},
		{"no dimension", []Action{{Kind: KindLabel, ItemID: "q1", Value: 1}}, "needs a dimension"},
		{"NaN", []Action{label("q1", "correct", math.NaN())}, "not a label value"},
		{"infinite", []Action{label("q1", "correct", math.Inf(1))}, "not a label value"},
		{"undo through Record", []Action{{Kind: KindUndo, ItemID: "q1", Undoes: 1}}, "written by Undo"},
		{"unknown kind", []Action{{Kind: "delete", ItemID: "q1"}}, `unknown action kind "delete"`},
		{"negative criterion", []Action{{Kind: KindNote, ItemID: "q1", Criterion: -2}}, "criterion -2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newSession(t)
			got, err := s.Record(tc.acts)
			if err == nil || !strings.Contains(err.Error(), tc.want) || got != nil {
				t.Errorf("Record = %v, %v; want error %q", got, err, tc.want)
			}
			if hist, _ := s.Actions(""); len(hist) != 0 {
				t.Errorf("a refused group left rows: %+v", hist)
			}
		})
	}
	s, _ := newSession(t)
	if got, err := s.Record(nil); got != nil || err != nil {
		t.Errorf("Record(nil) = %v, %v", got, err)
	}
}

func TestTwoAnnotators(t *testing.T) {
	a, path := newSession(t)
	b := openStore(t, path, "bob")
	if _, err := a.Record([]Action{label("q1", "correct", 1)}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Record([]Action{label("q1", "correct", 0), note("q1", "no")}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Record([]Action{label("q2", "correct", 1)}); err != nil {
		t.Fatal(err)
	}
	// Bob's undo undoes Bob's group, not Ann's later one.
	undone, err := b.Undo()
	if err != nil || len(undone) != 2 || undone[0].Annotator != "bob" {
		t.Fatalf("bob's Undo = %+v, %v", undone, err)
	}
	if _, err := b.Record([]Action{label("q3", "correct", 0)}); err != nil {
		t.Fatal(err)
	}

	all, err := a.Labels("")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range all {
		got = append(got, l.Annotator+":"+labelKey(l))
	}
	want := []string{"ann:q1/0/correct=1", "ann:q2/0/correct=1", "bob:q3/0/correct=0"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Labels(\"\") = %v, want %v", got, want)
	}
	if ls, _ := b.Labels("bob"); len(ls) != 1 || ls[0].ItemID != "q3" {
		t.Errorf("Labels(bob) = %+v", ls)
	}
	if ns, _ := a.Notes(""); len(ns) != 0 {
		t.Errorf("bob's undone note is still there: %+v", ns)
	}
	names, err := a.Annotators()
	if err != nil || !reflect.DeepEqual(names, []string{"ann", "bob"}) {
		t.Errorf("Annotators() = %v, %v", names, err)
	}
	// Ann's undo history is her own: two groups, then nothing.
	for range 2 {
		if u, err := a.Undo(); err != nil || len(u) != 1 || u[0].Annotator != "ann" {
			t.Errorf("ann's Undo = %+v, %v", u, err)
		}
	}
	if u, err := a.Undo(); u != nil || err != nil {
		t.Errorf("ann's third Undo = %+v, %v", u, err)
	}
	if ls, _ := a.Labels("bob"); len(ls) != 1 {
		t.Errorf("ann's undos touched bob's labels: %+v", ls)
	}
}

func TestLabelCarriesViaAndAction(t *testing.T) {
	s, _ := newSession(t)
	got, err := s.Record([]Action{accept("q2", "correct", 0)})
	if err != nil {
		t.Fatal(err)
	}
	ls, _ := s.Labels("")
	want := Label{ItemID: "q2", Dimension: "correct", Value: 0, Annotator: "ann", Via: "filter:disagreements",
		At: got[0].At, ActionID: got[0].ID, Accepted: true}
	if len(ls) != 1 || !reflect.DeepEqual(ls[0], want) {
		t.Errorf("Labels = %+v, want %+v", ls, want)
	}
}

func TestUndoErrorsOnReadOnly(t *testing.T) {
	_, path := newSession(t)
	ro, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := ro.Undo(); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Undo on a read-only store: %v", err)
	}
}

// A decision keeps the time its caller gives (the review screen stamps
// the key press: a label queued while a new session is written is saved
// seconds later); with none, or one later than the commit, it takes the
// commit's.
func TestRecordKeepsTheDecisionTime(t *testing.T) {
	s := openStore(t, sessionPath(t), "ann")
	if err := s.InitDataset(DatasetInfo{Path: "d.jsonl", SHA256: "abc", Format: "jsonl"}, sampleItems()); err != nil {
		t.Fatal(err)
	}
	pressed := time.Now().Add(-90 * time.Second).UTC().Truncate(time.Millisecond)
	for _, c := range []struct {
		at     time.Time
		caller bool // the stored time is the caller's
	}{{pressed, true}, {time.Time{}, false}, {time.Now().Add(time.Hour), false}} {
		before := time.Now().Add(-time.Second)
		got, err := s.Record([]Action{{Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 1, Via: "order", At: c.at}})
		if err != nil {
			t.Fatal(err)
		}
		acts, err := s.Actions("ann")
		if err != nil {
			t.Fatal(err)
		}
		stored := acts[len(acts)-1].At
		if !stored.Equal(got[0].At) {
			t.Errorf("at %v: Record returned %v, the session holds %v", c.at, got[0].At, stored)
		}
		if c.caller && !stored.Equal(pressed) {
			t.Errorf("at %v: stored %v, want the caller's time", c.at, stored)
		}
		if !c.caller && (stored.Before(before) || stored.After(time.Now())) {
			t.Errorf("at %v: stored %v, want the commit's time", c.at, stored)
		}
	}
}
