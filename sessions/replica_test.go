package sessions

import (
	"errors"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// twoSessions are the team's session (team, labelled by "ann" and "bo")
// and a replica of it holding the same items and no action yet.
func twoSessions(t *testing.T) (team, bo, replica *Store) {
	t.Helper()
	team, path := newSession(t)
	bo = openStore(t, path, "bo")
	replica = openStore(t, filepath.Join(t.TempDir(), "replica.gavel"), "ann")
	if err := replica.InitDataset(DatasetInfo{Path: "data.jsonl", SHA256: "abc", Format: "jsonl",
		Mapping: map[string]string{"gold": "target"}}, sampleItems()); err != nil {
		t.Fatal(err)
	}
	return team, bo, replica
}

// teamHistory makes labels, undos, a can't judge, a tag and notes in the
// team's session and returns its whole history.
func teamHistory(t *testing.T, team, bo *Store) []Action {
	t.Helper()
	steps := []func() error{
		func() error {
			_, err := team.Record([]Action{{Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 1, Via: "order"}})
			return err
		},
		func() error {
			_, err := bo.Record([]Action{{Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 0, Via: "queue"}})
			return err
		},
		func() error {
			_, err := team.Record([]Action{{Kind: KindLabel, ItemID: "q2", Dimension: "correct", Value: 0, Via: "order"},
				{Kind: KindNote, ItemID: "q2", Note: "nul \x00 and ✓", Via: "order"}})
			return err
		},
		func() error {
			_, err := team.Record([]Action{{Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 0, Via: "order"}})
			return err
		},
		func() error { _, err := team.Undo(); return err },
		func() error {
			_, err := bo.Record([]Action{{Kind: KindCantJudge, ItemID: "q3", Reason: ReasonGoldWrong, Via: "queue"}})
			return err
		},
		func() error {
			_, err := bo.Record([]Action{{Kind: KindTag, ItemID: "q2", Tag: "too strict", Value: 1, Via: "queue"}})
			return err
		},
		func() error {
			_, err := bo.Record([]Action{{Kind: KindLabel, ItemID: "r1", Criterion: 2, Dimension: "correct", Value: 1, Via: "queue"}})
			return err
		},
		func() error { _, err := bo.Undo(); return err },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	all, err := team.Actions("")
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// The replica derives the same current labels, can't judges, notes and
// tags from the team's actions, whatever order they arrive in and however
// often: an id already there is skipped.
func TestApplyActions(t *testing.T) {
	team, bo, replica := twoSessions(t)
	all := teamHistory(t, team, bo)
	// In pieces, shuffled, and twice: the order of arrival does not matter
	// for what is current (a pull may fill an older id late).
	r := rand.New(rand.NewPCG(1, 2))
	shuffled := append([]Action(nil), all...)
	r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	// An undo never arrives before the action it undoes (it was committed
	// after it): put each undo after its target.
	pos := map[int64]int{}
	for i, a := range shuffled {
		pos[a.ID] = i
	}
	for i := 0; i < len(shuffled); i++ {
		if a := shuffled[i]; a.Kind == KindUndo && pos[a.Undoes] > i {
			shuffled = append(append(append([]Action(nil), shuffled[:i]...), shuffled[i+1:]...), a)
			for k, b := range shuffled {
				pos[b.ID] = k
			}
			i--
		}
	}
	total := 0
	for k := 0; k < len(shuffled); k += 3 {
		n, err := replica.ApplyActions(shuffled[k:min(k+3, len(shuffled))])
		if err != nil {
			t.Fatal(err)
		}
		total += n
	}
	if total != len(all) {
		t.Errorf("applied %d, want %d", total, len(all))
	}
	if n, err := replica.ApplyActions(all); err != nil || n != 0 {
		t.Errorf("applied again: %d new, %v", n, err)
	}
	same := func(what string, get func(*Store) (any, error)) {
		t.Helper()
		want, err := get(team)
		if err != nil {
			t.Fatal(err)
		}
		got, err := get(replica)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
		}
	}
	same("labels", func(s *Store) (any, error) { return s.Labels("") })
	same("can't judges", func(s *Store) (any, error) { return s.CantJudges("") })
	same("history", func(s *Store) (any, error) { return s.Actions("") })
	same("tags", func(s *Store) (any, error) { return s.ItemTags("") })
	same("decided", func(s *Store) (any, error) { return s.DecidedItems() })
	d, err := replica.DecidedItems()
	if err != nil || !reflect.DeepEqual(d, map[string]int{"ann": 2, "bo": 2}) {
		t.Errorf("DecidedItems = %v, %v; want ann 2 (q1, q2), bo 2 (q1, q3)", d, err)
	}
	// The replica labels on: its own undo finds ann's last live group
	// among the applied ones (q2's label and note).
	if _, err := replica.Undo(); err != nil {
		t.Fatal(err)
	}
	if ls, _ := replica.Labels("ann"); len(ls) != 1 || ls[0].ItemID != "q1" || ls[0].Value != 1 {
		t.Errorf("after undo ann has %v, want q1 = 1", ls)
	}
}

// A row under an id the replica holds as another action means the
// replica is another session's: refused, nothing written.
func TestApplyActionsDiverged(t *testing.T) {
	team, bo, replica := twoSessions(t)
	all := teamHistory(t, team, bo)
	if _, err := replica.ApplyActions(all[:2]); err != nil {
		t.Fatal(err)
	}
	other := all[1]
	other.Annotator = "cy"
	next := all[2]
	_, err := replica.ApplyActions([]Action{next, other})
	if !errors.Is(err, ErrReplicaDiverged) {
		t.Fatalf("err = %v, want ErrReplicaDiverged", err)
	}
	if h, _ := replica.Actions(""); len(h) != 2 {
		t.Errorf("%d actions after a refused apply, want 2", len(h))
	}
	for _, bad := range []Action{
		{Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 1, Annotator: "ann", At: time.Now()},                      // no id
		{ID: 99, Group: 99, Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 1, At: time.Now()},                     // no annotator
		{ID: 99, Group: 99, Kind: KindUndo, ItemID: "q1", Annotator: "ann", At: time.Now()},                                    // undoes nothing
		{ID: 99, Group: 99, Kind: KindLabel, ItemID: "nope", Dimension: "correct", Value: 1, Annotator: "ann", At: time.Now()}, // unknown item
	} {
		if _, err := replica.ApplyActions([]Action{bad}); err == nil {
			t.Errorf("applied %+v", bad)
		}
	}
}

// CurrentVerdictsOf gives the current verdict of each pulled verdict's
// item, criterion and order, per run, as the screen holds them.
func TestCurrentVerdictsOf(t *testing.T) {
	s, _ := newSession(t)
	run, err := s.EnsureRun(binaryInfo("docqa", "m"))
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	v := func(item string, x float64, reason string) judge.Verdict {
		return judge.Verdict{ItemID: item, Status: judge.StatusOK, Values: map[string]float64{"correct": x}, Reason: reason, At: at}
	}
	if err := s.SaveVerdicts(run.ID, []judge.Verdict{v("q1", 1, "first"), v("q2", 0, "first")}); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveVerdicts(run.ID, []judge.Verdict{v("q1", 0, "again")}); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	rows, err := rawDB(t, s.Path()).Query(`SELECT id FROM verdicts ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		ids = append(ids, id)
	}
	rows.Close()
	// The first verdict of q1 pulled late: q1's current one is the re-judge.
	got, err := s.CurrentVerdictsOf(ids[:1])
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got[run.ID]) != 1 || got[run.ID][0].Values["correct"] != 0 || got[run.ID][0].Reason != "" {
		t.Errorf("CurrentVerdictsOf(first q1) = %+v", got)
	}
	got, err = s.CurrentVerdictsOf(ids)
	if err != nil || len(got[run.ID]) != 2 || got[run.ID][0].ItemID != "q1" || got[run.ID][1].ItemID != "q2" {
		t.Errorf("CurrentVerdictsOf(all) = %+v, %v", got, err)
	}
	if got, err := s.CurrentVerdictsOf(nil); err != nil || len(got) != 0 {
		t.Errorf("CurrentVerdictsOf(nil) = %v, %v", got, err)
	}
}

// OpenReplica writes beside a review of the same file, without a lock of
// its own, and cannot label.
func TestOpenReplica(t *testing.T) {
	team, bo, replica := twoSessions(t)
	all := teamHistory(t, team, bo)
	r, err := OpenReplica(replica.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if n, err := r.ApplyActions(all[:3]); err != nil || n != 3 {
		t.Fatalf("ApplyActions through OpenReplica: %d, %v", n, err)
	}
	if n, err := replica.ApplyActions(all); err != nil || n != len(all)-3 {
		t.Fatalf("ApplyActions through the review's store: %d, %v", n, err)
	}
	if _, err := r.Record([]Action{{Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 1}}); err == nil {
		t.Error("a replica opened without an annotator labelled")
	}
	if _, err := OpenReplica(filepath.Join(t.TempDir(), "missing.gavel")); err == nil {
		t.Error("OpenReplica made a missing file")
	}
}
