package main

import "github.com/gavel-dev/gavel/sessions"

// dropRepeats splits a decision's actions into those that change the
// annotator's current decisions on the item and those that would only
// repeat them (a label, accept or can't judge as they stand, the same
// note), as the review screen does: a copy would count as one more
// decision in the statistics (decisions, times, fatigue), and --undo
// would then have copies to take back before the decision before. A
// tag is refused before (checkTagChanges). A label through a plan, the
// queue or an adjudication always records: its provenance is part of
// what it says.
func dropRepeats(s *sessions.Store, annotator, itemID, via string, acts []sessions.Action) (kept, repeated []sessions.Action, err error) {
	if via != viaScript && via != viaOrder && via != viaRandom {
		return acts, nil, nil
	}
	history, err := s.ItemActions(annotator, itemID)
	if err != nil {
		return nil, nil, err
	}
	state := sessions.ReplayLabels(history)
	for _, a := range acts {
		same := state.Repeats(a)
		if a.Kind == sessions.KindNote {
			same = state.Note(itemID) == a.Note
		}
		if same {
			repeated = append(repeated, a)
		} else {
			kept = append(kept, a)
		}
	}
	return kept, repeated, nil
}
