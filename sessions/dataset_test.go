package sessions

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

func TestItemsRoundTrip(t *testing.T) {
	s, path := newSession(t)
	want := sampleItems()
	got, err := s.Items()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Items() =\n%#v\nwant\n%#v", got, want)
	}
	// And from a fresh open of the file.
	s.Close()
	got, err = openStore(t, path, "ann").Items()
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("after reopening: %v, %v", got, err)
	}
}

func TestItemsComeInIndexOrder(t *testing.T) {
	s := openStore(t, sessionPath(t), "ann")
	items := []judge.Item{{Index: 2, ID: "c"}, {Index: 0, ID: "a"}, {Index: 1, ID: "b"}}
	if err := s.InitDataset(DatasetInfo{}, items); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Items()
	var ids []string
	for _, it := range got {
		ids = append(ids, it.ID)
	}
	if strings.Join(ids, ",") != "a,b,c" {
		t.Errorf("order = %v", ids)
	}
}

func TestDatasetInfo(t *testing.T) {
	s := openStore(t, sessionPath(t), "ann")
	created := time.Date(2025, 3, 1, 10, 2, 33, 123e6, time.UTC)
	info := DatasetInfo{Path: "/data/x.jsonl.gz", SHA256: strings.Repeat("ab", 32), Format: "jsonl",
		Mapping: map[string]string{"gold": "target", "prediction": "resps.0.0"}, CreatedAt: created}
	if err := s.InitDataset(info, sampleItems()); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.Dataset()
	if err != nil || !ok {
		t.Fatalf("Dataset() = %v, %v", ok, err)
	}
	info.Items = len(sampleItems())
	if !reflect.DeepEqual(got, info) {
		t.Errorf("Dataset() = %+v\nwant %+v", got, info)
	}
}

func TestInitDatasetErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		info  DatasetInfo
		items []judge.Item
		want  string
	}{
		{"duplicate ids", DatasetInfo{}, []judge.Item{{Index: 0, ID: "a"}, {Index: 1, ID: "a"}}, `duplicate item id "a"`},
		{"duplicate index", DatasetInfo{}, []judge.Item{{Index: 0, ID: "a"}, {Index: 0, ID: "b"}}, "two items have index 0"},
		{"missing id", DatasetInfo{}, []judge.Item{{Index: 0}}, "has no id"},
		{"wrong count", DatasetInfo{Items: 3}, []judge.Item{{Index: 0, ID: "a"}}, "says 3 items but 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t, sessionPath(t), "ann")
			err := s.InitDataset(tc.info, tc.items)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
			if _, ok, _ := s.Dataset(); ok {
				t.Error("a refused dataset was saved")
			}
		})
	}
	s, _ := newSession(t)
	if err := s.InitDataset(DatasetInfo{}, []judge.Item{{ID: "z"}}); err == nil || !strings.Contains(err.Error(), "already holds a dataset") {
		t.Errorf("second InitDataset: %v", err)
	}
	if items, _ := s.Items(); len(items) != len(sampleItems()) {
		t.Errorf("second InitDataset changed the items: %d", len(items))
	}
}
