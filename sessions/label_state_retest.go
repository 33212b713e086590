package sessions

import "sort"

// RetestsDue returns the items due for their re-test, oldest first label
// first. An item is due when annotator (the state's own; it salts the
// share) labelled it, it is in the seeded share (InShare(seed,
// "retest:"+annotator, id, share)), at least gap decisions came after the
// group of its first label, and it has not been re-tested yet. An item
// that is can't-judge now is not due: a re-test of it would pair with no
// label.
//
// The screen asks after every decision, so the answer is kept between
// calls: only items labelled since the last call are hashed.
func (s *LabelState) RetestsDue(annotator string, seed int64, share float64, gap int) []string {
	if !(share > 0) {
		return nil
	}
	m := &s.due
	if !m.valid || m.annotator != annotator || m.seed != seed || m.share != share {
		*m = retestMemo{valid: true, annotator: annotator, seed: seed, share: share}
	}
	m.trim()
	n := s.Decisions()
	gapMet := func(entry int32) bool {
		return n-int(s.decided[s.groupOf(entry)]) >= gap
	}
	// Items whose first label is newer than the last call's are hashed
	// now, as far as the gap allows (firsts is in entry order, so the
	// gap is met by a prefix of it).
	for ; m.checked < len(s.firsts) && gapMet(s.firsts[m.checked]); m.checked++ {
		item := s.keys[s.entries[s.firsts[m.checked]].key].item
		if InShare(seed, "retest:"+annotator, item, share) {
			m.hits = append(m.hits, int32(m.checked))
		}
	}
	m.low = len(s.firsts)
	var out []string
	for _, pos := range m.hits {
		entry := s.firsts[pos]
		if !gapMet(entry) {
			break // an undo took decisions back
		}
		item := s.keys[s.entries[entry].key].item
		if s.Retested(item) {
			continue
		}
		if _, _, cj := s.CantJudge(item); cj {
			continue
		}
		out = append(out, item)
	}
	return out
}

// groupOf returns the index of the group holding entry.
func (s *LabelState) groupOf(entry int32) int {
	return sort.Search(len(s.groups), func(g int) bool { return s.groups[g] > entry }) - 1
}

// retestMemo is what RetestsDue keeps between calls with the same
// annotator, seed and share: firsts[:checked] have been hashed, hits are
// the positions in firsts of those in the share.
type retestMemo struct {
	valid     bool
	annotator string
	seed      int64
	share     float64
	checked   int
	hits      []int32
	// low is the least length firsts has had since the last call: an
	// undo may have popped positions and a later label pushed others in
	// their place.
	low int
}

// shrunk notes that firsts is down to n.
func (m *retestMemo) shrunk(n int) {
	m.low = min(m.low, n)
}

// trim forgets what was hashed beyond the least length firsts has had.
func (m *retestMemo) trim() {
	m.checked = min(m.checked, m.low)
	i := sort.Search(len(m.hits), func(i int) bool { return int(m.hits[i]) >= m.low })
	m.hits = m.hits[:i]
}
