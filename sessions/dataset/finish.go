package dataset

import (
	"cmp"
	"fmt"
	"hash/maphash"
	"slices"
	"sort"
)

// finish turns the filled slots into the dataset: fails on the first bad
// row unless bad rows are skipped, makes harness ids unique per filter,
// refuses (or skips) duplicate ids, and packs the items in file order.
func (l *loader) finish() error {
	if err := l.stopped(); err != nil {
		return err
	}
	if l.harness {
		l.harnessIDs()
	}
	if err := l.checkIDs(); err != nil {
		return err
	}
	l.compact()
	return l.publish()
}

// stopped is the error of a load stopped by a bad row, nil when none
// stopped it.
func (l *loader) stopped() error {
	if l.bad.count > 0 && !l.opts.SkipBad {
		return fmt.Errorf("%w%s", l.bad.first[0], skipHint)
	}
	return nil
}

// checkIDs refuses (or, with SkipBad, marks bad) the rows whose id an
// earlier row has.
func (l *loader) checkIDs() error {
	if l.plan.id == nil {
		return nil
	}
	l.checkDuplicateIDs()
	return l.stopped()
}

// publish hands the packed items, their imported values and the bad rows
// skipped to the dataset.
func (l *loader) publish() error {
	ds := l.ds
	if len(l.items) == 0 {
		if l.bad.count > 0 {
			return allBad(l.name, l.bad.count, l.bad.first[0])
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

// allBad is the error for a file none of whose rows could be read.
func allBad(name string, rows int, first error) error {
	if rows == 1 {
		return fmt.Errorf("%s: no row could be read: its only row is bad: %v", name, first)
	}
	return fmt.Errorf("%s: no row could be read: %s; the first: %v", name, everyRowBad(rows), first)
}

// checkDuplicateIDs marks every row whose id an earlier row has as bad.
// It sorts hashes of the ids rather than filling a map: for a million rows
// that is faster and needs a fraction of the memory.
func (l *loader) checkDuplicateIDs() {
	type entry struct {
		hash uint64
		slot int32
	}
	seed := maphash.MakeSeed()
	es := make([]entry, 0, len(l.items))
	for slot := range l.items {
		if l.locs[slot].line != 0 {
			es = append(es, entry{maphash.String(seed, l.items[slot].ID), int32(slot)})
		}
	}
	slices.SortFunc(es, func(a, b entry) int {
		if c := cmp.Compare(a.hash, b.hash); c != 0 {
			return c
		}
		return cmp.Compare(a.slot, b.slot)
	})
	var dups [][2]int32 // {duplicate slot, first slot with that id}
	for i := 0; i < len(es); {
		j := i + 1
		for j < len(es) && es[j].hash == es[i].hash {
			j++
		}
		// Within a run of equal hashes (almost always one id), each row
		// is a duplicate of the first earlier row with the same id.
		for k := i + 1; k < j; k++ {
			for f := i; f < k; f++ {
				if l.items[es[f].slot].ID == l.items[es[k].slot].ID {
					dups = append(dups, [2]int32{es[k].slot, es[f].slot})
					break
				}
			}
		}
		i = j
	}
	slices.SortFunc(dups, func(a, b [2]int32) int { return cmp.Compare(a[0], b[0]) })
	for _, d := range dups {
		slot, prev := d[0], d[1]
		loc := l.locs[slot]
		where := fmt.Sprintf("line %d", l.locs[prev].line)
		if loc.elem >= 0 {
			where = fmt.Sprintf("element [%d] on line %d", l.locs[prev].elem, l.locs[prev].line)
		}
		l.bad.add(&RowError{File: l.name, Line: int(loc.line), Element: int(loc.elem),
			Msg: fmt.Sprintf("duplicate id %s (%s has it too): ids must be unique; map a unique field with --map id=FIELD, or number the rows with --map id=", quoteName(l.items[slot].ID), where)})
		if !l.opts.SkipBad {
			return
		}
	}
	for _, d := range dups {
		l.clearSlot(int(d[0]))
	}
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

// everyRowBad says that every row is bad: "the only row is bad", "all 3
// rows are bad".
func everyRowBad(rows int) string {
	if rows == 1 {
		return "the only row is bad"
	}
	return fmt.Sprintf("all %d rows are bad", rows)
}
