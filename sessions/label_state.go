package sessions

import (
	"fmt"
	"iter"
	"math"
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

// IsNote reports whether k names a note rather than a label.
func (k LabelKey) IsNote() bool { return k.Dimension == "" }

// LabelState is one annotator's current labels and notes, derived from
// their actions by the same rules as the current_labels and current_notes
// views, and the store's Undo:
//
//   - an action counts unless it is an undo row or an undo row cancels it
//     (wherever that undo row is in the history);
//   - a label's current value is the latest label or accept that counts on
//     its (item, criterion, dimension), an accept marking it Accepted;
//   - an item's current note is the latest note that counts on the item,
//     whatever its criterion and dimension; an empty note clears it;
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
// 24 more per further action that counts on it; an item id is kept once
// per key, not per action.
type LabelState struct {
	dims    []string          // interned dimension names
	dimIdx  map[string]uint32 // name -> 1 + index in dims
	lastDim uint32            // the last one interned
	index   map[stateKey]int32
	keys    []stateKey   // every key ever set, in first-use order
	tops    []int32      // per key: 1 + index in entries of its current action; 0 when none
	entries []stateEntry // the actions that count, oldest first
	texts   []string     // note texts, in the order of their entries
	groups  []int32      // index in entries where each group starts
	nLabels int          // keys with a current label (notes apart)
}

// stateKey is a LabelKey with its dimension interned: dim is 1 + the
// index in dims, 0 for the note.
type stateKey struct {
	item string
	crit int32
	dim  uint32
}

// stateEntry is one action that counts.
type stateEntry struct {
	value    float64 // the label; for a note, the index of its text in texts
	key      int32   // index in keys
	prev     int32   // the key's previous top (1 + index in entries; 0 for none)
	accepted bool
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
			s.groups = append(s.groups, int32(len(s.entries)))
			group = a.Group
		}
		s.push(a)
	}
	return s
}

func replayable(a Action) bool {
	switch a.Kind {
	case KindLabel, KindAccept:
		// A NaN value is a stored value its scale could not read.
		return a.Dimension != "" && a.Criterion >= 0 && a.Criterion <= math.MaxInt32 && !math.IsNaN(a.Value)
	case KindNote:
		return true
	}
	return false
}

// Apply adds one group of actions (one key press: labels, accepts and
// notes) as the latest, before or after the store records it, and checks
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
	s.groups = append(s.groups, int32(len(s.entries)))
	for _, a := range acts {
		s.push(a)
	}
	return nil
}

// Undo takes back the latest group, as the store's Undo does, and returns
// the keys it touched (each once, in the group's order; NoteKey for a
// note), or nil when there is nothing to undo.
func (s *LabelState) Undo() []LabelKey {
	if len(s.groups) == 0 {
		return nil
	}
	start := s.groups[len(s.groups)-1]
	s.groups = s.groups[:len(s.groups)-1]
	keys := s.touched(s.entries[start:])
	for i := len(s.entries) - 1; i >= int(start); i-- {
		e := s.entries[i]
		s.tops[e.key] = e.prev
		if s.keys[e.key].dim == 0 {
			clear(s.texts[int(e.value):])
			s.texts = s.texts[:int(e.value)]
		} else if e.prev == 0 {
			s.nLabels--
		}
	}
	clear(s.entries[start:])
	s.entries = s.entries[:start]
	return keys
}

// touched returns the distinct keys of entries, in order.
func (s *LabelState) touched(entries []stateEntry) []LabelKey {
	out := make([]LabelKey, 0, len(entries))
	var seen map[int32]bool
	if len(entries) > 16 {
		seen = make(map[int32]bool, len(entries))
	}
next:
	for i, e := range entries {
		if seen != nil {
			if seen[e.key] {
				continue
			}
			seen[e.key] = true
		} else {
			for _, f := range entries[:i] {
				if f.key == e.key {
					continue next
				}
			}
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
			if k.dim == 0 || s.tops[i] == 0 {
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
	if k.Criterion < 0 || k.Criterion > math.MaxInt32 {
		return stateEntry{}, false
	}
	var dim uint32
	if !k.IsNote() {
		var ok bool
		if dim, ok = s.dimIdx[k.Dimension]; !ok {
			return stateEntry{}, false
		}
	} else if k.Criterion != 0 {
		return stateEntry{}, false
	}
	i, ok := s.index[stateKey{item: k.ItemID, crit: int32(k.Criterion), dim: dim}]
	if !ok || s.tops[i] == 0 {
		return stateEntry{}, false
	}
	return s.entries[s.tops[i]-1], true
}

// push adds one action that counts on top of its key.
func (s *LabelState) push(a Action) {
	k := stateKey{item: a.ItemID}
	if a.Kind != KindNote {
		k.crit, k.dim = int32(a.Criterion), s.intern(a.Dimension)
	}
	ki, ok := s.index[k]
	if !ok {
		if s.index == nil {
			s.index = map[stateKey]int32{}
		}
		ki = int32(len(s.keys))
		s.index[k] = ki
		s.keys = append(s.keys, k)
		s.tops = append(s.tops, 0)
	}
	e := stateEntry{value: a.Value, key: ki, prev: s.tops[ki], accepted: a.Kind == KindAccept}
	if k.dim == 0 {
		e.value = float64(len(s.texts))
		s.texts = append(s.texts, a.Note)
	} else if e.prev == 0 {
		s.nLabels++
	}
	s.entries = append(s.entries, e)
	s.tops[ki] = int32(len(s.entries))
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

func (s *LabelState) publicKey(k stateKey) LabelKey {
	if k.dim == 0 {
		return NoteKey(k.item)
	}
	return LabelKey{ItemID: k.item, Criterion: int(k.crit), Dimension: s.dims[k.dim-1]}
}
