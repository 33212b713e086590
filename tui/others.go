package tui

import (
	"cmp"
	"slices"
	"strings"

	"github.com/gavel-dev/gavel/sessions"
)

// otherLabels indexes other annotators' labels by item: one slice of
// them in item order (then by annotator), with each label's item
// position beside it, rather than a map of a slice per item (a million
// imported labels took ~180 MB so, besides the labels). The labels'
// item ids are the items' own strings, and their annotator, dimension
// and via strings are shared: the store reads a string of each per
// label.
type otherLabels struct {
	labels []sessions.Label
	pos    []int32 // labels[k]'s item position, ascending
}

// newOtherLabels indexes the labels ls, leaving out those of an annotator
// on an item they marked can't judge (cantJudge): such an item is left out
// of every agreement figure between people, and its labels (made before
// the can't judge, or on another judge's rows) are not that person's
// judgement of it. ls is left as it was (newOwnOtherLabels reuses it).
func newOtherLabels(ls []sessions.Label, cantJudge []sessions.CantJudge, index *itemIndex) otherLabels {
	return newOwnOtherLabels(slices.Clone(ls), cantJudge, index)
}

// newOthers is newOwnOtherLabels with own set, else newOtherLabels.
func newOthers(ls []sessions.Label, cantJudge []sessions.CantJudge, index *itemIndex, own bool) otherLabels {
	if own {
		return newOwnOtherLabels(ls, cantJudge, index)
	}
	return newOtherLabels(ls, cantJudge, index)
}

// sharedStrings is how many distinct annotator, dimension and via
// strings newOwnOtherLabels shares; others are kept as read.
const sharedStrings = 4096

// newOwnOtherLabels is newOtherLabels indexing ls in place: ls is no
// longer the caller's.
func newOwnOtherLabels(ls []sessions.Label, cantJudge []sessions.CantJudge, index *itemIndex) otherLabels {
	type who struct{ item, annotator string }
	cannot := make(map[who]bool, len(cantJudge))
	for _, c := range cantJudge {
		cannot[who{c.ItemID, c.Annotator}] = true
	}
	strs := map[string]string{}
	share := func(s string) string {
		if t, ok := strs[s]; ok {
			return t
		}
		if len(strs) < sharedStrings {
			strs[s] = s
		}
		return s
	}
	o := otherLabels{pos: make([]int32, 0, len(ls))}
	kept := ls[:0]
	next := 0 // where the label after one in item order would be
	for _, l := range ls {
		if len(cannot) > 0 && cannot[who{l.ItemID, l.Annotator}] {
			continue
		}
		// Labels come mostly in item order (an import's, one annotator's):
		// the item after the last one found is tried before the index,
		// whose lookups of a million ids were most of this on the loop.
		i, ok := next, next < len(index.items) && index.items[next].ID == l.ItemID
		if !ok {
			if i, ok = index.at(l.ItemID); !ok {
				continue
			}
		}
		next = i + 1
		l.ItemID = index.items[i].ID
		l.Annotator, l.Dimension, l.Via = share(l.Annotator), share(l.Dimension), share(l.Via)
		kept = append(kept, l)
		o.pos = append(o.pos, int32(i))
	}
	clear(ls[len(kept):])
	if len(kept) == 0 {
		return otherLabels{}
	}
	o.labels = kept
	// By item, then annotator, each item's labels otherwise in the
	// order read: sorted already when read in item order and one
	// annotator's.
	byItem := func(a, b int) int {
		if c := cmp.Compare(o.pos[a], o.pos[b]); c != 0 {
			return c
		}
		return strings.Compare(o.labels[a].Annotator, o.labels[b].Annotator)
	}
	sorted := true
	for k := 1; k < len(kept) && sorted; k++ {
		sorted = byItem(k-1, k) <= 0
	}
	if !sorted {
		perm := make([]int, len(kept))
		for k := range perm {
			perm[k] = k
		}
		slices.SortStableFunc(perm, byItem)
		labels, pos := make([]sessions.Label, len(kept)), make([]int32, len(kept))
		for k, p := range perm {
			labels[k], pos[k] = kept[p], o.pos[p]
		}
		o.labels, o.pos = labels, pos
	}
	return o
}

// any reports whether anybody else has labelled anything.
func (o otherLabels) any() bool { return len(o.labels) > 0 }

// items calls yield with the position of each item somebody else has
// labelled, once, in order.
func (o otherLabels) items(yield func(int) bool) {
	for k, p := range o.pos {
		if (k == 0 || o.pos[k-1] != p) && !yield(int(p)) {
			return
		}
	}
}

// on returns the other annotators' labels on an item (the caller does
// not change them).
func (o otherLabels) on(item int) []sessions.Label {
	from, _ := slices.BinarySearch(o.pos, int32(item))
	to := from
	for to < len(o.pos) && o.pos[to] == int32(item) {
		to++
	}
	if from == to {
		return nil
	}
	return o.labels[from:to:to]
}
