package sessions

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gavel-dev/gavel/judge"
)

// A replica is a session file that keeps a local copy of a team session
// held elsewhere (PostgreSQL, package sessions/pg): the review screen and
// the statistics run on it unchanged, while the rows are numbered by the
// team session. Actions are written there first, with ids it gives, then
// inserted here with the same ids (ApplyActions), so that SQLite's
// triggers derive the current labels and the decision log as in any
// session; the rows others write are brought in by the same ids. Every
// insert is idempotent: a row whose id is already here is skipped, so a
// write retried, or pulled twice, or by two processes sharing the file,
// never doubles.

// ErrReplicaDiverged is returned when a replica holds, under an id, a row
// other than the team session's: the replica belongs to another session
// (one copied anew under the same name) and must be made again.
var ErrReplicaDiverged = errors.New("the local copy differs from the team session")

// OpenReplica opens a replica for a process that keeps it in step without
// labelling in it (gavel stats on a team session): writable, upgraded like
// any session, but without an annotator or its lock, so that it can run
// beside a review of the same file. It cannot Record.
func OpenReplica(path string) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", path, err)
	}
	if _, err := inspectFile(path, abs, true); err != nil {
		return nil, err
	}
	s := &Store{path: path}
	if err := s.openWriter(abs); err != nil {
		s.closeDBs()
		return nil, err
	}
	return s, nil
}

// ApplyActions inserts actions numbered by the team session: each must
// carry its ID, Group, Annotator and At (as the team session's RecordAs
// returns them); undo rows their Undoes. They are inserted in id order in
// one transaction, so the triggers derive the current labels, and an
// action whose id is already here is skipped (it was applied before)
// after checking that it is the same action (else ErrReplicaDiverged). A
// tag used joins the session's tag set, as Record does. It returns how
// many were new.
func (s *Store) ApplyActions(acts []Action) (int, error) {
	if len(acts) == 0 {
		return 0, nil
	}
	sorted := slices.Clone(acts)
	slices.SortFunc(sorted, func(a, b Action) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	for i, a := range sorted {
		if err := checkApplied(a); err != nil {
			return 0, fmt.Errorf("session %s: %w", s.path, err)
		}
		if i > 0 && sorted[i-1].ID == a.ID {
			return 0, fmt.Errorf("session %s: action id %d given twice", s.path, a.ID)
		}
	}
	added := 0
	err := s.write("saving the team's labels", func(tx *sql.Tx) error {
		codec, err := loadCodec(tx)
		if err != nil {
			return err
		}
		ins, err := tx.Prepare(`INSERT INTO actions (id, group_id, kind, item_id, criterion, dimension, value, note, via, annotator, at, undoes,
				reason, tag, guidelines_id, shown, retest, appeared_at, sitting)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO NOTHING`)
		if err != nil {
			return err
		}
		defer ins.Close()
		first := int64(0)
		for _, a := range sorted {
			var value, undoes any
			switch a.Kind {
			case KindLabel, KindAccept:
				value = codec.encode(a.Dimension, a.Value)
			case KindTag:
				value = a.Value
				if err := addSessionTag(tx, a.Tag, a.At); err != nil {
					return err
				}
			case KindUndo:
				undoes = a.Undoes
			}
			res, err := ins.Exec(a.ID, a.Group, string(a.Kind), a.ItemID, a.Criterion, a.Dimension, value, a.Note, a.Via, a.Annotator, stamp(a.At), undoes,
				nullText(a.Reason), nullText(a.Tag), nullID(a.Guidelines), shownColumn(a.Shown, a.ShownRun), a.Retest, nullStamp(a.Appeared), nullText(a.Sitting))
			if err != nil {
				return fmt.Errorf("action %d: %w", a.ID, err)
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 0 {
				if err := sameAction(tx, a); err != nil {
					return err
				}
				continue
			}
			added++
			if first == 0 {
				first = a.ID
			}
		}
		if first == 0 {
			return nil
		}
		return keepCurrentLabels(tx, first)
	})
	if err != nil {
		return 0, err
	}
	return added, nil
}

// checkApplied checks an action numbered elsewhere.
func checkApplied(a Action) error {
	switch {
	case a.ID <= 0 || a.Group <= 0:
		return fmt.Errorf("item %q: an action from the team session needs its id and group (got %d, %d)", a.ItemID, a.ID, a.Group)
	case strings.TrimSpace(a.Annotator) == "":
		return fmt.Errorf("action %d: no annotator", a.ID)
	case a.At.IsZero():
		return fmt.Errorf("action %d: no time", a.ID)
	case a.Kind == KindUndo:
		if a.Undoes <= 0 {
			return fmt.Errorf("action %d: an undo names the action it undoes", a.ID)
		}
		return nil
	}
	return checkAction(a)
}

// sameAction checks that the action stored under a.ID is a: the same
// group, annotator, kind, item and what it undoes.
func sameAction(tx *sql.Tx, a Action) error {
	var group int64
	var annotator, kind, item string
	var undoes sql.NullInt64
	err := tx.QueryRow(`SELECT group_id, annotator, kind, item_id, undoes FROM actions WHERE id = ?`, a.ID).Scan(&group, &annotator, &kind, &item, &undoes)
	if errors.Is(err, sql.ErrNoRows) {
		// Not the id that conflicted: another unique key (an undo of an
		// action undone already under another id).
		return fmt.Errorf("%w: action %d (%s on %q) conflicts with another row", ErrReplicaDiverged, a.ID, a.Kind, a.ItemID)
	}
	if err != nil {
		return err
	}
	if group != a.Group || annotator != a.Annotator || kind != string(a.Kind) || item != a.ItemID || undoes.Int64 != a.Undoes {
		return fmt.Errorf("%w: action %d is %s by %q on %q here, %s by %q on %q there", ErrReplicaDiverged, a.ID, kind, annotator, item, a.Kind, a.Annotator, a.ItemID)
	}
	return nil
}

// CurrentVerdictsOf returns, per run id, the current verdicts (the latest
// of their item, criterion and order) of the verdicts with the given ids'
// item, criterion and order, as the review screen holds them (see
// RunState.Verdicts: an ok verdict without its raw output, reason and
// extra fields), in item order. A replica that pulled verdicts passes
// their ids to update the screen: a pulled verdict older than one already
// here gives the current one.
func (s *Store) CurrentVerdictsOf(ids []int64) (map[int64][]judge.Verdict, error) {
	out := map[int64][]judge.Verdict{}
	if len(ids) == 0 {
		return out, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	cols := strings.NewReplacer("v.raw", okElided("v.raw", "''"), "v.reason", okElided("v.reason", "''"), "v.extra", okElided("v.extra", "NULL")).Replace(verdictColumns)
	err = s.read("reading verdicts", func(tx *sql.Tx) error {
		var runs []int64
		rows, err := tx.Query(`SELECT DISTINCT run_id FROM verdicts WHERE id IN (SELECT value FROM json_each(?)) ORDER BY run_id`, string(list))
		if err != nil {
			return err
		}
		for rows.Next() {
			var r int64
			if err := rows.Scan(&r); err != nil {
				rows.Close()
				return err
			}
			runs = append(runs, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, run := range runs {
			rows, err := tx.Query(`WITH keys AS (
					SELECT DISTINCT item_id, criterion, swapped FROM verdicts
					WHERE run_id = ? AND id IN (SELECT value FROM json_each(?))),
				cur AS (
					SELECT max(v.id) AS id FROM keys k
					JOIN verdicts v ON v.run_id = ? AND v.item_id = k.item_id AND v.criterion = k.criterion AND v.swapped = k.swapped
					GROUP BY k.item_id, k.criterion, k.swapped)
				SELECT `+cols+`
				FROM cur
				JOIN verdicts v ON v.id = cur.id
				JOIN items i ON i.item_id = v.item_id
				LEFT JOIN verdict_values vv ON vv.verdict_id = v.id
				ORDER BY i.idx, v.criterion, v.id`, run, string(list), run)
			if err != nil {
				return err
			}
			vs, err := scanVerdicts(tx, rows)
			if err != nil {
				return err
			}
			out[run] = vs
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DecidedItems counts, per annotator, the items they decided and have
// not undone: a label or accept on any dimension, or a "can't judge"
// (re-tests left out). It is a team's progress when the session has no
// queue.
func (s *Store) DecidedItems() (map[string]int, error) {
	out := map[string]int{}
	err := s.read("counting decided items", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT annotator, count(DISTINCT item_id) FROM live_actions
			WHERE kind IN ('label', 'accept', 'cant_judge') AND retest = 0 GROUP BY annotator`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var a string
			var n int
			if err := rows.Scan(&a, &n); err != nil {
				return err
			}
			out[a] = n
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// LastLiveGroup returns annotator's latest group that is not undone, as
// Undo would undo it (its live actions, in id order), or nil. A replica's
// writer undoes in the team session what this gives, then applies the
// undo rows here.
func (s *Store) LastLiveGroup(annotator string) ([]Action, error) {
	var out []Action
	err := s.read("reading the last decision", func(tx *sql.Tx) error {
		var target int64
		err := tx.QueryRow(`SELECT group_id FROM live_actions WHERE annotator = ? ORDER BY id DESC LIMIT 1`, annotator).Scan(&target)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		rows, err := tx.Query(groupActions, target, annotator)
		if err != nil {
			return err
		}
		out, err = scanActions(tx, rows)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
