package tui

import (
	"slices"
	"testing"

	"github.com/gavel-dev/gavel/sessions"
)

// The others' labels are found by item, each item's by annotator (in
// the order read otherwise), without those of an item the annotator
// could not judge or of an unknown item, whatever the order they come
// in; indexed in place, they are the same.
func TestOtherLabelsByItem(t *testing.T) {
	items := testItems(5)
	index := newItemIndex(len(items))
	index.add(items)
	l := func(item int, who string, crit int, x float64) sessions.Label {
		return sessions.Label{ItemID: items[item].ID, Annotator: who, Criterion: crit, Dimension: "correct", Value: x}
	}
	inOrder := []sessions.Label{l(0, "ana", 0, 1), l(0, "bo", 0, 0), l(0, "ana", 1, 1), l(2, "cy", 0, 1), l(2, "bo", 0, 0), l(4, "ana", 0, 1),
		{ItemID: "unknown", Annotator: "ana", Dimension: "correct"}}
	reversed := slices.Clone(inOrder)
	slices.Reverse(reversed)
	cant := []sessions.CantJudge{{ItemID: items[2].ID, Annotator: "cy"}}
	for _, tc := range []struct {
		name string
		ls   []sessions.Label
		cant []sessions.CantJudge
	}{{"in order", inOrder, nil}, {"reversed", reversed, nil}, {"a can't judge", inOrder, cant}, {"none", nil, nil}} {
		want := oldOtherLabels(tc.ls, tc.cant, index)
		for _, own := range []bool{false, true} {
			in := slices.Clone(tc.ls)
			o := newOthers(in, tc.cant, index, own)
			if !own && !slices.Equal(in, tc.ls) {
				t.Errorf("%s: the caller's labels changed", tc.name)
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
				if g := o.on(i); !slices.Equal(g, want[i]) {
					t.Errorf("%s (own %v): on(%d) = %+v, want %+v", tc.name, own, i, g, want[i])
				}
			}
			if !slices.Equal(got, wantItems) {
				t.Errorf("%s: items %v, want %v", tc.name, got, wantItems)
			}
		}
	}
}

// oldOtherLabels is how newOtherLabels indexed the labels before: a map
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
