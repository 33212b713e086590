package main

import (
	"errors"

	"github.com/spf13/pflag"

	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats"
	"github.com/gavel-dev/gavel/tui"
)

// The review follows a labelling plan (SPEC "Labels where they count";
// tui/plan.go): --plan ID, by default the session's newest plan, --plan
// none for none. No config key: a plan's id belongs to one session.

// reviewPlanFlags are the review's flags of a labelling plan.
type reviewPlanFlags struct {
	plan        string
	targetWidth float64
}

func (p *reviewPlanFlags) add(f *pflag.FlagSet) {
	f.StringVar(&p.plan, "plan", "", "follow labelling plan `ID` (gavel plan): its items first, in its order, labels on them recorded via plan:ID (default: the session's newest plan while some of its items are unlabelled; none: follow no plan)")
	addTargetWidth(f, &p.targetWidth)
}

// planID reads --plan as gavel stats does (planOption):
// sessions.PlanNewest when not given, sessions.PlanNone for none, else a
// plan's id.
func (p reviewPlanFlags) planID() (int64, error) { return planOption(p.plan) }

// check refuses bad values before the session is opened, and a plan
// asked of a session not yet written (it has none).
func (p reviewPlanFlags) check(session string) error {
	id, err := p.planID()
	if err != nil {
		return err
	}
	if id > 0 && session != "" && newSession(session) {
		return usagef("--plan %d: session %s is new, so it has no labelling plan yet: review it, then draw one with gavel plan %s", id, session, session)
	}
	return checkTargetWidth(p.targetWidth)
}

// options sets the plan the screen follows and the statistics it
// computes (the plan's estimate, with the stop rule's width). An unknown
// plan id is a usage error listing the session's plans.
func (p reviewPlanFlags) options(s *sessions.Store, opts *tui.Options) error {
	id, err := p.planID()
	if err != nil {
		return err
	}
	statsID := id // the statistics estimate from the plan followed
	if id == sessions.PlanNone {
		statsID = sessions.PlanNewest // as gavel stats: the screen only stops following
	}
	opts.Stats = planStatsOf(s, statsID, p.targetWidth)
	if id == sessions.PlanNone {
		return nil
	}
	// Which plan is known now (an unknown id is refused before the
	// screen opens); its rows, one per item of the session, are read
	// after the first frame.
	plans, err := s.Plans()
	if err != nil {
		return err
	}
	found := false
	for _, p := range plans {
		found = found || p.ID == id
	}
	switch {
	case id == sessions.PlanNewest && len(plans) == 0:
		return nil
	case id == sessions.PlanNewest:
		id = plans[len(plans)-1].ID
	case !found:
		if _, err := s.Plan(id); err != nil { // the session's words, listing its plans
			if errors.Is(err, sessions.ErrPlan) {
				return usageError{err}
			}
			return err
		}
	}
	opts.ReadPlan = func() (*tui.Plan, error) {
		dr, err := s.Plan(id)
		if err != nil {
			return nil, err
		}
		return &tui.Plan{ID: dr.Plan.ID, Items: dr.SelectedIDs(), Design: string(dr.Plan.Design), Judge: dr.Plan.Judge, Dimension: dr.Plan.Dimension}, nil
	}
	return nil
}

// planStatsOf computes the statistics as statsOf does, estimating from
// plan id (or the newest, sessions.PlanNewest) with the stop rule aiming
// at width.
func planStatsOf(s *sessions.Store, id int64, width float64) func() (stats.Report, error) {
	return func() (stats.Report, error) {
		in, err := s.StatsInputWith(sessions.StatsOptions{PlanID: id})
		if err != nil {
			return stats.Report{}, err
		}
		if in.Plan != nil {
			in.Plan.TargetWidth = width
		}
		return stats.Compute(in, stats.Options{Seed: statsSeed}), nil
	}
}
