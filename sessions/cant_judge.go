package sessions

import (
	"database/sql"
	"time"
)

// CantJudge is an annotator's current "can't judge" on an item: the
// latest of their decisions on it (labels, accepts and can't-judges that
// are not re-tests and not undone) is a cant_judge action.
type CantJudge struct {
	ItemID, Annotator, Reason, Note string
	At                              time.Time
	ActionID                        int64
}

// CantJudges returns the current can't-judges of annotator ("" for
// everyone), as the current_cant_judge view derives them, in item order,
// then annotator.
func (s *Store) CantJudges(annotator string) ([]CantJudge, error) {
	var out []CantJudge
	err := s.read("reading the items that cannot be judged", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT c.item_id, c.annotator, c.reason, c.note, c.at, c.action_id
			FROM current_cant_judge c JOIN items i ON i.item_id = c.item_id
			WHERE ? = '' OR c.annotator = ? ORDER BY i.idx, c.annotator`, annotator, annotator)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c CantJudge
			var at string
			if err := rows.Scan(&c.ItemID, &c.Annotator, &c.Reason, &c.Note, &at, &c.ActionID); err != nil {
				return err
			}
			if c.At, err = parseStamp(at); err != nil {
				return err
			}
			out = append(out, c)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
