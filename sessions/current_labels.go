package sessions

import "database/sql"

// LabelsExcept returns the current labels of every annotator but one,
// imported annotators included (a dataset's human column), in the order of
// Labels: the review screen shows them beside the labels of the person
// reviewing, which it derives itself (LabelState). One query over the
// current_labels view.
func (s *Store) LabelsExcept(annotator string) ([]Label, error) {
	return s.currentLabels("reading other annotators' labels", `l.annotator <> ?`, annotator)
}

// currentLabelAction is the condition on an action a under which it is a
// current label, as the current_labels view reads it: for the reads that
// need more of the action than the view's columns (its guidelines
// version, what was shown), without a join.
const currentLabelAction = `a.kind IN ('label', 'accept') AND a.retest = 0 AND a.id NOT IN (SELECT id FROM past_labels)`

// currentLabels reads the rows of current_labels that where (a condition
// on l, with args) keeps, in item order, then criterion, dimension and
// annotator.
func (s *Store) currentLabels(doing, where string, args ...any) ([]Label, error) {
	// Counted first, so that the slice is made once at its size: grown
	// by appends, a million labels (~120 MB) held an old and a new
	// array at once at each growth.
	count := `SELECT count(*) FROM current_labels l JOIN items i ON i.item_id = l.item_id WHERE ` + where
	return s.readLabelsSized(doing, count, currentLabelsQuery(where), args...)
}

// readLabels reads current labels from a query whose columns are item_id,
// criterion, dimension, value, annotator, via, at, action_id, accepted;
// a value its dimension's scale cannot read is no label and is left out.
func (s *Store) readLabels(doing, query string, args ...any) ([]Label, error) {
	return s.readLabelsSized(doing, "", query, args...)
}

// readLabelsSized is readLabels making room first for as many labels as
// count (a query of the same args, when not "") says.
func (s *Store) readLabelsSized(doing, count, query string, args ...any) ([]Label, error) {
	var out []Label
	sized := func(n int) { out = make([]Label, 0, n) }
	err := s.readLabelsEach(doing, count, sized, query, args, func(itemID []byte, l Label) error {
		l.ItemID = string(itemID)
		out = append(out, l)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readLabelsEach reads labels as readLabels does, handing each to each
// with its item's id apart (l.ItemID empty; itemID valid during the
// call). When count is not "", sized is first told how many the query of
// the same args says there are (when more than none).
func (s *Store) readLabelsEach(doing, count string, sized func(int), query string, args []any, each func(itemID []byte, l Label) error) error {
	return s.read(doing, func(tx *sql.Tx) error {
		if count != "" {
			n := 0
			if err := tx.QueryRow(count, args...).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				sized(n)
			}
		}
		rows, err := tx.Query(query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		codec, err := loadCodec(tx)
		if err != nil {
			return err
		}
		// A dimension, annotator or via is one of a few: each is made
		// once, not once a label (a million labels made 3 million).
		names := map[string]string{}
		name := func(b sql.RawBytes) string {
			if s, ok := names[string(b)]; ok {
				return s
			}
			s := string(b)
			if len(names) < 4096 {
				names[s] = s
			}
			return s
		}
		var id, dim, annotator, via sql.RawBytes
		for rows.Next() {
			var l Label
			var at string
			var value any
			if err := rows.Scan(&id, &l.Criterion, &dim, &value, &annotator, &via, &at, &l.ActionID, &l.Accepted); err != nil {
				return err
			}
			l.Dimension, l.Annotator, l.Via = name(dim), name(annotator), name(via)
			x, ok := codec.decode(l.Dimension, value)
			if !ok {
				continue // a value its scale cannot read is no label
			}
			l.Value = x
			if l.At, err = parseStamp(at); err != nil {
				return err
			}
			if err := each(id, l); err != nil {
				return err
			}
		}
		return rows.Err()
	})
}

// LabelsExceptEach is LabelsExcept handing each label to each as it is
// read instead of returning them all: a caller that keeps them in its own
// form does not hold them twice (a million took ~130 MB as Labels). The
// label's ItemID is left empty: its item's id is itemID, valid only until
// each returns. An error from each ends the read and is returned.
func (s *Store) LabelsExceptEach(annotator string, each func(itemID []byte, l Label) error) error {
	return s.readLabelsEach("reading other annotators' labels", "", nil, currentLabelsQuery(`l.annotator <> ?`), []any{annotator}, each)
}

// currentLabelsQuery is currentLabels' query for where.
func currentLabelsQuery(where string) string {
	return `SELECT l.item_id, l.criterion, l.dimension, l.value, l.annotator, l.via, l.at, l.action_id, l.accepted
			FROM current_labels l
			JOIN items i ON i.item_id = l.item_id
			WHERE ` + where + `
			ORDER BY i.idx, l.criterion, l.dimension, l.annotator`
}
