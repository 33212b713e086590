package sessions

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

func TestDiffItems(t *testing.T) {
	it := func(id, pred string) judge.Item { return judge.Item{ID: id, Question: "q" + id, Prediction: pred} }
	tests := []struct {
		name                   string
		held, now              []judge.Item
		added, removed, edited []string
	}{
		{"same", []judge.Item{it("a", "1"), it("b", "2")}, []judge.Item{it("a", "1"), it("b", "2")}, nil, nil, nil},
		{"reordered is not edited", []judge.Item{it("a", "1"), it("b", "2")}, []judge.Item{it("b", "2"), it("a", "1")}, nil, nil, nil},
		{"added", []judge.Item{it("a", "1")}, []judge.Item{it("a", "1"), it("c", "3"), it("b", "2")}, []string{"c", "b"}, nil, nil},
		{"removed", []judge.Item{it("a", "1"), it("b", "2"), it("c", "3")}, []judge.Item{it("b", "2")}, nil, []string{"a", "c"}, nil},
		{"edited", []judge.Item{it("a", "1"), it("b", "2")}, []judge.Item{it("a", "1"), it("b", "two")}, nil, nil, []string{"b"}},
		{"segments and fields count", []judge.Item{
			{ID: "a", Segments: map[string]string{"cat": "x"}}, {ID: "b", Fields: json.RawMessage(`{"k":1}`)}, {ID: "c", Rubric: []string{"r"}},
		}, []judge.Item{
			{ID: "a", Segments: map[string]string{"cat": "y"}}, {ID: "b", Fields: json.RawMessage(`{"k":2}`)}, {ID: "c", Rubric: []string{"r", "s"}},
		}, nil, nil, []string{"a", "b", "c"}},
		{"all at once", []judge.Item{it("a", "1"), it("b", "2"), it("c", "3")}, []judge.Item{it("d", "4"), it("a", "1!"), it("c", "3")},
			[]string{"d"}, []string{"b"}, []string{"a"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := DiffItems(tc.held, tc.now)
			if !slices.Equal(c.Added, tc.added) || !slices.Equal(c.Removed, tc.removed) || !slices.Equal(c.Edited, tc.edited) {
				t.Errorf("got added %v removed %v edited %v; want %v %v %v", c.Added, c.Removed, c.Edited, tc.added, tc.removed, tc.edited)
			}
		})
	}
}

func TestDatasetChangeNotice(t *testing.T) {
	tests := []struct {
		c    DatasetChange
		want string
	}{
		{DatasetChange{File: "e.jsonl"}, "e.jsonl changed since this session began, but its items are the same."},
		{DatasetChange{File: "e.jsonl", Added: []string{"x", "y", "z"}, Removed: []string{"r"}, Edited: []string{"a", "b"}},
			"e.jsonl changed since this session began: 3 items added, 1 removed, 2 edited (removed id r, kept at the end; edited ids a, b, now showing the new text); labels stay with their ids."},
		{DatasetChange{File: "e.jsonl", Added: []string{"x"}},
			"e.jsonl changed since this session began: 1 item added (added id x); labels stay with their ids."},
		{DatasetChange{File: "e.jsonl", Edited: []string{"1", "2", "3", "4", "5", "6", "7"}},
			"e.jsonl changed since this session began: 7 items edited (edited ids 1, 2, 3, 4, 5 and 2 more, now showing the new text); labels stay with their ids."},
	}
	for _, tc := range tests {
		if got := tc.c.Notice(); got != tc.want {
			t.Errorf("Notice()\n got %s\nwant %s", got, tc.want)
		}
	}
}

// TestOpenReviewChangedDataset opens a session with a file, labels it,
// changes the file and opens it again.
func TestOpenReviewChangedDataset(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "evals.jsonl")
	session := filepath.Join(dir, "evals.gavel")
	write := func(rows string) *dataset.Dataset {
		t.Helper()
		if err := os.WriteFile(file, []byte(rows), 0o644); err != nil {
			t.Fatal(err)
		}
		ds, err := dataset.Load(file, dataset.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}
	ds := write(`{"id":"a","question":"qa","answer":"1","prediction":"1"}
{"id":"b","question":"qb","answer":"2","prediction":"2"}
{"id":"c","question":"qc","answer":"3","prediction":"3"}
`)
	rv, err := OpenReview(session, "ann", ds)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rv.Store.Record([]Action{{Kind: KindLabel, ItemID: "b", Dimension: "correct", Value: 1, Via: "order"}}); err != nil {
		t.Fatal(err)
	}
	run, _ := rv.Store.EnsureRun(binaryInfo("match", ""))
	if err := rv.Store.SaveVerdicts(run.ID, []judge.Verdict{{ItemID: "b", Status: judge.StatusOK, Values: map[string]float64{"correct": 1}}}); err != nil {
		t.Fatal(err)
	}
	rv.Store.Close()

	// b is gone, c is edited, d and e are new, and the order changed.
	ds = write(`{"id":"d","question":"qd","answer":"4","prediction":"4"}
{"id":"c","question":"qc","answer":"3","prediction":"three"}
{"id":"a","question":"qa","answer":"1","prediction":"1"}
{"id":"e","question":"qe","answer":"5","prediction":"5"}
`)
	rv, err = OpenReview(session, "ann", ds)
	if err != nil {
		t.Fatal(err)
	}
	defer rv.Store.Close()
	want := "evals.jsonl changed since this session began: 2 items added, 1 removed, 1 edited (removed id b, kept at the end; edited id c, now showing the new text); labels stay with their ids."
	if len(rv.Notices) != 1 || rv.Notices[0] != want {
		t.Errorf("notices %q, want %q", rv.Notices, want)
	}
	var order []string
	for i, it := range rv.Items {
		order = append(order, it.ID)
		if it.Index != i {
			t.Errorf("item %s has index %d at position %d", it.ID, it.Index, i)
		}
		if it.ID == "c" && it.Prediction != "three" {
			t.Errorf("edited item c still shows %q", it.Prediction)
		}
	}
	if got := strings.Join(order, ","); got != "d,c,a,e,b" {
		t.Errorf("review order %s, want d,c,a,e,b (the removed item last)", got)
	}
	labels, _ := rv.Store.Labels("ann")
	if len(labels) != 1 || labels[0].ItemID != "b" {
		t.Errorf("labels after the change: %+v", labels)
	}
	if vs, _ := rv.Store.Verdicts(run.ID); len(vs) != 1 || vs[0].ItemID != "b" {
		t.Errorf("verdicts after the change: %+v", vs)
	}
	info, _, _ := rv.Store.Dataset()
	if info.SHA256 != ds.SHA256 || info.Items != 5 || rv.Info.SHA256 != ds.SHA256 {
		t.Errorf("dataset row %+v: want the new hash and 5 items", info)
	}
	rv.Store.Close()

	// Opening again with the same file reports nothing.
	rv2, err := OpenReview(session, "ann", ds)
	if err != nil {
		t.Fatal(err)
	}
	defer rv2.Store.Close()
	if len(rv2.Notices) != 0 || len(rv2.Items) != 5 {
		t.Errorf("second opening: notices %q, %d items", rv2.Notices, len(rv2.Items))
	}
}

func TestSyncDatasetRefusesAnotherDataset(t *testing.T) {
	s, _ := newSession(t)
	ds, err := dataset.LoadBytes("other.jsonl", []byte(`{"id":"zz","question":"q","prediction":"p"}`+"\n"), dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.SyncDataset(ds)
	if err == nil || !strings.Contains(err.Error(), "holds another dataset") {
		t.Fatalf("err = %v, want a refusal", err)
	}
	if items, _ := s.Items(); len(items) != len(sampleItems()) {
		t.Errorf("the refused sync changed the items: %d", len(items))
	}
}
