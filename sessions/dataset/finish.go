package dataset

import (
	"fmt"
	"sort"
)

// finish turns the filled slots into the dataset: fails on the first bad
// row unless bad rows are skipped, makes harness ids unique per filter,
// refuses (or skips) duplicate ids, and packs the items in file order.
func (l *loader) finish() error {
	if l.bad.count > 0 && !l.opts.SkipBad {
		return fmt.Errorf("%w%s", l.bad.first[0], skipHint)
	}
	if l.harness {
		l.harnessIDs()
	}
	if l.plan.id != nil {
		l.checkDuplicateIDs()
		if l.bad.count > 0 && !l.opts.SkipBad {
			return fmt.Errorf("%w%s", l.bad.first[0], skipHint)
		}
	}
	l.compact()
	ds := l.ds
	if len(l.items) == 0 {
		if l.bad.count > 0 {
			return fmt.Errorf("%s: no row could be read: all %d rows are bad; the first: %v", l.name, l.bad.count, l.bad.first[0])
		}
		return fmt.Errorf("%s is empty: there are no rows to load", l.name)
	}
	ds.Items = l.items
	for c := range ds.Imported {
		ds.Imported[c].Values = l.cols[c]
	}
	ds.Skipped = l.bad.count
	sort.SliceStable(l.bad.first, func(i, j int) bool { return l.bad.first[i].Line < l.bad.first[j].Line })
	for _, e := range l.bad.first {
		ds.SkippedSamples = append(ds.SkippedSamples, e.Error())
	}
	return nil
}

// checkDuplicateIDs marks every row whose id an earlier row has as bad.
func (l *loader) checkDuplicateIDs() {
	seen := make(map[string]int32, len(l.items))
	for slot := range l.items {
		loc := l.locs[slot]
		if loc.line == 0 {
			continue
		}
		id := l.items[slot].ID
		prev, dup := seen[id]
		if !dup {
			seen[id] = int32(slot)
			continue
		}
		where := fmt.Sprintf("line %d", l.locs[prev].line)
		if loc.elem >= 0 {
			where = fmt.Sprintf("element [%d] on line %d", l.locs[prev].elem, l.locs[prev].line)
		}
		l.bad.add(&RowError{File: l.name, Line: int(loc.line), Element: int(loc.elem),
			Msg: fmt.Sprintf("duplicate id %s (%s has it too): ids must be unique; map a unique field with --map id=FIELD, or number the rows with --map id=", quoteName(id), where)})
		l.clearSlot(slot)
		if !l.opts.SkipBad {
			return
		}
	}
}

// harnessIDs appends the filter to the ids when a harness file holds
// several filters, since it then has one row per document and filter.
func (l *loader) harnessIDs() {
	if l.plan.id == nil || l.ds.Mapping[RoleID] != "doc_id" {
		return
	}
	filters := map[string]bool{}
	for slot := range l.items {
		if l.locs[slot].line != 0 {
			filters[l.items[slot].Segments["filter"]] = true
		}
	}
	if len(filters) < 2 {
		return
	}
	for slot := range l.items {
		if l.locs[slot].line != 0 {
			it := &l.items[slot]
			it.ID += "/" + it.Segments["filter"]
		}
	}
	l.ds.Warnings = append(l.ds.Warnings, fmt.Sprintf("%s holds %d filters, one row per document and filter: ids are doc_id/filter", l.name, len(filters)))
}

// compact packs the filled slots to the front, in order, and numbers them.
func (l *loader) compact() {
	w := 0
	for r := range l.items {
		if l.locs[r].line == 0 {
			continue
		}
		if w != r {
			l.items[w], l.locs[w] = l.items[r], l.locs[r]
			for _, c := range l.cols {
				c[w] = c[r]
			}
		}
		l.items[w].Index = w
		w++
	}
	clear(l.items[w:])
	l.items, l.locs = l.items[:w], l.locs[:w]
	for i, c := range l.cols {
		clear(c[w:])
		l.cols[i] = c[:w]
	}
}
