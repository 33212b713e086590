package sessions

import (
	"database/sql"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// TestBuildImportUnchecked: inside a build the import's writers run with
// SQLite's CHECK constraints off (writeUnchecked), so their own checks
// stand in for them: an action or a verdict the constraints refuse is
// refused all the same, the constraints are on again after the write,
// and what an import writes passes SQLite's integrity check, which reads
// the constraints.
func TestBuildImportUnchecked(t *testing.T) {
	ds, err := dataset.LoadBytes("pairs.jsonl", []byte(batchedPairs(2*insertBatch+3)), dataset.Options{Map: map[string]string{
		"swapped": "verdict_swapped", "reason": "why", "human": "label+rater1"}})
	if err != nil {
		t.Fatal(err)
	}
	scales, err := ParseImportScales([]string{"pairwise"})
	if err != nil {
		t.Fatal(err)
	}
	item := ds.Items[0].ID
	path := sessionPath(t)
	err = BuildDatasetSessionThen(path, ds, func(s *Store) error {
		if _, err := ImportDatasetWith(s, ds, ImportOptions{Scales: scales}); err != nil {
			return err
		}
		bad := []Action{
			{Kind: "bogus", ItemID: item, Dimension: "d", Value: 1},
			{Kind: KindLabel, ItemID: item, Criterion: -1, Dimension: "d", Value: 1},
			{Kind: KindCantJudge, ItemID: item, Reason: "bored"},
			{Kind: KindTag, ItemID: item, Tag: "", Value: 1},
			{Kind: KindTag, ItemID: item, Tag: "t", Value: 2},
			{Kind: KindNote, ItemID: item, Note: "n", Retest: true},
		}
		for _, a := range bad {
			err := s.writeUnchecked("test", func(tx *sql.Tx) error {
				w, err := newGroupWriter(tx, s.path, "rater9")
				if err != nil {
					return err
				}
				if err := w.add([]Action{a}); err != nil {
					return err
				}
				return w.flush()
			})
			if err == nil {
				t.Errorf("action %+v written in a build, want it refused", a)
			}
		}
		err := s.writeUnchecked("test", func(tx *sql.Tx) error {
			w, err := newVerdictWriter(tx, 1)
			if err != nil {
				return err
			}
			if err := w.add(judge.Verdict{ItemID: item, Criterion: -1, Status: judge.StatusOK}); err != nil {
				return err
			}
			return w.flush()
		})
		if err == nil {
			t.Error("verdict of criterion -1 written in a build, want it refused")
		}
		return s.write("test", func(tx *sql.Tx) error {
			var on int
			if err := tx.QueryRow(`PRAGMA ignore_check_constraints`).Scan(&on); err != nil || on != 0 {
				t.Errorf("ignore_check_constraints %d %v after the import's writes, want 0", on, err)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	var verdicts, actions int
	if err := rawDB(t, path).QueryRow(`SELECT (SELECT count(*) FROM verdicts), (SELECT count(*) FROM actions)`).Scan(&verdicts, &actions); err != nil || verdicts == 0 || actions == 0 {
		t.Fatalf("%d verdicts, %d actions (%v): the import wrote nothing", verdicts, actions, err)
	}
	var check string
	if err := rawDB(t, path).QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check %q %v, want ok", check, err)
	}
}
