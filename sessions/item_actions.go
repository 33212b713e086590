package sessions

import "database/sql"

// ItemActions returns annotator's history on one item, undo rows
// included, oldest first: what ReplayLabels needs to tell the annotator's
// current decisions there (gavel label records nothing that only repeats
// one), without reading the rest of a history that may hold a million
// imported labels.
func (s *Store) ItemActions(annotator, itemID string) ([]Action, error) {
	var out []Action
	err := s.read("reading the history", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT `+actionColumns+` FROM actions INDEXED BY actions_by_item WHERE item_id = ? AND annotator = ? ORDER BY id`, itemID, annotator)
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
