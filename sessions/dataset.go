package sessions

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// DatasetInfo is the identity of the dataset a session was made from.
type DatasetInfo struct {
	// Path is where the dataset was read from.
	Path string
	// SHA256 is the hex digest of the dataset file's bytes, so a changed
	// file can be told apart from the one the session began with.
	SHA256 string
	// Format names the reader used, such as "jsonl" or "csv".
	Format string
	// Mapping maps each role to the source field it came from, e.g.
	// "gold" -> "target".
	Mapping map[string]string
	// Items is how many items the session holds.
	Items     int
	CreatedAt time.Time
}

// Dataset returns the session's dataset identity, and false when the
// session has no dataset yet.
func (s *Store) Dataset() (DatasetInfo, bool, error) {
	var info DatasetInfo
	var found bool
	err := s.read("reading the dataset", func(tx *sql.Tx) error {
		var created string
		err := tx.QueryRow(`SELECT path, sha256, format, items, created_at FROM dataset WHERE id = 1`).
			Scan(&info.Path, &info.SHA256, &info.Format, &info.Items, &created)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		found = true
		if info.CreatedAt, err = parseStamp(created); err != nil {
			return err
		}
		rows, err := tx.Query(`SELECT role, field FROM dataset_mapping ORDER BY role`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var role, field string
			if err := rows.Scan(&role, &field); err != nil {
				return err
			}
			if info.Mapping == nil {
				info.Mapping = map[string]string{}
			}
			info.Mapping[role] = field
		}
		return rows.Err()
	})
	if err != nil || !found {
		return DatasetInfo{}, false, err
	}
	return info, true, nil
}

// InitDataset records the dataset and its items, all in one transaction.
// A session holds one dataset: calling it again is an error. info.Items may
// be 0 (it is set to len(items)); otherwise it must equal len(items). Item
// IDs and indexes must be unique; Items returns them in Index order.
// BuildSession writes a new session with its dataset much faster.
func (s *Store) InitDataset(info DatasetInfo, items []judge.Item) error {
	info, err := checkDataset(s.path, info, items)
	if err != nil {
		return err
	}
	errPresent := errors.New("present")
	err = s.write("saving the dataset", func(tx *sql.Tx) error {
		var present int
		if err := tx.QueryRow(`SELECT count(*) FROM dataset`).Scan(&present); err != nil {
			return err
		}
		if present > 0 {
			return errPresent
		}
		return writeDataset(tx, info, items)
	})
	if errors.Is(err, errPresent) {
		return fmt.Errorf("session %s already holds a dataset: start a new session for another dataset", s.path)
	}
	return err
}

// checkDataset refuses items a session cannot hold (no id, a repeated id
// or index, a count other than info.Items) and fills info's defaults.
func checkDataset(path string, info DatasetInfo, items []judge.Item) (DatasetInfo, error) {
	if info.Items != 0 && info.Items != len(items) {
		return info, fmt.Errorf("session %s: the dataset says %d items but %d were given", path, info.Items, len(items))
	}
	seenID := make(map[string]struct{}, len(items))
	seenIdx := make(map[int]struct{}, len(items))
	for i := range items {
		it := &items[i]
		if it.ID == "" {
			return info, fmt.Errorf("session %s: item at index %d has no id", path, it.Index)
		}
		if _, dup := seenID[it.ID]; dup {
			return info, fmt.Errorf("session %s: duplicate item id %q: item ids must be unique", path, it.ID)
		}
		if _, dup := seenIdx[it.Index]; dup {
			return info, fmt.Errorf("session %s: two items have index %d", path, it.Index)
		}
		seenID[it.ID], seenIdx[it.Index] = struct{}{}, struct{}{}
	}
	if info.CreatedAt.IsZero() {
		info.CreatedAt = now()
	}
	info.Items = len(items)
	return info, nil
}

// writeDataset inserts the dataset row, its mapping and its items into a
// session that has none.
func writeDataset(tx *sql.Tx, info DatasetInfo, items []judge.Item) error {
	if _, err := tx.Exec(`INSERT INTO dataset (id, path, sha256, format, items, created_at) VALUES (1, ?, ?, ?, ?, ?)`,
		info.Path, info.SHA256, info.Format, len(items), stamp(info.CreatedAt)); err != nil {
		return err
	}
	for role, field := range info.Mapping {
		if _, err := tx.Exec(`INSERT INTO dataset_mapping (role, field) VALUES (?, ?)`, role, field); err != nil {
			return err
		}
	}
	return insertItemsMapped(tx, items, info.Mapping)
}

// Items returns every item in Index order with its rubric, segments and
// original fields.
func (s *Store) Items() ([]judge.Item, error) {
	var items []judge.Item
	err := s.read("reading the items", func(tx *sql.Tx) error {
		var err error
		items, err = readItems(tx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return items, nil
}

func readItems(tx *sql.Tx) ([]judge.Item, error) {
	var items []judge.Item
	pos := map[string]int{}
	rows, err := tx.Query(`SELECT ` + itemColumns + `, i.layout FROM ` + itemJoins + ` ORDER BY i.idx`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var (
		fields  sql.RawBytes
		layout  sql.NullInt64
		shared  sharedItemParts
		segText sql.RawBytes
	)
	for rows.Next() {
		var it judge.Item
		if err := rows.Scan(&it.Index, &it.ID, &it.Question, &it.Gold, &it.Prediction, &it.ResponseA, &it.ResponseB, &fields, &segText, &layout); err != nil {
			return nil, err
		}
		if segText != nil {
			if it.Segments, err = shared.segments(segText); err != nil {
				return nil, fmt.Errorf("the segments of item %q cannot be read (%v): the session was edited by hand", it.ID, err)
			}
		}
		if fields != nil {
			// The row as the file had it: the text the columns and
			// segments hold goes back where the row had it (see
			// build_fields.go).
			it.Fields = shared.wholeFields(fields, layout, &it)
		}
		pos[it.ID] = len(items)
		items = append(items, it)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}

	crit, err := tx.Query(`SELECT item_id, criterion, text FROM item_criteria ORDER BY item_id, criterion`)
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
	if err := crit.Err(); err != nil {
		return nil, err
	}

	return items, nil
}

// sharedItemParts lets the items a reader reads share what they store
// once (schema_v11.go): one string per layout, one map per segments text.
// Nothing changes an item's Segments map or its Fields bytes.
type sharedItemParts struct {
	layouts map[int64]string          // layout id -> its stored text
	whole   map[int64]json.RawMessage // layout id -> the row, when stored whole
	segMaps map[string]map[string]string
}

// maxSharedParts bounds each of a reader's maps.
const maxSharedParts = 4096

// stored returns the stored text of an item's fields as read (raw, valid
// until the next scan), shared among the items of one layout.
func (p *sharedItemParts) stored(raw []byte, layout sql.NullInt64) string {
	if !layout.Valid {
		return string(raw)
	}
	if t, ok := p.layouts[layout.Int64]; ok {
		return t
	}
	t := string(raw)
	if p.layouts == nil {
		p.layouts = map[int64]string{}
	}
	if len(p.layouts) < maxSharedParts {
		p.layouts[layout.Int64] = t
	}
	return t
}

// wholeFields returns an item's original row from its stored fields (raw,
// valid until the next scan): the items of a layout that elides nothing
// share one copy.
func (p *sharedItemParts) wholeFields(raw []byte, layout sql.NullInt64, it *judge.Item) json.RawMessage {
	if !layout.Valid {
		return json.RawMessage(restoreFields(string(raw), it))
	}
	if w, ok := p.whole[layout.Int64]; ok {
		return w
	}
	stored := p.stored(raw, layout)
	if len(stored) == 0 || stored[0] != '{' {
		return json.RawMessage(restoreFields(stored, it))
	}
	w := json.RawMessage(stored)
	if p.whole == nil {
		p.whole = map[int64]json.RawMessage{}
	}
	if len(p.whole) < maxSharedParts {
		p.whole[layout.Int64] = w
	}
	return w
}

// segments returns an item's segments from their text (raw, valid until
// the next scan), one map per distinct text.
func (p *sharedItemParts) segments(raw []byte) (map[string]string, error) {
	if m, ok := p.segMaps[string(raw)]; ok {
		return m, nil
	}
	text := string(raw)
	m, err := parseSegments(text)
	if err != nil {
		return nil, err
	}
	if p.segMaps == nil {
		p.segMaps = map[string]map[string]string{}
	}
	if len(p.segMaps) < maxSharedParts {
		p.segMaps[text] = m
	}
	return m, nil
}

// segmentsJSON is how items.segments holds an item's segments: one JSON
// object, NULL when there are none.
func segmentsJSON(seg map[string]string) any {
	if len(seg) == 0 {
		return nil
	}
	b, err := json.Marshal(seg)
	if err != nil {
		return nil // a map of strings always encodes
	}
	return string(b)
}

// parseSegments reads items.segments.
func parseSegments(text string) (map[string]string, error) {
	var seg map[string]string
	if err := json.Unmarshal([]byte(text), &seg); err != nil {
		return nil, err
	}
	if len(seg) == 0 {
		return nil, nil
	}
	return seg, nil
}
