package sessions

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// batchedPairs is a pairwise file of n rows that sends rows through every
// inserter of the import's writers: plain verdicts, parse errors, reasons
// (on some rows only), the swapped order, blank cells, labels on two
// annotators with values off the scale. n over insertBatch makes full
// batches and tails.
func batchedPairs(n int) string {
	var b strings.Builder
	verdicts := []string{"A", "B", "tie", "oops", "", "model_a"}
	for i := range n {
		reason := ""
		if i%7 == 0 {
			reason = fmt.Sprintf("because %d", i)
		}
		fmt.Fprintf(&b, `{"id": "p%03d", "input": "Q%d", "output_1": "a", "output_2": "b", "verdict": %q, "verdict_swapped": %q, "why": %q, "label": %q, "rater1": %q}`+"\n",
			i, i, verdicts[i%len(verdicts)], verdicts[(i+1)%len(verdicts)], reason, verdicts[(i+2)%len(verdicts)], verdicts[(i+3)%len(verdicts)])
	}
	return b.String()
}

// sessionRows dumps what an import writes (runs, verdicts, values,
// actions, current labels), times left out: they are when it ran.
func sessionRows(t *testing.T, path string) []string {
	t.Helper()
	db := rawDB(t, path)
	var out []string
	for _, q := range []string{
		`SELECT id, key, judge, model, params, per_criterion, description FROM runs ORDER BY id`,
		`SELECT id, run_id, item_id, criterion, swapped, status, reason, error, raw, model, prompt_tokens, completion_tokens,
			latency_ms, quote(confidence), quote(extra) FROM verdicts ORDER BY id`,
		`SELECT verdict_id, dimension, quote(value) FROM verdict_values ORDER BY verdict_id, dimension`,
		`SELECT id, group_id, kind, item_id, criterion, dimension, quote(value), note, via, annotator, quote(undoes) FROM actions ORDER BY id`,
		`SELECT annotator, item_id, criterion, dimension, quote(value), via, action_id, accepted FROM current_labels
			ORDER BY annotator, item_id, criterion, dimension`,
		`SELECT dimension, scale FROM dimension_scales ORDER BY dimension`,
	} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%v", vals))
		}
		rows.Close()
	}
	return out
}

// oneRowImport imports ds into the store as the import did before its
// writers were batched: each run's verdicts through SaveVerdicts, each
// annotator's labels through recordGroups.
func oneRowImport(t *testing.T, s *Store, ds *dataset.Dataset, o ImportOptions) {
	t.Helper()
	var plan importPlan
	rows := make([]bool, len(ds.Items))
	for i := range rows {
		rows[i] = true
	}
	plan.addColumns(ds.Items, rows, ds.Imported, filepath.Base(ds.Name), o)
	for _, r := range plan.runs {
		run, err := s.EnsureRun(r.info)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SaveVerdicts(run.ID, slices.Collect(r.verdicts)); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range plan.annotators {
		if err := s.DeclareScales([]judge.Dimension{{Name: a.dimension, Scale: a.scale}}); err != nil {
			t.Fatal(err)
		}
		var groups [][]Action
		for g := range a.groups {
			groups = append(groups, slices.Clone(g))
		}
		if _, err := s.recordGroups(a.name, groups); err != nil {
			t.Fatal(err)
		}
	}
}

// TestImportWritesWhatOneRowWritersWrite: the batched writers give the
// same rows, ids included, as SaveVerdicts and recordGroups, both into an
// open session (foreign keys on) and inside a build (journal off).
func TestImportWritesWhatOneRowWritersWrite(t *testing.T) {
	data := batchedPairs(3*insertBatch + 5)
	scales, err := ParseImportScales([]string{"pairwise"})
	if err != nil {
		t.Fatal(err)
	}
	o := ImportOptions{Scales: scales}
	load := func() *dataset.Dataset {
		ds, err := dataset.LoadBytes("pairs.jsonl", []byte(data), dataset.Options{Map: map[string]string{
			"swapped": "verdict_swapped", "reason": "why", "human": "label+rater1"}})
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}

	want := sessionPath(t)
	ref, err := OpenReview(want, "importer", load())
	if err != nil {
		t.Fatal(err)
	}
	oneRowImport(t, ref.Store, load(), o)
	ref.Store.Close()

	opened := sessionPath(t)
	rv, err := OpenReview(opened, "importer", load())
	if err != nil {
		t.Fatal(err)
	}
	sum, err := ImportDatasetWith(rv.Store, load(), o)
	rv.Store.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Runs) != 1 || sum.Runs[0].ReasonColumn != "why" || sum.Runs[0].ParseErrors == 0 || sum.Runs[0].Swapped == 0 ||
		len(sum.Annotators) != 2 || sum.Annotators[0].Unreadable == 0 {
		t.Fatalf("summary %+v: the file must give reasons, parse errors, swapped verdicts and unreadable labels", sum)
	}

	built := sessionPath(t)
	ds := load()
	if err := BuildDatasetSessionThen(built, ds, func(s *Store) error {
		got, err := ImportDatasetWith(s, ds, o)
		if err == nil && fmt.Sprint(got) != fmt.Sprint(sum) {
			err = fmt.Errorf("summary in a build %+v, want %+v", got, sum)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}

	wantRows := sessionRows(t, want)
	for _, path := range []string{opened, built} {
		got := sessionRows(t, path)
		if !slices.Equal(got, wantRows) {
			for i := range min(len(got), len(wantRows)) {
				if got[i] != wantRows[i] {
					t.Fatalf("%s: row %d\n got %s\nwant %s", filepath.Base(filepath.Dir(path)), i, got[i], wantRows[i])
				}
			}
			t.Fatalf("%d rows, want %d", len(got), len(wantRows))
		}
	}
	var table string
	if err := rawDB(t, opened).QueryRow(`SELECT "table" FROM pragma_foreign_key_check`).Scan(&table); err != sql.ErrNoRows {
		t.Errorf("foreign_key_check: %q %v, want no row", table, err)
	}
}

// TestSameItemOrderByIndex: reading the ids from the index on them (for
// items of consecutive indexes) answers as walking the items table does.
func TestSameItemOrderByIndex(t *testing.T) {
	s, _ := newSession(t)
	items := sampleItems()
	swapped := slices.Clone(items)
	swapped[1].ID, swapped[2].ID = swapped[2].ID, swapped[1].ID
	shifted := slices.Clone(items)
	for i := range shifted {
		shifted[i].Index += 5
	}
	renamed := slices.Clone(items)
	renamed[3].ID = "other"
	gapped := slices.Clone(items)
	gapped[3].Index = 9
	for _, tc := range []struct {
		name  string
		items []judge.Item
		same  bool
	}{
		{"the same", items, true},
		{"two ids swapped", swapped, false},
		{"fewer", items[:3], false},
		{"more", append(slices.Clone(items), judge.Item{Index: 4, ID: "q9"}), false},
		{"indexes shifted (the table is walked)", shifted, true},
		{"an id changed", renamed, false},
		{"indexes with a gap (the table is walked)", gapped, true},
	} {
		held, same, err := s.sameItemOrder(tc.items)
		if err != nil {
			t.Fatal(err)
		}
		if same != tc.same || same && held != len(items) {
			t.Errorf("%s: same %v (held %d), want %v", tc.name, same, held, tc.same)
		}
	}
}

// TestExportMarkedInParts: the rows that may be exported, searched in
// parts on every core, are those mayBeExported finds one by one.
func TestExportMarkedInParts(t *testing.T) {
	items := make([]judge.Item, 35000)
	rows := make([]bool, len(items))
	for i := range items {
		items[i].Fields = []byte(fmt.Sprintf(`{"id": "%d", "q": "x"}`, i))
		if i%7 == 0 {
			items[i].Fields = []byte(fmt.Sprintf(`{"id": "%d", "verdict:j:correct": "YES"}`, i))
		}
		rows[i] = i%5 != 0
	}
	marked := exportMarked(items, rows)
	for i := range items {
		if want := rows[i] && mayBeExported(items[i].Fields); marked[i] != want {
			t.Fatalf("row %d marked %v, want %v", i, marked[i], want)
		}
	}
}
