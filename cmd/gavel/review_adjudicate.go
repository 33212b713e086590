package main

import (
	"github.com/spf13/pflag"

	"github.com/gavel-dev/gavel/sessions/dataset"
	"github.com/gavel-dev/gavel/tui"
)

// The review's adjudication queue (SPEC "Teams"; tui/adjudicate.go):
// --adjudicate opens the review on the items where people's labels differ
// and no adjudication settles them; labels there record via
// "adjudication", which the statistics take as the item's reference.
// gavel label --via adjudication is its headless twin.

// addAdjudicate adds --adjudicate to a review's flags.
func addAdjudicate(f *pflag.FlagSet, on *bool) {
	f.BoolVar(on, "adjudicate", false, "open on the adjudication queue: the items where people's labels differ, theirs shown by name; your labels there record via adjudication and become the items' reference (f leaves it)")
}

// checkAdjudicate refuses --adjudicate with what it cannot go with,
// before anything is opened: blind mode (the others' labels are what
// adjudication looks at), a plan to follow. A session not yet written is
// checkAdjudicateNew's, once the dataset's columns are known.
func (o reviewFlags) checkAdjudicate(planGiven bool) error {
	switch {
	case !o.adjudicate:
		return nil
	case o.blind:
		return usagef("--adjudicate shows the others' labels, which --blind hides: leave out --blind")
	case planGiven:
		return usagef("--adjudicate follows the adjudication queue, not a labelling plan: leave out --plan (f reaches the plan's items on screen)")
	}
	return nil
}

// checkAdjudicateNew refuses --adjudicate on a session not yet written
// from a dataset that carries no human column: nobody has labelled it.
// One that carries them (annotator1, annotator2…) brings their labels
// into the new session, and so the disagreements to settle. what names
// the dataset in the message, review the command that labels it.
func (o reviewFlags) checkAdjudicateNew(ds *dataset.Dataset, what, review string) error {
	if !o.adjudicate || !newSession(o.session) {
		return nil
	}
	for _, c := range ds.Imported {
		if c.Role == "human" {
			return nil
		}
	}
	return usagef("--adjudicate: session %s is new and %s carries no human label column, so nobody has labelled it yet: adjudication settles items where people's labels differ. Have two people or more label it first (%s --annotator NAME), or import a file that carries their columns (annotator1, annotator2…)", o.session, what, review)
}

// adjudicateOptions opens the screen on the queue: no plan is followed.
func (o reviewFlags) adjudicateOptions(opts *tui.Options) {
	if !o.adjudicate {
		return
	}
	opts.Adjudicate = true
	opts.Plan, opts.ReadPlan = nil, nil
}
