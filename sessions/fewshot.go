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
// the label is their majority, and an item whose annotators tie on a
// dimension is left out. Its Note is the item's current note (the latest
// of any annotator's), its Item the item with its texts, rubric and whole
// Fields.
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
	sp, ok, err := s.Split()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, newError(ErrNoSplit, nil,
			"session %s has no calibration / evaluation split, so no item may be a few-shot example yet: record one with `gavel split %s`, then label calibration items",
			s.path, s.path)
	}
	var out []judge.Example
	err = s.read("reading few-shot examples", func(tx *sql.Tx) error {
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
	return out, nil
}

// fewShotCandidate is a calibration item with a label on every wanted
// dimension.
type fewShotCandidate struct {
	id       string
	fraction float64
	values   []float64 // per wanted dimension, in its order
}

// tally counts one item's current labels per wanted dimension and value.
type tally [](map[float64]int)

// fewShotCandidates reads the current whole-item labels on dims and keeps
// the items of the calibration part (PartCalibration only) whose every
// dimension has a majority label, ordered by their fraction.
func fewShotCandidates(tx *sql.Tx, sp Split, dims []judge.Dimension) ([]fewShotCandidate, error) {
	codec, err := loadCodec(tx)
	if err != nil {
		return nil, err
	}
	pos := make(map[string]int, len(dims))
	args := make([]any, 0, len(dims))
	for i, d := range dims {
		if _, dup := pos[d.Name]; dup {
			return nil, fmt.Errorf("dimension %q is named twice", d.Name)
		}
		pos[d.Name] = i
		args = append(args, d.Name)
	}
	// current_label_rows is in (annotator, item_id, criterion, dimension)
	// order: an item's rows for one annotator come together, so the part
	// of the last item read is kept and not hashed again for each
	// dimension.
	rows, err := tx.Query(`SELECT item_id, dimension, value FROM current_labels
		WHERE criterion = 0 AND dimension IN (?`+strings.Repeat(", ?", len(dims)-1)+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	tallies := map[string]tally{}
	var (
		lastID   []byte
		lastPart Part
		id       sql.RawBytes
		dim      string
		raw      any
	)
	for rows.Next() {
		if err := rows.Scan(&id, &dim, &raw); err != nil {
			return nil, err
		}
		if lastID == nil || string(id) != string(lastID) {
			lastID = append(lastID[:0], id...)
			lastPart = sp.partOfBytes(id)
		}
		if lastPart != PartCalibration {
			continue
		}
		v, ok := codec.decode(dim, raw)
		if !ok {
			continue // a value its scale cannot read is no label
		}
		t, ok := tallies[string(id)]
		if !ok {
			t = make(tally, len(dims))
			tallies[string(id)] = t
		}
		i := pos[dim]
		if t[i] == nil {
			t[i] = map[float64]int{}
		}
		t[i][v]++
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	cands := make([]fewShotCandidate, 0, len(tallies))
	for id, t := range tallies {
		values := make([]float64, len(dims))
		ok := true
		for i, counts := range t {
			var v float64
			if v, ok = majority(counts); !ok {
				break
			}
			values[i] = v
		}
		if ok {
			cands = append(cands, fewShotCandidate{id: id, fraction: sp.Fraction(id), values: values})
		}
	}
	slices.SortFunc(cands, func(a, b fewShotCandidate) int {
		return cmp.Or(cmp.Compare(a.fraction, b.fraction), strings.Compare(a.id, b.id))
	})
	return cands, nil
}

// majority is the value most annotators gave; false when none did (no
// label) or two values tie for the most.
func majority(counts map[float64]int) (float64, bool) {
	best, n, tie := 0.0, 0, false
	for v, c := range counts {
		switch {
		case c > n:
			best, n, tie = v, c, false
		case c == n:
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
		if _, ok := groups[v]; !ok {
			values = append(values, v)
		}
		groups[v] = append(groups[v], c)
	}
	slices.Sort(values)
	out := make([]fewShotCandidate, 0, min(n, len(cands)))
	for round := 0; len(out) < n && len(out) < len(cands); round++ {
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
	err := tx.QueryRow(`SELECT idx, item_id, question, gold, prediction, response_a, response_b, fields, segments FROM items WHERE item_id = ?`, id).
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
