package sessions

import (
	"strings"
	"testing"
)

// TestUpgradeToV12 opens a v11 session whose actions include a group of
// two (a label and a note in one key press): the upgrade drops
// verdicts_by_status, makes actions_by_group partial, and undo still takes
// back each group whole, the single one and then the pair.
func TestUpgradeToV12(t *testing.T) {
	saved := migrations
	t.Cleanup(func() { migrations, schemaVersion = saved, len(saved) })
	migrations, schemaVersion = saved[:11], 11
	s, path := newSession(t)
	if _, err := s.Record([]Action{label("q1", "correct", 1), note("q1", "both")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Record([]Action{label("q2", "correct", 0)}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	migrations, schemaVersion = saved, len(saved)
	s = openStore(t, path, "ann")
	db := rawDB(t, path)
	if v := pragmaInt(t, db, "user_version"); v != int64(schemaVersion) {
		t.Fatalf("user_version %d after the upgrade, want %d", v, schemaVersion)
	}
	indexes := map[string]string{}
	for _, row := range dumpRows(t, db, `SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL`) {
		name, text, _ := strings.Cut(row, " sql=")
		indexes[strings.TrimPrefix(name, "name=")] = text
	}
	if _, ok := indexes["verdicts_by_status"]; ok {
		t.Error("verdicts_by_status is still there")
	}
	if !strings.Contains(indexes["actions_by_group"], "WHERE group_id <> id") {
		t.Errorf("actions_by_group = %q, want the partial index", indexes["actions_by_group"])
	}
	if got := dumpRows(t, db, `SELECT count(*) AS n FROM actions INDEXED BY actions_by_group WHERE group_id > 0 AND group_id <> id`); got[0] != "n=1" {
		t.Errorf("actions_by_group holds %v, want the note of the pair", got)
	}
	for _, want := range []string{"q2:label", "q1:label q1:note"} {
		undone, err := s.Undo()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range undone {
			got = append(got, a.ItemID+":"+string(a.Kind))
		}
		if strings.Join(got, " ") != want {
			t.Errorf("undo took back %v, want %s", got, want)
		}
	}
}

// TestGroupReadsUseTheKey checks how SQLite reads a group's actions: by
// the first action's key and the partial actions_by_group, never by
// walking an annotator's actions (a million after an import) or an item's.
func TestGroupReadsUseTheKey(t *testing.T) {
	s, _ := newSession(t)
	for _, tc := range []struct {
		name, query string
		args        []any
	}{
		{"the last decision", groupActions, []any{1, "ann"}},
		{"the last decision on an item", groupActionsOnItem, []any{1, "ann", "q1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := queryPlan(t, s.db, tc.query, tc.args...)
			for _, want := range []string{"INTEGER PRIMARY KEY", "actions_by_group"} {
				if !strings.Contains(text, want) {
					t.Errorf("plan does not use %s:\n%s", want, text)
				}
			}
			for _, not := range []string{"actions_by_annotator", "actions_by_item", "SCAN a"} {
				if strings.Contains(text, not) {
					t.Errorf("plan uses %s:\n%s", not, text)
				}
			}
		})
	}
}
