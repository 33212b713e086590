package sessions

import (
	"cmp"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gavel-dev/gavel/judge"
)

// ErrNoSplit means an operation that may read only the calibration part
// of the session (few-shot examples, tuning) met a session without a
// split.
var ErrNoSplit = errors.New("session has no split")

// FewShot returns up to k+1 few-shot examples for a judge rating dims: the
// caller shows k and passes the extra one so that a task about one of the
// examples' own items can skip it (judge/llm's WithExamples).
//
// Examples come only from the calibration part of the session's split
// (PartCalibration: never its validation third, on which tuning chooses,
// and never the evaluation part, on which judges are scored), so no item a
// judge is scored on ever reaches its prompt (SPEC "Improving a judge").
// An item is a candidate when it has a current human label on the whole
// item (criterion 0) for every dimension of dims; with several annotators
// the label is its adjudication when it has one (the latest, via
// "adjudication"), else their majority, and an item whose annotators tie
// on a dimension, unadjudicated, is left out. Its Note is the item's
// current note (the latest of any annotator's), its Item the item with its
// texts, rubric and whole Fields.
//
// The order is deterministic: candidates by their Split.Fraction, taken
// round-robin over the first dimension's label values in ascending order
// (NO, YES, NO, YES…), so k examples hold both verdicts where the labels
// have both. A session without a split is an error wrapping ErrNoSplit
// that names the command recording one; a split without candidates gives
// no examples and no error. k < 1 asks for none.
//
// Only the labels of the wanted dimensions and the chosen items' rows are
// read: not every item's text.
func (s *Store) FewShot(dims []judge.Dimension, k int) ([]judge.Example, error) {
	if len(dims) == 0 {
		return nil, fmt.Errorf("session %s: few-shot examples need the judge's dimensions", s.path)
	}
	if k < 1 {
		return nil, nil
	}
	var out []judge.Example
	noSplit := false
	// The split and the labels are read in one transaction, so a split
	// replaced meanwhile cannot mix with labels read under the old one.
	err := s.read("reading few-shot examples", func(tx *sql.Tx) error {
		var seed, at string
		var share float64
		err := tx.QueryRow(`SELECT seed, calibration, created_at FROM splits ORDER BY id DESC LIMIT 1`).Scan(&seed, &share, &at)
		if errors.Is(err, sql.ErrNoRows) {
			noSplit = true
			return nil
		}
		if err != nil {
			return err
		}
		sp, err := readSplit(seed, share, at)
		if err != nil {
			return damaged(s.path, err)
		}
		cands, err := fewShotCandidates(tx, sp, dims)
		if err != nil {
			return err
		}
		chosen := stratify(cands, k+1)
		out = make([]judge.Example, 0, len(chosen))
		for _, c := range chosen {
			it, err := readItem(tx, c.id)
			if err != nil {
				return err
			}
			note, err := latestNote(tx, c.id)
			if err != nil {
				return err
			}
			labels := make(map[string]float64, len(dims))
			for i, d := range dims {
				labels[d.Name] = c.values[i]
			}
			out = append(out, judge.Example{Item: it, Labels: labels, Note: note})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if noSplit {
		return nil, newError(ErrNoSplit, nil,
			"session %s has no calibration / evaluation split, so no item may be a few-shot example yet: record one with `gavel split %s`, then label calibration items",
			s.path, s.path)
	}
	return out, nil
}

// fewShotCandidate is a calibration item with a label on every wanted
// dimension.
type fewShotCandidate struct {
	id       string
	fraction float64
	values   []float64 // per wanted dimension, in its order
}

// valueCount is how many annotators gave a value.
type valueCount struct {
	v float64
	n int
}

// fewShotTally gathers the labels of the calibration items on the wanted
// dimensions as they are read.
type fewShotTally struct {
	sp    Split
	dims  int
	index map[string]int // item id → its row in items
	items []tallyItem
	// The part of the last id met: an item's labels come together in
	// the order the store reads them, so its id is hashed once.
	lastID   string
	lastPart Part
	lastFrac float64
}

type tallyItem struct {
	id       string
	fraction float64
	counts   [][]valueCount // per wanted dimension
}

// add counts annotator's label v of item id on wanted dimension dim.
func (t *fewShotTally) add(id string, dim int, v float64) {
	if id != t.lastID || t.lastPart == "" {
		t.lastID = id
		t.lastFrac = t.sp.Fraction(id)
		t.lastPart = t.sp.partOf(t.lastFrac)
	}
	if t.lastPart != PartCalibration {
		return // never an example: validation and evaluation stay unseen
	}
	i, ok := t.index[id]
	if !ok {
		i = len(t.items)
		t.index[id] = i
		t.items = append(t.items, tallyItem{id: id, fraction: t.lastFrac, counts: make([][]valueCount, t.dims)})
	}
	c := t.items[i].counts[dim]
	for k := range c {
		if c[k].v == v {
			c[k].n++
			return
		}
	}
	t.items[i].counts[dim] = append(c, valueCount{v, 1})
}

// remove takes back one label v of item id on wanted dimension dim that
// add counted.
func (t *fewShotTally) remove(id string, dim int, v float64) {
	i, ok := t.index[id]
	if !ok {
		return // not a calibration item, or never counted
	}
	c := t.items[i].counts[dim]
	for k := range c {
		if c[k].v == v {
			if c[k].n--; c[k].n == 0 {
				t.items[i].counts[dim] = slices.Delete(c, k, k+1)
			}
			return
		}
	}
}

// currentCantJudgePairs lists every (annotator, item) whose current
// decision is a "can't judge", as the view current_cant_judge defines
// them: a live cant_judge that is not a re-test, with no live label,
// accept or can't-judge (not a re-test) of the annotator on the item
// after it. Unlike the view it reads the cant_judge actions by the
// actions_labelling index (its WHERE term starts with the index's first
// term) and each later decision by the index on items, so a session with
// none costs one look at the index.
func currentCantJudgePairs(tx *sql.Tx) ([][2]string, error) {
	rows, err := tx.Query(`SELECT c.annotator, c.item_id FROM actions c
		WHERE c.kind IN ('cant_judge', 'tag') AND c.kind = 'cant_judge' AND c.retest = 0
			AND NOT EXISTS (SELECT 1 FROM actions u WHERE u.undoes = c.id)
			AND NOT EXISTS (SELECT 1 FROM actions b INDEXED BY actions_by_item
				WHERE b.item_id = c.item_id AND b.annotator = c.annotator AND b.id > c.id
					AND b.kind IN ('label', 'accept', 'cant_judge') AND b.retest = 0
					AND NOT EXISTS (SELECT 1 FROM actions u WHERE u.undoes = b.id))
		ORDER BY c.id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][2]string
	for rows.Next() {
		var p [2]string
		if err := rows.Scan(&p[0], &p[1]); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// fewShotCandidates reads the current whole-item labels on dims and keeps
// the items of the calibration part (PartCalibration only) whose every
// dimension has a label, its adjudication or else a majority, ordered by
// their fraction. A label of an annotator on an item they marked "can't
// judge" does not count. Labels are read packed where they can be
// (stats_input_packed.go): a million rows handed over one by one cost
// seconds in the driver.
func fewShotCandidates(tx *sql.Tx, sp Split, dims []judge.Dimension) ([]fewShotCandidate, error) {
	codec, err := loadCodec(tx)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(dims))
	for _, d := range dims {
		if seen[d.Name] {
			return nil, fmt.Errorf("dimension %q is named twice", d.Name)
		}
		seen[d.Name] = true
	}
	t := &fewShotTally{sp: sp, dims: len(dims), index: map[string]int{}}
	for i, d := range dims {
		where := `criterion = 0 AND dimension = ?1`
		if _, named := codec.scales[d.Name]; packedReads && !named {
			ok, slow, err := readFewShotPacked(tx, codec, t, i, d.Name)
			if err != nil {
				return nil, err
			}
			if ok && slow == 0 {
				continue
			}
			if ok {
				// The rows the packed list marked: values that are not
				// whole numbers (ternary's 0.5).
				where += ` AND ` + slowRows(wholeValue)
			}
		}
		if err := readFewShotRows(tx, codec, t, i, d.Name, where); err != nil {
			return nil, err
		}
	}
	// A label of an annotator on an item they marked "can't judge" (the
	// gold is wrong, say) is no label, as in the statistics: it leaves
	// the item's tally. Few marks are expected, each taken out by one
	// look at the current labels' key.
	marks, err := currentCantJudgePairs(tx)
	if err != nil {
		return nil, err
	}
	for _, m := range marks {
		for i, d := range dims {
			var raw any
			err := tx.QueryRow(`SELECT value FROM current_labels
				WHERE +annotator = ?1 AND item_id = ?2 AND criterion = 0 AND dimension = ?3`, m[0], m[1], d.Name).Scan(&raw)
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			if err != nil {
				return nil, err
			}
			if v, ok := codec.decode(d.Name, raw); ok {
				t.remove(m[1], i, v)
			}
		}
	}
	// An adjudicated item's label is its adjudication (the latest), which
	// the tally counted as a person's label (adjudication.go).
	settled, err := adjudicatedTally(tx, codec, t, dims, marks)
	if err != nil {
		return nil, err
	}
	cands := make([]fewShotCandidate, 0, len(t.items))
	for _, it := range t.items {
		values := make([]float64, len(dims))
		ok := true
		for i, counts := range it.counts {
			if v, adj := settled[fewShotKey{it.id, i}]; adj {
				values[i], ok = v.value, true
				continue
			}
			if values[i], ok = majority(counts); !ok {
				break
			}
		}
		if ok {
			cands = append(cands, fewShotCandidate{id: it.id, fraction: it.fraction, values: values})
		}
	}
	slices.SortFunc(cands, func(a, b fewShotCandidate) int {
		return cmp.Or(cmp.Compare(a.fraction, b.fraction), strings.Compare(a.id, b.id))
	})
	return cands, nil
}

// readFewShotPacked adds the whole-number labels on dimension dim (the
// wanted dimension i) to t from one packed row, and counts the labels it
// left to the row reader (slow); ok is false when the lists cannot be
// read, and then nothing was added.
func readFewShotPacked(tx *sql.Tx, codec *valueCodec, t *fewShotTally, i int, dim string) (ok bool, slow int, err error) {
	var n int64
	var itemList, valueList sql.NullString
	err = tx.QueryRow(`SELECT count(*), group_concat(item_id, char(30)), `+packedInt(wholeValue, castValue)+`
		FROM current_labels WHERE criterion = 0 AND dimension = ?1`, dim).Scan(&n, &itemList, &valueList)
	if err != nil {
		return false, 0, ignore(err, unpackable)
	}
	items, ok1 := splitPacked(itemList, packSep, n)
	values, ok2 := splitPacked(valueList, ',', n)
	if !ok1 || !ok2 {
		return false, 0, nil
	}
	// Check every element before adding any, so that a failed read
	// leaves t as it was for the row reader.
	check := values
	for range n {
		if v := check.next(); v == packSlow {
			slow++
		} else if _, ok := packedNumber(v); !ok {
			return false, 0, nil
		}
	}
	for range n {
		id, v := items.next(), values.next()
		if v == packSlow {
			continue
		}
		x, _ := packedNumber(v)
		if f, ok := codec.decode(dim, float64(x)); ok {
			t.add(id, i, f)
		}
	}
	return true, slow, nil
}

// readFewShotRows adds the labels on dimension dim (the wanted dimension
// i) that where selects to t, a row at a time.
func readFewShotRows(tx *sql.Tx, codec *valueCodec, t *fewShotTally, i int, dim, where string) error {
	rows, err := tx.Query(`SELECT item_id, value FROM current_labels WHERE `+where, dim)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var raw any
		if err := rows.Scan(&id, &raw); err != nil {
			return err
		}
		if v, ok := codec.decode(dim, raw); ok {
			t.add(id, i, v)
		}
	}
	return rows.Err()
}

// majority is the value most annotators gave; false when none did (no
// label) or two values tie for the most.
func majority(counts []valueCount) (float64, bool) {
	best, n, tie := 0.0, 0, false
	for _, c := range counts {
		switch {
		case c.n > n:
			best, n, tie = c.v, c.n, false
		case c.n == n:
			tie = true
		}
	}
	return best, n > 0 && !tie
}

// stratify takes up to n candidates round-robin over the first
// dimension's values in ascending order, each value's candidates in their
// order, so that the first few examples hold every value the labels have.
func stratify(cands []fewShotCandidate, n int) []fewShotCandidate {
	groups := map[float64][]fewShotCandidate{}
	var values []float64
	for _, c := range cands {
		v := c.values[0]
		g, ok := groups[v]
		if !ok {
			values = append(values, v)
		}
		if len(g) < n { // no round takes more than n of one value
			groups[v] = append(g, c)
		}
	}
	slices.Sort(values)
	kept := 0
	for _, g := range groups {
		kept += len(g)
	}
	out := make([]fewShotCandidate, 0, min(n, kept))
	for round := 0; len(out) < n && len(out) < kept; round++ {
		for _, v := range values {
			if g := groups[v]; round < len(g) && len(out) < n {
				out = append(out, g[round])
			}
		}
	}
	return out
}

// readItem reads one item by its id, with its rubric and its Fields as the
// dataset's original row.
func readItem(tx *sql.Tx, id string) (judge.Item, error) {
	var it judge.Item
	var fields, segments sql.NullString
	err := tx.QueryRow(`SELECT `+itemColumns+` FROM `+itemJoins+` WHERE i.item_id = ?`, id).
		Scan(&it.Index, &it.ID, &it.Question, &it.Gold, &it.Prediction, &it.ResponseA, &it.ResponseB, &fields, &segments)
	if err != nil {
		return judge.Item{}, fmt.Errorf("item %q: %w", id, err)
	}
	if segments.Valid {
		if it.Segments, err = parseSegments(segments.String); err != nil {
			return judge.Item{}, fmt.Errorf("the segments of item %q cannot be read (%v): the session was edited by hand", id, err)
		}
	}
	if fields.Valid {
		it.Fields = json.RawMessage(restoreFields(fields.String, &it))
	}
	rows, err := tx.Query(`SELECT criterion, text FROM item_criteria WHERE item_id = ? ORDER BY criterion`, id)
	if err != nil {
		return judge.Item{}, err
	}
	defer rows.Close()
	for rows.Next() {
		var k int
		var text string
		if err := rows.Scan(&k, &text); err != nil {
			return judge.Item{}, err
		}
		if k != len(it.Rubric)+1 {
			return judge.Item{}, fmt.Errorf("rubric criterion %d of item %q is out of place (criteria must be numbered 1, 2, 3… with no gap)", k, id)
		}
		it.Rubric = append(it.Rubric, text)
	}
	return it, rows.Err()
}

// latestNote is the item's current note: of each annotator's latest live
// note that is not empty (an empty note clears that annotator's), the
// latest. The actions_by_item index finds the item's actions.
func latestNote(tx *sql.Tx, id string) (string, error) {
	rows, err := tx.Query(`SELECT annotator, note FROM actions a
		WHERE a.item_id = ? AND a.kind = 'note'
		  AND NOT EXISTS (SELECT 1 FROM actions u WHERE u.undoes = a.id)
		ORDER BY a.id DESC`, id)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	seen := map[string]bool{}
	for rows.Next() {
		var who, note string
		if err := rows.Scan(&who, &note); err != nil {
			return "", err
		}
		if seen[who] {
			continue // an older note of someone whose latest was read
		}
		seen[who] = true
		if note != "" {
			return note, nil
		}
	}
	return "", rows.Err()
}
