package tui

import (
	"sort"

	"github.com/gavel-dev/gavel/sessions"
)

// otherLabels indexes other annotators' labels by item.
type otherLabels struct {
	byItem map[int][]sessions.Label
}

func newOtherLabels(ls []sessions.Label, index *itemIndex) otherLabels {
	o := otherLabels{byItem: map[int][]sessions.Label{}}
	for _, l := range ls {
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
