package tui

import (
	"sort"

	"github.com/gavel-dev/gavel/sessions"
)

// otherLabels indexes other annotators' labels by item.
type otherLabels struct {
	byItem map[int][]sessions.Label
}

// newOtherLabels indexes the labels ls, leaving out those of an annotator
// on an item they marked can't judge (cantJudge): such an item is left out
// of every agreement figure between people, and its labels (made before
// the can't judge, or on another judge's rows) are not that person's
// judgement of it.
func newOtherLabels(ls []sessions.Label, cantJudge []sessions.CantJudge, index *itemIndex) otherLabels {
	o := otherLabels{byItem: map[int][]sessions.Label{}}
	type who struct{ item, annotator string }
	cannot := make(map[who]bool, len(cantJudge))
	for _, c := range cantJudge {
		cannot[who{c.ItemID, c.Annotator}] = true
	}
	for _, l := range ls {
		if cannot[who{l.ItemID, l.Annotator}] {
			continue
		}
		if i, ok := index.at(l.ItemID); ok {
			o.byItem[i] = append(o.byItem[i], l)
		}
	}
	for _, ls := range o.byItem {
		sort.SliceStable(ls, func(a, b int) bool { return ls[a].Annotator < ls[b].Annotator })
	}
	return o
}

// any reports whether anybody else has labelled anything.
func (o otherLabels) any() bool { return len(o.byItem) > 0 }

// on returns the other annotators' labels on an item.
func (o otherLabels) on(item int) []sessions.Label { return o.byItem[item] }
