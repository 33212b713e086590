package sessions

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// manyItems makes n items with rubric, segments and fields, enough to
// cross several insert batches.
func manyItems(n int) []judge.Item {
	items := make([]judge.Item, n)
	for i := range items {
		id := fmt.Sprintf("item-%05d", i)
		q := fmt.Sprintf("question %d with \"quotes\"\n", i)
		items[i] = judge.Item{Index: i, ID: id, Question: q, Gold: fmt.Sprint(i % 7), Prediction: "p" + id,
			Segments: map[string]string{"split": fmt.Sprint(i % 3)},
			Fields:   []byte(fmt.Sprintf(`{"id":%q,"question":%q,"answer":"%d","n":%d}`, id, q, i%7, i))}
		if i%5 == 0 {
			items[i].Rubric = []string{"first", "second"}
		}
	}
	return items
}

func TestBuildSessionOpensWithEveryItem(t *testing.T) {
	path := sessionPath(t)
	items := manyItems(1000)
	info := DatasetInfo{Path: "data.jsonl", SHA256: "abc", Format: "jsonl",
		Mapping: map[string]string{"question": "question", "gold": "answer"}}
	if err := BuildSession(path, info, items); err != nil {
		t.Fatalf("BuildSession: %v", err)
	}
	s := openStore(t, path, "ann")
	got, err := s.Items()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, items) {
		t.Fatalf("items differ after BuildSession (%d read, %d written)", len(got), len(items))
	}
	di, ok, err := s.Dataset()
	if err != nil || !ok || di.Items != 1000 || di.SHA256 != "abc" || di.Mapping["gold"] != "answer" {
		t.Fatalf("Dataset() = %+v, %v, %v", di, ok, err)
	}
	// The session is an ordinary one: labels go in and the mode is WAL.
	if _, err := s.Record([]Action{{Kind: KindLabel, ItemID: "item-00003", Dimension: "correct", Value: 1, Via: "order"}}); err != nil {
		t.Fatal(err)
	}
	var mode string
	if err := s.w.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v", mode, err)
	}
	// No temporary file is left beside it.
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*building*"))
	if len(left) > 0 {
		t.Fatalf("left behind: %v", left)
	}
}

func TestBuildSessionNeverReplacesASession(t *testing.T) {
	_, path := newSession(t)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	err = BuildSession(path, DatasetInfo{Path: "x"}, manyItems(3))
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("BuildSession over a session: %v", err)
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Fatal("the existing session was changed")
	}
}

func TestBuildSessionReplacesAnEmptyFile(t *testing.T) {
	path := sessionPath(t)
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := BuildSession(path, DatasetInfo{Path: "x"}, manyItems(3)); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, path, "ann")
	if got, err := s.Items(); err != nil || len(got) != 3 {
		t.Fatalf("Items = %d, %v", len(got), err)
	}
}

func TestBuildSessionRefusesBadItemsAndLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.gavel")
	items := manyItems(200)
	items[150].ID = items[20].ID
	err := BuildSession(path, DatasetInfo{Path: "x"}, items)
	if err == nil || !strings.Contains(err.Error(), "duplicate item id") {
		t.Fatalf("duplicate ids: %v", err)
	}
	if err := BuildSession(filepath.Join(dir, "missing", "s.gavel"), DatasetInfo{}, manyItems(1)); err == nil ||
		!strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("missing folder: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}
}

func TestBuildSessionThenWritesInsideTheBuild(t *testing.T) {
	path := sessionPath(t)
	err := BuildSessionThen(path, DatasetInfo{Path: "x"}, manyItems(100), func(s *Store) error {
		_, err := s.recordGroups("imported", [][]Action{{{Kind: KindLabel, ItemID: "item-00007", Dimension: "correct", Value: 1, Via: "import"}}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	s := openStore(t, path, "ann")
	labels, err := s.Labels("imported")
	if err != nil || len(labels) != 1 || labels[0].ItemID != "item-00007" {
		t.Fatalf("labels written inside the build: %+v, %v", labels, err)
	}

	// An error from then leaves no session at all.
	other := sessionPath(t)
	err = BuildSessionThen(other, DatasetInfo{Path: "x"}, manyItems(10), func(*Store) error { return errors.New("the import failed") })
	if err == nil || !strings.Contains(err.Error(), "the import failed") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(other); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a failed build left %s: %v", other, err)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(other), ".*building*"))
	if len(left) > 0 {
		t.Fatalf("left behind: %v", left)
	}
}

// Rubric criteria refer to their items (a foreign key, on in an open
// store): a batch of criteria that fills before the batch of their items
// must not be written first. Every item with two or three criteria fills
// the criteria's batch after 22–32 items, the items' at 64.
func TestInitDatasetManyRubricItems(t *testing.T) {
	for _, perItem := range []int{1, 2, 3, 64, 65} {
		t.Run(fmt.Sprint(perItem, " criteria"), func(t *testing.T) {
			s := openStore(t, sessionPath(t), "ann")
			items := make([]judge.Item, 300)
			for i := range items {
				items[i] = judge.Item{Index: i, ID: fmt.Sprintf("q%d", i), Question: "q", Gold: "a", Prediction: "p"}
				if i%7 != 3 {
					for k := range perItem {
						items[i].Rubric = append(items[i].Rubric, fmt.Sprint("criterion ", k+1))
					}
				}
			}
			if err := s.InitDataset(DatasetInfo{Path: "m.jsonl", SHA256: "x", Format: "jsonl", Items: len(items)}, items); err != nil {
				t.Fatal(err)
			}
			got, err := s.Items()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, items) {
				t.Fatalf("items differ after InitDataset (%d read, %d written)", len(got), len(items))
			}
		})
	}
}
