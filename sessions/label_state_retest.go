package sessions

import "sort"

// RetestsDue returns the items due for their re-test, oldest first label
// first. An item is due when annotator (the state's own; it salts the
// share) labelled it, it is in the seeded share (InShare(seed,
// "retest:"+annotator, id, share)), at least gap decisions came after the
// group of its first label that counts (re-tests apart), and it has not
// been re-tested yet. An item that is can't-judge now is not due: a
// re-test of it would pair with no label.
//
// The screen asks after every decision, so what it found is kept between
// calls with the same annotator, seed and share: a call reads only the
// actions applied since the last one and hashes only the items they
// labelled first. Nothing of it is kept until the first call, so a
// review without re-tests pays nothing for them.
func (s *LabelState) RetestsDue(annotator string, seed int64, share float64, gap int) []string {
	if !(share > 0) {
		return nil
	}
	m := &s.due
	if !m.valid || m.annotator != annotator || m.seed != seed || m.share != share {
		*m = retestMemo{valid: true, annotator: annotator, seed: seed, share: share, seen: map[string]struct{}{}}
	}
	m.trim()
	// Each item's first label among the actions applied since the last
	// call.
	for i := m.scanned; i < len(s.entries); i++ {
		k := s.keys[s.entries[i].key]
		if k.kind() != keyLabel || k.dim == 0 {
			continue
		}
		if _, ok := m.seen[k.item]; !ok {
			m.seen[k.item] = struct{}{}
			m.firsts = append(m.firsts, firstLabel{entry: int32(i), item: k.item})
		}
	}
	m.scanned, m.low = len(s.entries), len(s.entries)
	n := s.Decisions()
	gapMet := func(entry int32) bool {
		return n-int(s.decided[s.groupOf(entry)]) >= gap
	}
	// firsts is in entry order, so the gap is met by a prefix of it:
	// hash as far as it goes.
	for ; m.hashed < len(m.firsts) && gapMet(m.firsts[m.hashed].entry); m.hashed++ {
		if InShare(seed, "retest:"+annotator, m.firsts[m.hashed].item, share) {
			m.hits = append(m.hits, int32(m.hashed))
		}
	}
	// hits[:done] were re-tested at the last call, and only an undo
	// (which resets done in trim) makes an item un-re-tested: skipping
	// them keeps a call after each decision from walking every re-test
	// of a long history (50,000 at 1M labels and 5 %).
	for m.done < len(m.hits) && s.Retested(m.firsts[m.hits[m.done]].item) {
		m.done++
	}
	var out []string
	for _, pos := range m.hits[m.done:] {
		f := m.firsts[pos]
		if !gapMet(f.entry) {
			break // an undo took decisions back
		}
		item := f.item
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
// annotator, seed and share.
type retestMemo struct {
	valid     bool
	annotator string
	seed      int64
	share     float64
	// scanned: entries[:scanned] have been read into seen and firsts.
	scanned int
	// low is the least length entries has had since the last call: an
	// undo pops entries, and later actions may take their places.
	low    int
	seen   map[string]struct{} // items with a first label in firsts
	firsts []firstLabel        // each item's first label, in entry order
	hashed int                 // firsts[:hashed] have been hashed
	hits   []int32             // positions in firsts of the items in the share
	done   int                 // hits[:done] are re-tested (no undo since)
}

// firstLabel is an item's first label that counts: its index in entries.
type firstLabel struct {
	entry int32
	item  string
}

// shrunk notes that the state's entries are down to n.
func (m *retestMemo) shrunk(n int) {
	m.low = min(m.low, n)
}

// trim forgets what it read of entries that an undo has popped since.
func (m *retestMemo) trim() {
	if m.low >= m.scanned {
		return
	}
	m.done = 0
	for len(m.firsts) > 0 && int(m.firsts[len(m.firsts)-1].entry) >= m.low {
		delete(m.seen, m.firsts[len(m.firsts)-1].item)
		m.firsts = m.firsts[:len(m.firsts)-1]
	}
	m.scanned = m.low
	m.hashed = min(m.hashed, len(m.firsts))
	i := sort.Search(len(m.hits), func(i int) bool { return int(m.hits[i]) >= len(m.firsts) })
	m.hits = m.hits[:i]
}
