package sessions

import (
	"database/sql"
	"errors"

	"github.com/gavel-dev/gavel/judge"
)

// Item returns one item by id, with its rubric, segments and original
// fields as Items gives them, and false when the session has no such
// item: a command about one item (gavel label) need not read them all.
func (s *Store) Item(id string) (judge.Item, bool, error) {
	var it judge.Item
	var found bool
	err := s.read("reading an item", func(tx *sql.Tx) error {
		var idx int64
		err := tx.QueryRow(`SELECT idx FROM items WHERE item_id = ?`, id).Scan(&idx)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		items, err := readItemsAfter(tx, idx-1, 1, true)
		if err != nil || len(items) != 1 || items[0].ID != id {
			return err
		}
		it, found = items[0], true
		return nil
	})
	if err != nil {
		return judge.Item{}, false, err
	}
	return it, found, nil
}

// ItemIDs returns every item's id in dataset order.
func (s *Store) ItemIDs() ([]string, error) {
	var out []string
	err := s.read("reading the item ids", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT item_id FROM items ORDER BY idx`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			out = append(out, id)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
