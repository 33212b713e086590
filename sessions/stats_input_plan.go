package sessions

import (
	"cmp"
	"database/sql"
	"fmt"
	"math"
	"slices"

	"github.com/gavel-dev/gavel/sessions/plan"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// Values of StatsOptions.PlanID besides a plan's id.
const (
	// PlanNewest estimates from the session's newest plan, when it has one.
	PlanNewest int64 = 0
	// PlanNone estimates from no plan.
	PlanNone int64 = -1
)

// readStatsPlan fills in.PlanDesigns with every plan's design, and
// in.Plan with the plan the statistics estimate from: planID's, or by
// default (PlanNewest) the newest plan that has labels made on it, else
// the newest, or none (PlanNone or a session without plans).
// in.Units must be read: each plan row points at its item's Criterion-0
// unit. The plan's verdicts are those it recorded when it was drawn, read
// on the run's first dimension; a plan without a judge estimates the
// first dimension people labelled that no judge rates, else the first
// judge's.
func readStatsPlan(tx *sql.Tx, path string, in *stats.Input, planID int64, placed []verdictPlace) error {
	plans, err := readPlans(tx, "", nil)
	if err != nil || len(plans) == 0 {
		if err == nil && planID > 0 {
			return newError(ErrPlan, nil, "session %s has no labelling plan %d: it has none yet (draw one with gavel plan)", path, planID)
		}
		return err
	}
	in.PlanDesigns = make(map[int]string, len(plans))
	for _, p := range plans {
		d, err := planDesignForLabels(tx, p)
		if err != nil {
			return err
		}
		in.PlanDesigns[int(p.ID)] = d
	}
	var p *Plan
	switch planID {
	case PlanNone:
		return nil
	case PlanNewest:
		p = newestLabelledPlan(in, plans)
	default:
		for i := range plans {
			if plans[i].ID == planID {
				p = &plans[i]
			}
		}
		if p == nil {
			return noPlan(tx, path, planID)
		}
	}
	dim := p.Dimension
	if dim == "" {
		switch {
		case len(in.Dimensions) > 0:
			dim = in.Dimensions[0].Name
		case len(in.Judges) > 0 && len(in.Judges[0].Dimensions) > 0:
			dim = in.Judges[0].Dimensions[0].Name
		}
	}
	units, err := planRows(tx, p.ID)
	if err != nil {
		return err
	}
	at := make(map[string]int, len(in.Units))
	for i, u := range in.Units {
		if u.Criterion == 0 {
			at[u.ItemID] = i
		}
	}
	pu := make([]plan.Unit, len(units))
	for i, u := range units {
		pu[i] = plan.Unit{ItemID: u.ItemID, Size: u.Size, PRN: u.PRN, Stratum: u.Stratum}
	}
	d := plan.Draw(p.Design, pu, p.N, p.Floor)
	pi := &stats.PlanInput{ID: int(p.ID), Design: string(p.Design), Seed: p.Seed, Judge: p.Judge, Dimension: dim, Target: p.N,
		Units: make([]stats.PlanUnit, 0, len(units))}
	for i, u := range units {
		k, ok := at[u.ItemID]
		if !ok {
			return fmt.Errorf("plan %d names item %q, which has no unit: the session was edited by hand", p.ID, u.ItemID)
		}
		row := stats.PlanUnit{Unit: k, ItemID: u.ItemID, Probability: d.Prob[i], Selected: d.In[i], Stratum: u.Stratum}
		if x, ok := placedValue(in, placed, u.VerdictID, dim); ok {
			row.Verdict = &x
		}
		pi.Units = append(pi.Units, row)
	}
	// The rows were read in the table's order (by item id): the input
	// holds them in dataset order.
	slices.SortFunc(pi.Units, func(a, b stats.PlanUnit) int { return cmp.Compare(a.Unit, b.Unit) })
	if err := planAnnotators(tx, pi); err != nil {
		return err
	}
	in.Plan = pi
	return nil
}

// planAnnotators fills, for the plan's selected rows, who labelled the
// item on the plan's dimension following the plan ("plan:ID") at some
// time, even when a later label of theirs made another way replaced it
// (a correction): such a label is still the plan's response. Undone
// labels and re-tests do not count. One look-up per selected item, by
// the actions' item index.
func planAnnotators(tx *sql.Tx, pi *stats.PlanInput) error {
	if pi.Dimension == "" {
		return nil
	}
	stmt, err := tx.Prepare(`SELECT DISTINCT a.annotator FROM actions a
		WHERE a.item_id = ? AND a.criterion = 0 AND a.dimension = ? AND a.via = ?
		  AND a.kind IN ('label', 'accept') AND a.retest = 0
		  AND NOT EXISTS (SELECT 1 FROM actions u WHERE u.undoes = a.id)
		ORDER BY a.annotator`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	via := PlanVia(int64(pi.ID))
	for i := range pi.Units {
		row := &pi.Units[i]
		if !row.Selected {
			continue
		}
		rows, err := stmt.Query(row.ItemID, pi.Dimension, via)
		if err != nil {
			return err
		}
		for rows.Next() {
			var a string
			if err := rows.Scan(&a); err != nil {
				rows.Close()
				return err
			}
			row.PlanAnnotators = append(row.PlanAnnotators, a)
		}
		if err := rows.Close(); err != nil {
			return err
		}
	}
	return nil
}

// planRows reads plan id's rows in the table's order (its primary key:
// no look-up of the items, no sort).
func planRows(tx *sql.Tx, id int64) ([]PlanUnit, error) {
	rows, err := tx.Query(`SELECT item_id, coalesce(verdict_id, 0), size, prn, stratum FROM plan_units WHERE plan_id = ?`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []PlanUnit
	for rows.Next() {
		var u PlanUnit
		if err := rows.Scan(&u.ItemID, &u.VerdictID, &u.Size, &u.PRN, &u.Stratum); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// placedValue is the value on dim of verdict id as the statistics input
// holds it (placed: where each verdict went, in id order), so the plan's
// verdicts cost no look-up of their own; ok is false for no verdict, one
// the input does not hold, or no readable value.
func placedValue(in *stats.Input, placed []verdictPlace, id int64, dim string) (float64, bool) {
	if id == 0 {
		return 0, false
	}
	k, found := slices.BinarySearchFunc(placed, id, func(p verdictPlace, id int64) int { return cmp.Compare(p.id, id) })
	if !found {
		return 0, false
	}
	x, ok := in.Units[placed[k].unit].Verdicts[placed[k].at].Values[dim]
	if !ok || math.IsNaN(x) {
		return 0, false
	}
	return x, true
}

// newestLabelledPlan is the newest of plans (oldest first, not empty)
// whose "plan:ID" some current label of in names, else the newest: a plan
// drawn after labelling began on another must not hide that one's labels.
func newestLabelledPlan(in *stats.Input, plans []Plan) *Plan {
	labelled := map[int64]bool{}
	for _, u := range in.Units {
		for _, l := range u.Labels {
			if id, ok := ParsePlanVia(l.Provenance); ok {
				labelled[id] = true
			}
		}
	}
	for i := len(plans) - 1; i >= 0; i-- {
		if labelled[plans[i].ID] {
			return &plans[i]
		}
	}
	return &plans[len(plans)-1]
}

// planDesignForLabels is p's design as Input.PlanDesigns gives it: a
// stratified plan whose strata are sampled at rates n_h/N_h that are not
// within 10 % of each other (stats.StrataRatesEqual: the allocation gives
// small strata more than their share) is stats.DesignStratifiedUnequal,
// so its labels are not taken for a fair sample in the unweighted
// figures.
func planDesignForLabels(tx *sql.Tx, p Plan) (string, error) {
	if p.Design != plan.Stratified {
		return string(p.Design), nil
	}
	rows, err := tx.Query(`SELECT count(*) FROM plan_units WHERE plan_id = ? GROUP BY stratum ORDER BY stratum`, p.ID)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var sizes []int
	for rows.Next() {
		var n int
		if err := rows.Scan(&n); err != nil {
			return "", err
		}
		sizes = append(sizes, n)
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	alloc := plan.Allocate(sizes, p.N)
	rates := make([]float64, len(sizes))
	for h, n := range sizes {
		rates[h] = float64(alloc[h]) / float64(n)
	}
	if !stats.StrataRatesEqual(rates) {
		return stats.DesignStratifiedUnequal, nil
	}
	return string(p.Design), nil
}
