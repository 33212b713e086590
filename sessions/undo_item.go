package sessions

import (
	"database/sql"
	"errors"
)

// UndoItem is Undo for one item (gavel label --undo): it takes back this
// annotator's latest group that still has a live action on itemID — only
// that group's actions on itemID, whatever came after on other items —
// and returns them, or nil, nil when there is nothing left to undo there.
// The undo rows form a group of their own, as Undo's do.
func (s *Store) UndoItem(itemID string) ([]Action, error) {
	var undone []Action
	err := s.write("undoing", func(tx *sql.Tx) error {
		var target int64
		err := tx.QueryRow(`SELECT group_id FROM live_actions WHERE annotator = ? AND item_id = ? ORDER BY id DESC LIMIT 1`,
			s.annotator, itemID).Scan(&target)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		rows, err := tx.Query(groupActionsOnItem,
			target, s.annotator, itemID)
		if err != nil {
			return err
		}
		if undone, err = scanActions(tx, rows); err != nil {
			return err
		}
		return s.writeUndo(tx, undone)
	})
	if err != nil {
		return nil, err
	}
	return undone, nil
}
