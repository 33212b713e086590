package sessions

import (
	"fmt"
	"iter"
	"math"
	"slices"
)

// LabelKey names one label of an annotator: a dimension of an item, for
// the whole item (Criterion 0) or for rubric criterion k. The key with an
// empty Dimension names the item's note (see NoteKey); labels always have
// a dimension.
type LabelKey struct {
	ItemID    string
	Criterion int
	Dimension string
}

// NoteKey is the key of an item's note, as Undo reports it.
func NoteKey(itemID string) LabelKey { return LabelKey{ItemID: itemID} }

// Keys Undo reports for the kinds that are neither labels nor notes: a
// negative criterion, which no label or note has.
const (
	cantJudgeCriterion = -1
	tagCriterion       = -2
	retestCriterion    = -3
)

// CantJudgeKey is the key Undo reports for an item's can't-judge.
func CantJudgeKey(itemID string) LabelKey {
	return LabelKey{ItemID: itemID, Criterion: cantJudgeCriterion}
}

// TagKey is the key Undo reports for a failure tag on an item.
func TagKey(itemID, tag string) LabelKey {
	return LabelKey{ItemID: itemID, Criterion: tagCriterion, Dimension: tag}
}

// RetestKey is the key Undo reports for an item's re-test (its labels
// and can't-judge made as a re-test).
func RetestKey(itemID string) LabelKey {
	return LabelKey{ItemID: itemID, Criterion: retestCriterion}
}

// IsNote reports whether k names a note rather than a label.
func (k LabelKey) IsNote() bool { return k.Dimension == "" && k.Criterion == 0 }

// LabelState is one annotator's current labels, notes, can't-judges,
// failure tags and re-tests, derived from their actions by the same rules
// as the current_labels, current_notes, current_cant_judge and
// current_tags views, and the store's Undo:
//
//   - an action counts unless it is an undo row or an undo row cancels it
//     (wherever that undo row is in the history);
//   - a label's current value is the latest label or accept that counts on
//     its (item, criterion, dimension), an accept marking it Accepted; a
//     re-test (Action.Retest) never changes it (RetestLabel has it);
//   - an item's current note is the latest note that counts on the item,
//     whatever its criterion and dimension; an empty note clears it;
//   - an item is can't-judge when the latest label, accept or cant_judge
//     that counts on it (re-tests apart) is a cant_judge;
//   - a failure tag is on an item when the latest tag action that counts
//     on (item, tag) put it on;
//   - Undo takes back the latest group (key press) that still counts, all
//     of it, and so brings back on each key the value it had before; undo
//     rows are not undoable.
//
// It is the one place Go code derives current labels: the review screen
// keeps one for its annotator, applying a key press before the store has
// committed it, and replays it from the store's history when it opens.
// The zero value is an empty state, ready to use. It is not safe for
// concurrent use.
//
// Memory: about 110–150 bytes per label (most of it the map from keys),
// 24 more per further action that counts; an item id is kept once per
// key, not per action. RetestsDue, when called, keeps about 60 bytes per
// labelled item more.
type LabelState struct {
	dims    []string          // interned dimension names
	dimIdx  map[string]uint32 // name -> 1 + index in dims
	lastDim uint32            // the last one interned
	tagIdx  map[string]uint32 // tag name -> 1 + index in tagName
	tagName []string
	index   map[stateKey]int32
	keys    []stateKey   // every key ever set, in first-use order
	tops    []int32      // per key: 1 + index in entries of its current action; 0 when none
	entries []stateEntry // the actions that count, oldest first
	texts   []string     // note and can't-judge texts, in the order of their entries
	groups  []int32      // index in entries where each group starts
	// decided[g] counts the groups up to g (included) that hold a
	// decision: a label, accept or cant_judge, re-tests included.
	decided []int32
	nLabels int // keys with a current label (notes apart)

	itemTags map[string][]uint32 // the tags ever set on an item
	due      retestMemo          // what RetestsDue keeps between calls
}

// stateKey is a LabelKey with its dimension interned: dim is 1 + the
// index in dims, 0 for the note. The keys of the other kinds (keyKind)
// are told apart by a negative crit, which no label or note has, or, for
// a re-test label, by dim's top bit: the key stays 24 bytes, a third of
// the state's memory being the map from keys.
type stateKey struct {
	item string
	crit int32
	dim  uint32 // for keyTag: 1 + the index in tagName
}

// keyKind is what a stateKey tracks.
type keyKind uint8

const (
	keyLabel    keyKind = iota // a label (dim > 0) or the item's note (dim 0)
	keyDecision                // the item's decisions, once it has had a can't-judge
	keyTag                     // a failure tag on the item
	keyRetest                  // a re-test label of (item, crit, dim)
	keyRetested                // the item's re-test actions of every kind
)

// retestBit marks a re-test label's key in its dim.
const retestBit = 1 << 31

// newKey returns the key of kind for item; crit and dim are the label's
// (keyLabel, keyRetest) or the tag's (keyTag, dim only).
func newKey(item string, kind keyKind, crit int32, dim uint32) stateKey {
	switch kind {
	case keyRetest:
		dim |= retestBit
	case keyDecision:
		crit, dim = cantJudgeCriterion, 0
	case keyTag:
		crit = tagCriterion
	case keyRetested:
		crit, dim = retestCriterion, 0
	}
	return stateKey{item: item, crit: crit, dim: dim}
}

// kind says what the key tracks.
func (k stateKey) kind() keyKind {
	switch {
	case k.crit == cantJudgeCriterion:
		return keyDecision
	case k.crit == tagCriterion:
		return keyTag
	case k.crit == retestCriterion:
		return keyRetested
	case k.dim&retestBit != 0:
		return keyRetest
	}
	return keyLabel
}

// stateEntry is one action that counts.
type stateEntry struct {
	value float64 // the label; for a note or a can't-judge, the index of its text in texts
	key   int32   // index in keys
	prev  int32   // the key's previous top (1 + index in entries; 0 for none)
	// guide is the guidelines version the action was made under (0 none).
	guide    int32
	accepted bool
	// reason, on keyDecision, is 1 + the index in CantJudgeReasons for a
	// can't-judge, 0 for a label or accept.
	reason uint8
}

// ReplayLabels derives the state from one annotator's history, oldest
// first, as Store.Actions(annotator) returns it: undo rows included, each
// action's ID and Group set. A group's actions are consecutive in the
// history, as the store writes them. Actions no store would hold (an
// unknown kind, a label without a dimension, a criterion out of range) are
// left out.
func ReplayLabels(history []Action) *LabelState {
	s := &LabelState{}
	var undone map[int64]struct{}
	n := 0
	for _, a := range history {
		if a.Kind == KindUndo && a.Undoes != 0 {
			if undone == nil {
				undone = map[int64]struct{}{}
			}
			undone[a.Undoes] = struct{}{}
		} else if a.Kind != KindUndo {
			n++
		}
	}
	s.entries = make([]stateEntry, 0, max(n-len(undone), 0))
	var group int64
	for _, a := range history {
		if !replayable(a) {
			continue
		}
		if _, ok := undone[a.ID]; ok && a.ID != 0 {
			continue
		}
		if len(s.groups) == 0 || a.Group != group {
			s.startGroup()
			group = a.Group
		}
		s.push(a)
	}
	return s
}

func replayable(a Action) bool {
	if a.Criterion < 0 || a.Criterion > math.MaxInt32 {
		return false
	}
	switch a.Kind {
	case KindLabel, KindAccept:
		// A NaN value is a stored value its scale could not read.
		return a.Dimension != "" && !math.IsNaN(a.Value)
	case KindNote:
		return !a.Retest
	case KindCantJudge:
		return slices.Contains(CantJudgeReasons, a.Reason)
	case KindTag:
		return a.Tag != "" && !a.Retest && (a.Value == 0 || a.Value == 1)
	}
	return false
}

// Apply adds one group of actions (one key press: labels, accepts,
// notes, can't-judges and tags) as the latest, before or after the store records it, and checks
// them as Record does: on an error nothing is applied. An empty group
// changes nothing, as Record records nothing.
func (s *LabelState) Apply(acts []Action) error {
	for _, a := range acts {
		if err := checkAction(a); err != nil {
			return err
		}
		if a.Criterion > math.MaxInt32 {
			return fmt.Errorf("item %q: criterion %d is out of range", a.ItemID, a.Criterion)
		}
	}
	if len(acts) == 0 {
		return nil
	}
	s.startGroup()
	for _, a := range acts {
		s.push(a)
	}
	return nil
}

// startGroup opens a new group, with no decision yet.
func (s *LabelState) startGroup() {
	s.groups = append(s.groups, int32(len(s.entries)))
	s.decided = append(s.decided, int32(s.Decisions()))
}

// Undo takes back the latest group, as the store's Undo does, and returns
// the keys it touched (each once, in the group's order; NoteKey for a
// note, CantJudgeKey, TagKey and RetestKey for those kinds), or nil when
// there is nothing to undo.
func (s *LabelState) Undo() []LabelKey {
	if len(s.groups) == 0 {
		return nil
	}
	start := s.groups[len(s.groups)-1]
	s.groups = s.groups[:len(s.groups)-1]
	s.decided = s.decided[:len(s.decided)-1]
	keys := s.touched(s.entries[start:])
	for i := len(s.entries) - 1; i >= int(start); i-- {
		s.pop(i)
	}
	clear(s.entries[start:])
	s.entries = s.entries[:start]
	s.due.shrunk(int(start))
	return keys
}

// pop takes entry i, the last, off its key.
func (s *LabelState) pop(i int) {
	e := s.entries[i]
	k := s.keys[e.key]
	s.tops[e.key] = e.prev
	switch {
	case k.kind() == keyLabel && k.dim == 0, k.kind() == keyDecision && e.reason > 0:
		clear(s.texts[int(e.value):])
		s.texts = s.texts[:int(e.value)]
	case k.kind() == keyLabel:
		if e.prev == 0 {
			s.nLabels--
		}
	}
}

// touched returns the distinct keys of entries, in order; a re-test's
// labels are reported once, as its RetestKey, and a label's entry on its
// item's decisions not at all (the label's key says it).
func (s *LabelState) touched(entries []stateEntry) []LabelKey {
	out := make([]LabelKey, 0, len(entries))
	var seen map[int32]bool
	if len(entries) > 16 {
		seen = make(map[int32]bool, len(entries))
	}
	var small [16]int32
	reported := small[:0] // without seen: the keys reported so far
	for _, e := range entries {
		switch k := s.keys[e.key]; {
		case k.kind() == keyRetest:
			continue // its keyRetested entry reports it
		case k.kind() == keyDecision && e.reason == 0:
			continue // a label's mark that it took a can't-judge back
		}
		if seen != nil {
			if seen[e.key] {
				continue
			}
			seen[e.key] = true
		} else {
			if slices.Contains(reported, e.key) {
				continue
			}
			reported = append(reported, e.key)
		}
		out = append(out, s.publicKey(s.keys[e.key]))
	}
	return out
}

// CanUndo reports whether Undo would take anything back.
func (s *LabelState) CanUndo() bool { return len(s.groups) > 0 }

// Label returns the current label of k, and false when it has none.
func (s *LabelState) Label(k LabelKey) (float64, bool) {
	e, ok := s.current(k)
	if !ok || k.IsNote() {
		return 0, false
	}
	return e.value, true
}

// Accepted reports whether k's current label was accepted from the judge
// (an accept action) rather than set by hand.
func (s *LabelState) Accepted(k LabelKey) bool {
	e, ok := s.current(k)
	return ok && !k.IsNote() && e.accepted
}

// Note returns the current note of an item, "" when it has none.
func (s *LabelState) Note(itemID string) string {
	e, ok := s.current(NoteKey(itemID))
	if !ok {
		return ""
	}
	return s.texts[int(e.value)]
}

// Len returns how many current labels there are (notes apart).
func (s *LabelState) Len() int { return s.nLabels }

// All yields every current label with its value, in the order the keys
// were first set (notes apart).
func (s *LabelState) All() iter.Seq2[LabelKey, float64] {
	return func(yield func(LabelKey, float64) bool) {
		for i, k := range s.keys {
			if k.kind() != keyLabel || k.dim == 0 || s.tops[i] == 0 {
				continue
			}
			if !yield(s.publicKey(k), s.entries[s.tops[i]-1].value) {
				return
			}
		}
	}
}

// current returns k's top entry.
func (s *LabelState) current(k LabelKey) (stateEntry, bool) {
	return s.currentOf(k, keyLabel)
}

// currentOf returns the top entry of k's label (or note) as kind tracks
// it: keyLabel or keyRetest.
func (s *LabelState) currentOf(k LabelKey, kind keyKind) (stateEntry, bool) {
	if k.Criterion < 0 || k.Criterion > math.MaxInt32 {
		return stateEntry{}, false
	}
	var dim uint32
	if !k.IsNote() {
		var ok bool
		if dim, ok = s.dimIdx[k.Dimension]; !ok {
			return stateEntry{}, false
		}
	}
	return s.top(newKey(k.ItemID, kind, int32(k.Criterion), dim))
}

// top returns the current entry of a key.
func (s *LabelState) top(k stateKey) (stateEntry, bool) {
	i, ok := s.index[k]
	if !ok || s.tops[i] == 0 {
		return stateEntry{}, false
	}
	return s.entries[s.tops[i]-1], true
}

// push adds one action that counts on top of its keys.
func (s *LabelState) push(a Action) {
	e := stateEntry{value: a.Value, accepted: a.Kind == KindAccept}
	if a.Guidelines > 0 && a.Guidelines <= math.MaxInt32 {
		e.guide = int32(a.Guidelines)
	}
	decision := false
	switch {
	case a.Kind == KindNote:
		e.value = float64(len(s.texts))
		s.texts = append(s.texts, a.Note)
		s.pushOn(stateKey{item: a.ItemID}, e)
	case a.Kind == KindTag:
		ki, created := s.keyOf(newKey(a.ItemID, keyTag, 0, s.internTag(a.Tag)))
		if created {
			if s.itemTags == nil {
				s.itemTags = map[string][]uint32{}
			}
			s.itemTags[a.ItemID] = append(s.itemTags[a.ItemID], s.keys[ki].dim)
		}
		s.pushAt(ki, e)
	case a.Retest:
		decision = true
		if a.Kind != KindCantJudge {
			s.pushOn(newKey(a.ItemID, keyRetest, int32(a.Criterion), s.intern(a.Dimension)), e)
		}
		s.pushOn(newKey(a.ItemID, keyRetested, 0, 0), stateEntry{})
	case a.Kind == KindCantJudge:
		decision = true
		e.value = float64(len(s.texts))
		s.texts = append(s.texts, a.Note)
		e.reason = uint8(1 + slices.Index(CantJudgeReasons, a.Reason))
		s.pushOn(newKey(a.ItemID, keyDecision, 0, 0), e)
	default: // a label or accept
		decision = true
		ki, _ := s.keyOf(newKey(a.ItemID, keyLabel, int32(a.Criterion), s.intern(a.Dimension)))
		if s.tops[ki] == 0 {
			s.nLabels++
		}
		s.pushAt(ki, e)
		// A label takes back a can't-judge; an item that never had one
		// needs no record of it.
		if di, ok := s.index[newKey(a.ItemID, keyDecision, 0, 0)]; ok {
			s.pushAt(di, stateEntry{})
		}
	}
	if decision && len(s.decided) > 0 {
		g := len(s.decided) - 1
		before := int32(0)
		if g > 0 {
			before = s.decided[g-1]
		}
		if s.decided[g] == before {
			s.decided[g]++
		}
	}
}

// pushOn pushes e on top of key k, made when new.
func (s *LabelState) pushOn(k stateKey, e stateEntry) {
	ki, _ := s.keyOf(k)
	s.pushAt(ki, e)
}

// pushAt pushes e on top of the key of index ki.
func (s *LabelState) pushAt(ki int32, e stateEntry) {
	e.key, e.prev = ki, s.tops[ki]
	s.entries = append(s.entries, e)
	s.tops[ki] = int32(len(s.entries))
}

// keyOf returns the index of k, made when new (created).
func (s *LabelState) keyOf(k stateKey) (ki int32, created bool) {
	ki, ok := s.index[k]
	if ok {
		return ki, false
	}
	if s.index == nil {
		s.index = map[stateKey]int32{}
	}
	ki = int32(len(s.keys))
	s.index[k] = ki
	s.keys = append(s.keys, k)
	s.tops = append(s.tops, 0)
	return ki, true
}

func (s *LabelState) intern(dim string) uint32 {
	if s.lastDim != 0 && s.dims[s.lastDim-1] == dim {
		return s.lastDim // most actions rate the same dimension as the last
	}
	if d, ok := s.dimIdx[dim]; ok {
		s.lastDim = d
		return d
	}
	if s.dimIdx == nil {
		s.dimIdx = map[string]uint32{}
	}
	s.dims = append(s.dims, dim)
	d := uint32(len(s.dims))
	s.dimIdx[dim] = d
	s.lastDim = d
	return d
}

func (s *LabelState) internTag(tag string) uint32 {
	if t, ok := s.tagIdx[tag]; ok {
		return t
	}
	if s.tagIdx == nil {
		s.tagIdx = map[string]uint32{}
	}
	s.tagName = append(s.tagName, tag)
	t := uint32(len(s.tagName))
	s.tagIdx[tag] = t
	return t
}

func (s *LabelState) publicKey(k stateKey) LabelKey {
	switch k.kind() {
	case keyDecision:
		return CantJudgeKey(k.item)
	case keyTag:
		return TagKey(k.item, s.tagName[k.dim-1])
	case keyRetest, keyRetested:
		return RetestKey(k.item)
	}
	if k.dim == 0 {
		return NoteKey(k.item)
	}
	return LabelKey{ItemID: k.item, Criterion: int(k.crit), Dimension: s.dims[k.dim-1]}
}
