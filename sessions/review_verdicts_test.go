package sessions

import (
	"reflect"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// The review screen's verdicts come without the reason and extra fields
// of ok ones, sharing their Values maps; ItemVerdicts reads an item's
// current verdicts back whole.
func TestScreenVerdictsAndItemVerdicts(t *testing.T) {
	s := openStore(t, sessionPath(t), "ann")
	items := []judge.Item{{Index: 0, ID: "a", Question: "q", Prediction: "p"}, {Index: 1, ID: "b", Question: "q", Prediction: "p"}, {Index: 2, ID: "c", Question: "q", Prediction: "p"}}
	if err := s.InitDataset(DatasetInfo{Path: "x.jsonl", SHA256: "x", Format: "jsonl"}, items); err != nil {
		t.Fatal(err)
	}
	info := binaryInfo("match", "")
	run, err := s.EnsureRun(info)
	if err != nil {
		t.Fatal(err)
	}
	ok := func(id, reason string, x float64) judge.Verdict {
		return judge.Verdict{ItemID: id, Status: judge.StatusOK, Reason: reason, Values: map[string]float64{"correct": x},
			Extra: map[string]any{"extracted_answer": "p " + id}, At: t0}
	}
	bad := judge.Verdict{ItemID: "c", Status: judge.StatusParseError, Reason: "could not read", Raw: "??", Extra: map[string]any{"k": "v"}, At: t0}
	if err := s.SaveVerdicts(run.ID, []judge.Verdict{ok("a", "old", 0), ok("a", "new", 1), ok("b", "because", 1), bad}); err != nil {
		t.Fatal(err)
	}
	rv := &Review{Store: s, Items: items}
	st, err := rv.ResumeRun(t.Context(), run, nil, judge.PoolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	vs := st.Verdicts
	if len(vs) != 3 {
		t.Fatalf("%d verdicts: %+v", len(vs), vs)
	}
	for _, v := range vs[:2] {
		if v.Reason != "" || v.Extra != nil || v.Values["correct"] != 1 {
			t.Errorf("ok verdict held with its details: %+v", v)
		}
	}
	if reflect.ValueOf(vs[0].Values).UnsafePointer() != reflect.ValueOf(vs[1].Values).UnsafePointer() {
		t.Error("two verdicts of the same value hold a map each")
	}
	if vs[2].Reason != "could not read" || vs[2].Raw != "??" || vs[2].Extra["k"] != "v" {
		t.Errorf("a failed verdict lost its details: %+v", vs[2])
	}
	whole, err := s.ItemVerdicts(info, "a")
	if err != nil || len(whole) != 1 || whole[0].Reason != "new" || whole[0].Extra["extracted_answer"] != "p a" {
		t.Errorf("ItemVerdicts(a) = %+v, %v", whole, err)
	}
	if none, err := s.ItemVerdicts(binaryInfo("other", "m"), "a"); err != nil || none != nil {
		t.Errorf("a judge with no run: %+v, %v", none, err)
	}
}
