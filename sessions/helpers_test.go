package sessions

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// sessionPath returns a fresh session path in a temporary folder.
func sessionPath(t *testing.T) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "test.gavel")
}

// openStore opens path as annotator and closes it at the end of the test.
func openStore(t *testing.T, path, annotator string) *Store {
	t.Helper()
	s, err := Open(path, Options{Annotator: annotator})
	if err != nil {
		t.Fatalf("Open(%s, %q): %v", path, annotator, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// sampleItems is a small dataset with every kind of field filled.
func sampleItems() []judge.Item {
	return []judge.Item{
		{Index: 0, ID: "q1", Question: "2+2?", Gold: "4", Prediction: "four",
			Segments: map[string]string{"category": "math", "task": "arith"},
			Fields:   json.RawMessage(`{"id":"q1","input":"2+2?","extra":[1,2]}`)},
		{Index: 1, ID: "q2", Question: "Capital of France?", Gold: "Paris", Prediction: "Lyon"},
		{Index: 2, ID: "r1", Question: "Explain tides", Gold: "moon", Prediction: "The moon pulls…",
			Rubric: []string{"mentions the moon", "mentions gravity", "is concise"},
			Fields: json.RawMessage(`{"q":"Explain tides"}`)},
		{Index: 3, ID: "q3", Question: "Unicode ✓ \x00 and 'quotes'", Gold: "", Prediction: "\"x\""},
	}
}

// newSession opens a new session with sampleItems as annotator "ann".
func newSession(t *testing.T) (*Store, string) {
	t.Helper()
	path := sessionPath(t)
	s := openStore(t, path, "ann")
	if err := s.InitDataset(DatasetInfo{Path: "data.jsonl", SHA256: "abc", Format: "jsonl",
		Mapping: map[string]string{"gold": "target"}}, sampleItems()); err != nil {
		t.Fatalf("InitDataset: %v", err)
	}
	return s, path
}

// binaryInfo is a one-dimension binary judge.
func binaryInfo(name, model string) judge.Info {
	return judge.Info{Name: name, Model: model,
		Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}},
		Params:     map[string]any{"temperature": 0}}
}

// rawDB opens a session file directly, as another SQLite tool would.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// pragmaInt reads an integer PRAGMA through db.
func pragmaInt(t *testing.T, db *sql.DB, name string) int64 {
	t.Helper()
	var v int64
	if err := db.QueryRow("PRAGMA " + name).Scan(&v); err != nil {
		t.Fatalf("PRAGMA %s: %v", name, err)
	}
	return v
}

// queryPlan is SQLite's plan for query on db (EXPLAIN QUERY PLAN), one
// step per line.
func queryPlan(t *testing.T, db *sql.DB, query string, args ...any) string {
	t.Helper()
	rows, err := db.Query(`EXPLAIN QUERY PLAN `+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	return strings.Join(plan, "\n")
}
