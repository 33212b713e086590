package sessions

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// v11Row is an item whose row has the members a dataset file gives: its
// id, question and answer (elided when stored, as the item's columns hold
// them), its segments (elided too) and extra members.
func v11Row(i int, seg map[string]string, extra string) judge.Item {
	it := judge.Item{Index: i, ID: fmt.Sprintf("it%03d", i), Question: fmt.Sprintf("question %d?", i),
		Gold: fmt.Sprintf("gold %d", i), Prediction: fmt.Sprintf("pred %d", i), Segments: seg}
	q, _ := json.Marshal(it.Question)
	g, _ := json.Marshal(it.Gold)
	row := fmt.Sprintf(`{"id":"%s","question":%s,"answer":%s`, it.ID, q, g)
	for _, k := range []string{"category", "level"} {
		if v, ok := seg[k]; ok {
			b, _ := json.Marshal(v)
			row += fmt.Sprintf(`,"%s":%s`, k, b)
		}
	}
	it.Fields = json.RawMessage(row + extra + "}")
	return it
}

var v11Categories = []string{"math", "dates", "logic", "sports"}

func v11Seg(k int) map[string]string {
	return map[string]string{"category": v11Categories[k%len(v11Categories)]}
}

// v11Case is a dataset and how the writer should store it.
type v11Case struct {
	name  string
	n     int
	item  func(i int) judge.Item
	setup func(t *testing.T) // shrinks the writer's bounds
	// What the session holds: items with inline fields, item_layouts
	// rows, items with inline segments, segment_sets rows.
	inline, layouts, inlineSeg, sets int
}

func v11Cases() []v11Case {
	bound := func(p *int, v int) func(t *testing.T) {
		return func(t *testing.T) {
			old := *p
			*p = v
			t.Cleanup(func() { *p = old })
		}
	}
	return []v11Case{
		{name: "one layout", n: 20, item: func(i int) judge.Item { return v11Row(i, v11Seg(i%3), "") },
			inline: 1, layouts: 1, sets: 3},
		{name: "a layout per row", n: 20, item: func(i int) judge.Item { return v11Row(i, v11Seg(i), fmt.Sprintf(`,"n":%d`, i)) },
			inline: 20, sets: 4},
		{name: "no fields, no segments", n: 5, item: func(i int) judge.Item {
			return judge.Item{Index: i, ID: fmt.Sprint("n", i), Question: "q", Segments: map[string]string{}}
		}},
		{name: "mixed", n: 40, item: func(i int) judge.Item {
			var seg map[string]string
			if i%5 != 0 {
				seg = v11Seg(i)
			}
			switch i % 4 {
			case 0:
				it := v11Row(i, seg, "")
				it.Fields = nil
				return it
			case 1:
				return v11Row(i, seg, `,"kind":"a"`)
			case 2:
				return v11Row(i, seg, `,"kind":"b","x":[1,2]`)
			}
			return v11Row(i, seg, fmt.Sprintf(`,"n":%d`, i))
		}, inline: 14, layouts: 4, sets: 4}, // a row with its segment and one without are two layouts
		{name: "rows that are no objects", n: 10, item: func(i int) judge.Item {
			it := judge.Item{Index: i, ID: fmt.Sprint("r", i), Question: "q", Fields: json.RawMessage(`[1,2,3]`)}
			if i%2 == 1 {
				it.Fields = json.RawMessage(`"text"`)
			}
			return it
		}, inline: 2, layouts: 2},
		{name: "past the bounds", n: 20, setup: func(t *testing.T) {
			bound(&maxLayouts, 2)(t)
			bound(&maxSegmentSets, 2)(t)
		}, item: func(i int) judge.Item { return v11Row(i, v11Seg(i), fmt.Sprintf(`,"k":%d`, i%4)) },
			inline: 12, layouts: 2, inlineSeg: 10, sets: 2},
		{name: "candidates forgotten", n: 8, setup: bound(&maxSeenBytes, 1),
			item:   func(i int) judge.Item { return v11Row(i, nil, fmt.Sprintf(`,"k":%d`, (i/2)%2)) },
			inline: 2, layouts: 2},
		{name: "long layouts stay inline", n: 6, setup: bound(&maxLayoutLen, 40),
			item:   func(i int) judge.Item { return v11Row(i, nil, `,"k":"`+strings.Repeat("x", 50)+`"`) },
			inline: 6},
		{name: "long segments stay inline", n: 6, setup: bound(&maxSegmentSetLen, 20),
			item:   func(i int) judge.Item { return v11Row(i, map[string]string{"level": strings.Repeat("é", 20)}, "") },
			inline: 1, layouts: 1, inlineSeg: 6},
	}
}

// wantItems is what a reader gives back of items: no empty segments map.
func wantItems(items []judge.Item) []judge.Item {
	out := make([]judge.Item, len(items))
	for i, it := range items {
		if len(it.Segments) == 0 {
			it.Segments = nil
		}
		if len(it.Fields) == 0 {
			it.Fields = nil
		}
		out[i] = it
	}
	return out
}

// TestItemLayoutsAndSegmentSets writes datasets of every shape and reads
// them back through every reader: each item as it was given, stored once
// where it repeats.
func TestItemLayoutsAndSegmentSets(t *testing.T) {
	for _, c := range v11Cases() {
		t.Run(c.name, func(t *testing.T) {
			if c.setup != nil {
				c.setup(t)
			}
			items := make([]judge.Item, c.n)
			for i := range items {
				items[i] = c.item(i)
			}
			s := openStore(t, sessionPath(t), "ann")
			if err := s.InitDataset(DatasetInfo{Path: "d.jsonl", SHA256: "x", Format: "jsonl"}, items); err != nil {
				t.Fatal(err)
			}
			var got [4]int
			if err := s.w.QueryRow(`SELECT (SELECT count(*) FROM items WHERE fields IS NOT NULL), (SELECT count(*) FROM item_layouts),
				(SELECT count(*) FROM items WHERE segments IS NOT NULL), (SELECT count(*) FROM segment_sets)`).Scan(&got[0], &got[1], &got[2], &got[3]); err != nil {
				t.Fatal(err)
			}
			if want := [4]int{c.inline, c.layouts, c.inlineSeg, c.sets}; got != want {
				t.Errorf("inline fields, layouts, inline segments, sets = %v, want %v", got, want)
			}
			var both int
			s.w.QueryRow(`SELECT count(*) FROM items WHERE (fields IS NOT NULL AND layout IS NOT NULL) OR (segments IS NOT NULL AND segment_set IS NOT NULL)`).Scan(&both)
			if both != 0 {
				t.Errorf("%d items hold a value and a reference", both)
			}
			checkItemsRead(t, s, wantItems(items))
		})
	}
}

// checkItemsRead reads a session's items through every reader and
// compares them with want.
func checkItemsRead(t *testing.T, s *Store, want []judge.Item) {
	t.Helper()
	all, err := s.Items()
	if err != nil {
		t.Fatal(err)
	}
	diffItems(t, "Items", all, want)
	var paged, stored []judge.Item
	for after := int64(FirstItems); ; {
		page, err := s.ItemsAfter(after, 7)
		if err != nil {
			t.Fatal(err)
		}
		st, err := s.storedItemsAfter(after, 7)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		paged = append(paged, page...)
		for _, it := range st {
			stored = append(stored, WholeFields(it))
		}
		after = int64(page[len(page)-1].Index)
	}
	diffItems(t, "ItemsAfter", paged, want)
	diffItems(t, "storedItemsAfter + WholeFields", stored, want)
	var one []judge.Item
	err = s.read("test", func(tx *sql.Tx) error {
		for _, it := range want {
			got, err := readItem(tx, it.ID)
			if err != nil {
				return err
			}
			one = append(one, got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	diffItems(t, "readItem", one, want)

	// The item_segments view and the statistics' groups.
	view := map[string]map[string]string{}
	rows, err := s.w.Query(`SELECT item_id, name, value FROM item_segments`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, k, v string
		rows.Scan(&id, &k, &v)
		if view[id] == nil {
			view[id] = map[string]string{}
		}
		view[id][k] = v
	}
	rows.Close()
	in, err := s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	units := map[string]map[string]string{}
	for _, u := range in.Units {
		if u.Criterion == 0 && u.Segments != nil {
			units[u.ItemID] = u.Segments
		}
	}
	wantSeg := map[string]map[string]string{}
	for _, it := range want {
		if it.Segments != nil {
			wantSeg[it.ID] = it.Segments
		}
	}
	for what, got := range map[string]map[string]map[string]string{"item_segments": view, "statistics": units} {
		if !maps.EqualFunc(got, wantSeg, maps.Equal) {
			t.Errorf("%s: %v, want %v", what, got, wantSeg)
		}
	}
}

func diffItems(t *testing.T, what string, got, want []judge.Item) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d items, want %d", what, len(got), len(want))
		return
	}
	for i := range got {
		g, w := got[i], want[i]
		if string(g.Fields) != string(w.Fields) || (g.Fields == nil) != (w.Fields == nil) {
			t.Errorf("%s: item %s fields %q, want %q", what, w.ID, g.Fields, w.Fields)
		}
		g.Fields, w.Fields = nil, nil
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: item %d\n got %+v\nwant %+v", what, i, g, w)
		}
	}
}

// TestUpgradeFromV10 opens a session written by the v10 writer (fields
// and segments inline in every item): the v11 step adds the tables and
// columns and changes no row; the items read back the same, and items
// added after the upgrade (a changed file) are stored by reference beside
// the old ones, every reader taking both.
func TestUpgradeFromV10(t *testing.T) {
	saved := migrations
	t.Cleanup(func() { migrations, schemaVersion = saved, len(saved) })
	migrations, schemaVersion = saved[:10], 10
	path := sessionPath(t)
	s := openStore(t, path, "ann")
	items := make([]judge.Item, 12)
	for i := range items {
		items[i] = v11Row(i, v11Seg(i%3), "")
	}
	items[2].Rubric = []string{"one", "two"}
	items[5].Segments = nil
	items[5] = v11Row(5, nil, "")
	if err := s.InitDataset(DatasetInfo{Path: "d.jsonl", SHA256: "x", Format: "jsonl"}, items); err != nil {
		t.Fatal(err)
	}
	q := `SELECT idx, item_id, question, gold, prediction, response_a, response_b, fields, segments FROM items ORDER BY idx`
	rowsBefore := dumpRows(t, s.w, q)
	s.Close()

	migrations, schemaVersion = saved, len(saved)
	s = openStore(t, path, "ann")
	db := rawDB(t, path)
	if v := pragmaInt(t, db, "user_version"); v != int64(schemaVersion) {
		t.Fatalf("user_version %d after the upgrade, want %d", v, schemaVersion)
	}
	if got := dumpRows(t, db, q); !reflect.DeepEqual(got, rowsBefore) {
		t.Errorf("items changed:\n%s\nbefore:\n%s", strings.Join(got, "\n"), strings.Join(rowsBefore, "\n"))
	}
	if got := dumpRows(t, db, `SELECT count(*) AS n FROM items WHERE layout IS NOT NULL OR segment_set IS NOT NULL`); got[0] != "n=0" {
		t.Errorf("references after the upgrade: %v", got)
	}
	checkItemsRead(t, s, wantItems(items))

	// The file gains items and one is edited: the new ones go by
	// reference, the edited one inline, the old ones stay.
	grown := append([]judge.Item(nil), items...)
	for i := 12; i < 20; i++ {
		grown = append(grown, v11Row(i, v11Seg(i%3), ""))
	}
	grown[3] = v11Row(3, v11Seg(1), `,"edited":true`)
	if _, err := s.SyncDataset(&dataset.Dataset{Name: "d.jsonl", Path: "d.jsonl", Format: "jsonl", SHA256: "y", Items: grown}); err != nil {
		t.Fatal(err)
	}
	var refs int
	db.QueryRow(`SELECT count(*) FROM items WHERE layout IS NOT NULL AND segment_set IS NOT NULL`).Scan(&refs)
	if refs == 0 {
		t.Errorf("no item added after the upgrade is stored by reference")
	}
	checkItemsRead(t, s, wantItems(grown))
	if got := dumpRows(t, db, `PRAGMA foreign_key_check`); len(got) != 0 {
		t.Errorf("foreign key check: %v", got)
	}
}

// TestLayoutsNotBigger: a session of rows each unlike the others is no
// bigger than the v10 writer made it, and one of rows alike is smaller.
// Without segments to share, an item whose row is like no other pays its
// two new columns' NULLs, a byte each, and the session the new tables'
// first pages.
func TestLayoutsNotBigger(t *testing.T) {
	const n = 3000
	for _, c := range []struct {
		name    string
		extra   func(i int) string
		noSeg   bool
		smaller bool
	}{
		{"a layout per row", func(i int) string { return fmt.Sprintf(`,"n":%d`, i) }, false, false},
		{"a layout per row, no segments", func(i int) string { return fmt.Sprintf(`,"n":%d`, i) }, true, false},
		{"one layout", func(int) string { return `,"source":"generated"` }, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			items := make([]judge.Item, n)
			for i := range items {
				seg := v11Seg(i % 5)
				if c.noSeg {
					seg = nil
				}
				items[i] = v11Row(i, seg, c.extra(i))
			}
			size := func(version int) int64 {
				saved := migrations
				defer func() { migrations, schemaVersion = saved, len(saved) }()
				migrations, schemaVersion = saved[:version], version
				path := sessionPath(t)
				s := openStore(t, path, "ann")
				if err := s.InitDataset(DatasetInfo{Path: "d.jsonl", SHA256: "x", Format: "jsonl"}, items); err != nil {
					t.Fatal(err)
				}
				if _, err := s.w.Exec(`VACUUM`); err != nil {
					t.Fatal(err)
				}
				s.Close()
				st, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				return st.Size()
			}
			v10, v11 := size(10), size(11)
			t.Logf("v10 %d bytes, v11 %d bytes", v10, v11)
			slack := int64(0)
			if c.noSeg {
				slack = 2*n + 6*4096
			}
			if v11 > v10+slack || (c.smaller && v11 >= v10-int64(n)*100) {
				t.Errorf("v11 session %d bytes, v10 %d", v11, v10)
			}
		})
	}
}

// memItemsDB is a session's schema in memory, for the fuzzer.
func memItemsDB(t testing.TB) *sql.DB {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	for _, m := range migrations {
		if _, err := db.Exec(m.sql); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// FuzzItemWriter writes items made of the input's texts (rows alike or
// not, segments or none) in pages and reads them back: every item as it
// was written.
func FuzzItemWriter(f *testing.F) {
	f.Add([]byte("\x00\x01\x02\x00\x01\x02"), "a", "b")
	f.Add([]byte("\x07\x07\x07\x03\x09"), "é\"\\", "")
	f.Add([]byte{}, "", "x")
	db := memItemsDB(f) // each input's items are written in a transaction rolled back
	f.Fuzz(func(t *testing.T, shape []byte, text, seg string) {
		if len(shape) > 64 {
			shape = shape[:64]
		}
		// Segments are stored as JSON, which holds valid UTF-8 only (as
		// before v11): the dataset readers give no other.
		seg = strings.ToValidUTF8(seg, "\uFFFD")
		items := make([]judge.Item, len(shape))
		for i, b := range shape {
			it := judge.Item{Index: i, ID: fmt.Sprint("f", i), Question: text + fmt.Sprint(b%3), Gold: seg}
			if b&4 != 0 {
				it.Segments = map[string]string{"s": seg + fmt.Sprint(b%2)}
			}
			if b&8 == 0 {
				q, _ := json.Marshal(it.Question)
				g, _ := json.Marshal(it.Gold)
				row := fmt.Sprintf(`{"q":%s,"g":%s,"k":%d`, q, g, b>>4)
				if it.Segments != nil {
					s, _ := json.Marshal(it.Segments["s"])
					row += `,"s":` + string(s)
				}
				it.Fields = json.RawMessage(row + "}")
			}
			items[i] = it
		}
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		w := newItemWriter(tx, nil)
		for i := 0; i < len(items); i += 5 {
			if err := w.add(items[i:min(i+5, len(items))]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.flush(); err != nil {
			t.Fatal(err)
		}
		got, err := readItems(tx)
		if err != nil {
			t.Fatal(err)
		}
		diffItems(t, "readItems", got, wantItems(items))
	})
}

// mixedFormSession is a session whose items hold their fields and
// segments in both forms: written inline by the v10 writer, upgraded, then
// grown by the v11 writer (a changed file), rows alike and not.
func mixedFormSession(t *testing.T) (*Store, string, []judge.Item) {
	t.Helper()
	saved := migrations
	migrations, schemaVersion = saved[:10], 10
	path := sessionPath(t)
	s, err := Open(path, Options{Annotator: "ann"})
	if err == nil {
		items := make([]judge.Item, 10)
		for i := range items {
			items[i] = v11Row(i, v11Seg(i%3), "")
		}
		err = s.InitDataset(DatasetInfo{Path: "d.jsonl", SHA256: "x", Format: "jsonl"}, items)
		s.Close()
	}
	migrations, schemaVersion = saved, len(saved)
	if err != nil {
		t.Fatal(err)
	}
	all := make([]judge.Item, 30)
	for i := range all {
		extra := ""
		if i%4 == 3 {
			extra = fmt.Sprintf(`,"n":%d`, i)
		}
		all[i] = v11Row(i, v11Seg(i%3), extra)
		if i == 7 {
			all[i].Segments = nil
			all[i] = v11Row(i, nil, "")
		}
	}
	all[4].Rubric = []string{"first", "second"}
	s = openStore(t, path, "ann")
	if _, err := s.SyncDataset(&dataset.Dataset{Name: "d.jsonl", Path: "d.jsonl", Format: "jsonl", SHA256: "y", Items: all}); err != nil {
		t.Fatal(err)
	}
	var inline, refs int
	s.w.QueryRow(`SELECT sum(layout IS NULL AND fields IS NOT NULL), sum(layout IS NOT NULL) FROM items`).Scan(&inline, &refs)
	if inline == 0 || refs == 0 {
		t.Fatalf("%d items inline, %d by reference: the session is not of both forms", inline, refs)
	}
	return s, path, wantItems(all)
}

// TestItemsRoundTrips: a session of both forms keeps every item byte for
// byte through a merge, a copy and an export imported again.
func TestItemsRoundTrips(t *testing.T) {
	s, path, want := mixedFormSession(t)
	checkItemsRead(t, s, want)
	if _, err := s.Record([]Action{{Kind: KindLabel, ItemID: "it001", Dimension: "correct", Value: 1, Via: "random"}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Run("merge", func(t *testing.T) {
		other := filepath.Join(dir, "other.gavel")
		if err := CopyFile(path, other); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "merged.gavel")
		if _, err := Merge(out, []string{path, other}); err != nil {
			t.Fatal(err)
		}
		m := openStore(t, out, "ann")
		checkItemsRead(t, m, want)
	})
	t.Run("copy", func(t *testing.T) {
		out := filepath.Join(dir, "copy.gavel")
		if err := CopyFile(path, out); err != nil {
			t.Fatal(err)
		}
		checkItemsRead(t, openStore(t, out, "ann"), want)
	})
	t.Run("export and import", func(t *testing.T) {
		out, _ := exportString(t, s, "jsonl", OnlyAll)
		ds, err := dataset.LoadBytes("again.jsonl", []byte(out), dataset.Options{})
		if err != nil {
			t.Fatal(err)
		}
		back, _ := importDataset(t, sessionPath(t), ds, nil)
		got, err := back.Items()
		if err != nil {
			t.Fatal(err)
		}
		diffItems(t, "re-imported", got, want)
		if again, _ := exportString(t, back, "jsonl", OnlyAll); again != out {
			t.Errorf("the re-imported session exports another file:\n%s\nvs\n%s", again, out)
		}
	})
}

// TestDamagedSegmentsSaid: segments edited by hand into what is no JSON
// object, inline or in a set, are said by every reader, never a panic.
func TestDamagedSegmentsSaid(t *testing.T) {
	for _, c := range []struct{ name, damage string }{
		{"inline", `UPDATE items SET segments = '{bad', segment_set = NULL WHERE item_id = 'it001'`},
		{"in a set", `UPDATE segment_sets SET segments = '[1]' WHERE id = 1`},
	} {
		t.Run(c.name, func(t *testing.T) {
			items := []judge.Item{v11Row(0, v11Seg(0), ""), v11Row(1, v11Seg(0), "")}
			s := openStore(t, sessionPath(t), "ann")
			if err := s.InitDataset(DatasetInfo{Path: "d.jsonl", SHA256: "x", Format: "jsonl"}, items); err != nil {
				t.Fatal(err)
			}
			if _, err := s.w.Exec(c.damage); err != nil {
				t.Fatal(err)
			}
			_, err1 := s.Items()
			_, err2 := s.ItemsAfter(FirstItems, 10)
			_, err3 := s.storedItemsAfter(FirstItems, 10)
			for i, err := range []error{err1, err2, err3} {
				if err == nil || !strings.Contains(err.Error(), "edited by hand") {
					t.Errorf("reader %d: %v", i, err)
				}
			}
		})
	}
}
