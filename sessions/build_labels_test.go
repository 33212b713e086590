package sessions

import (
	"slices"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/sessions/dataset"
)

// TestBuildKeepsCurrentLabelsWithoutTrigger: while a build's then runs,
// the label trigger is suspended and the writers keep past_labels
// themselves, so that a second import in the same build sees the first
// one's labels; the finished session's stored labels are those the
// window function derives, and its trigger is back, with the same text,
// and working.
func TestBuildKeepsCurrentLabelsWithoutTrigger(t *testing.T) {
	load := func(data string) *dataset.Dataset {
		ds, err := dataset.LoadBytes("judged.csv", []byte(data), dataset.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}
	ds := load(judgedCSV)
	changed := load(strings.Replace(judgedCSV, "b,Capital of France?,Paris,Lyon,False,1,no", "b,Capital of France?,Paris,Lyon,True,1,yes", 1))
	path := sessionPath(t)
	var first, second ImportSummary
	err := BuildDatasetSessionThen(path, ds, func(s *Store) error {
		var on int
		if err := s.db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = ?`, labelTrigger).Scan(&on); err != nil || on != 0 {
			t.Errorf("the label trigger is there during then (%d, %v)", on, err)
		}
		var err error
		if first, err = ImportDataset(s, ds, nil); err != nil {
			return err
		}
		if second, err = ImportDataset(s, changed, nil); err != nil {
			return err
		}
		_, err = s.RecordAs("alice", []Action{{Kind: KindAccept, ItemID: "a", Dimension: "correct", Value: 0, Via: "order"}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if first.LabelCount() != 3 || second.LabelCount() != 1 || second.Annotators[0].Unchanged != 2 {
		t.Fatalf("labels added %d then %d (%d unchanged); want 3, then 1 with 2 already there",
			first.LabelCount(), second.LabelCount(), second.Annotators[0].Unchanged)
	}

	db := rawDB(t, path)
	stored := labelRows(t, db, `SELECT item_id, criterion, dimension, value, annotator, via, at, action_id, accepted FROM current_labels`)
	if derived := labelRows(t, db, derivedLabels); len(stored) != 4 || !slices.Equal(stored, derived) {
		t.Fatalf("stored current labels\n%v\nwant what the window function derives\n%v", stored, derived)
	}
	fresh := sessionPath(t)
	openStore(t, fresh, "ann").Close()
	var got, want string
	if err := db.QueryRow(`SELECT sql FROM sqlite_schema WHERE name = ?`, labelTrigger).Scan(&got); err != nil {
		t.Fatalf("the label trigger is not back: %v", err)
	}
	if err := rawDB(t, fresh).QueryRow(`SELECT sql FROM sqlite_schema WHERE name = ?`, labelTrigger).Scan(&want); err != nil || got != want {
		t.Fatalf("the label trigger reads\n%s\nwant\n%s (%v)", got, want, err)
	}

	s := openStore(t, path, "bob")
	if _, err := s.Record([]Action{{Kind: KindLabel, ItemID: "a", Dimension: "correct", Value: 1, Via: "order"}}); err != nil {
		t.Fatal(err)
	}
	labels, err := s.Labels("bob")
	if err != nil || len(labels) != 1 || labels[0].Value != 1 {
		t.Fatalf("bob's labels after the build %+v, %v: the trigger must keep them", labels, err)
	}
}
