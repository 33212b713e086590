package sessions

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// streamRows writes n JSONL rows of a judged dataset whose rows hold what
// the build treats apart: quotes, newlines, \u escapes, emoji, a NUL,
// invalid UTF-8 escapes, NaN, nested values, rubric criteria, two segment
// columns, a verdict column and a human column, a long text every fifth
// row (so that the file spans several of the stream's chunks), blank
// lines (which the stream packs its items past) and, when labelled is
// false, no verdict or label at all.
func streamRows(n int, labelled bool) string {
	var b strings.Builder
	long := strings.Repeat("a long chain of thought ", 100)
	for i := range n {
		id := fmt.Sprintf("r%05d", i)
		q := fmt.Sprintf(`q%d \"quoted\"\nsecond line \u00e9\u0000 \ud83d\ude00`, i)
		pred := fmt.Sprint(i % 7)
		if i%5 == 0 {
			pred += " " + long
		}
		fmt.Fprintf(&b, `{"id":%q,"question":"%s","answer":"%d","prediction":%q,"category":"c%d","difficulty":"%s"`,
			id, q, i%7, pred, i%4, []string{"easy", "hard", ""}[i%3])
		if i%6 == 0 {
			fmt.Fprintf(&b, `,"criteria":["is it right?","cites %d"]`, i)
		}
		if i%7 == 0 {
			b.WriteString(`,"meta":{"n":[1,2,{"x":null}],"s":"\u00e9t\u00e9"},"score":NaN`)
		}
		if labelled {
			fmt.Fprintf(&b, `,"judge_verdict":%s,"human_label":"%s"`, []string{"true", "false", `"true"`, `""`}[i%4], []string{"yes", "no", "", "yes"}[i%4])
		}
		b.WriteString("}\n")
		if i%1000 == 500 {
			b.WriteString("\n  \n")
		}
	}
	return b.String()
}

// streamOf opens the dataset file at path as `gavel import` streams a new
// session's (cmd/gavel readImport): its rows after the first page kept
// in the stored form.
func streamOf(t *testing.T, path string, opts dataset.Options) *dataset.Stream {
	t.Helper()
	st, err := dataset.OpenStream(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Streams() || !st.FromFile() {
		t.Fatalf("%s is not streamed from its file", path)
	}
	if _, _, err := st.Items(1); err != nil {
		t.Fatal(err)
	}
	st.StoreFields(ImportFieldsEncoder)
	return st
}

var streamMap = map[string]string{dataset.RoleSegment: "category+difficulty", dataset.RoleRubric: "criteria"}

// importThen is the then of `gavel import` (verdicts and labels).
func importThen(s *Store, ds *dataset.Dataset) error {
	_, err := ImportDatasetWith(s, ds, ImportOptions{})
	return err
}

// TestBuildStreamSameAsWhole: a session built while its dataset is still
// parsed holds, table for table and row for row, what the session built
// from the dataset read whole holds (times aside).
func TestBuildStreamSameAsWhole(t *testing.T) {
	cases := []struct {
		name     string
		rows     int
		labelled bool
	}{
		{"labelled, several chunks", 9000, true},
		{"no verdicts or labels", 9000, false},
		{"within the first page", 300, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			data := filepath.Join(dir, "judged.jsonl")
			text := streamRows(c.rows, c.labelled)
			if err := os.WriteFile(data, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			if c.rows > 2000 && len(text) < 5<<20 {
				t.Fatalf("the file is %d bytes: make it longer than a stream chunk", len(text))
			}
			opts := dataset.Options{Map: streamMap}
			whole, streamed := filepath.Join(dir, "whole.gavel"), filepath.Join(dir, "streamed.gavel")
			ds, err := dataset.Load(data, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := BuildDatasetSessionThen(whole, ds, func(s *Store) error { return importThen(s, ds) }); err != nil {
				t.Fatal(err)
			}
			got, err := BuildStreamSessionThen(streamed, streamOf(t, data, opts), importThen)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Items) != len(ds.Items) || got.SHA256 != ds.SHA256 {
				t.Fatalf("the stream gave %d items (hash %s), Load %d (%s)", len(got.Items), got.SHA256, len(ds.Items), ds.SHA256)
			}
			a, b := sessionDump(t, whole), sessionDump(t, streamed)
			if len(a) != len(b) {
				t.Fatalf("%d rows in the session built whole, %d in the streamed one", len(a), len(b))
			}
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("row %d differs:\nwhole    %.300s\nstreamed %.300s", i, a[i], b[i])
				}
			}
			for _, want := range []string{"item_criteria:", "items:", "dataset_mapping:"} {
				if !slices.ContainsFunc(a, func(r string) bool { return strings.HasPrefix(r, want) }) {
					t.Errorf("no %s rows: the test no longer covers them", want)
				}
			}
			if c.labelled && !slices.ContainsFunc(a, func(r string) bool { return strings.HasPrefix(r, "verdicts:") }) {
				t.Error("no verdicts: the test no longer covers them")
			}
			if c.labelled && !slices.ContainsFunc(a, func(r string) bool { return strings.HasPrefix(r, "actions:") }) {
				t.Error("no labels: the test no longer covers them")
			}
			s := openStore(t, streamed, "ann")
			items, err := s.Items()
			if err != nil {
				t.Fatal(err)
			}
			if len(items) != len(ds.Items) || items[len(items)-1].ID != ds.Items[len(items)-1].ID {
				t.Fatalf("the streamed session reads %d items", len(items))
			}
		})
	}
}

// sessionDump is every row of every table of the session at path, and
// the text of its schema, in a fixed order, with the times (columns named
// at or …_at) left out: they say when the build ran.
func sessionDump(t *testing.T, path string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out []string
	for _, r := range dumpRows(t, db, `SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name`) {
		out = append(out, "schema: "+r)
	}
	rows, err := db.Query(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	for _, table := range tables {
		cols, err := db.Query(`SELECT name FROM pragma_table_info(?) ORDER BY cid`, table)
		if err != nil {
			t.Fatal(err)
		}
		var keep, order []string
		for cols.Next() {
			var c string
			if err := cols.Scan(&c); err != nil {
				t.Fatal(err)
			}
			order = append(order, fmt.Sprintf("%q", c))
			if c != "at" && !strings.HasSuffix(c, "_at") {
				keep = append(keep, fmt.Sprintf("%q", c))
			}
		}
		cols.Close()
		q := fmt.Sprintf(`SELECT %s FROM %q ORDER BY %s`, strings.Join(keep, ", "), table, strings.Join(order, ", "))
		for _, r := range dumpRows(t, db, q) {
			out = append(out, table+": "+r)
		}
	}
	return out
}

// TestBuildStreamLateErrors: what is wrong with a dataset shows only as
// its parse ends (a bad row near the end, a duplicate id, which the
// items' UNIQUE id may meet first) gives the message reading the dataset
// first gives, and leaves no session and no temporary file; so do the
// build's own errors.
func TestBuildStreamLateErrors(t *testing.T) {
	good := streamRows(9000, true)
	lines := strings.SplitAfter(good, "\n")
	last := len(lines) - 2 // the last row (lines ends with "")
	with := func(k int, row string) string {
		l := slices.Clone(lines)
		l[k] = row
		return strings.Join(l, "")
	}
	cases := []struct {
		name string
		data string
		// exists: a session file is there already.
		exists bool
		then   func(*Store, *dataset.Dataset) error
		// want is the error, "" for the one dataset.Load gives.
		want string
	}{
		{name: "a bad row at the end", data: with(last, "{\"id\":\"r9\",\n")},
		{name: "a row that is not an object at the end", data: with(last, "[1, 2]\n")},
		{name: "an empty id at the end", data: with(last, `{"id":"","question":"q","answer":"1","prediction":"1"}`+"\n")},
		{name: "the first id again at the end", data: with(last, lines[0])},
		{name: "an id of the first page again in it", data: with(1, lines[0])},
		{name: "an id of the first page again at the end", data: with(last, lines[1])},
		{name: "a session there and a bad row", data: with(last, "{\n"), exists: true},
		{name: "a session there", data: good, exists: true, want: "the file already exists"},
		{name: "then fails", data: good, then: func(*Store, *dataset.Dataset) error { return errors.New("the labels failed") }, want: "the labels failed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			data := filepath.Join(dir, "judged.jsonl")
			if err := os.WriteFile(data, []byte(c.data), 0o644); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "s.gavel")
			if c.exists {
				if err := os.WriteFile(path, []byte("not empty"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			opts := dataset.Options{Map: streamMap}
			want := c.want
			if want == "" {
				_, lerr := dataset.Load(data, opts)
				if lerr == nil {
					t.Fatal("Load finds nothing wrong with the file")
				}
				want = lerr.Error()
			}
			then := c.then
			if then == nil {
				then = importThen
			}
			ds, err := BuildStreamSessionThen(path, streamOf(t, data, opts), then)
			if err == nil || (c.want == "" && err.Error() != want) || !strings.Contains(err.Error(), want) {
				t.Fatalf("error %v\nwant %s", err, want)
			}
			if c.want == "" && ds != nil {
				t.Error("a dataset that cannot be read was returned")
			}
			assertNothingBuilt(t, dir, c.exists)
		})
	}
}

// assertNothingBuilt checks that dir holds the dataset and, when it was
// there before, the file at s.gavel, and nothing else.
func assertNothingBuilt(t *testing.T, dir string, existed bool) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{"judged.jsonl"}
	if existed {
		want = append(want, "s.gavel")
	}
	if !slices.Equal(names, want) {
		t.Errorf("the folder holds %v, want %v", names, want)
	}
	if existed {
		if b, err := os.ReadFile(filepath.Join(dir, "s.gavel")); err != nil || string(b) != "not empty" {
			t.Errorf("the file that was there is now %q (%v)", b, err)
		}
	}
}

// fakeStream hands out items a page at a time, then the dataset, or err.
type fakeStream struct {
	items []judge.Item
	page  int
	err   error
}

func (f *fakeStream) Head() *dataset.Dataset {
	return &dataset.Dataset{Name: "f.jsonl", Format: "jsonl"}
}

func (f *fakeStream) More(n int) ([]judge.Item, bool, error) {
	end := min(n+f.page, len(f.items))
	if end == len(f.items) && f.err != nil {
		return f.items[:end], false, f.err
	}
	return f.items[:end], end == len(f.items), nil
}

func (f *fakeStream) Wait() (*dataset.Dataset, error) {
	if f.err != nil {
		return nil, f.err
	}
	return &dataset.Dataset{Name: "f.jsonl", Format: "jsonl", Items: f.items}, nil
}

// TestBuildStreamItemChecks: an item a session cannot hold, met on a page
// of the stream, gives the message of a build from the items whole
// (checkItemIDs, checkDataset) — unless the dataset has an error of its
// own, which wins — and leaves nothing behind.
func TestBuildStreamItemChecks(t *testing.T) {
	noID := manyItems(50)
	noID[37].ID = ""
	dup := manyItems(50)
	dup[40].ID = dup[3].ID
	cases := []struct {
		name  string
		items []judge.Item
		err   error
		want  string
	}{
		{"an item without an id", noID, nil, "item at index 37 has no id"},
		{"a repeated id", dup, nil, `duplicate item id "item-00003": item ids must be unique`},
		{"a repeated id in a dataset with an error", dup, errors.New("line 51: bad row"), "line 51: bad row"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "judged.jsonl"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "s.gavel")
			_, err := buildStream(path, &fakeStream{items: c.items, page: 8, err: c.err}, nil)
			want := c.want
			if c.err == nil {
				want = "session " + path + ": " + c.want
			}
			if err == nil || err.Error() != want {
				t.Fatalf("error %v, want %s", err, want)
			}
			assertNothingBuilt(t, dir, false)
		})
	}
}
