package tui

import (
	"math"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// row is one thing a person labels on an item: a dimension of the active
// judge, for the whole item (criterion 0) or for one rubric criterion.
type row struct {
	crit int
	dim  judge.Dimension
}

// lkey identifies one label (or, with note set, the note) of an item.
type lkey struct {
	item int
	crit int
	dim  string
	note bool
}

// entry is one effective action on a key: the top of a key's stack is its
// current state. id is 0 until the store has committed the action.
type entry struct {
	value float64
	text  string
}

// group is the keys one key press changed; undo reverts a whole group.
type group struct {
	keys []lkey
}

// labelState is the annotator's labels and notes, derived from the history
// of their actions exactly as the store derives them: every action pushes
// onto its key's stack, an undo pops the latest group.
type labelState struct {
	stacks map[lkey][]entry
	groups []group
}

func newLabelState() labelState {
	return labelState{stacks: map[lkey][]entry{}}
}

// apply pushes one group of actions.
func (s *labelState) apply(keys []lkey, entries []entry) {
	for i, k := range keys {
		s.stacks[k] = append(s.stacks[k], entries[i])
	}
	s.groups = append(s.groups, group{keys: keys})
}

// undo pops the latest group and returns the keys it touched, or nil when
// there is nothing to undo.
func (s *labelState) undo() []lkey {
	if len(s.groups) == 0 {
		return nil
	}
	g := s.groups[len(s.groups)-1]
	s.groups = s.groups[:len(s.groups)-1]
	for i := len(g.keys) - 1; i >= 0; i-- {
		k := g.keys[i]
		st := s.stacks[k]
		if len(st) <= 1 {
			delete(s.stacks, k)
		} else {
			s.stacks[k] = st[:len(st)-1]
		}
	}
	return g.keys
}

// label returns the current label of a key.
func (s *labelState) label(k lkey) (float64, bool) {
	st := s.stacks[k]
	if len(st) == 0 {
		return math.NaN(), false
	}
	return st[len(st)-1].value, true
}

// note returns the current note of an item ("" when none).
func (s *labelState) note(item int) string {
	st := s.stacks[lkey{item: item, note: true}]
	if len(st) == 0 {
		return ""
	}
	return st[len(st)-1].text
}

// replay rebuilds the state from an annotator's action history, oldest
// first, as the store keeps it.
func replay(history []sessions.Action, index map[string]int) labelState {
	s := newLabelState()
	byGroup := map[int64][]sessions.Action{}
	var order []int64
	undone := map[int64]bool{}
	for _, a := range history {
		if a.Kind == sessions.KindUndo {
			undone[a.Undoes] = true
			continue
		}
		if _, ok := index[a.ItemID]; !ok {
			continue // an item no longer in the dataset
		}
		if _, seen := byGroup[a.Group]; !seen {
			order = append(order, a.Group)
		}
		byGroup[a.Group] = append(byGroup[a.Group], a)
	}
	for _, g := range order {
		var keys []lkey
		var entries []entry
		for _, a := range byGroup[g] {
			if undone[a.ID] {
				continue
			}
			k, e := keyOf(a, index[a.ItemID])
			keys = append(keys, k)
			entries = append(entries, e)
		}
		if len(keys) > 0 {
			s.apply(keys, entries)
		}
	}
	return s
}

func keyOf(a sessions.Action, item int) (lkey, entry) {
	if a.Kind == sessions.KindNote {
		return lkey{item: item, note: true}, entry{text: a.Note}
	}
	return lkey{item: item, crit: a.Criterion, dim: a.Dimension}, entry{value: a.Value}
}
