package sessions

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"math"

	"github.com/gavel-dev/gavel/judge"
)

// FirstItems is where ItemsAfter starts: before every item.
const FirstItems = math.MinInt64

// ItemsAfter reads, in dataset order, at most limit items whose index is
// greater than after (FirstItems for the first page), with their rubrics.
// The review screen reads a first page before its first frame and the
// rest page by page in the background: reading a million items at once
// takes longer than a screen may wait.
func (s *Store) ItemsAfter(after int64, limit int) ([]judge.Item, error) {
	var items []judge.Item
	err := s.read("reading the items", func(tx *sql.Tx) error {
		var err error
		items, err = readItemsAfter(tx, after, limit)
		return err
	})
	return items, err
}

func readItemsAfter(tx *sql.Tx, after int64, limit int) ([]judge.Item, error) {
	items := make([]judge.Item, 0, limit)
	rows, err := tx.Query(`SELECT idx, item_id, question, gold, prediction, response_a, response_b, fields, segments FROM items WHERE idx > ? ORDER BY idx LIMIT ?`, after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var it judge.Item
		var fields, segments sql.NullString
		if err := rows.Scan(&it.Index, &it.ID, &it.Question, &it.Gold, &it.Prediction, &it.ResponseA, &it.ResponseB, &fields, &segments); err != nil {
			return nil, err
		}
		if fields.Valid {
			it.Fields = json.RawMessage(fields.String)
		}
		if segments.Valid {
			if it.Segments, err = parseSegments(segments.String); err != nil {
				return nil, fmt.Errorf("the segments of item %q cannot be read (%v): the session was edited by hand", it.ID, err)
			}
		}
		items = append(items, it)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return items, nil
	}
	pos := make(map[string]int, len(items))
	for i, it := range items {
		pos[it.ID] = i
	}
	crit, err := tx.Query(`SELECT c.item_id, c.criterion, c.text FROM items i JOIN item_criteria c ON c.item_id = i.item_id
		WHERE i.idx >= ? AND i.idx <= ? ORDER BY i.idx, c.criterion`, items[0].Index, items[len(items)-1].Index)
	if err != nil {
		return nil, err
	}
	defer crit.Close()
	for crit.Next() {
		var id, text string
		var k int
		if err := crit.Scan(&id, &k, &text); err != nil {
			return nil, err
		}
		i, ok := pos[id]
		if !ok || k != len(items[i].Rubric)+1 {
			return nil, fmt.Errorf("rubric criterion %d of item %q is out of place (criteria must be numbered 1, 2, 3… with no gap)", k, id)
		}
		items[i].Rubric = append(items[i].Rubric, text)
	}
	return items, crit.Err()
}
