package sessions

import (
	"database/sql"
	"time"
)

// Label is an annotator's current value for one (item, criterion,
// dimension), derived from the action history.
type Label struct {
	ItemID    string
	Criterion int
	Dimension string
	// Value is the label; binary dimensions use 1 for YES and 0 for NO.
	Value     float64
	Annotator string
	// Via is how the item was reached when it was labelled, so
	// statistics can tell a random sample from a hand-picked one.
	Via      string
	At       time.Time
	ActionID int64
	// Accepted means the person accepted the judge's verdict rather than
	// setting the value by hand.
	Accepted bool
}

// Labels returns the current labels of annotator ("" means every
// annotator) in item order, then criterion, dimension and annotator.
func (s *Store) Labels(annotator string) ([]Label, error) {
	return s.currentLabels("reading labels", `? = '' OR l.annotator = ?`, annotator, annotator)
}

// Note is an annotator's current note on an item.
type Note struct {
	ItemID, Annotator, Text string
	At                      time.Time
}

// Notes returns the current notes of annotator ("" means every annotator)
// in item order: per item, the latest note not undone, unless its text is
// empty (an empty note clears).
func (s *Store) Notes(annotator string) ([]Note, error) {
	var out []Note
	err := s.read("reading notes", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT n.item_id, n.annotator, n.note, n.at
			FROM current_notes n
			JOIN items i ON i.item_id = n.item_id
			WHERE ? = '' OR n.annotator = ?
			ORDER BY i.idx, n.annotator`, annotator, annotator)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var n Note
			var at string
			if err := rows.Scan(&n.ItemID, &n.Annotator, &n.Text, &at); err != nil {
				return err
			}
			if n.At, err = parseStamp(at); err != nil {
				return err
			}
			out = append(out, n)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Annotators returns, sorted, everyone who has recorded an action in the
// session.
func (s *Store) Annotators() ([]string, error) {
	var out []string
	err := s.read("reading annotators", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT DISTINCT annotator FROM actions ORDER BY annotator`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var a string
			if err := rows.Scan(&a); err != nil {
				return err
			}
			out = append(out, a)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
