package tui

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/gavel-dev/gavel/sessions"
)

// The other annotators' current labels are held as 12-byte records in
// item order (otherRec), their annotator, criterion, dimension and via
// as one of a few kinds and their value as one of a few values, each
// kept once (labelTable): a million imported labels took ~130 MB as
// sessions.Labels, and another ~115 MB while a copy was indexed; now 12
// MB. The screen reads back what it shows and compares of a label
// (otherLabels.on): its item, annotator, criterion, dimension, value,
// via and action id, not its time or whether it was accepted.

// otherRec is one other annotator's label.
type otherRec struct {
	// pos is the item's position among the screen's items (while the
	// labels are not yet placed, OtherLabels.ends' index of its id).
	pos int32
	// act is the label's action id; when val is wideVal, the index of
	// the label's kind, value and action id in labelTable.wide.
	act uint32
	// kind is the index in labelTable.kinds.
	kind uint16
	// val is the index of the value in labelTable.values, or wideVal.
	val uint16
}

// wideVal marks a record whose kind, value or action id does not fit it
// (more than 65,534 kinds or values, an action id past 2³²): they are in
// labelTable.wide.
const wideVal = math.MaxUint16

// labelKind is what a label shares with many others.
type labelKind struct {
	annotator, dimension, via string
	criterion                 int
}

// wideLabel is what a record with val wideVal stands for.
type wideLabel struct {
	kind   int
	value  float64
	action int64
}

// labelTable holds what the records point to. The maps find a kind or a
// value while labels are added, and are dropped once they are placed.
type labelTable struct {
	kinds  []labelKind
	values []float64
	wide   []wideLabel

	kindAt   map[labelKind]int
	valueAt  map[uint64]int // by the value's bits: NaN and -0 as given
	lastKind int            // the kind of the label added last, -1 none
}

// kindOf is the index of l's kind, added when new.
func (t *labelTable) kindOf(l sessions.Label) int {
	k := labelKind{annotator: l.Annotator, dimension: l.Dimension, via: l.Via, criterion: l.Criterion}
	if t.lastKind >= 0 && t.lastKind < len(t.kinds) && t.kinds[t.lastKind] == k {
		return t.lastKind
	}
	i, ok := t.kindAt[k]
	if !ok {
		if t.kindAt == nil {
			t.kindAt = map[labelKind]int{}
		}
		i = len(t.kinds)
		t.kinds = append(t.kinds, k)
		t.kindAt[k] = i
	}
	t.lastKind = i
	return i
}

// valueOf is the index of v among the values, added when new; false when
// the table holds as many as a record can point to.
func (t *labelTable) valueOf(v float64) (uint16, bool) {
	b := math.Float64bits(v)
	if i, ok := t.valueAt[b]; ok {
		return uint16(i), true
	}
	if len(t.values) >= wideVal {
		return 0, false
	}
	if t.valueAt == nil {
		t.valueAt = map[uint64]int{}
	}
	t.values = append(t.values, v)
	t.valueAt[b] = len(t.values) - 1
	return uint16(len(t.values) - 1), true
}

// rec is the record of l on the item pos.
func (t *labelTable) rec(pos int32, l sessions.Label) otherRec {
	kind := t.kindOf(l)
	val, ok := t.valueOf(l.Value)
	if ok && kind < wideVal && l.ActionID >= 0 && l.ActionID <= math.MaxUint32 {
		return otherRec{pos: pos, act: uint32(l.ActionID), kind: uint16(kind), val: val}
	}
	t.wide = append(t.wide, wideLabel{kind: kind, value: l.Value, action: l.ActionID})
	return otherRec{pos: pos, act: uint32(len(t.wide) - 1), val: wideVal}
}

// kind is r's kind.
func (t *labelTable) kind(r otherRec) *labelKind {
	if r.val == wideVal {
		return &t.kinds[t.wide[r.act].kind]
	}
	return &t.kinds[r.kind]
}

// label is the label r stands for, on the item with id itemID.
func (t *labelTable) label(r otherRec, itemID string) sessions.Label {
	k := t.kind(r)
	l := sessions.Label{ItemID: itemID, Criterion: k.criterion, Dimension: k.dimension, Annotator: k.annotator, Via: k.via}
	if r.val == wideVal {
		w := t.wide[r.act]
		l.Value, l.ActionID = w.value, w.action
	} else {
		l.Value, l.ActionID = t.values[r.val], int64(r.act)
	}
	return l
}

// OtherLabels are other annotators' current labels on their way to the
// review screen (Options.OthersLater, Arrivals.Others): each with its
// item's id, not yet placed on the screen's items, about 16 bytes a label
// where a sessions.Label takes ~130. The screen takes them over: once
// placed, the value is empty. Its Add fits
// sessions.Store.LabelsExceptEach.
type OtherLabels struct {
	tab  *labelTable
	recs []otherRec // pos: the index in ends of the label's item id
	// ids are the labels' item ids one after the other, one for each
	// run of labels on the same item; ids[ends[k-1]:ends[k]] is the
	// k-th (from 0 for the first).
	ids  []byte
	ends []int
}

// OtherLabelsOf is ls as OtherLabels (ls is left as it was).
func OtherLabelsOf(ls []sessions.Label) *OtherLabels {
	o := &OtherLabels{}
	for _, l := range ls {
		o.add(l.ItemID, l)
	}
	return o
}

// Add adds l, a label on the item whose id is itemID (l.ItemID is not
// read). Labels are best added in item order, as the session reads them:
// each one's item is then found at once. The error is always nil.
func (o *OtherLabels) Add(itemID []byte, l sessions.Label) error {
	addOther(o, itemID, l)
	return nil
}

// add is Add of a string id.
func (o *OtherLabels) add(itemID string, l sessions.Label) { addOther(o, itemID, l) }

// addOther is Add for an item id read as bytes or held as a string: a
// label on the item of the last one joins its run, another starts one.
func addOther[ID string | []byte](o *OtherLabels, itemID ID, l sessions.Label) {
	k := len(o.ends) - 1
	if k < 0 || string(o.id(k)) != string(itemID) {
		o.ids = append(o.ids, itemID...)
		o.ends = append(o.ends, len(o.ids))
		k++
	}
	o.put(k, l)
}

func (o *OtherLabels) put(k int, l sessions.Label) {
	if o.tab == nil {
		o.tab = &labelTable{lastKind: -1}
	}
	o.recs = append(o.recs, o.tab.rec(int32(k), l))
}

// id is the k-th item id.
func (o *OtherLabels) id(k int) []byte {
	from := 0
	if k > 0 {
		from = o.ends[k-1]
	}
	return o.ids[from:o.ends[k]]
}

// Len is the number of labels.
func (o *OtherLabels) Len() int {
	if o == nil {
		return 0
	}
	return len(o.recs)
}

// eachItem calls f with the id of each item the labels are on (once or
// more), valid during the call.
func (o *OtherLabels) eachItem(f func(id []byte)) {
	if o == nil {
		return
	}
	for k := range o.ends {
		f(o.id(k))
	}
}

// otherLabels indexes other annotators' labels by item: their records in
// item order, then by annotator (in the order read otherwise).
type otherLabels struct {
	recs  []otherRec
	tab   *labelTable
	index *itemIndex // the items, for the labels' item ids
}

// place puts the labels on the items of index, leaving out those of an
// unknown item and those of an annotator on an item they marked can't
// judge (cantJudge): such an item is left out of every agreement figure
// between people, and its labels (made before the can't judge, or on
// another judge's rows) are not that person's judgement of it. The
// records become the result's, and o is left empty.
func (o *OtherLabels) place(cantJudge []sessions.CantJudge, index *itemIndex) otherLabels {
	if o == nil || len(o.recs) == 0 {
		if o != nil {
			*o = OtherLabels{}
		}
		return otherLabels{}
	}
	type who struct {
		item      int32
		annotator string
	}
	var cannot map[who]bool
	for _, c := range cantJudge {
		if i, ok := index.at(c.ItemID); ok {
			if cannot == nil {
				cannot = map[who]bool{}
			}
			cannot[who{int32(i), c.Annotator}] = true
		}
	}
	t := o.tab
	kept := o.recs[:0]
	// Labels come mostly in item order (an import's, one annotator's):
	// the item after the last one found is tried before the index, whose
	// lookups of a million ids were most of this on the loop.
	next, last, pos := 0, int32(-1), int32(-1)
	for _, r := range o.recs {
		if r.pos != last {
			last, pos = r.pos, -1
			id := o.id(int(r.pos))
			i, ok := next, next < len(index.items) && index.items[next].ID == string(id)
			if !ok {
				i, ok = index.at(string(id))
			}
			if ok {
				pos, next = int32(i), i+1
			}
		}
		if pos < 0 || cannot != nil && cannot[who{pos, t.kind(r).annotator}] {
			continue
		}
		r.pos = pos
		kept = append(kept, r)
	}
	*o = OtherLabels{}
	if len(kept) == 0 {
		return otherLabels{}
	}
	if cap(kept)-len(kept) > len(kept)/8 {
		kept = slices.Clone(kept) // the room appends left, or labels left out
	}
	t.kindAt, t.valueAt = nil, nil
	// By item, then annotator, each item's labels otherwise in the order
	// read: sorted already when read in item order and one annotator's.
	byItem := func(a, b otherRec) int {
		if c := cmp.Compare(a.pos, b.pos); c != 0 {
			return c
		}
		return strings.Compare(t.kind(a).annotator, t.kind(b).annotator)
	}
	if !slices.IsSortedFunc(kept, byItem) {
		slices.SortStableFunc(kept, byItem)
	}
	return otherLabels{recs: kept, tab: t, index: index}
}

// placeOthers makes others (placed on the items, as OtherLabels.place)
// the other annotators' labels on screen.
func (w *workspace) placeOthers(others *OtherLabels, cantJudge []sessions.CantJudge) {
	w.others = others.place(cantJudge, w.index)
	w.othersGen++
}

// any reports whether anybody else has labelled anything.
func (o otherLabels) any() bool { return len(o.recs) > 0 }

// count is the number of labels.
func (o otherLabels) count() int { return len(o.recs) }

// items calls yield with the position of each item somebody else has
// labelled, once, in order.
func (o otherLabels) items(yield func(int) bool) {
	for k, r := range o.recs {
		if (k == 0 || o.recs[k-1].pos != r.pos) && !yield(int(r.pos)) {
			return
		}
	}
}

// on appends to buf the other annotators' labels on an item, by
// annotator, and returns it: a caller's array of a few holds an item's
// labels without allocating.
func (o otherLabels) on(item int, buf []sessions.Label) []sessions.Label {
	if item < 0 || item > math.MaxInt32 || len(o.recs) == 0 {
		return buf
	}
	p := int32(item)
	from, found := slices.BinarySearchFunc(o.recs, p, func(r otherRec, p int32) int { return cmp.Compare(r.pos, p) })
	if !found {
		return buf
	}
	id := o.index.items[item].ID
	for k := from; k < len(o.recs) && o.recs[k].pos == p; k++ {
		buf = append(buf, o.tab.label(o.recs[k], id))
	}
	return buf
}
