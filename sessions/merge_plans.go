package sessions

import (
	"database/sql"
	"encoding/json"
	"fmt"
)

// Merging labelling plans: a plan's rows name verdicts by id and labels
// name plans by id ("plan:ID"), and both ids change in the merged
// session. The merge maps every input verdict to the merged verdict that
// holds it (mergedRuns.verdicts, filled when any input has a plan), gives
// each distinct plan a new id, and rewrites the labels' "plan:ID".

// anyPlans reports whether some input has a labelling plan.
func anyPlans(ins []*mergeInput) (bool, error) {
	for _, in := range ins {
		var n int
		err := in.store.read("reading the labelling plans", func(tx *sql.Tx) error {
			return tx.QueryRow(`SELECT count(*) FROM plans`).Scan(&n)
		})
		if err != nil || n > 0 {
			return n > 0, err
		}
	}
	return false, nil
}

// runVerdictIDs lists the ids of a run's verdicts in id order: the order
// of everyVerdict.
func (s *Store) runVerdictIDs(runID int64) ([]int64, error) {
	var out []int64
	err := s.read("reading verdict history", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT id FROM verdicts WHERE run_id = ? ORDER BY id`, runID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			out = append(out, id)
		}
		return rows.Err()
	})
	return out, err
}

// mapVerdicts records the merged ids of vs, the verdicts run runID (key
// key) was just given, in the order they were saved.
func (m *mergedRuns) mapVerdicts(dst *Store, runID int64, key string, vs []taggedVerdict, inputs int) error {
	if m.verdicts == nil {
		m.verdicts = make([]map[int64]int64, inputs)
		for i := range m.verdicts {
			m.verdicts[i] = map[int64]int64{}
		}
		m.printed = map[string]int64{}
	}
	ids, err := dst.runVerdictIDs(runID)
	if err != nil {
		return err
	}
	if len(ids) != len(vs) {
		return fmt.Errorf("merged run %d holds %d verdicts, %d were saved", runID, len(ids), len(vs))
	}
	for k, t := range vs {
		m.verdicts[t.input][t.id] = ids[k]
		m.printed[key+"\x00"+t.print] = ids[k]
	}
	return nil
}

// mapRepeats maps each verdict left out as a repeat to the one kept.
func (m *mergedRuns) mapRepeats(repeats []taggedVerdict) {
	for _, t := range repeats {
		if id, ok := m.printed[t.print]; ok && m.verdicts != nil {
			m.verdicts[t.input][t.id] = id
		}
	}
}

// planPrint identifies a plan across sessions copied from one another:
// everything but its id and size (an extension only raises n, keeping
// every chosen item, so the larger n of two copies holds both).
func planPrint(p Plan, runKey string) string {
	b, _ := json.Marshal(struct {
		Design, RunKey, Stratify, Created string
		Seed                              uint64
		Floor                             float64
	}{string(p.Design), runKey, p.Stratify, stamp(p.Created), p.Seed, p.Floor})
	return string(b)
}

// mergePlans copies every input's plans into dst, a plan met in several
// inputs once (with the largest n), and returns per input how its plan
// ids map to dst's.
func mergePlans(dst *Store, ins []*mergeInput, runs mergedRuns, sum *MergeSummary) ([]map[int64]int64, error) {
	out := make([]map[int64]int64, len(ins))
	type kept struct {
		id int64
		n  int
	}
	seen := map[string]*kept{}
	for i, in := range ins {
		out[i] = map[int64]int64{}
		var (
			plans []Plan
			units [][]PlanUnit
		)
		err := in.store.read("reading the labelling plans", func(tx *sql.Tx) error {
			var err error
			if plans, err = readPlans(tx, "", nil); err != nil {
				return err
			}
			for _, p := range plans {
				u, err := readPlanUnits(tx, p.ID)
				if err != nil {
					return err
				}
				units = append(units, u)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		for k, p := range plans {
			runID := runs.newID(i, p.RunID)
			print := planPrint(p, runs.key[runID])
			if prev, ok := seen[print]; ok {
				out[i][p.ID] = prev.id
				if p.N > prev.n {
					prev.n = p.N
					if err := dst.write("saving a labelling plan", func(tx *sql.Tx) error {
						_, err := tx.Exec(`UPDATE plans SET n = ? WHERE id = ?`, p.N, prev.id)
						return err
					}); err != nil {
						return nil, err
					}
				}
				continue
			}
			missing := 0
			var id int64
			err := dst.write("saving a labelling plan", func(tx *sql.Tx) error {
				res, err := tx.Exec(`INSERT INTO plans (design, n, seed, judge, run_id, stratify, floor, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
					string(p.Design), p.N, int64(p.Seed), p.Judge, nullID(runID), p.Stratify, p.Floor, stamp(p.Created))
				if err != nil {
					return err
				}
				if id, err = res.LastInsertId(); err != nil {
					return err
				}
				rows := newBatchInserter(tx, "plan_units", "plan_id", "item_id", "verdict_id", "size", "prn", "stratum")
				for _, u := range units[k] {
					var vid int64
					if u.VerdictID != 0 {
						if runs.verdicts != nil {
							vid = runs.verdicts[i][u.VerdictID]
						}
						if vid == 0 {
							missing++
						}
					}
					if err := rows.add(id, u.ItemID, nullID(vid), u.Size, u.PRN, u.Stratum); err != nil {
						return err
					}
				}
				return rows.flush()
			})
			if err != nil {
				return nil, err
			}
			if missing > 0 {
				sum.Notes = append(sum.Notes, fmt.Sprintf("plan %d of %s names %d verdicts the merge did not carry: those items count as having no verdict in its estimates", p.ID, in.path, missing))
			}
			seen[print] = &kept{id: id, n: p.N}
			out[i][p.ID] = id
		}
	}
	return out, nil
}

// remapPlanVias rewrites the "plan:ID" provenance of actions to the
// merged plan's id; a plan:ID naming no plan of the input (a label
// imported without its plan by an older Gavel) becomes
// "imported-plan:ID", which the merged session's plan ID never claims.
func remapPlanVias(acts []Action, ids map[int64]int64) {
	for k := range acts {
		if old, ok := ParsePlanVia(acts[k].Via); ok {
			if id, ok := ids[old]; ok {
				acts[k].Via = PlanVia(id)
			} else {
				acts[k].Via = foreignPlanVia(acts[k].Via)
			}
		}
	}
}
