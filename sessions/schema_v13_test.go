package sessions

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestUpgradeToV13 upgrades a v12 session with a random history of two
// annotators (labels, accepts, re-tests, notes, undos): its current labels
// read the same after, past_labels holds exactly the labels that are not
// current, current_label_rows is gone, actions_by_item is on (item_id,
// criterion), and labels and undos after the upgrade keep it so.
func TestUpgradeToV13(t *testing.T) {
	saved := migrations
	t.Cleanup(func() { migrations, schemaVersion = saved, len(saved) })
	migrations, schemaVersion = saved[:12], 12
	s, path := newSession(t)
	other := openStore(t, path, "bob")
	r := rand.New(rand.NewPCG(13, 1))
	for range 120 {
		randomStep(t, r, s, other)
	}
	db := rawDB(t, path)
	before := labelRows(t, db, `SELECT * FROM current_labels`)
	if len(before) < 8 {
		t.Fatalf("only %d current labels before the upgrade: the test covers too little", len(before))
	}
	var replaced int
	if err := db.QueryRow(`SELECT count(*) FROM actions WHERE kind IN ('label', 'accept') AND retest = 0`).Scan(&replaced); err != nil {
		t.Fatal(err)
	}
	if replaced -= len(before); replaced < 10 {
		t.Fatalf("only %d labels replaced or undone before the upgrade: the test covers too little", replaced)
	}
	s.Close()
	other.Close()

	migrations, schemaVersion = saved, len(saved)
	var told []string
	savedNotice := UpgradeNotice
	t.Cleanup(func() { UpgradeNotice = savedNotice })
	UpgradeNotice = func(p string, from, to int) func() {
		told = append(told, fmt.Sprintf("%s %d→%d", p, from, to))
		return func() { told = append(told, "done") }
	}
	s = openStore(t, path, "ann")
	other = openStore(t, path, "bob")
	newSession(t) // a new file is made, not upgraded: nothing told
	if want := []string{path + " 12→13", "done"}; !slices.Equal(told, want) {
		t.Errorf("UpgradeNotice was told %q, want %q", told, want)
	}
	if v := pragmaInt(t, db, "user_version"); v != 13 {
		t.Fatalf("user_version %d after the upgrade, want 13", v)
	}
	if got := labelRows(t, db, `SELECT * FROM current_labels`); !slices.Equal(got, before) {
		t.Fatalf("current labels after the upgrade:\n%v\nbefore:\n%v", got, before)
	}
	samePast(t, db, "after the upgrade")
	if n := len(dumpRows(t, db, `SELECT id FROM past_labels`)); n != replaced {
		t.Errorf("past_labels holds %d ids, want the %d labels replaced or undone", n, replaced)
	}
	if got := dumpRows(t, db, `SELECT name FROM sqlite_schema WHERE name = 'current_label_rows' OR sql LIKE '%current_label_rows%'`); len(got) != 0 {
		t.Errorf("the schema still has or names current_label_rows: %v", got)
	}
	if got := dumpRows(t, db, `SELECT name FROM pragma_index_info('actions_by_item') ORDER BY seqno`); strings.Join(got, " ") != "name=item_id name=criterion" {
		t.Errorf("actions_by_item is on %v, want item_id, criterion", got)
	}
	if got := dumpRows(t, db, `PRAGMA integrity_check`); len(got) != 1 || got[0] != "integrity_check=ok" {
		t.Errorf("integrity check after the upgrade: %v", got)
	}
	for step := range 60 {
		randomStep(t, r, s, other)
		if got, want := labelRows(t, db, `SELECT * FROM current_labels`), labelRows(t, db, derivedLabels); !slices.Equal(got, want) {
			t.Fatalf("step %d after the upgrade: current_labels\n%v\nwant (derived)\n%v", step, got, want)
		}
		samePast(t, db, fmt.Sprintf("step %d after the upgrade", step))
	}
}

// TestBuildKeepsPastLabelsInChunks writes a random history of two
// annotators, undos included, into a build (the label trigger suspended)
// in chunks of random sizes, as a replica does: after every chunk
// past_labels is what the trigger, row by row, would have left, and the
// finished session reads the source's current labels.
func TestBuildKeepsPastLabelsInChunks(t *testing.T) {
	src, srcPath := newSession(t)
	other := openStore(t, srcPath, "bob")
	r := rand.New(rand.NewPCG(13, 2))
	for range 200 {
		randomStep(t, r, src, other)
	}
	all, err := src.Actions("")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(all, func(a Action) bool { return a.Kind == KindUndo }) {
		t.Fatal("the history has no undo: the test covers less than it says")
	}
	want := labelRows(t, rawDB(t, srcPath), `SELECT * FROM current_labels`)

	path := sessionPath(t)
	info := DatasetInfo{Path: "data.jsonl", SHA256: "abc", Format: "jsonl", Mapping: map[string]string{"gold": "target"}}
	chunks := 0
	err = BuildSessionThen(path, info, sampleItems(), func(s *Store) error {
		for k := 0; k < len(all); chunks++ {
			n := 1 + r.IntN(12)
			if _, err := s.ApplyActions(all[k:min(k+n, len(all))]); err != nil {
				return err
			}
			k += n
			samePast(t, s.db, fmt.Sprintf("after chunk %d", chunks))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if chunks < 10 {
		t.Fatalf("%d chunks: the test covers less than it says", chunks)
	}
	db := rawDB(t, path)
	if got := labelRows(t, db, `SELECT * FROM current_labels`); !slices.Equal(got, want) {
		t.Fatalf("current labels of the build:\n%v\nwant the source's:\n%v", got, want)
	}
	samePast(t, db, "after the build")
}

// TestItemLabelReadsUseTheIndex: the current labels of one item, or of one
// key, are read through actions_by_item, never by walking an annotator's
// actions (a million after an import) or every action.
func TestItemLabelReadsUseTheIndex(t *testing.T) {
	s, _ := newSession(t)
	for _, q := range []string{
		`SELECT * FROM current_labels WHERE item_id = ?1`,
		`SELECT via, action_id FROM current_labels WHERE +annotator = ?2 AND item_id = ?1 AND criterion = 0 AND dimension = 'correct'`,
	} {
		text := queryPlan(t, s.db, q, "q1", "ann")
		if !strings.Contains(text, "actions_by_item") || strings.Contains(text, "actions_by_annotator") || strings.Contains(text, "SCAN a") {
			t.Errorf("%s\nplan:\n%s\nwant a search of actions_by_item", q, text)
		}
	}
}
