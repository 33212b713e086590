package sessions

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// segmentGroup is a segments object and the idx of the items that have
// it.
type segmentGroup struct {
	segments map[string]string
	idxs     []int64
}

// scanSegmentGroups reads the segments of every item that has some. The
// query reads two indexes alone, items_by_segments for the items that
// hold their segments and items_by_segment_set for those that name a
// segment set (schema_v11.go), a row per distinct segments object or set
// with its items' idx, so a million items in a dozen segments decode a
// dozen JSON objects; the items sharing one share its map (the statistics
// only read it). The same object may come in two groups, one of each
// kind: an item is in one group only.
func scanSegmentGroups(tx *sql.Tx) ([]segmentGroup, error) {
	rows, err := tx.Query(`SELECT segments, group_concat(idx) FROM items INDEXED BY items_by_segments
		WHERE segments IS NOT NULL GROUP BY segments
		UNION ALL
		SELECT s.segments, g.list FROM (
			SELECT segment_set, group_concat(idx) AS list FROM items INDEXED BY items_by_segment_set
			WHERE segment_set IS NOT NULL GROUP BY segment_set) g
		JOIN segment_sets s ON s.id = g.segment_set`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type group struct{ text, list string }
	var raw []group
	for rows.Next() {
		var g group
		if err := rows.Scan(&g.text, &g.list); err != nil {
			return nil, err
		}
		raw = append(raw, g)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	var out []segmentGroup
	for _, g := range raw {
		m, err := decodeSegments(tx, g.text)
		if err != nil {
			return nil, err
		}
		idxs := make([]int64, 0, strings.Count(g.list, ",")+1)
		list := packedList{rest: g.list, sep: ','}
		for list.rest != "" {
			field := list.next()
			idx, ok := packedNumber(field)
			if !ok {
				return nil, fmt.Errorf("reading the items' segments: %q is not an idx", field)
			}
			idxs = append(idxs, idx)
		}
		out = append(out, segmentGroup{m, idxs})
	}
	return out, nil
}

// addSegments gives each item's units (the whole item and its criteria)
// the segments of its group; items in none keep nil.
func (u *statsUnits) addSegments(groups []segmentGroup) {
	idxs := u.idxs
	place := func(idx int64) (int, bool) { return slices.BinarySearch(idxs, idx) }
	if n := len(idxs); n > 0 && idxs[n-1]-idxs[0] == int64(n-1) {
		// idx runs without gaps, as Gavel writes it
		place = func(idx int64) (int, bool) {
			i := idx - idxs[0]
			return int(i), i >= 0 && i < int64(n)
		}
	}
	// first is the whole-item unit of each item in dataset order: the
	// item's place itself unless criteria have units of their own.
	var first []int
	if len(u.units) != len(idxs) {
		first = make([]int, 0, len(idxs))
		for i := range u.units {
			if u.units[i].Criterion == 0 {
				first = append(first, i)
			}
		}
	}
	for _, g := range groups {
		for _, idx := range g.idxs {
			p, ok := place(idx)
			if !ok {
				continue
			}
			if first == nil {
				u.units[p].Segments = g.segments
				continue
			}
			for i := first[p]; i < len(u.units) && (i == first[p] || u.units[i].Criterion > 0); i++ {
				u.units[i].Segments = g.segments
			}
		}
	}
}

// decodeSegments reads an item's segments column as the item_segments view
// does. A flat object of strings, what Gavel writes, is decoded here;
// anything else is left to SQLite's json_each, so that its reading (and
// its errors) stay the view's.
func decodeSegments(tx *sql.Tx, text string) (map[string]string, error) {
	var flat map[string]string
	if json.Unmarshal([]byte(text), &flat) == nil && flat != nil {
		if len(flat) == 0 {
			return nil, nil // as the view: no rows, no segments
		}
		return flat, nil
	}
	rows, err := tx.Query(`SELECT key, value FROM json_each(?)`, text)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var m map[string]string
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		if m == nil {
			m = map[string]string{}
		}
		m[k] = v
	}
	return m, rows.Err()
}
