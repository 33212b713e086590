package sessions

import (
	"math"
	"slices"
)

// Repeats reports whether recording a would leave the annotator's current
// decision exactly as it is, so that it would only be a copy: a label or
// accept of the same kind, value and guidelines version as the row's
// current label, on an item not marked can't judge (a label there takes
// the can't judge back); a can't judge with the same reason, note and
// guidelines version as the item's current one. A re-test never repeats
// (it is a decision of its own), nor does any other kind (a note or a tag
// is compared by its caller). The state keeps no provenance: a caller to
// whom a changed Via matters (a plan, a queue, an adjudication) compares
// it itself.
//
// The review screen records nothing for such a key press: a copy would
// count as one more decision in the statistics (decisions, median time,
// fatigue) and move the re-test schedule on.
func (s *LabelState) Repeats(a Action) bool {
	if a.Retest || a.Criterion < 0 || a.Criterion > math.MaxInt32 {
		return false
	}
	guide := int32(0)
	if a.Guidelines > 0 && a.Guidelines <= math.MaxInt32 {
		guide = int32(a.Guidelines)
	}
	switch a.Kind {
	case KindLabel, KindAccept:
		if a.Dimension == "" || math.IsNaN(a.Value) {
			return false
		}
		if _, _, cj := s.CantJudge(a.ItemID); cj {
			return false
		}
		e, ok := s.current(LabelKey{ItemID: a.ItemID, Criterion: a.Criterion, Dimension: a.Dimension})
		return ok && e.value == a.Value && e.accepted == (a.Kind == KindAccept) && e.guide == guide
	case KindCantJudge:
		e, ok := s.top(newKey(a.ItemID, keyDecision, 0, 0))
		return ok && e.reason != 0 && int(e.reason) == 1+slices.Index(CantJudgeReasons, a.Reason) &&
			s.texts[int(e.value)] == a.Note && e.guide == guide
	}
	return false
}
