package sessions

import (
	"database/sql"

	"github.com/gavel-dev/gavel/judge"
)

// screenVerdicts is ReviewVerdicts (or, swapped, ReviewSwappedVerdicts)
// without the reason and extra fields of ok verdicts: the review screen
// shows them for the item on display only, and reads them then
// (ItemVerdicts). A million verdicts of the match judge hold ~650 MB of
// them decoded, more than their items. Verdicts of one dimension with the
// same value share their Values map (~250 bytes a verdict otherwise;
// nothing changes a verdict's Values), and the verdicts are counted first
// so that their slice is made once, at its size.
func (s *Store) screenVerdicts(runID int64, swapped bool) ([]judge.Verdict, error) {
	return s.currentVerdicts(runID, swapped, okElided("v.raw", "''"), true)
}

// screenVerdictsEach is screenVerdicts handing the verdicts to each, in
// item order, about chunk at a time, an item's together, in a slice each
// may not keep (the next chunk reuses it): a million verdicts held at
// once are ~200 MB.
func (s *Store) screenVerdictsEach(runID int64, swapped bool, chunk int, each func([]judge.Verdict) error) error {
	_, err := s.currentVerdictsEach(runID, swapped, okElided("v.raw", "''"), true, chunk, each)
	return err
}

// scanScreenVerdicts is scanVerdicts with shared Values maps and room for
// hint verdicts; with each set, scanVerdictsEach's chunks, the maps
// shared across them.
func scanScreenVerdicts(tx *sql.Tx, rows *sql.Rows, hint, chunk int, each func([]judge.Verdict) error) ([]judge.Verdict, error) {
	type oneValue struct {
		dim   string
		value float64
	}
	shared := map[oneValue]map[string]float64{}
	// share ends a verdict's values: one dimension of a value seen before
	// takes its map.
	share := func(v *judge.Verdict) {
		if len(v.Values) != 1 {
			return
		}
		for d, x := range v.Values {
			k := oneValue{d, x}
			if m, ok := shared[k]; ok {
				v.Values = m
			} else if len(shared) < 1024 && x == x { // NaN is never found again
				shared[k] = v.Values
			}
		}
	}
	return scanVerdictsEach(tx, rows, hint, share, chunk, each)
}

// ItemVerdicts returns the current verdicts of one item in the run of
// the judge info describes, whole (raw output included), both orders
// (Swapped marks the second), by criterion: what the review screen shows
// of the item on display. It returns none when the session has no such
// run. It is one look-up on the verdicts_by_item index (both orders
// named, so that the item's id is part of the look-up), whatever the
// number of verdicts.
func (s *Store) ItemVerdicts(info judge.Info, itemID string) ([]judge.Verdict, error) {
	key, err := RunKey(info)
	if err != nil {
		return nil, err
	}
	var all []judge.Verdict
	err = s.read("reading an item's verdicts", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT `+verdictColumns+`
			FROM verdicts v
			LEFT JOIN verdict_values vv ON vv.verdict_id = v.id
			WHERE v.run_id = (SELECT id FROM runs WHERE key = ?) AND v.swapped IN (0, 1) AND v.item_id = ?
			ORDER BY v.id`, key, itemID)
		if err != nil {
			return err
		}
		all, err = scanVerdicts(tx, rows)
		return err
	})
	if err != nil {
		return nil, err
	}
	// Oldest first: the last of each criterion and order is the current
	// one.
	type slot struct {
		crit    int
		swapped bool
	}
	at := map[slot]int{}
	var out []judge.Verdict
	for _, v := range all {
		k := slot{v.Criterion, v.Swapped}
		if i, ok := at[k]; ok {
			out[i] = v
			continue
		}
		at[k] = len(out)
		out = append(out, v)
	}
	return out, nil
}
