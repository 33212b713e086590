package sessions

import (
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// preV8Action is an actions row as a build before schema v8 wrote it.
type preV8Action struct {
	id, group  int64
	kind, item string
	crit       int
	dim        string
	value      any
	note, via  string
	annotator  string
	undoes     int64
	at         string
}

// insertPreV8Actions writes rows with the columns actions had up to v7,
// through the store's writer (so the triggers of that version run).
func insertPreV8Actions(t *testing.T, s *Store, rows ...preV8Action) {
	t.Helper()
	for _, r := range rows {
		if r.annotator == "" {
			r.annotator = "ann"
		}
		if r.at == "" {
			r.at = fmt.Sprintf("2025-01-01T00:00:%02d.000Z", r.id%60)
		}
		var undoes any
		if r.undoes != 0 {
			undoes = r.undoes
		}
		if _, err := s.w.Exec(`INSERT INTO actions (id, group_id, kind, item_id, criterion, dimension, value, note, via, annotator, at, undoes)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.id, r.group, r.kind, r.item, r.crit, r.dim, r.value, r.note, r.via, r.annotator, r.at, undoes); err != nil {
			t.Fatalf("inserting %+v: %v", r, err)
		}
	}
}

// dumpRows renders every row a query returns, one string per row.
func dumpRows(t *testing.T, db *sql.DB, query string) []string {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			parts[i] = fmt.Sprintf("%s=%v", cols[i], v)
		}
		out = append(out, strings.Join(parts, " "))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestUpgradeFromV7 opens a v7 session with labels, accepts, notes and
// undos by two people: the v8 step rebuilds actions, and every row keeps
// its id, its undo link and its meaning (current labels and notes are the
// same), the new columns read as unknown, the foreign keys point at the
// new table, and the triggers and views work on new actions.
func TestUpgradeFromV7(t *testing.T) {
	saved := migrations
	t.Cleanup(func() { migrations, schemaVersion = saved, len(saved) })
	migrations, schemaVersion = saved[:7], 7
	path := sessionPath(t)
	s := openStore(t, path, "ann")
	if err := s.InitDataset(DatasetInfo{Path: "data.jsonl", SHA256: "abc", Format: "jsonl"}, sampleItems()); err != nil {
		t.Fatal(err)
	}
	insertPreV8Actions(t, s,
		preV8Action{id: 1, group: 1, kind: "label", item: "q1", dim: "correct", value: 1, via: "order"},
		preV8Action{id: 2, group: 1, kind: "note", item: "q1", note: "first look"},
		preV8Action{id: 3, group: 2, kind: "label", item: "q1", dim: "correct", value: 0, via: "order"},
		preV8Action{id: 4, group: 3, kind: "undo", item: "q1", dim: "correct", undoes: 3},
		preV8Action{id: 5, group: 4, kind: "accept", item: "q2", dim: "correct", value: 0, via: "filter:disagreements"},
		preV8Action{id: 6, group: 5, kind: "label", item: "r1", crit: 2, dim: "score", value: 0.5, via: "random", annotator: "bob"},
		preV8Action{id: 7, group: 6, kind: "note", item: "q2", note: "Lyon ≠ Paris"},
		preV8Action{id: 8, group: 7, kind: "label", item: "q3", dim: "correct", value: 1, via: "order", annotator: "bob"},
		preV8Action{id: 9, group: 8, kind: "undo", item: "q3", dim: "correct", undoes: 8, annotator: "bob"},
		preV8Action{id: 10, group: 9, kind: "note", item: "q2", note: ""},
	)
	const (
		actionsV7 = `SELECT id, group_id, kind, item_id, criterion, dimension, value, note, via, annotator, at, undoes FROM actions ORDER BY id`
		labels    = `SELECT * FROM current_labels ORDER BY annotator, item_id, criterion, dimension`
		notes     = `SELECT * FROM current_notes ORDER BY annotator, item_id`
		live      = `SELECT id FROM live_actions ORDER BY id`
	)
	queries := []string{actionsV7, labels, notes, live}
	before := map[string][]string{}
	for _, q := range queries {
		before[q] = dumpRows(t, s.w, q)
	}
	if len(before[labels]) != 3 || len(before[notes]) != 1 {
		t.Fatalf("the v7 session is not as built: labels %v, notes %v", before[labels], before[notes])
	}
	s.Close()

	migrations, schemaVersion = saved, len(saved)
	s = openStore(t, path, "ann")
	db := rawDB(t, path)
	if v := pragmaInt(t, db, "user_version"); v != int64(schemaVersion) {
		t.Fatalf("user_version %d after the upgrade, want %d", v, schemaVersion)
	}
	for _, q := range queries {
		if got := dumpRows(t, db, q); !reflect.DeepEqual(got, before[q]) {
			t.Errorf("%s\nafter the upgrade:\n%s\nbefore:\n%s", q, strings.Join(got, "\n"), strings.Join(before[q], "\n"))
		}
	}
	if got := dumpRows(t, db, `SELECT count(*) FROM actions WHERE reason IS NOT NULL OR tag IS NOT NULL OR guidelines_id IS NOT NULL
		OR shown IS NOT NULL OR retest <> 0 OR appeared_at IS NOT NULL OR sitting IS NOT NULL`); got[0] != "count(*)=0" {
		t.Errorf("the new columns of upgraded actions: %v, want all unknown", got)
	}
	if got := dumpRows(t, db, `PRAGMA foreign_key_check`); len(got) != 0 {
		t.Errorf("foreign key check after the upgrade: %v", got)
	}
	if got := dumpRows(t, db, `PRAGMA integrity_check`); len(got) != 1 || got[0] != "integrity_check=ok" {
		t.Errorf("integrity check after the upgrade: %v", got)
	}
	fks := dumpRows(t, db, `SELECT "from", "table", "to" FROM pragma_foreign_key_list('actions') ORDER BY "from"`)
	for _, want := range []string{"from=guidelines_id table=guidelines to=id", "from=item_id table=items to=item_id", "from=undoes table=actions to=id"} {
		found := false
		for _, fk := range fks {
			found = found || fk == want
		}
		if !found {
			t.Errorf("actions' foreign keys %v lack %s", fks, want)
		}
	}
	if got := dumpRows(t, db, `SELECT name FROM sqlite_schema WHERE sql LIKE '%actions_v8%'`); len(got) != 0 {
		t.Errorf("the schema still names the temporary table: %v", got)
	}
	// An undo row cannot point at a missing action (the self-reference
	// survived the rename).
	if _, err := s.w.Exec(`INSERT INTO actions (group_id, kind, item_id, criterion, dimension, note, via, annotator, at, undoes)
		VALUES (99, 'undo', 'q1', 0, '', '', '', 'ann', '2025-01-02T00:00:00.000Z', 999)`); err == nil {
		t.Error("an undo of a missing action was stored")
	}

	// The history reads back through Go as it was, and the state derived
	// from it is the stored one.
	hist, err := s.Actions("ann")
	if err != nil || len(hist) != 7 || hist[3].Undoes != 3 || hist[3].Kind != KindUndo {
		t.Fatalf("Actions after the upgrade: %+v, %v", hist, err)
	}
	st := ReplayLabels(hist)
	if v, ok := st.Label(LabelKey{ItemID: "q1", Dimension: "correct"}); !ok || v != 1 || st.Len() != 2 {
		t.Errorf("replayed: q1 %v %v, %d labels; want 1 (the undone 0 gone) and 2 labels", v, ok, st.Len())
	}
	if st.Decisions() != 2 || st.Note("q2") != "" || st.Note("q1") != "first look" {
		t.Errorf("replayed: %d decisions, notes %q %q", st.Decisions(), st.Note("q1"), st.Note("q2"))
	}

	// New actions of every kind, and undos, keep the stored state right.
	if _, err := s.Record([]Action{{Kind: KindCantJudge, ItemID: "q1", Reason: ReasonAmbiguous, Via: "order"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Record([]Action{{Kind: KindTag, ItemID: "q2", Tag: "format", Value: 1, Via: "order"}}); err != nil {
		t.Fatal(err)
	}
	rt := label("q2", "correct", 1)
	rt.Retest = true
	if _, err := s.Record([]Action{rt}); err != nil {
		t.Fatal(err)
	}
	if got := dumpRows(t, db, labels); !reflect.DeepEqual(got, before[labels]) {
		t.Errorf("a re-test changed current_labels:\n%s", strings.Join(got, "\n"))
	}
	if cj, err := s.CantJudges(""); err != nil || len(cj) != 1 || cj[0].ItemID != "q1" || cj[0].Reason != ReasonAmbiguous {
		t.Errorf("CantJudges = %+v, %v", cj, err)
	}
	if tags, err := s.ItemTags("ann"); err != nil || len(tags) != 1 || tags[0].Tag != "format" {
		t.Errorf("ItemTags = %+v, %v", tags, err)
	}
	if _, err := s.Record([]Action{label("q1", "correct", 0)}); err != nil {
		t.Fatal(err)
	}
	if cj, _ := s.CantJudges(""); len(cj) != 0 {
		t.Errorf("a label after the can't-judge left %+v", cj)
	}
	if _, err := s.Undo(); err != nil {
		t.Fatal(err)
	}
	if got := dumpRows(t, db, labels); !reflect.DeepEqual(got, before[labels]) {
		t.Errorf("undoing the new label left current_labels:\n%s", strings.Join(got, "\n"))
	}
	if cj, _ := s.CantJudges(""); len(cj) != 1 {
		t.Errorf("undoing the label did not bring the can't-judge back: %+v", cj)
	}
}

// TestUpgradeFromV7RefusesBrokenKeys: the v8 step copies actions with
// foreign keys off and checks them before its commit, so a row pointing
// at no item (a hand edit with the keys off) stops the upgrade, which
// leaves the file at v7, and the keys are on again for what follows.
func TestUpgradeFromV7RefusesBrokenKeys(t *testing.T) {
	saved := migrations
	t.Cleanup(func() { migrations, schemaVersion = saved, len(saved) })
	migrations, schemaVersion = saved[:7], 7
	path := sessionPath(t)
	s := openStore(t, path, "ann")
	if err := s.InitDataset(DatasetInfo{Path: "data.jsonl", SHA256: "abc", Format: "jsonl"}, sampleItems()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.Exec(`PRAGMA foreign_keys = OFF`); err != nil {
		t.Fatal(err)
	}
	insertPreV8Actions(t, s, preV8Action{id: 1, group: 1, kind: "label", item: "ghost", dim: "correct", value: 1, via: "order"})
	s.Close()

	migrations, schemaVersion = saved, len(saved)
	if _, err := Open(path, Options{Annotator: "ann"}); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "actions") {
		t.Fatalf("opening a v7 session with a dangling action: %v, want ErrDamaged naming actions", err)
	}
	db := rawDB(t, path)
	if v := pragmaInt(t, db, "user_version"); v != 7 {
		t.Errorf("user_version %d after the refused upgrade, want 7", v)
	}
	// Fixed by hand, it upgrades, and the writer's keys are on again.
	if _, err := db.Exec(`DELETE FROM actions WHERE item_id = 'ghost'`); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, path, "ann")
	if v := pragmaInt(t, db, "user_version"); v != int64(schemaVersion) {
		t.Fatalf("user_version %d, want %d", v, schemaVersion)
	}
	var on int
	if err := s.w.QueryRow(`PRAGMA foreign_keys`).Scan(&on); err != nil || on != 1 {
		t.Errorf("the writer's foreign keys after the upgrade: %d, %v", on, err)
	}
	if _, err := s.Record([]Action{{Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 1, Guidelines: 5}}); err == nil {
		t.Error("a label naming a missing guidelines version was stored after the upgrade")
	}
}
