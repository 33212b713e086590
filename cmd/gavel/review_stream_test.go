package main

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// A large new dataset, whose screen keeps the rows after its first page in
// the session's stored form, writes the session `gavel import` writes from
// the same file: the same items, rows elided the same way.
func TestReviewNewStoresItemsAsImport(t *testing.T) {
	t.Parallel() // long: beside the other long tests once the short ones are done
	dir := t.TempDir()
	var b strings.Builder
	for i := range backgroundBuildFrom + 3000 {
		fmt.Fprintf(&b, `{"id":"i%05d","question":"q%d\nline \"two\"","answer":"%d","prediction":"caf\u00e9 %d","category":"c%d","source":{"n":%d}}`+"\n", i, i, i%7, i%5, i%3, i)
	}
	data := writeFile(t, dir, "big.jsonl", b.String())
	reviewed, imported := filepath.Join(dir, "review.gavel"), filepath.Join(dir, "import.gavel")

	e, _, errb, _ := testEnv(t)
	e.runTUI = func(_ context.Context, m tea.Model) (tea.Model, error) { return m, nil } // quit at once
	if code := execute(context.Background(), e, []string{"review", data, "--session", reviewed, "--annotator", "ana"}); code != 0 {
		t.Fatalf("review: exit %d: %s", code, errb)
	}
	e, _, errb, _ = testEnv(t)
	if code := execute(context.Background(), e, []string{"import", data, "--session", imported}); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errb)
	}
	items := func(path string) (rows []string, elided int) {
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		// An item's fields and segments, inline or by reference (schema v11).
		q, err := db.Query(`SELECT i.idx, i.item_id, i.question, i.gold, i.prediction, coalesce(i.fields, l.fields), coalesce(i.segments, s.segments)
			FROM items i LEFT JOIN item_layouts l ON l.id = i.layout LEFT JOIN segment_sets s ON s.id = i.segment_set ORDER BY i.idx`)
		if err != nil {
			t.Fatal(err)
		}
		defer q.Close()
		for q.Next() {
			var idx int
			var id, question, gold, prediction, fields, segments string
			if err := q.Scan(&idx, &id, &question, &gold, &prediction, &fields, &segments); err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(fields, " ") || strings.HasPrefix(fields, "\t") {
				elided++
			}
			rows = append(rows, fmt.Sprintf("%d %q %q %q %q %q %q", idx, id, question, gold, prediction, fields, segments))
		}
		if err := q.Err(); err != nil {
			t.Fatal(err)
		}
		return rows, elided
	}
	got, elided := items(reviewed)
	want, _ := items(imported)
	if len(got) != backgroundBuildFrom+3000 || elided < len(got)/2 {
		t.Fatalf("the reviewed session holds %d items, %d of them elided", len(got), elided)
	}
	if !reflect.DeepEqual(got, want) {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("item %d differs:\nreview %s\nimport %s", i, got[i], want[i])
			}
		}
		t.Fatalf("review wrote %d items, import %d", len(got), len(want))
	}
}
