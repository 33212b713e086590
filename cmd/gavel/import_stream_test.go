package main

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// A new session's import reads a JSONL file as a stream that keeps its
// rows in the stored form (readImport): the session it writes is the one
// the file read whole writes (--skip-bad reads it whole, as Load), item
// for item, verdict for verdict and label for label. The file is larger
// than the stream's first chunk and its 4 MiB chunks, and its rows hold
// what the stored form treats apart: escapes, \u escapes (ensure_ascii),
// a member equal to another column, NaN, nested values, segments, and,
// further on, rows whose names are an export's with a label equal to the
// gold, which the stored form would elide.
func TestImportStreamSameAsWhole(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	big := strings.Repeat("long words ", 200)
	for i := range 9000 {
		gold := fmt.Sprint(i % 7)
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, `{"id":"i%05d","question":"q%d\nline \"two\"","answer":"%s","prediction":"caf\u00e9 %d %s","category":"c%d","gpt4_verdict":%t,"human_label":"%s"}`,
				i, i, gold, i%5, big, i%3, i%2 == 0, []string{"yes", "no"}[i%3%2])
		case 1:
			fmt.Fprintf(&b, `{"id":"i%05d","question":"caf\u00e9 %d","answer":"%s","prediction":"%s","alias":"%s","category":"c%d","score":NaN,"gpt4_verdict":"%t","human_label":""}`,
				i, i, gold, gold, gold, i%3, i%3 == 0)
		case 2:
			fmt.Fprintf(&b, `{"id":"i%05d","question":"q %d","answer":"%s","prediction":"p\t%d","source":{"n":%d,"tags":["a","b"]},"category":"","gpt4_verdict":"","human_label":"no"}`,
				i, i, gold, i, i)
		case 3:
			fmt.Fprintf(&b, `{"prediction":"😀 %d","id":"i%05d","answer":"%s","question":"","category":"c%d","gpt4_verdict":"false","human_label":"yes"}`,
				i, i, gold, i%3)
		default:
			if i%1000 == 999 {
				// The names of a `gavel export` row in a file that is not one.
				fmt.Fprintf(&b, `{"id":"i%05d","question":"q%d","answer":"YES","prediction":"p %d","category":"c0","gpt4_verdict":"true","human_label":"yes","label:alice:correct":"YES"}`,
					i, i, i)
			} else {
				fmt.Fprintf(&b, `{"id":"i%05d","question":"q%d","answer":"%s","prediction":"p %d","category":"c1","gpt4_verdict":"true","human_label":"no"}`,
					i, i, gold, i)
			}
		}
		b.WriteByte('\n')
	}
	if b.Len() < 5<<20 {
		t.Fatalf("the file is %d bytes: make it longer than a stream chunk", b.Len())
	}
	data := writeFile(t, dir, "judged.jsonl", b.String())
	streamed, whole := filepath.Join(dir, "streamed.gavel"), filepath.Join(dir, "whole.gavel")
	code, out1, errs := run(t, "import", data, "--session", streamed)
	if code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	code, out2, errs := run(t, "import", data, "--session", whole, "--skip-bad")
	if code != 0 {
		t.Fatalf("import --skip-bad: exit %d: %s", code, errs)
	}
	if got, want := strings.ReplaceAll(out1, streamed, "S"), strings.ReplaceAll(out2, whole, "S"); got != want {
		t.Errorf("summaries differ:\nstream %s\nwhole  %s", got, want)
	}
	if !strings.Contains(out1, "annotator alice: 9 labels") {
		t.Errorf("the export rows' labels were not read: %s", out1)
	}
	queries := []string{
		`SELECT idx, item_id, question, gold, prediction, response_a, response_b, fields, segments, layout, segment_set FROM items ORDER BY idx`,
		`SELECT id, fields FROM item_layouts ORDER BY id`,
		`SELECT id, segments FROM segment_sets ORDER BY id`,
		`SELECT key, judge, model, params, per_criterion, description FROM runs ORDER BY id`,
		`SELECT id, run_id, item_id, criterion, status, reason, error, raw, model, confidence, extra, swapped FROM verdicts ORDER BY id`,
		`SELECT verdict_id, dimension, value FROM verdict_values ORDER BY verdict_id, dimension`,
		`SELECT id, group_id, kind, item_id, criterion, dimension, value, note, via, annotator FROM actions ORDER BY id`,
	}
	for _, q := range queries {
		got, want := tableRows(t, streamed, q), tableRows(t, whole, q)
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows streamed, %d read whole", q, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: row %d differs:\nstream %s\nwhole  %s", q, i, got[i], want[i])
			}
		}
		if len(got) == 0 {
			t.Errorf("%s: no rows", q)
		}
	}
	if elided := countRows(t, streamed, `SELECT count(*) FROM items i LEFT JOIN item_layouts l ON l.id = i.layout
		WHERE substr(coalesce(i.fields, l.fields), 1, 1) <> '{'`); elided < 4000 {
		t.Errorf("only %d rows stored elided: the test no longer covers the stored form", elided)
	}
}

// tableRows returns the rows a query reads from the session at path, each
// as text.
func tableRows(t *testing.T, path, query string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
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
		out = append(out, fmt.Sprintf("%#v", vals))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// countRows returns the count a query reads from the session at path.
func countRows(t *testing.T, path, query string) int {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(query).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
