package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/spf13/pflag"

	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats"
	"github.com/gavel-dev/gavel/tui"
)

// The review follows a labelling plan (SPEC "Labels where they count";
// tui/plan.go): --plan ID, by default the plan in progress (defaultPlan),
// --plan none for none. No config key: a plan's id belongs to one session.

// reviewPlanFlags are the review's flags of a labelling plan.
type reviewPlanFlags struct {
	plan        string
	targetWidth float64
}

func (p *reviewPlanFlags) add(f *pflag.FlagSet) {
	f.StringVar(&p.plan, "plan", "", "follow labelling plan `ID` (gavel plan): its items first, in its order, labels on them recorded via plan:ID (default: the newest plan you have labelled on with items left, else the newest with items left; none: follow no plan)")
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
// plan id is a usage error listing the session's plans. Without --plan
// the plan is chosen after the first frame from the person's history
// (defaultPlan), and the statistics estimate from the one chosen.
func (p reviewPlanFlags) options(s *sessions.Store, opts *tui.Options) error {
	id, err := p.planID()
	if err != nil {
		return err
	}
	if id == sessions.PlanNone {
		// As gavel stats: the screen only stops following.
		opts.Stats = planStatsOf(s, func() int64 { return sessions.PlanNewest }, p.targetWidth)
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
		opts.Stats = planStatsOf(s, func() int64 { return sessions.PlanNewest }, p.targetWidth)
		return nil
	case id == sessions.PlanNewest:
		var chosen atomic.Int64 // sessions.PlanNewest (0) until read
		history := opts.History
		opts.Stats = planStatsOf(s, chosen.Load, p.targetWidth)
		opts.ReadPlan = func() (*tui.Plan, error) {
			tp, err := defaultPlan(s, history)
			if err == nil && tp != nil {
				chosen.Store(tp.ID)
			}
			return tp, err
		}
		return nil
	case !found:
		if _, err := s.Plan(id); err != nil { // the session's words, listing its plans
			if errors.Is(err, sessions.ErrPlan) {
				return usageError{err}
			}
			return err
		}
	}
	opts.Stats = planStatsOf(s, func() int64 { return id }, p.targetWidth)
	opts.ReadPlan = func() (*tui.Plan, error) { return readTUIPlan(s, id) }
	return nil
}

// readTUIPlan reads plan id as the screen follows it.
func readTUIPlan(s *sessions.Store, id int64) (*tui.Plan, error) {
	dr, err := s.Plan(id)
	if err != nil {
		return nil, err
	}
	return &tui.Plan{ID: dr.Plan.ID, Items: dr.SelectedIDs(), Design: string(dr.Plan.Design), Judge: dr.Plan.Judge, Dimension: dr.Plan.Dimension}, nil
}

// defaultPlan is the plan the review follows without --plan (tour
// finding 9): the newest plan this annotator has labels made on and items
// left on, else the newest with items left — gavel stats' default, the
// newest plan with labels made on it, kept for the plan in progress, so
// that a plan drawn meanwhile does not take its place — and when every
// plan is done, gavel stats' own choice (the newest with labels on it,
// else the newest), which the screen then says is done. Labels and
// items left are counted as the screen counts them (tui.PlanStanding).
// Only the plans this annotator labelled on, and the one chosen, are
// read. nil when the session has no plan.
func defaultPlan(s *sessions.Store, history []sessions.Action) (*tui.Plan, error) {
	plans, err := s.Plans()
	if err != nil || len(plans) == 0 {
		return nil, err
	}
	onPlan := map[string]bool{} // vias of this annotator's actions
	for _, a := range history {
		onPlan[a.Via] = true
	}
	type standing struct {
		tp             *tui.Plan
		labelled, left int
	}
	read := map[int64]standing{}
	get := func(id int64) (standing, error) {
		if st, ok := read[id]; ok {
			return st, nil
		}
		tp, err := readTUIPlan(s, id)
		if err != nil {
			return standing{}, err
		}
		st := standing{tp: tp}
		st.labelled, st.left = tui.PlanStanding(tp, history)
		read[id] = st
		return st, nil
	}
	pick := func(id int64, why string) (*tui.Plan, error) {
		st, err := get(id)
		if err != nil {
			return nil, err
		}
		if len(plans) > 1 {
			st.tp.Chosen = fmt.Sprintf("It is %s; %s.", why, otherPlans(plans, id))
		}
		return st.tp, nil
	}
	for i := len(plans) - 1; i >= 0; i-- {
		id := plans[i].ID
		if !onPlan[sessions.PlanVia(id)] {
			continue
		}
		st, err := get(id)
		if err != nil {
			return nil, err
		}
		if st.labelled > 0 && st.left > 0 {
			return pick(id, "the newest plan with labels made on it and items left")
		}
	}
	for i := len(plans) - 1; i >= 0; i-- {
		id := plans[i].ID
		if !onPlan[sessions.PlanVia(id)] {
			return pick(id, "the newest plan with items left") // none labelled on it
		}
		if st, err := get(id); err != nil {
			return nil, err
		} else if st.left > 0 {
			return pick(id, "the newest plan with items left")
		}
	}
	for i := len(plans) - 1; i >= 0; i-- {
		if id := plans[i].ID; onPlan[sessions.PlanVia(id)] {
			return pick(id, "the newest plan labelled on, and every plan is done")
		}
	}
	return pick(plans[len(plans)-1].ID, "the newest plan, and every plan is done")
}

// otherPlans says how to follow another of plans than id: "--plan 2
// follows another", "--plan 1 or 3 …", or, with many, where to list them.
func otherPlans(plans []sessions.Plan, id int64) string {
	var ids []string
	for _, p := range plans {
		if p.ID != id {
			ids = append(ids, strconv.FormatInt(p.ID, 10))
		}
	}
	switch {
	case len(ids) == 1:
		return "--plan " + ids[0] + " follows the other"
	case len(ids) <= 4:
		return "--plan " + strings.Join(ids[:len(ids)-1], ", ") + " or " + ids[len(ids)-1] + " follows another"
	}
	return "--plan ID follows another (gavel plan lists the session's plans)"
}

// planStatsOf computes the statistics as statsOf does, estimating from
// the plan id() gives when they are computed (a plan's id, or
// sessions.PlanNewest for gavel stats' choice) with the stop rule aiming
// at width.
func planStatsOf(s *sessions.Store, id func() int64, width float64) func() (stats.Report, error) {
	return func() (stats.Report, error) {
		in, err := s.StatsInputWith(sessions.StatsOptions{PlanID: id()})
		if err != nil {
			return stats.Report{}, err
		}
		if in.Plan != nil {
			in.Plan.TargetWidth = width
		}
		return stats.Compute(in, stats.Options{Seed: statsSeed}), nil
	}
}
