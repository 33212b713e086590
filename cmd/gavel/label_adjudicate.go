package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/pg"
)

// viaAdjudication is gavel label's --via for an adjudicator's label: the
// headless twin of gavel review --adjudicate (review_adjudicate.go).
const viaAdjudication = sessions.ViaAdjudication

// checkAdjudication refuses a label --via adjudication on a row where
// people's current labels do not differ (adjudications and the labels of
// whoever marked the item "can't judge" left out, as sessions.Adjudicate
// reads them): there is nothing to settle, and the label would be taken
// as the item's reference all the same. A row already adjudicated whose
// people still disagree may be adjudicated again: the latest one counts.
// path is the session as given.
func checkAdjudication(s *sessions.Store, a sessions.Action, path string) error {
	all, err := s.ItemLabels(a.ItemID)
	if err != nil {
		return err
	}
	var key []sessions.Label
	for _, l := range all {
		if l.Criterion == a.Criterion && l.Dimension == a.Dimension {
			key = append(key, l)
		}
	}
	if sessions.Adjudicate(key).Disagree {
		return nil
	}
	var people []string
	for _, l := range key {
		if l.Via != sessions.ViaAdjudication {
			people = append(people, strconv.Quote(l.Annotator)+" "+valueText(s, l.Dimension, l.Value))
		}
	}
	said := "nobody has labelled it"
	if len(people) > 0 {
		said = strings.Join(people, ", ")
	}
	row := judge.Row{Criterion: a.Criterion, Dimension: judge.Dimension{Name: a.Dimension}}
	review := "gavel review DATASET --session " + shellArg(path) + " --adjudicate"
	if pg.IsURL(path) {
		review = "gavel review " + shellArg(path) + " --adjudicate" // a team session holds its items
	}
	return usagef("--via adjudication: no two people's labels on %s of %q differ (%s), so there is nothing to adjudicate there: label it with --via script; %s shows the items to adjudicate",
		describeRow(row), a.ItemID, said, review)
}

// valueText spells a value on its dimension's scale, as the session's
// first run rating the dimension reads it (a number when none does).
func valueText(s *sessions.Store, dim string, v float64) string {
	runs, _ := s.Runs()
	for _, r := range runs {
		if d, ok := r.Info.Dimension(dim); ok {
			return d.Scale.Format(v)
		}
	}
	return fmt.Sprint(v)
}
