package sessions

import (
	"database/sql"
	"fmt"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// RunLabel names a run for people: the judge's name, with the model when
// it has one ("docqa · gpt-4o").
func RunLabel(r Run) string {
	if r.Info.Model != "" {
		return r.Info.Name + " · " + r.Info.Model
	}
	return r.Info.Name
}

// StatsInput gathers what the agreement statistics read from a session:
// every run as a judge (named by RunLabel, with "#ID" added when two runs
// would share a name), every item and rubric criterion as a unit with its
// segments, every verdict oldest first (re-judges included), and every
// annotator's current labels with how they reached the item. It is what
// both the statistics screen and `gavel stats` compute from, so they show
// the same figures.
func (s *Store) StatsInput() (stats.Input, error) {
	var in stats.Input
	items, err := s.Items()
	if err != nil {
		return in, err
	}
	runs, err := s.Runs()
	if err != nil {
		return in, err
	}
	names := RunNames(runs)
	perCriterion := false
	for _, r := range runs {
		in.Judges = append(in.Judges, stats.JudgeSpec{Key: names[r.ID], Dimensions: r.Info.Dimensions, PerCriterion: r.Info.PerCriterion})
		perCriterion = perCriterion || r.Info.PerCriterion
	}

	type ukey struct {
		item string
		crit int
	}
	units := map[ukey]int{}
	for _, it := range items {
		units[ukey{it.ID, 0}] = len(in.Units)
		in.Units = append(in.Units, stats.Unit{ItemID: it.ID, Segments: it.Segments})
		if perCriterion {
			for k := range it.Rubric {
				units[ukey{it.ID, k + 1}] = len(in.Units)
				in.Units = append(in.Units, stats.Unit{ItemID: it.ID, Criterion: k + 1, Segments: it.Segments})
			}
		}
	}

	for _, r := range runs {
		vs, err := s.runHistory(r.ID)
		if err != nil {
			return in, err
		}
		for _, v := range vs {
			if u, ok := units[ukey{v.ItemID, v.Criterion}]; ok {
				in.Units[u].Verdicts = append(in.Units[u].Verdicts, stats.Verdict{Judge: names[r.ID], Status: v.Status, Values: v.Values})
			}
		}
	}

	labels, err := s.Labels("")
	if err != nil {
		return in, err
	}
	type lkey struct {
		unit      int
		annotator string
	}
	at := map[lkey]int{}
	for _, l := range labels {
		u, ok := units[ukey{l.ItemID, l.Criterion}]
		if !ok {
			continue
		}
		k := lkey{u, l.Annotator}
		i, seen := at[k]
		if !seen {
			i = len(in.Units[u].Labels)
			at[k] = i
			in.Units[u].Labels = append(in.Units[u].Labels, stats.Label{Annotator: l.Annotator, Values: map[string]float64{}, Provenance: l.Via})
		}
		in.Units[u].Labels[i].Values[l.Dimension] = l.Value
	}
	return in, nil
}

// RunNames gives every run a distinct RunLabel.
func RunNames(runs []Run) map[int64]string {
	count := map[string]int{}
	for _, r := range runs {
		count[RunLabel(r)]++
	}
	names := make(map[int64]string, len(runs))
	for _, r := range runs {
		n := RunLabel(r)
		if count[n] > 1 {
			n = fmt.Sprintf("%s #%d", n, r.ID)
		}
		names[r.ID] = n
	}
	return names
}

// runHistory returns every verdict of a run, oldest first.
func (s *Store) runHistory(runID int64) ([]judge.Verdict, error) {
	var out []judge.Verdict
	err := s.read("reading verdict history", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT `+verdictColumns+`
			FROM verdicts v
			LEFT JOIN verdict_values vv ON vv.verdict_id = v.id
			WHERE v.run_id = ?
			ORDER BY v.id`, runID)
		if err != nil {
			return err
		}
		out, err = scanVerdicts(rows)
		return err
	})
	return out, err
}
