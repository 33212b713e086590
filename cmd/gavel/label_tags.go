package main

import (
	"slices"

	"github.com/gavel-dev/gavel/sessions"
)

// checkTagChanges refuses a --tag of a tag the annotator already put on
// the item and an --untag of one they did not: either would record an
// action that changes nothing (and that --undo would then have to take
// back first). Like every refusal of gavel label, nothing is recorded.
func checkTagChanges(s *sessions.Store, id string, tags, untags []string) error {
	if len(tags) == 0 && len(untags) == 0 {
		return nil
	}
	mine, err := s.ItemTags(s.Annotator())
	if err != nil {
		return err
	}
	var on []string
	for _, t := range mine {
		if t.ItemID == id {
			on = append(on, t.Tag)
		}
	}
	for _, name := range tags {
		if slices.Contains(on, name) {
			return usagef("--tag %q: tag %q is already on item %s (%s's tags there: %s)", name, name, id, s.Annotator(), listOrNone(on))
		}
	}
	for _, name := range untags {
		if !slices.Contains(on, name) {
			return usagef("--untag %q: tag %q is not on item %s (%s's tags there: %s)", name, name, id, s.Annotator(), listOrNone(on))
		}
	}
	return nil
}
