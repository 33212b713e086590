package sessions

import (
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unsafe"

	"github.com/gavel-dev/gavel/judge"
)

// insertBatch is how many rows one INSERT statement carries. One statement
// per row spends most of a bulk load crossing into SQLite (10.5 s for a
// million items against 7.6 s in batches of 50); 64 items × 9 columns stays
// far below SQLite's limit of bound parameters.
const insertBatch = 64

// batchInserter inserts rows of a fixed column list many at a time: a
// prepared statement for full batches, another made once for the tail.
// Columns may be shared: their value, the same for every row, is bound
// once per statement (?1, ?2… in every row) rather than once per row,
// which spares a bound parameter per row and column (a text parameter is
// copied to SQLite's memory each time).
type batchInserter struct {
	tx     *sql.Tx
	head   string // INSERT INTO table (columns) VALUES
	row    string // one row's values: ?N for a shared column, ? for the others
	shared int    // the shared values at the start of args
	full   *sql.Stmt
	args   []any
	rows   int
}

func newBatchInserter(tx *sql.Tx, table string, columns ...string) *batchInserter {
	return newSharedInserter(tx, table, nil, columns)
}

// sharedColumn is a column whose every row takes value.
type sharedColumn struct {
	name  string
	value any
}

// newSharedInserter inserts rows whose shared columns take their one
// value and whose columns take a value per row, in that order.
func newSharedInserter(tx *sql.Tx, table string, shared []sharedColumn, columns []string) *batchInserter {
	names := make([]string, 0, len(shared)+len(columns))
	marks := make([]string, 0, len(shared)+len(columns))
	args := make([]any, 0, len(shared)+insertBatch*len(columns))
	for i, c := range shared {
		names = append(names, c.name)
		marks = append(marks, fmt.Sprintf("?%d", i+1))
		args = append(args, c.value)
	}
	for _, c := range columns {
		names = append(names, c)
		marks = append(marks, "?") // numbered after the shared ones
	}
	return &batchInserter{
		tx:     tx,
		head:   "INSERT INTO " + table + " (" + strings.Join(names, ", ") + ") VALUES ",
		row:    "(" + strings.Join(marks, ", ") + ")",
		shared: len(shared),
		args:   args,
	}
}

// statement returns the INSERT of n rows.
func (b *batchInserter) statement(n int) string {
	return b.head + strings.TrimSuffix(strings.Repeat(b.row+", ", n), ", ")
}

// add queues one row (len(values) must be the count of columns that are
// not shared) and writes the batch when it is full.
func (b *batchInserter) add(values ...any) error {
	b.args = append(b.args, values...)
	b.rows++
	if b.rows < insertBatch {
		return nil
	}
	if b.full == nil {
		st, err := b.tx.Prepare(b.statement(insertBatch))
		if err != nil {
			return err
		}
		b.full = st
	}
	_, err := b.full.Exec(b.args...)
	b.reset()
	return err
}

// reset forgets the written rows, dropping the references to their values
// so that the garbage collector may free them while the load goes on.
func (b *batchInserter) reset() {
	clear(b.args[b.shared:])
	b.args, b.rows = b.args[:b.shared], 0
}

// flush writes the rows still queued and releases the statements.
func (b *batchInserter) flush() error {
	defer func() {
		if b.full != nil {
			b.full.Close()
			b.full = nil
		}
	}()
	return b.write()
}

// write writes the rows queued so far, before their batch is full: rows
// another table's rows refer to.
func (b *batchInserter) write() error {
	if b.rows == 0 {
		return nil
	}
	_, err := b.tx.Exec(b.statement(b.rows), b.args...)
	b.reset()
	return err
}

// insertItems writes items and their rubric criteria, many rows per
// statement, each row whole (see insertItemsMapped).
func insertItems(tx *sql.Tx, items []judge.Item) error {
	return insertItemsMapped(tx, items, nil)
}

// insertItemsMapped writes items and their rubric criteria. mapping (role
// -> source field) lets items.fields leave out the text the role columns
// already hold (see elideFields); nil keeps every row whole.
func insertItemsMapped(tx *sql.Tx, items []judge.Item, mapping map[string]string) error {
	w := newItemWriter(tx, mapping)
	if err := w.add(items); err != nil {
		return err
	}
	return w.flush()
}

// An itemWriter writes items and their rubric criteria as they come, in
// as many calls to add as the caller has pages of items (a dataset still
// parsed hands them a page at a time), then flush. What it remembers
// from one page to the next (the segments' JSON, the layouts and segment
// sets it stored, the layouts seen once) is what makes the later pages
// cheap and small: since schema v11 an item's fields whose stored form an
// earlier item had, and its segments, are stored once and referred to
// (see schema_v11.go).
type itemWriter struct {
	tx        *sql.Tx
	ins, crit *batchInserter
	el        *elider
	segs      segmentsCache
	// refs: the session stores layouts and segment sets (schema v11).
	refs    bool
	layouts layoutRefs
	sets    map[string]int64 // segments text -> segment_sets.id
}

// The bounds of what an itemWriter remembers, so that a dataset whose
// rows are all different costs a bounded memory: past them, rows are
// stored inline as before v11. Variables only so that tests reach them.
var (
	// maxLayouts is how many layouts one writer stores.
	maxLayouts = 4096
	// maxLayoutLen: a longer stored form is always inline (a row that
	// long is mostly its own text, rarely repeated).
	maxLayoutLen = 16 << 10
	// maxSeenBytes bounds the layouts seen once and kept as candidates;
	// past it they are forgotten and the count starts again.
	maxSeenBytes = 8 << 20
	// maxSegmentSets is how many segment sets one writer stores, and
	// maxSegmentSetLen the longest segments text it stores as a set.
	maxSegmentSets   = 4096
	maxSegmentSetLen = 4 << 10
)

// layoutRefs is what an itemWriter knows of layouts: those stored in
// item_layouts, by text, and those seen once (stored inline in an item),
// the candidates for the next.
type layoutRefs struct {
	ids       map[string]int64
	seen      map[string]struct{}
	seenBytes int
}

func newItemWriter(tx *sql.Tx, mapping map[string]string) *itemWriter {
	w := &itemWriter{
		tx:   tx,
		crit: newBatchInserter(tx, "item_criteria", "item_id", "criterion", "text"),
		el:   newElider(mapping),
		// A store always runs the newest schema; tests that build an
		// older one get the rows that schema's Gavel wrote.
		refs: schemaVersion >= 11,
	}
	columns := []string{"idx", "item_id", "question", "gold", "prediction", "response_a", "response_b", "fields", "segments"}
	if w.refs {
		columns = append(columns, "layout", "segment_set")
		w.layouts = layoutRefs{ids: map[string]int64{}, seen: map[string]struct{}{}}
		w.sets = map[string]int64{}
	}
	w.ins = newBatchInserter(tx, "items", columns...)
	return w
}

// add queues items, writing each batch as it fills.
func (w *itemWriter) add(items []judge.Item) error {
	for i := range items {
		it := &items[i]
		var fields, layout any
		if len(it.Fields) > 0 {
			stored := w.el.stored(it)
			if !w.refs {
				fields = string(stored)
			} else {
				var err error
				if fields, layout, err = w.layout(stored); err != nil {
					return fmt.Errorf("the fields of item %q: %w", it.ID, err)
				}
			}
		}
		segments := w.segs.json(it.Segments)
		var err error
		if w.refs {
			var set any
			if segments, set, err = w.segmentSet(segments); err != nil {
				return fmt.Errorf("the segments of item %q: %w", it.ID, err)
			}
			err = w.ins.add(it.Index, it.ID, it.Question, it.Gold, it.Prediction, it.ResponseA, it.ResponseB, fields, segments, layout, set)
		} else {
			err = w.ins.add(it.Index, it.ID, it.Question, it.Gold, it.Prediction, it.ResponseA, it.ResponseB, fields, segments)
		}
		if err != nil {
			return fmt.Errorf("items up to %q: %w", it.ID, err)
		}
		// A criterion refers to its item (a foreign key, checked where a
		// session is built for review or run): the items queued are
		// written before a batch of criteria that may name them.
		if len(it.Rubric) > 0 && w.crit.rows+len(it.Rubric) >= insertBatch {
			if err := w.ins.write(); err != nil {
				return fmt.Errorf("items up to %q: %w", it.ID, err)
			}
		}
		for k, c := range it.Rubric {
			if err := w.crit.add(it.ID, k+1, c); err != nil {
				return fmt.Errorf("rubric criteria up to item %q: %w", it.ID, err)
			}
		}
	}
	return nil
}

// layout decides how an item stores the stored form of its fields (valid
// only until the elider's next call): inline (fields) the first time a
// form is seen, by reference (layout) from the second on.
func (w *itemWriter) layout(stored []byte) (fields, layout any, err error) {
	l := &w.layouts
	if id, ok := l.ids[string(stored)]; ok {
		return nil, id, nil
	}
	if len(stored) > maxLayoutLen {
		return string(stored), nil, nil
	}
	if _, ok := l.seen[string(stored)]; ok && len(l.ids) < maxLayouts {
		text := string(stored)
		id, err := storeOnce(w.tx, "item_layouts", "fields", text)
		if err != nil {
			return nil, nil, err
		}
		delete(l.seen, text)
		l.seenBytes -= len(text)
		l.ids[text] = id
		return nil, id, nil
	} else if ok {
		return string(stored), nil, nil // no more layouts
	}
	text := string(stored)
	if len(l.ids) < maxLayouts {
		if l.seenBytes+len(text) > maxSeenBytes {
			clear(l.seen)
			l.seenBytes = 0
		}
		l.seen[text] = struct{}{}
		l.seenBytes += len(text)
	}
	return text, nil, nil
}

// segmentSet decides how an item stores its segments' text (nil or a
// string): by reference to a segment set, or inline past the bounds.
func (w *itemWriter) segmentSet(segments any) (inline, set any, err error) {
	text, ok := segments.(string)
	if !ok {
		return nil, nil, nil
	}
	if id, ok := w.sets[text]; ok {
		return nil, id, nil
	}
	if len(w.sets) >= maxSegmentSets || len(text) > maxSegmentSetLen {
		return text, nil, nil
	}
	id, err := storeOnce(w.tx, "segment_sets", "segments", text)
	if err != nil {
		return nil, nil, err
	}
	w.sets[text] = id
	return nil, id, nil
}

// storeOnce returns the id of the row of table whose column holds text,
// inserting it when there is none (a session to which items are added
// may have it already).
func storeOnce(tx *sql.Tx, table, column, text string) (int64, error) {
	var id int64
	err := tx.QueryRow(`SELECT id FROM `+table+` WHERE `+column+` = ?`, text).Scan(&id)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	err = tx.QueryRow(`INSERT INTO `+table+` (`+column+`) VALUES (?) RETURNING id`, text).Scan(&id)
	return id, err
}

// flush writes the rows still queued.
func (w *itemWriter) flush() error {
	if err := w.ins.flush(); err != nil {
		return fmt.Errorf("the last items: %w", err)
	}
	if err := w.crit.flush(); err != nil {
		return fmt.Errorf("the last rubric criteria: %w", err)
	}
	return nil
}

// segmentsCache remembers the JSON of the Segments maps it encoded, by
// map. The dataset reader shares one map among the items whose segments
// are equal (a handful of categories over a million rows), so most items
// cost no encoding. The key keeps its map alive, so an address is never
// reused for another map while cached.
type segmentsCache struct {
	texts map[unsafe.Pointer]any
}

// maxCachedSegments bounds the cache; past it, maps are encoded each time.
const maxCachedSegments = 4096

func (c *segmentsCache) json(seg map[string]string) any {
	if len(seg) == 0 {
		return nil
	}
	key := reflect.ValueOf(seg).UnsafePointer()
	if t, ok := c.texts[key]; ok {
		return t
	}
	t := segmentsJSON(seg)
	if c.texts == nil {
		c.texts = map[unsafe.Pointer]any{}
	}
	if len(c.texts) < maxCachedSegments {
		c.texts[key] = t
	}
	return t
}
