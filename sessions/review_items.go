package sessions

import (
	"bytes"
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
	return s.itemsAfter(after, limit, true)
}

// storedItemsAfter is ItemsAfter with each item's Fields left in the form
// items.fields stores it (see WholeFields), for the review screen: the
// screen never reads Fields, and the original rows put back would take
// about as much memory as the dataset file again. Items whose stored form
// is the same share it: with the question, answer and prediction elided
// and the segments too, a million rows usually store a handful of
// different texts.
func (s *Store) storedItemsAfter(after int64, limit int) ([]judge.Item, error) {
	return s.itemsAfter(after, limit, false)
}

func (s *Store) itemsAfter(after int64, limit int, whole bool) ([]judge.Item, error) {
	var items []judge.Item
	err := s.read("reading the items", func(tx *sql.Tx) error {
		var err error
		items, err = readItemsAfter(tx, after, limit, whole)
		return err
	})
	return items, err
}

// WholeFields returns it with its Fields as the dataset's original row:
// items of a reopened review (Review.Items) hold the stored form of their
// row, in which the text of the item's own columns is elided, and whoever
// reads the row (a judge's template, an export) needs it whole. An item
// whose Fields is already whole is returned as it is, without a copy.
func WholeFields(it judge.Item) judge.Item {
	it.Fields = restoreStoredFields(it.Fields, &it)
	return it
}

func readItemsAfter(tx *sql.Tx, after int64, limit int, whole bool) ([]judge.Item, error) {
	items := make([]judge.Item, 0, limit)
	rows, err := tx.Query(`SELECT `+itemColumns+`, i.layout FROM `+itemJoins+` WHERE i.idx > ? ORDER BY i.idx LIMIT ?`, after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	// The texts of a page are copied into one buffer, and each item's
	// strings are slices of one string made from it: a string per column
	// per item costs its allocation's rounding and header on top of the
	// text, which at a million items is more than the dataset file.
	var (
		texts  []byte
		fields []byte
		spans  []itemSpans
	)
	// Items share their segments map when its text is the same: a
	// million items usually hold a handful of distinct ones, and a map
	// per item is a few hundred bytes. Nothing changes an item's map.
	var shared sharedItemParts
	// Without whole, items whose stored fields are the same share them
	// (sameFields holds the first such item of the page, sameLayout the
	// first of each layout: schema_v11.go).
	sameFields := map[string]int{}
	sameLayout := map[int64]int{}
	var col [6]sql.RawBytes // id, question, gold, prediction, response_a, response_b
	var fieldsCol sql.RawBytes
	var segments sql.RawBytes
	var layout sql.NullInt64
	for rows.Next() {
		var it judge.Item
		if err := rows.Scan(&it.Index, &col[0], &col[1], &col[2], &col[3], &col[4], &col[5], &fieldsCol, &segments, &layout); err != nil {
			return nil, err
		}
		var sp itemSpans
		for k, c := range col {
			sp.text[k] = len(texts)
			texts = append(texts, c...)
		}
		sp.text[len(col)] = len(texts)
		sp.fields = [2]int{-1, -1}
		if fieldsCol != nil {
			k, ok := sameLayout[layout.Int64]
			if !layout.Valid || !ok {
				k, ok = sameFields[string(fieldsCol)]
			}
			if ok && !whole {
				sp.fields = spans[k].fields // the page's buffer holds it once
			} else {
				k = len(spans)
				sp.fields = [2]int{len(fields), len(fields) + len(fieldsCol)}
				fields = append(fields, fieldsCol...)
				if !whole && len(sameFields) < 4096 {
					sameFields[string(fieldsCol)] = k
				}
			}
			if !whole && layout.Valid && len(sameLayout) < 4096 {
				sameLayout[layout.Int64] = k
			}
		}
		if segments != nil {
			if it.Segments, err = shared.segments(segments); err != nil {
				return nil, fmt.Errorf("the segments of item %q cannot be read (%v): the session was edited by hand", string(col[0]), err)
			}
		}
		items = append(items, it)
		spans = append(spans, sp)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	all := string(texts)
	fields = bytes.Clone(fields) // no spare capacity kept alive by the slices
	for i, sp := range spans {
		it := &items[i]
		t := func(k int) string { return all[sp.text[k]:sp.text[k+1]] }
		it.ID, it.Question, it.Gold, it.Prediction, it.ResponseA, it.ResponseB = t(0), t(1), t(2), t(3), t(4), t(5)
		if sp.fields[0] >= 0 {
			it.Fields = json.RawMessage(fields[sp.fields[0]:sp.fields[1]:sp.fields[1]])
			if whole {
				// Text elided because a column holds it goes back (build_fields.go).
				it.Fields = json.RawMessage(restoreStoredFields(it.Fields, it))
			}
		}
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

// itemSpans is where an item's texts lie in its page's buffers: text[k]
// to text[k+1] for the k-th text column, fields[0] to fields[1] for its
// fields (-1 when NULL).
type itemSpans struct {
	text   [7]int
	fields [2]int
}
