package sessions

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// rowsInput is StatsInput read by the row readers alone.
func rowsInput(t *testing.T, s *Store) stats.Input {
	t.Helper()
	packedReads = false
	defer func() { packedReads = true }()
	in, err := s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// mixedSession is statsSession with everything the packed reads leave to
// the row readers beside what they read packed: a multi-dimension judge
// whose second dimension has fractions, a judge with extra fields, a
// nominal judge, labels off their annotator's first dimension or way of
// reaching the item, fractional and nominal labels, labels on criteria,
// an undo, a third annotator.
func mixedSession(t *testing.T) *Store {
	t.Helper()
	s, _ := statsSession(t)
	multi, err := s.EnsureRun(judge.Info{Name: "multi", Dimensions: []judge.Dimension{
		{Name: "correct", Scale: judge.Binary}, {Name: "partial", Scale: judge.Ternary}, {Name: "stars", Scale: judge.Likert}}})
	if err != nil {
		t.Fatal(err)
	}
	grade, err := s.EnsureRun(judge.Info{Name: "grader", Dimensions: []judge.Dimension{{Name: "grade", Scale: "nominal:CORRECT,INCORRECT"}}})
	if err != nil {
		t.Fatal(err)
	}
	bbh, err := s.EnsureRun(binaryInfo("bbh", "m"))
	if err != nil {
		t.Fatal(err)
	}
	ok := func(item string, values map[string]float64, extra map[string]any) judge.Verdict {
		return judge.Verdict{ItemID: item, Status: judge.StatusOK, Values: values, Extra: extra, At: t0}
	}
	for _, b := range []struct {
		run int64
		vs  []judge.Verdict
	}{
		{multi.ID, []judge.Verdict{ok("q1", map[string]float64{"correct": 1, "partial": 0.5, "stars": 4}, nil), ok("q2", map[string]float64{"correct": 0, "partial": 0, "stars": 2}, nil)}},
		{grade.ID, []judge.Verdict{ok("q1", map[string]float64{"grade": 1}, nil), ok("q3", map[string]float64{"grade": 0}, nil)}},
		{bbh.ID, []judge.Verdict{ok("q1", map[string]float64{"correct": 1}, map[string]any{"error_type": "none", "score": 3}), ok("q2", map[string]float64{"correct": 0}, nil)}},
		{multi.ID, []judge.Verdict{ok("q1", map[string]float64{"correct": 0, "partial": 1, "stars": 5}, nil)}}, // a re-judge after the others
	} {
		if err := s.SaveVerdicts(b.run, b.vs); err != nil {
			t.Fatal(err)
		}
	}
	label := func(who, item string, crit int, dim string, v float64, via string) {
		t.Helper()
		if _, err := s.RecordAs(who, []Action{{Kind: KindLabel, ItemID: item, Criterion: crit, Dimension: dim, Value: v, Via: via}}); err != nil {
			t.Fatal(err)
		}
	}
	label("ann", "q1", 0, "partial", 0.5, "order")
	label("ann", "q3", 0, "grade", 1, "order")
	label("ann", "q3", 0, "stars", 3, "order")
	label("ann", "r1", 1, "met", 0, "order")
	label("ann", "q2", 0, "stars", 5, "order")
	if _, err := s.Undo(); err != nil { // the 5 stars on q2
		t.Fatal(err)
	}
	label("bob", "q2", 0, "correct", 1, "order") // bob's first way was random
	label("bob", "q3", 0, "correct", 0, "random")
	label("carol", "q1", 0, "stars", 2, "random")
	label("carol", "q2", 0, "stars", 1, "random")
	return s
}

// The packed reads give the statistics exactly the input the row
// readers give, on a session where they read some rows packed and leave
// the others to the row readers.
func TestPackedStatsInputMatchesRowReaders(t *testing.T) {
	s := mixedSession(t)
	// Each packed reader reads this session (and so is what is compared).
	err := s.read("test", func(tx *sql.Tx) error {
		codec, err := loadCodec(tx)
		if err != nil {
			return err
		}
		if _, ok, err := readPackedItems(tx); !ok || err != nil {
			t.Errorf("packed items: ok %v, %v", ok, err)
		}
		slow := 0
		if ok, err := readPackedVerdicts(tx, func(r *verdictRow) {
			if r.status.Valid || r.extra.Valid || r.samples.Valid {
				slow++
			}
		}); !ok || err != nil || slow == 0 {
			t.Errorf("packed verdicts: ok %v, %v, %d read a row at a time", ok, err, slow)
		}
		if _, ok, err := readPackedValues(tx, codec); !ok || err != nil {
			t.Errorf("packed values: ok %v, %v", ok, err)
		}
		if _, ok, err := readPackedLabels(tx, codec); !ok || err != nil {
			t.Errorf("packed labels: ok %v, %v", ok, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	want := rowsInput(t, s)
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("packed input\n%s\nrow readers' input\n%s", g, w)
	}
	// and so do the figures
	opts := stats.Options{Seed: 1, Resamples: 50}
	g, _ := json.Marshal(stats.Compute(got, opts))
	w, _ := json.Marshal(stats.Compute(want, opts))
	if string(g) != string(w) {
		t.Errorf("the reports differ:\n%s\n%s", g, w)
	}
}

// An item id holding the packed lists' separator is read by the row
// readers, with the same input.
func TestPackedStatsInputWithSeparatorInIDs(t *testing.T) {
	s := openStore(t, sessionPath(t), "ann")
	items := []judge.Item{{Index: 0, ID: "a\x1eb"}, {Index: 1, ID: "c"}, {Index: 2, ID: "\x1e"}}
	if err := s.InitDataset(DatasetInfo{Path: "d.jsonl", SHA256: "x", Format: "jsonl"}, items); err != nil {
		t.Fatal(err)
	}
	run, err := s.EnsureRun(binaryInfo("docqa", ""))
	if err != nil {
		t.Fatal(err)
	}
	var vs []judge.Verdict
	for i, it := range items {
		vs = append(vs, judge.Verdict{ItemID: it.ID, Status: judge.StatusOK, Values: map[string]float64{"correct": float64(i % 2)}, At: t0})
		if _, err := s.Record([]Action{{Kind: KindLabel, ItemID: it.ID, Dimension: "correct", Value: 1, Via: "order"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SaveVerdicts(run.ID, vs); err != nil {
		t.Fatal(err)
	}
	tx, err := s.db.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := readPackedItems(tx); ok || err != nil {
		t.Errorf("packed items with the separator in an id: ok %v, %v", ok, err)
	}
	tx.Rollback()
	got, err := s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	if want := rowsInput(t, s); !reflect.DeepEqual(got, want) {
		t.Errorf("input\n%+v\nwant\n%+v", got, want)
	}
	n := 0
	for _, u := range got.Units {
		n += len(u.Verdicts) + len(u.Labels)
	}
	if n != 6 {
		t.Errorf("%d verdicts and labels, want 6", n)
	}
}

func TestSplitPacked(t *testing.T) {
	tests := []struct {
		list sql.NullString
		n    int64
		ok   bool
		want []string
	}{
		{sql.NullString{}, 0, true, nil},
		{sql.NullString{Valid: true, String: ""}, 1, true, []string{""}},
		{sql.NullString{Valid: true, String: "a,,b"}, 3, true, []string{"a", "", "b"}},
		{sql.NullString{Valid: true, String: "a,b"}, 3, false, nil},
		{sql.NullString{Valid: true, String: "a,b,c"}, 2, false, nil},
		{sql.NullString{}, 2, false, nil},
	}
	for _, tc := range tests {
		p, ok := splitPacked(tc.list, ',', tc.n)
		if ok != tc.ok {
			t.Errorf("splitPacked(%q, %d) ok = %v", tc.list.String, tc.n, ok)
			continue
		}
		if !ok {
			continue
		}
		var got []string
		for range tc.n {
			got = append(got, p.next())
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("splitPacked(%q) = %q, want %q", tc.list.String, got, tc.want)
		}
	}
}

func TestPackedNumber(t *testing.T) {
	for s, want := range map[string]int64{"0": 0, "-7": -7, "123456789012345678": 123456789012345678,
		"9223372036854775807": 9223372036854775807, "-9223372036854775808": -9223372036854775808} {
		if n, ok := packedNumber(s); !ok || n != want {
			t.Errorf("packedNumber(%q) = %d, %v", s, n, ok)
		}
	}
	for _, s := range []string{"", "-", "x", "1.5", "9223372036854775808", "1e3", " 1"} {
		if n, ok := packedNumber(s); ok {
			t.Errorf("packedNumber(%q) = %d, ok", s, n)
		}
	}
}

// Every unit has its item's segments, the units of its rubric criteria
// included, whichever connection read them.
func TestStatsInputSegmentsOfCriteria(t *testing.T) {
	s := openStore(t, sessionPath(t), "ann")
	seg := func(c string) map[string]string { return map[string]string{"category": c} }
	items := []judge.Item{
		{Index: 0, ID: "b", Rubric: []string{"x", "y"}, Segments: seg("one")},
		{Index: 1, ID: "a", Segments: seg("two")},
		{Index: 2, ID: "c", Rubric: []string{"z"}},
		{Index: 3, ID: "d", Rubric: []string{"w"}, Segments: seg("one")},
	}
	if err := s.InitDataset(DatasetInfo{Path: "d.jsonl", SHA256: "x", Format: "jsonl"}, items); err != nil {
		t.Fatal(err)
	}
	if _, err := s.EnsureRun(judge.Info{Name: "rubric", PerCriterion: true, Dimensions: []judge.Dimension{{Name: "met", Scale: judge.Binary}}}); err != nil {
		t.Fatal(err)
	}
	for _, packed := range []bool{true, false} {
		packedReads = packed
		in, err := s.StatsInput()
		packedReads = true
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, u := range in.Units {
			got = append(got, u.ItemID+"/"+string(rune('0'+u.Criterion))+"="+u.Segments["category"])
		}
		want := []string{"b/0=one", "b/1=one", "b/2=one", "a/0=two", "c/0=", "c/1=", "d/0=one", "d/1=one"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("packed %v: units %q, want %q", packed, got, want)
		}
	}
}

// A session labelled by one annotator is read packed without testing
// each label's annotator, with the same input.
func TestPackedStatsInputOneAnnotator(t *testing.T) {
	s, _ := newSession(t)
	run, err := s.EnsureRun(binaryInfo("docqa", "m"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveVerdicts(run.ID, []judge.Verdict{
		{ItemID: "q1", Status: judge.StatusOK, Values: map[string]float64{"correct": 1}, At: t0},
		{ItemID: "q2", Status: judge.StatusOK, Values: map[string]float64{"correct": 0}, At: t0},
	}); err != nil {
		t.Fatal(err)
	}
	for _, a := range []Action{
		{Kind: KindLabel, ItemID: "q1", Dimension: "correct", Value: 1, Via: "order"},
		{Kind: KindLabel, ItemID: "q2", Dimension: "correct", Value: 0, Via: "order"},
		{Kind: KindLabel, ItemID: "q3", Dimension: "correct", Value: 1, Via: "filter:disagreements"},
		{Kind: KindLabel, ItemID: "q1", Dimension: "partial", Value: 0.5, Via: "order"},
		{Kind: KindLabel, ItemID: "r1", Criterion: 2, Dimension: "met", Value: 1, Via: "order"},
	} {
		if _, err := s.Record([]Action{a}); err != nil {
			t.Fatal(err)
		}
	}
	err = s.read("test", func(tx *sql.Tx) error {
		codec, err := loadCodec(tx)
		if err != nil {
			return err
		}
		got, ok, err := readPackedLabels(tx, codec)
		if !ok || err != nil || len(got.list) != 5 {
			t.Errorf("packed labels: ok %v, %v, %d labels", ok, err, len(got.list))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	if want := rowsInput(t, s); !reflect.DeepEqual(got, want) {
		t.Errorf("input\n%+v\nwant\n%+v", got, want)
	}
}

// A status written by hand, even an empty one, is read as it is, not as
// ok, on both paths.
func TestStatsInputStatusAsStored(t *testing.T) {
	s, path := newSession(t)
	run, err := s.EnsureRun(binaryInfo("docqa", "m"))
	if err != nil {
		t.Fatal(err)
	}
	var vs []judge.Verdict
	for _, id := range []string{"q1", "q2", "q3"} {
		vs = append(vs, judge.Verdict{ItemID: id, Status: judge.StatusOK, Values: map[string]float64{"correct": 1}, At: t0})
	}
	if err := s.SaveVerdicts(run.ID, vs); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	if _, err := db.Exec(`UPDATE verdicts SET status = CASE item_id WHEN 'q1' THEN '' ELSE 'odd' END WHERE item_id IN ('q1', 'q2')`); err != nil {
		t.Fatal(err)
	}
	want := map[string]judge.Status{"q1": "", "q2": "odd", "q3": judge.StatusOK}
	for _, packed := range []bool{true, false} {
		packedReads = packed
		in, err := s.StatsInput()
		packedReads = true
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range in.Units {
			if w, ok := want[u.ItemID]; ok && (len(u.Verdicts) != 1 || u.Verdicts[0].Status != w) {
				t.Errorf("packed %v: %s verdicts %+v, want status %q", packed, u.ItemID, u.Verdicts, w)
			}
		}
	}
}

// A packed list longer than SQLite allows leaves its table to the row
// readers instead of failing the statistics.
func TestPackedReadsLeaveTooLongListsToRows(t *testing.T) {
	s := openStore(t, sessionPath(t), "ann")
	var items []judge.Item
	var vs []judge.Verdict
	for i := range 20 {
		id := fmt.Sprintf("item-%06d", i)
		items = append(items, judge.Item{Index: i, ID: id})
		vs = append(vs, judge.Verdict{ItemID: id, Status: judge.StatusOK, Values: map[string]float64{"c": 1}, At: t0})
	}
	if err := s.InitDataset(DatasetInfo{Path: "d.jsonl", SHA256: "x", Format: "jsonl"}, items); err != nil {
		t.Fatal(err)
	}
	run, err := s.EnsureRun(judge.Info{Name: "j", Dimensions: []judge.Dimension{{Name: "c", Scale: judge.Binary}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveVerdicts(run.ID, vs); err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if _, err := s.Record([]Action{{Kind: KindLabel, ItemID: it.ID, Dimension: "c", Value: 0, Via: "o"}}); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := sqlite.Limit(conn, sqlite3.SQLITE_LIMIT_LENGTH, 100); err != nil {
		t.Fatal(err)
	}
	defer sqlite.Limit(conn, sqlite3.SQLITE_LIMIT_LENGTH, 1_000_000_000)
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	codec, err := loadCodec(tx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := readPackedItems(tx); ok || err != nil {
		t.Errorf("packed items: ok %v, %v; want false, nil", ok, err)
	}
	if ok, err := readPackedVerdicts(tx, func(*verdictRow) {}); ok || err != nil {
		t.Errorf("packed verdicts: ok %v, %v; want false, nil", ok, err)
	}
	if _, ok, err := readPackedLabels(tx, codec); ok || err != nil {
		t.Errorf("packed labels: ok %v, %v; want false, nil", ok, err)
	}
	// and the row readers read them
	got, err := readStatsItems(tx)
	if err != nil || len(got) != 20 {
		t.Errorf("items: %d, %v", len(got), err)
	}
	labels, err := scanStatsLabels(tx, codec)
	if err != nil || len(labels.list) != 20 {
		t.Errorf("labels: %+v, %v", labels, err)
	}
}

// With no connection free beside the one reading (here the pool has
// one), the reads meant for other connections give up waiting and are
// read in the transaction itself: the statistics do not wait for the
// screen or a judge run to free a connection.
func TestStatsInputWithOneConnection(t *testing.T) {
	s, _ := statsSession(t)
	want, err := s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	s.db.SetMaxOpenConns(1)
	defer s.db.SetMaxOpenConns(maxReaders)
	got, err := s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("with one connection\n%+v\nwant\n%+v", got, want)
	}
}
