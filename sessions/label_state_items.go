package sessions

import "slices"

// The item-wide decisions of LabelState: can't-judge, failure tags,
// re-tests, the guidelines a label was made under, and the count of
// decisions.

// CantJudge returns the item's current can't-judge: its reason (one of
// CantJudgeReasons) and note, and false when the item has none — never
// marked, taken back by a later label or accept, or undone.
func (s *LabelState) CantJudge(itemID string) (reason, note string, ok bool) {
	e, ok := s.top(newKey(itemID, keyDecision, 0, 0))
	if !ok || e.reason == 0 {
		return "", "", false
	}
	return CantJudgeReasons[e.reason-1], s.texts[int(e.value)], true
}

// Tags returns the failure tags on the item now, sorted.
func (s *LabelState) Tags(itemID string) []string {
	var out []string
	for _, t := range s.itemTags[itemID] {
		if e, ok := s.top(newKey(itemID, keyTag, 0, t)); ok && e.value == 1 {
			out = append(out, s.tagName[t-1])
		}
	}
	slices.Sort(out)
	return out
}

// HasTag reports whether the failure tag is on the item now.
func (s *LabelState) HasTag(itemID, tag string) bool {
	t, ok := s.tagIdx[tag]
	if !ok {
		return false
	}
	e, ok := s.top(newKey(itemID, keyTag, 0, t))
	return ok && e.value == 1
}

// LabelGuidelines returns the guidelines version k's current label was
// made under, 0 when it has no label or was made with none on screen.
func (s *LabelState) LabelGuidelines(k LabelKey) int64 {
	e, ok := s.current(k)
	if !ok || k.IsNote() {
		return 0
	}
	return int64(e.guide)
}

// Retested reports whether the item has had its re-test: a label, accept
// or can't-judge made as a re-test that counts (undoing it makes the
// re-test due again).
func (s *LabelState) Retested(itemID string) bool {
	_, ok := s.top(newKey(itemID, keyRetested, 0, 0))
	return ok
}

// RetestLabel returns the value the re-test gave k, and false when it has
// none; the first label stays Label(k).
func (s *LabelState) RetestLabel(k LabelKey) (float64, bool) {
	if k.IsNote() {
		return 0, false
	}
	e, ok := s.currentOf(k, keyRetest)
	if !ok {
		return 0, false
	}
	return e.value, true
}

// Decisions counts the groups that count and hold a decision: a label,
// accept or can't-judge, re-tests included (notes and tags alone are
// not decisions).
func (s *LabelState) Decisions() int {
	if len(s.decided) == 0 {
		return 0
	}
	return int(s.decided[len(s.decided)-1])
}
