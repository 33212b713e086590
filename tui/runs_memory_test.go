package tui

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/gavel-dev/gavel/judge"
)

// A run holds a verdict in a 32-byte record (verdict_store.go): a million
// of them whole took 1.88× the dataset file in memory.
func TestVerdictRecordSize(t *testing.T) {
	if n := unsafe.Sizeof(cverdict{}); n != 32 {
		t.Errorf("a verdict's record is %d bytes, want 32", n)
	}
}

// Verdicts read from the session are placed item by item, and a verdict
// that arrives later for one item leaves its neighbours alone.
func TestLoadedVerdictsKeepTheirItems(t *testing.T) {
	ok := func(id string, crit int, x float64) judge.Verdict {
		return judge.Verdict{ItemID: id, Criterion: crit, Status: judge.StatusOK, Values: map[string]float64{"correct": x}}
	}
	index := newItemIndex(3)
	index.add([]judge.Item{{ID: "a"}, {ID: "b"}, {ID: "c"}})
	loaded := []judge.Verdict{ok("a", 0, 1), ok("b", 0, 0), ok("b", 1, 1), ok("gone", 0, 1), ok("c", 0, 1)}
	r := newRunView(Run{Info: matchInfo, Verdicts: loaded}, index, 3)
	if a, b, c := r.verdicts.count(0), r.verdicts.count(1), r.verdicts.count(2); a != 1 || b != 2 || c != 1 {
		t.Fatalf("slots %d %d %d", a, b, c)
	}
	// A new criterion for a: after a's own, not over b's.
	r.put(index, ok("a", 1, 0), false)
	if v, _ := r.verdict(1, 0); v.ItemID != "b" || v.Values["correct"] != 0 {
		t.Errorf("b's verdict became %+v", v)
	}
	if v, found := r.verdict(0, 1); !found || v.Values["correct"] != 0 {
		t.Errorf("a's second criterion: %+v, %v", v, found)
	}
	// A re-judged verdict replaces its own slot only.
	r.put(index, ok("c", 0, 0), true)
	if v, _ := r.verdict(2, 0); v.Values["correct"] != 0 {
		t.Errorf("c not replaced: %+v", v)
	}
	if was := r.was[vkey{2, 0, false}]; was.Values["correct"] != 1 || was.ItemID != "c" {
		t.Errorf("c's replaced verdict not remembered: %+v", was)
	}
	if v, _ := r.verdict(1, 1); v.Values["correct"] != 1 {
		t.Errorf("b's second criterion changed: %+v", v)
	}
}

// Verdicts of one dimension with the same value share one Values map,
// loaded or arriving later; other values keep theirs.
func TestVerdictsShareTheirValues(t *testing.T) {
	ok := func(id string, x float64) judge.Verdict {
		return judge.Verdict{ItemID: id, Status: judge.StatusOK, Values: map[string]float64{"correct": x}}
	}
	index := newItemIndex(4)
	index.add([]judge.Item{{ID: "a"}, {ID: "b"}, {ID: "c"}, {ID: "d"}})
	r := newRunView(Run{Info: matchInfo, Verdicts: []judge.Verdict{ok("a", 1), ok("b", 1), ok("c", 0)}}, index, 4)
	r.put(index, ok("d", 1), false)
	va, _ := r.verdict(0, 0)
	vb, _ := r.verdict(1, 0)
	vc, _ := r.verdict(2, 0)
	vd, _ := r.verdict(3, 0)
	same := func(x, y map[string]float64) bool {
		return reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer()
	}
	if !same(va.Values, vb.Values) || !same(va.Values, vd.Values) {
		t.Error("verdicts of the same value hold a map each")
	}
	if same(va.Values, vc.Values) || vc.Values["correct"] != 0 || vd.Values["correct"] != 1 {
		t.Errorf("values mixed up: %v %v", vc.Values, vd.Values)
	}
	if len(r.tab.values) != 3 { // none, 1, 0
		t.Errorf("%d value entries, want 3", len(r.tab.values))
	}
}
