package tui

import (
	"fmt"

	"github.com/gavel-dev/gavel/sessions"
)

// A key that would record the person's current decision again — a on an
// item already accepted, y on a row already labelled YES, x with the
// reason already given — records nothing: a copy would count as one more
// decision in the statistics (decisions, median time, fatigue) and move
// the re-test schedule on, and u would then have copies to take back
// before the decision before. The screen moves on as the decision would
// have, and says so. Only the actions that repeat are left out of a group
// (an accept of two rows, one of them labelled otherwise by hand, records
// the other). Re-tests always record (a decision of their own), and so do
// labels through a plan, a queue or the adjudication queue, whose
// provenance (Via) is part of what they record.

// dropRepeats returns the actions of a group that change the person's
// current decisions (sessions.LabelState.Repeats), acts stamped.
func (s *reviewScreen) dropRepeats(acts []sessions.Action) []sessions.Action {
	if s.sel.filter.via != "" {
		return acts
	}
	var out []sessions.Action
	for _, a := range acts {
		if !s.labels.Repeats(a) {
			out = append(out, a)
		}
	}
	return out
}

// repeated says that the key recorded nothing, and moves on as record
// does: to the next open row, else to the next item (no re-test starts:
// no decision was made), else says that was the last item.
func (s *reviewScreen) repeated(item int, a sessions.Action) {
	text := s.repeatText(item, a)
	switch {
	case !s.reviewed[item]:
		s.row = s.firstOpenRow(item)
	case s.sel.pos+1 < len(s.sel.items):
		s.step(1)
	default:
		text += " That was the last item here."
	}
	s.hint(text)
}

// repeatText is "q5 is already accepted: nothing recorded." and the like.
func (s *reviewScreen) repeatText(item int, a sessions.Action) string {
	id := idText(s.items[item].ID)
	switch a.Kind {
	case sessions.KindAccept:
		return fmt.Sprintf("%s is already accepted: nothing recorded.", id)
	case sessions.KindCantJudge:
		return fmt.Sprintf("%s is already marked can't judge (%s): nothing recorded.", id, reasonText(a.Reason))
	}
	value, where := fmt.Sprint(a.Value), ""
	rows := s.rows(item)
	for _, rw := range rows {
		if rw.crit == a.Criterion && rw.dim.Name == a.Dimension {
			value = formatValue(rw.dim.Scale, a.Value)
		}
	}
	if len(rows) > 1 {
		where = " on " + SanitizeLine(Clip(a.Dimension, 64))
		if a.Criterion > 0 {
			where = fmt.Sprintf(" on criterion %d", a.Criterion)
		}
	}
	return fmt.Sprintf("%s is already labelled %s%s: nothing recorded.", id, value, where)
}
