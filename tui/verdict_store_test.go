package tui

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// storeIndex is an index of items a, b, c, d.
func storeIndex() *itemIndex {
	index := newItemIndex(4)
	index.add([]judge.Item{{ID: "a"}, {ID: "b"}, {ID: "c"}, {ID: "d"}})
	return index
}

// held is what the screen keeps of a verdict: all of it but its token
// counts, latency and retries (nothing on the screen shows them).
func held(v judge.Verdict) judge.Verdict {
	v.PromptTokens, v.CompletionTokens, v.Latency, v.Retries = 0, 0, 0, 0
	return v
}

// sameVerdict compares verdicts as the screen reads them: times by
// instant (a record keeps nanoseconds, not the location), NaN values
// equal to themselves.
func sameVerdict(t *testing.T, what string, got, want judge.Verdict) {
	t.Helper()
	if !got.At.Equal(want.At) || got.At.IsZero() != want.At.IsZero() {
		t.Errorf("%s: at %v, want %v", what, got.At, want.At)
	}
	switch {
	case (got.Confidence == nil) != (want.Confidence == nil):
		t.Errorf("%s: confidence %v, want %v", what, got.Confidence, want.Confidence)
	case got.Confidence != nil && !sameFloat(*got.Confidence, *want.Confidence):
		t.Errorf("%s: confidence %v, want %v", what, *got.Confidence, *want.Confidence)
	}
	if len(got.Values) != len(want.Values) {
		t.Errorf("%s: values %v, want %v", what, got.Values, want.Values)
	}
	for d, x := range want.Values {
		if y, ok := got.Values[d]; !ok || !sameFloat(x, y) {
			t.Errorf("%s: values %v, want %v", what, got.Values, want.Values)
		}
	}
	got.At, want.At, got.Confidence, want.Confidence, got.Values, want.Values = time.Time{}, time.Time{}, nil, nil, nil, nil
	if !reflect.DeepEqual(got, held(want)) {
		t.Errorf("%s:\n got %+v\nwant %+v", what, got, held(want))
	}
}

func sameFloat(x, y float64) bool { return x == y || (x != x && y != y) }

// Every field the screen reads comes back as it was put, whatever the
// record holds it in: its fields, the run's tables, or more.
func TestVerdictStoreRoundTrip(t *testing.T) {
	at := time.Date(2025, 3, 4, 5, 6, 7, 891_234_567, time.UTC)
	conf, nan := 0.8125, math.NaN()
	cases := []struct {
		name string
		v    judge.Verdict
	}{
		{"ok, one value", judge.Verdict{Status: judge.StatusOK, Values: map[string]float64{"correct": 1}, At: at, Model: "gpt-4o"}},
		{"ok, confidence and details", judge.Verdict{Status: judge.StatusOK, Values: map[string]float64{"score": 4}, At: at,
			Confidence: &conf, Reason: "because", Extra: map[string]any{"extracted_answer": "Paris"}, PromptTokens: 12, Latency: time.Second}},
		{"NaN value", judge.Verdict{Status: judge.StatusOK, Values: map[string]float64{"score": math.NaN()}, At: at}},
		{"NaN confidence", judge.Verdict{Status: judge.StatusOK, Values: map[string]float64{"correct": 0}, Confidence: &nan}},
		{"several dimensions", judge.Verdict{Status: judge.StatusOK, Values: map[string]float64{"a": 1, "b": 0.5, "c": math.NaN()}, At: at}},
		{"parse error", judge.Verdict{Status: judge.StatusParseError, Raw: "maybe?", Error: "no verdict line", At: at}},
		{"api error, no time", judge.Verdict{Status: judge.StatusAPIError, Error: "401"}},
		{"truncated, values kept", judge.Verdict{Status: judge.StatusTruncated, Values: map[string]float64{"correct": 1},
			Error: "the server read 4096 of 9000 tokens", At: at}},
		{"a status of its own", judge.Verdict{Status: "skipped", At: at}},
		{"a time outside nanoseconds", judge.Verdict{Status: judge.StatusOK, Values: map[string]float64{"correct": 1},
			At: time.Date(2400, 1, 1, 0, 0, 0, 0, time.UTC)}},
		{"rubric criterion", judge.Verdict{Criterion: 3, Status: judge.StatusOK, Values: map[string]float64{"met": 1}, At: at}},
		{"swapped order", judge.Verdict{Swapped: true, Status: judge.StatusOK, Values: map[string]float64{"preference": judge.PreferB}, At: at}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			index := storeIndex()
			r := newRunView(Run{Info: matchInfo}, index, 4)
			v := tc.v
			v.ItemID = "b"
			if r.put(index, v, false) != 1 {
				t.Fatal("b not found")
			}
			get := r.verdict
			if v.Swapped {
				get = r.swappedVerdict
			}
			got, ok := get(1, v.Criterion)
			if !ok {
				t.Fatal("not held")
			}
			sameVerdict(t, "put", got, v)
			// The same through putAll, as read from a session.
			r = newRunView(Run{Info: matchInfo}, index, 4)
			r.putAll(index, []judge.Verdict{v}, v.Swapped)
			got, ok = get(1, v.Criterion)
			if !ok {
				t.Fatal("not held after putAll")
			}
			sameVerdict(t, "putAll", got, v)
		})
	}
}

// put and putAll place, replace and count verdicts per item, criterion
// and order as the screen's filters and the pane read them.
func TestVerdictStorePlacing(t *testing.T) {
	ok := func(id string, crit int, x float64) judge.Verdict {
		return judge.Verdict{ItemID: id, Criterion: crit, Status: judge.StatusOK, Values: map[string]float64{"correct": x}}
	}
	with := func(v judge.Verdict, f func(*judge.Verdict)) judge.Verdict { f(&v); return v }
	truncated := func(v *judge.Verdict) { v.Status, v.Error = judge.StatusTruncated, "cut" }
	swapped := func(v *judge.Verdict) { v.Swapped = true }
	failed := func(v *judge.Verdict) { v.Status, v.Values, v.Error = judge.StatusAPIError, nil, "timeout" }
	type want struct {
		item, crit int
		swapped    bool
		value      float64 // -1: no verdict; NaN: not ok
	}
	cases := []struct {
		name       string
		loaded     []judge.Verdict // putAll, first order
		loadedSwap []judge.Verdict // putAll, second order
		puts       []judge.Verdict // put, remembering
		want       []want
		counts     [4]int // first-order verdicts per item
		truncated  int
		nSwapped   int
		was        map[vkey]float64
	}{
		{
			name:   "one per item",
			loaded: []judge.Verdict{ok("a", 0, 1), ok("b", 0, 0), ok("d", 0, 1)},
			want:   []want{{0, 0, false, 1}, {1, 0, false, 0}, {2, 0, false, -1}, {3, 0, false, 1}},
			counts: [4]int{1, 1, 0, 1},
		},
		{
			name:   "rubric criteria, loaded and one more later",
			loaded: []judge.Verdict{ok("a", 0, 1), ok("a", 1, 0), ok("a", 2, 1), ok("b", 1, 1)},
			puts:   []judge.Verdict{ok("b", 0, 0), ok("a", 3, 0)},
			want:   []want{{0, 0, false, 1}, {0, 1, false, 0}, {0, 2, false, 1}, {0, 3, false, 0}, {1, 1, false, 1}, {1, 0, false, 0}, {1, 2, false, -1}},
			counts: [4]int{4, 2, 0, 0},
		},
		{
			name:   "re-judge replaces its criterion only and remembers it",
			loaded: []judge.Verdict{ok("a", 0, 1), ok("a", 1, 1), ok("c", 0, 0)},
			puts:   []judge.Verdict{ok("a", 1, 0), ok("c", 0, 1), ok("c", 0, 0)},
			want:   []want{{0, 0, false, 1}, {0, 1, false, 0}, {2, 0, false, 0}},
			counts: [4]int{2, 0, 1, 0},
			was:    map[vkey]float64{{0, 1, false}: 1, {2, 0, false}: 1},
		},
		{
			name:   "the same criterion twice in a load: the last wins",
			loaded: []judge.Verdict{ok("a", 0, 1), ok("a", 0, 0)},
			want:   []want{{0, 0, false, 0}},
			counts: [4]int{1, 0, 0, 0},
		},
		{
			name:       "swapped order beside the first",
			loaded:     []judge.Verdict{ok("a", 0, 1), ok("b", 0, 1)},
			loadedSwap: []judge.Verdict{ok("a", 0, 0)},
			puts:       []judge.Verdict{with(ok("b", 0, 1), swapped), with(ok("a", 0, 1), swapped)},
			want:       []want{{0, 0, false, 1}, {0, 0, true, 1}, {1, 0, true, 1}, {2, 0, true, -1}},
			counts:     [4]int{1, 1, 0, 0},
			nSwapped:   2,
			was:        map[vkey]float64{{0, 0, true}: 0},
		},
		{
			name:      "truncated counted once, and no more once replaced",
			loaded:    []judge.Verdict{with(ok("a", 0, 1), truncated), with(ok("b", 0, 1), truncated)},
			puts:      []judge.Verdict{ok("a", 0, 0), with(ok("c", 0, 1), truncated), with(ok("c", 0, 0), truncated)},
			want:      []want{{0, 0, false, 0}, {1, 0, false, math.NaN()}, {2, 0, false, math.NaN()}},
			counts:    [4]int{1, 1, 1, 0},
			truncated: 2,
			was:       map[vkey]float64{{0, 0, false}: math.NaN(), {2, 0, false}: math.NaN()},
		},
		{
			name:   "a failed re-judge is held as failed",
			loaded: []judge.Verdict{ok("d", 0, 1)},
			puts:   []judge.Verdict{with(ok("d", 0, 1), failed)},
			want:   []want{{3, 0, false, math.NaN()}},
			counts: [4]int{0, 0, 0, 1},
			was:    map[vkey]float64{{3, 0, false}: 1},
		},
		{
			name:   "unknown items are left out",
			loaded: []judge.Verdict{ok("gone", 0, 1), ok("b", 0, 1)},
			puts:   []judge.Verdict{ok("also gone", 0, 1)},
			want:   []want{{1, 0, false, 1}},
			counts: [4]int{0, 1, 0, 0},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			index := storeIndex()
			r := newRunView(Run{Info: matchInfo, Verdicts: tc.loaded, Swapped: tc.loadedSwap}, index, 4)
			for _, v := range tc.puts {
				r.put(index, v, true)
			}
			for _, w := range tc.want {
				get, value := r.verdict, r.judgeValue
				if w.swapped {
					get, value = r.swappedVerdict, r.swapValue
				}
				v, has := get(w.item, w.crit)
				x, isOK := value(w.item, row{crit: w.crit, dim: judge.Dimension{Name: "correct"}})
				switch {
				case w.value == -1:
					if has {
						t.Errorf("%+v: has %+v", w, v)
					}
				case math.IsNaN(w.value):
					if !has || v.OK() || isOK {
						t.Errorf("%+v: %+v (has %v, value ok %v), want a verdict not ok", w, v, has, isOK)
					}
				default:
					if !has || !isOK || x != w.value || v.Values["correct"] != w.value || v.ItemID != index.items[w.item].ID || v.Swapped != w.swapped {
						t.Errorf("%+v: %+v (has %v), value %v %v", w, v, has, x, isOK)
					}
				}
			}
			for i, n := range tc.counts {
				if got := r.verdicts.count(i); got != n {
					t.Errorf("item %d: %d verdicts, want %d", i, got, n)
				}
				if r.hasVerdict(i) != (n > 0) {
					t.Errorf("item %d: hasVerdict %v", i, r.hasVerdict(i))
				}
			}
			if r.nTruncated != tc.truncated || r.nSwapped != tc.nSwapped {
				t.Errorf("truncated %d, swapped %d; want %d, %d", r.nTruncated, r.nSwapped, tc.truncated, tc.nSwapped)
			}
			if len(r.was) != len(tc.was) {
				t.Errorf("was %+v, want %v", r.was, tc.was)
			}
			for k, x := range tc.was {
				old, ok := r.was[k]
				switch {
				case !ok:
					t.Errorf("was[%+v] missing", k)
				case math.IsNaN(x) && old.OK(), !math.IsNaN(x) && (!old.OK() || old.Values["correct"] != x):
					t.Errorf("was[%+v] = %+v, want %v", k, old, x)
				}
			}
		})
	}
}

// A replaced verdict's details (its reason, its error) go with it: the
// new one shows its own or none.
func TestVerdictStoreReplacedDetails(t *testing.T) {
	index := storeIndex()
	r := newRunView(Run{Info: matchInfo}, index, 4)
	r.put(index, judge.Verdict{ItemID: "a", Status: judge.StatusParseError, Raw: "??", Error: "unreadable"}, false)
	r.put(index, judge.Verdict{ItemID: "a", Status: judge.StatusOK, Values: map[string]float64{"correct": 1}}, true)
	v, _ := r.verdict(0, 0)
	if v.Raw != "" || v.Error != "" || len(r.tab.more) != 0 {
		t.Errorf("the parse error's details stayed: %+v, more %v", v, r.tab.more)
	}
	if was := r.was[vkey{0, 0, false}]; was.Raw != "??" || was.Error != "unreadable" {
		t.Errorf("the replaced verdict lost its details: %+v", was)
	}
}

// The filters' and the least-confident order's reads: the lowest
// confidence of an item's verdicts, NaN and none apart, and statuses of
// either order.
func TestVerdictStoreConfidenceAndStatus(t *testing.T) {
	c := func(x float64) *float64 { return &x }
	index := storeIndex()
	r := newRunView(Run{Info: matchInfo, Verdicts: []judge.Verdict{
		{ItemID: "a", Criterion: 0, Status: judge.StatusOK, Confidence: c(0.9)},
		{ItemID: "a", Criterion: 1, Status: judge.StatusOK, Confidence: c(0.4)},
		{ItemID: "b", Status: judge.StatusOK},
		{ItemID: "c", Status: judge.StatusOK, Confidence: c(math.NaN())},
	}, Swapped: []judge.Verdict{{ItemID: "d", Status: judge.StatusTruncated}}}, index, 4)
	for _, tc := range []struct {
		item      int
		conf      float64
		has       bool
		truncated bool
	}{{0, 0.4, true, false}, {1, 1, false, false}, {2, math.NaN(), true, false}, {3, 1, false, true}} {
		x, has := r.confidence(tc.item)
		if has != tc.has || (has && !sameFloat(x, min(1, tc.conf))) {
			t.Errorf("item %d: confidence %v %v, want %v %v", tc.item, x, has, tc.conf, tc.has)
		}
		if got := r.anyStatus(tc.item, func(s judge.Status) bool { return s == judge.StatusTruncated }); got != tc.truncated {
			t.Errorf("item %d: truncated %v", tc.item, got)
		}
	}
}
