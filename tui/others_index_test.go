package tui

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"unsafe"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// The others' labels are found by item, each item's by annotator (in
// the order read otherwise), without those of an item the annotator
// could not judge or of an unknown item, whatever the order they come
// in, added as Labels or as a session reads them (id bytes).
func TestOtherLabelsByItem(t *testing.T) {
	items := testItems(5)
	index := newItemIndex(len(items))
	index.add(items)
	l := func(item int, who string, crit int, x float64) sessions.Label {
		return sessions.Label{ItemID: items[item].ID, Annotator: who, Criterion: crit, Dimension: "correct", Value: x, ActionID: int64(10*item + crit)}
	}
	inOrder := []sessions.Label{l(0, "ana", 0, 1), l(0, "bo", 0, 0), l(0, "ana", 1, 1), l(2, "cy", 0, 1), l(2, "bo", 0, 0), l(4, "ana", 0, 1),
		{ItemID: "unknown", Annotator: "ana", Dimension: "correct"}}
	reversed := slices.Clone(inOrder)
	slices.Reverse(reversed)
	cant := []sessions.CantJudge{{ItemID: items[2].ID, Annotator: "cy"}, {ItemID: "unknown", Annotator: "bo"}}
	for _, tc := range []struct {
		name string
		ls   []sessions.Label
		cant []sessions.CantJudge
	}{{"in order", inOrder, nil}, {"reversed", reversed, nil}, {"a can't judge", inOrder, cant}, {"none", nil, nil}} {
		want := oldOtherLabels(tc.ls, tc.cant, index)
		for _, bytesIn := range []bool{false, true} {
			in := slices.Clone(tc.ls)
			var p *OtherLabels
			if bytesIn {
				p = &OtherLabels{}
				for _, l := range in {
					id := []byte(l.ItemID)
					l.ItemID = "not read"
					p.Add(id, l)
					clear(id) // valid only during the call
				}
			} else {
				p = OtherLabelsOf(in)
			}
			if !slices.Equal(in, tc.ls) {
				t.Errorf("%s: the caller's labels changed", tc.name)
			}
			if p.Len() != len(tc.ls) {
				t.Errorf("%s: Len %d, want %d", tc.name, p.Len(), len(tc.ls))
			}
			o := p.place(tc.cant, index)
			if p.Len() != 0 {
				t.Errorf("%s: %d labels left in what was placed", tc.name, p.Len())
			}
			if o.any() != (len(want) > 0) {
				t.Errorf("%s: any %v", tc.name, o.any())
			}
			var got []int
			for i := range o.items {
				got = append(got, i)
			}
			var wantItems []int
			for i := range items {
				if len(want[i]) > 0 {
					wantItems = append(wantItems, i)
				}
				if g := o.on(i, nil); !slices.Equal(g, want[i]) {
					t.Errorf("%s (bytes %v): on(%d) = %+v, want %+v", tc.name, bytesIn, i, g, want[i])
				}
			}
			if !slices.Equal(got, wantItems) {
				t.Errorf("%s: items %v, want %v", tc.name, got, wantItems)
			}
			if g := o.on(len(items), nil); len(g) != 0 {
				t.Errorf("%s: labels past the last item: %v", tc.name, g)
			}
			if g := o.on(-1, nil); len(g) != 0 {
				t.Errorf("%s: labels before the first item: %v", tc.name, g)
			}
		}
	}
}

// oldOtherLabels is how the others' labels were indexed before: a map
// of each item's labels, sorted by annotator.
func oldOtherLabels(ls []sessions.Label, cant []sessions.CantJudge, index *itemIndex) map[int][]sessions.Label {
	out := map[int][]sessions.Label{}
	for _, l := range ls {
		if slices.ContainsFunc(cant, func(c sessions.CantJudge) bool { return c.ItemID == l.ItemID && c.Annotator == l.Annotator }) {
			continue
		}
		if i, ok := index.at(l.ItemID); ok {
			out[i] = append(out[i], l)
		}
	}
	for _, v := range out {
		slices.SortStableFunc(v, func(a, b sessions.Label) int {
			switch {
			case a.Annotator < b.Annotator:
				return -1
			case a.Annotator > b.Annotator:
				return 1
			}
			return 0
		})
	}
	return out
}

// Every value of every scale comes back as given, and shows as the
// screen shows it; what a record cannot point to (a value among more
// than 65,534, an action id past 2³², a kind among more than 65,534)
// comes back too.
func TestOtherLabelsValues(t *testing.T) {
	for _, tc := range []struct {
		scale judge.Scale
		shown []string // per value of the scale, in order
	}{
		{judge.Binary, []string{"NO", "YES"}},
		{judge.Ternary, []string{"0", "0.5", "1"}},
		{judge.Likert, []string{"1", "2", "3", "4", "5"}},
		{"ordinal:0-3:none,some,most,all", []string{"0", "1", "2", "3"}},
		{"nominal:CORRECT,INCORRECT,NOT_ATTEMPTED", []string{"CORRECT", "INCORRECT", "NOT_ATTEMPTED"}},
		{judge.Pairwise, []string{"A", "tie", "B"}},
		{judge.PairwiseNoTie, []string{"A", "B"}},
	} {
		t.Run(string(tc.scale), func(t *testing.T) {
			values := tc.scale.Values()
			if len(values) != len(tc.shown) {
				t.Fatalf("%d values, %d shown", len(values), len(tc.shown))
			}
			items := testItems(len(values))
			index := newItemIndex(len(items))
			index.add(items)
			var ls []sessions.Label
			for i, v := range values {
				ls = append(ls, sessions.Label{ItemID: items[i].ID, Dimension: "d", Annotator: "ana", Via: sessions.ViaImported, Value: v, ActionID: int64(i + 1)})
			}
			o := OtherLabelsOf(ls).place(nil, index)
			for i, v := range values {
				got := o.on(i, nil)
				if len(got) != 1 || got[0] != ls[i] {
					t.Fatalf("on(%d) = %+v, want %+v", i, got, ls[i])
				}
				if s := formatValue(tc.scale, got[0].Value); s != tc.shown[i] {
					t.Errorf("value %v shows as %q, want %q", v, s, tc.shown[i])
				}
			}
		})
	}

	wide := []struct {
		name   string
		labels func(items []judge.Item) []sessions.Label
	}{
		{"values of no scale, NaN and -0", func(items []judge.Item) []sessions.Label {
			var ls []sessions.Label
			for i, v := range []float64{0.1, -7, 1e300, math.NaN(), math.Copysign(0, -1), 0, math.Inf(1), 3.25} {
				ls = append(ls, sessions.Label{ItemID: items[i].ID, Dimension: "score", Annotator: "ana", Value: v})
			}
			return ls
		}},
		{"action ids past 32 bits and below 0", func(items []judge.Item) []sessions.Label {
			var ls []sessions.Label
			for i, a := range []int64{0, 1, math.MaxUint32, math.MaxUint32 + 1, math.MaxInt64, -1} {
				ls = append(ls, sessions.Label{ItemID: items[i].ID, Dimension: "correct", Annotator: "ana", Value: 1, ActionID: a})
			}
			return ls
		}},
		{"more values than a record points to", func(items []judge.Item) []sessions.Label {
			var ls []sessions.Label
			for i := range 70_000 {
				ls = append(ls, sessions.Label{ItemID: items[i%len(items)].ID, Dimension: "score", Annotator: fmt.Sprint("p", i/len(items)), Value: float64(i) / 3, ActionID: int64(i)})
			}
			return ls
		}},
		{"more kinds than a record points to", func(items []judge.Item) []sessions.Label {
			var ls []sessions.Label
			for i := range 70_000 {
				ls = append(ls, sessions.Label{ItemID: items[i%len(items)].ID, Criterion: i, Dimension: "correct", Annotator: fmt.Sprint("p", i/len(items)), Via: "v", Value: float64(i % 2), ActionID: int64(i)})
			}
			return ls
		}},
	}
	for _, tc := range wide {
		t.Run(tc.name, func(t *testing.T) {
			items := testItems(10)
			index := newItemIndex(len(items))
			index.add(items)
			ls := tc.labels(items)
			o := OtherLabelsOf(ls).place(nil, index)
			want := oldOtherLabels(ls, nil, index)
			n := 0
			for i := range items {
				got := o.on(i, nil)
				n += len(got)
				if len(got) != len(want[i]) {
					t.Fatalf("on(%d): %d labels, want %d", i, len(got), len(want[i]))
				}
				for k := range got {
					g, w := got[k], want[i][k]
					same := g.ItemID == w.ItemID && g.Annotator == w.Annotator && g.Criterion == w.Criterion && g.Dimension == w.Dimension &&
						g.Via == w.Via && g.ActionID == w.ActionID && math.Float64bits(g.Value) == math.Float64bits(w.Value)
					if !same {
						t.Fatalf("on(%d)[%d] = %+v, want %+v", i, k, g, w)
					}
				}
			}
			if n != len(ls) {
				t.Errorf("%d labels read back, %d given", n, len(ls))
			}
		})
	}
}

// A label placed takes a record of 12 bytes.
func TestOtherRecSize(t *testing.T) {
	if n := unsafe.Sizeof(otherRec{}); n != 12 {
		t.Errorf("a record is %d bytes, want 12", n)
	}
}
