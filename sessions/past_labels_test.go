package sessions

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// derivedLabels is the v1–v3 definition of current_labels (a window
// function over live_actions), re-tests left out as since v8, which the
// view over what past_labels keeps (v13; the stored rows v4–v12) must
// equal.
const derivedLabels = `
SELECT item_id, criterion, dimension, value, annotator, via, at, action_id, accepted
FROM (
	SELECT a.item_id, a.criterion, a.dimension, a.value, a.annotator, a.via, a.at,
	       a.id AS action_id, a.kind = 'accept' AS accepted,
	       row_number() OVER (PARTITION BY annotator, item_id, criterion, dimension ORDER BY id DESC) AS rn
	FROM live_actions a
	WHERE kind IN ('label', 'accept') AND retest = 0
)
WHERE rn = 1`

// derivedPast is what past_labels must hold: every label and accept that
// is not a re-test and not current by derivedLabels, and nothing else.
const derivedPast = `
SELECT id FROM actions WHERE kind IN ('label', 'accept') AND retest = 0
EXCEPT SELECT action_id FROM (` + derivedLabels + `)`

// samePast fails the test when past_labels is not derivedPast.
func samePast(t *testing.T, db *sql.DB, when string) {
	t.Helper()
	if got, want := dumpRows(t, db, `SELECT id FROM past_labels ORDER BY id`), dumpRows(t, db, derivedPast+` ORDER BY id`); !slices.Equal(got, want) {
		t.Fatalf("%s: past_labels\n%v\nwant\n%v", when, got, want)
	}
}

func labelRows(t *testing.T, db *sql.DB, query string) []string {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var item, dim, ann, via, at string
		var crit, id, accepted int64
		var value any
		if err := rows.Scan(&item, &crit, &dim, &value, &ann, &via, &at, &id, &accepted); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s|%d|%s|%v|%s|%s|%s|%d|%d", item, crit, dim, value, ann, via, at, id, accepted))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// randomStep has s or, one time in three, other undo (three times in ten)
// or record a key press of one to three random labels, accepts, re-tests
// and notes on the sample items, and returns how many actions it
// recorded.
func randomStep(t *testing.T, r *rand.Rand, s, other *Store) int {
	t.Helper()
	items := []string{"q1", "q2", "r1", "q3"}
	dims := []string{"correct", "fluent"}
	st := s
	if r.IntN(3) == 0 {
		st = other
	}
	if r.IntN(10) < 3 {
		if _, err := st.Undo(); err != nil {
			t.Fatal(err)
		}
		return 0
	}
	var acts []Action
	for n := 1 + r.IntN(3); n > 0; n-- {
		a := Action{Kind: KindLabel, ItemID: items[r.IntN(len(items))], Dimension: dims[r.IntN(2)],
			Value: float64(r.IntN(2)), Via: "order"}
		switch r.IntN(5) {
		case 0:
			a.Kind = KindAccept
		case 1:
			a = Action{Kind: KindNote, ItemID: a.ItemID, Note: "n", Via: "order"}
		case 2:
			a.Retest = r.IntN(2) == 0
		}
		if a.ItemID == "r1" && a.Kind != KindNote {
			a.Criterion = r.IntN(4)
		}
		acts = append(acts, a)
	}
	if _, err := st.Record(acts); err != nil {
		t.Fatal(err)
	}
	return len(acts)
}

// TestCurrentLabelsFollowEveryAction drives two annotators through
// random labels, accepts, re-tests, notes and undos and checks after every
// step that the current labels equal what the window function derives,
// and past_labels holds exactly the others.
func TestCurrentLabelsFollowEveryAction(t *testing.T) {
	s, path := newSession(t)
	other := openStore(t, path, "bob")
	db := rawDB(t, path)
	r := rand.New(rand.NewPCG(7, 12))
	var labelled int
	for step := 0; step < 300; step++ {
		labelled += randomStep(t, r, s, other)
		got, want := labelRows(t, db, `SELECT * FROM current_labels`), labelRows(t, db, derivedLabels)
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: current_labels\n%v\nwant (derived)\n%v", step, got, want)
		}
		samePast(t, db, fmt.Sprintf("step %d", step))
	}
	if labelled < 200 {
		t.Fatalf("only %d actions recorded: the test did too little", labelled)
	}

	// A hand edit that deletes actions (an undo, then a label) leaves the
	// stored rows as the view would derive them.
	for _, q := range []string{
		`DELETE FROM actions WHERE id = (SELECT max(id) FROM actions WHERE kind = 'undo')`,
		`DELETE FROM actions WHERE id = (SELECT max(id) FROM actions a WHERE kind = 'label'
			AND NOT EXISTS (SELECT 1 FROM actions u WHERE u.undoes = a.id))`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
		got, want := labelRows(t, db, `SELECT * FROM current_labels`), labelRows(t, db, derivedLabels)
		if !slices.Equal(got, want) {
			t.Fatalf("after %s: current_labels\n%v\nwant\n%v", q, got, want)
		}
		samePast(t, db, "after "+q)
	}
}

// A v3 session's current labels and segments read the same after the
// upgrade to v4, which stores the one and moves the other onto the item.
func TestUpgradeFromV3(t *testing.T) {
	saved := migrations
	t.Cleanup(func() { migrations, schemaVersion = saved, len(saved) })
	migrations, schemaVersion = saved[:3], 3
	path := sessionPath(t)
	s := openStore(t, path, "ann")
	for _, q := range []string{
		`INSERT INTO dataset VALUES (1, 'd.jsonl', 'x', 'jsonl', 2, '2025-01-01T00:00:00.000Z')`,
		`INSERT INTO items (idx, item_id, question, gold, prediction) VALUES (0, 'q1', 'a?', 'b', 'c'), (1, 'q2', 'd?', 'e', 'f')`,
		`INSERT INTO item_segments VALUES ('q1', 'category', 'math'), ('q1', 'task', 'a "quoted" one'), ('q2', 'category', '')`,
		`INSERT INTO actions (id, group_id, kind, item_id, criterion, dimension, value, note, via, annotator, at, undoes) VALUES
			(1, 1, 'label', 'q1', 0, 'correct', 0, '', 'order', 'ann', '2025-01-01T00:00:00.000Z', NULL),
			(2, 2, 'accept', 'q1', 0, 'correct', 1, '', 'random', 'ann', '2025-01-01T00:00:01.000Z', NULL),
			(3, 3, 'undo', 'q1', 0, 'correct', NULL, '', '', 'ann', '2025-01-01T00:00:02.000Z', 2),
			(4, 4, 'label', 'q2', 0, 'preference', 'A', '', 'order', 'bob', '2025-01-01T00:00:03.000Z', NULL)`,
	} {
		if _, err := s.w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db := rawDB(t, path)
	want := labelRows(t, db, `SELECT * FROM current_labels`)
	s.Close()

	migrations, schemaVersion = saved, len(saved)
	s = openStore(t, path, "ann")
	if got := labelRows(t, db, `SELECT * FROM current_labels`); !slices.Equal(got, want) || len(got) != 2 {
		t.Errorf("current labels after the upgrade:\n%v\nwant\n%v", got, want)
	}
	items, err := s.Items()
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(items[0].Segments, items[1].Segments); got != `map[category:math task:a "quoted" one] map[category:]` {
		t.Errorf("segments after the upgrade: %s", got)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM item_segments WHERE value = 'math' OR name = 'task'`).Scan(&n); err != nil || n != 2 {
		t.Errorf("item_segments view: %d rows, %v", n, err)
	}
}
