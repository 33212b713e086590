package sessions

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// RecordAs is Record for an annotator other than the store's own: the
// labels of a column imported from a dataset ("HumanJudgement") belong to
// the people who made them, not to whoever ran the import. It takes no
// lock for that annotator — imports write history, they do not label live.
func (s *Store) RecordAs(annotator string, acts []Action) ([]Action, error) {
	groups, err := s.recordGroups(annotator, [][]Action{acts})
	if err != nil || len(groups) == 0 {
		return nil, err
	}
	return groups[0], nil
}

// recordGroups commits several groups of actions as annotator in one
// transaction (all or none), each group numbered as one key press would
// be. Empty groups are dropped. It returns the recorded copies.
func (s *Store) recordGroups(annotator string, groups [][]Action) ([][]Action, error) {
	if _, err := s.writable(); err != nil {
		return nil, err
	}
	annotator = strings.TrimSpace(annotator)
	if annotator == "" {
		return nil, fmt.Errorf("session %s: actions need an annotator name", s.path)
	}
	var out [][]Action
	for _, g := range groups {
		if len(g) == 0 {
			continue
		}
		for _, a := range g {
			if err := checkAction(a); err != nil {
				return nil, fmt.Errorf("session %s: %w", s.path, err)
			}
		}
		out = append(out, append([]Action(nil), g...))
	}
	if len(out) == 0 {
		return nil, nil
	}
	err := s.write("saving labels", func(tx *sql.Tx) error {
		group, err := nextGroup(tx)
		if err != nil {
			return err
		}
		known, err := tx.Prepare(`SELECT 1 FROM items WHERE item_id = ?`)
		if err != nil {
			return err
		}
		defer known.Close()
		ins, err := prepareInsertAction(tx)
		if err != nil {
			return err
		}
		defer ins.Close()
		at := now()
		guidelines := map[int64]bool{} // versions known to be in the session
		runs := map[int64]bool{}       // runs known to be in the session
		for gi := range out {
			for i := range out[gi] {
				a := &out[gi][i]
				a.Group, a.Annotator, a.Undoes = group, annotator, 0
				if a.At.IsZero() || a.At.After(at) {
					a.At = at // a decision's time is the caller's when it gives one
				}
				if a.Sitting == "" && annotator == s.annotator && s.lock != nil {
					a.Sitting = s.lock.token
				}
				if a.Kind == KindTag {
					// A tag used on an item joins the session's tag set.
					if err := addSessionTag(tx, a.Tag, at); err != nil {
						return err
					}
				}
				if a.Guidelines != 0 && !guidelines[a.Guidelines] {
					var one int
					if err := tx.QueryRow(`SELECT 1 FROM guidelines WHERE id = ?`, a.Guidelines).Scan(&one); err != nil {
						if errors.Is(err, sql.ErrNoRows) {
							return fmt.Errorf("item %q: guidelines version %d is not in the session (AddGuidelines gives the id)", a.ItemID, a.Guidelines)
						}
						return err
					}
					guidelines[a.Guidelines] = true
				}
				if a.ShownRun != 0 && !runs[a.ShownRun] {
					var one int
					if err := tx.QueryRow(`SELECT 1 FROM runs WHERE id = ?`, a.ShownRun).Scan(&one); err != nil {
						if errors.Is(err, sql.ErrNoRows) {
							return fmt.Errorf("item %q: the run shown (%d) is not in the session", a.ItemID, a.ShownRun)
						}
						return err
					}
					runs[a.ShownRun] = true
				}
				var one int
				if err := known.QueryRow(a.ItemID).Scan(&one); err != nil {
					if errors.Is(err, sql.ErrNoRows) {
						return fmt.Errorf("unknown item %q", a.ItemID)
					}
					return err
				}
				if a.ID, err = insertAction(ins, *a); err != nil {
					return err
				}
			}
			group++
		}
		return keepCurrentLabels(tx, out[0][0].ID)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
