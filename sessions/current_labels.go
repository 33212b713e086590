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

// currentLabels reads the rows of current_labels that where (a condition
// on l, with args) keeps, in item order, then criterion, dimension and
// annotator.
func (s *Store) currentLabels(doing, where string, args ...any) ([]Label, error) {
	return s.readLabels(doing, `SELECT l.item_id, l.criterion, l.dimension, l.value, l.annotator, l.via, l.at, l.action_id, l.accepted
			FROM current_labels l
			JOIN items i ON i.item_id = l.item_id
			WHERE `+where+`
			ORDER BY i.idx, l.criterion, l.dimension, l.annotator`, args...)
}

// readLabels reads current labels from a query whose columns are item_id,
// criterion, dimension, value, annotator, via, at, action_id, accepted;
// a value its dimension's scale cannot read is no label and is left out.
func (s *Store) readLabels(doing, query string, args ...any) ([]Label, error) {
	var out []Label
	err := s.read(doing, func(tx *sql.Tx) error {
		rows, err := tx.Query(query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		codec, err := loadCodec(tx)
		if err != nil {
			return err
		}
		for rows.Next() {
			var l Label
			var at string
			var value any
			if err := rows.Scan(&l.ItemID, &l.Criterion, &l.Dimension, &value, &l.Annotator, &l.Via, &at, &l.ActionID, &l.Accepted); err != nil {
				return err
			}
			x, ok := codec.decode(l.Dimension, value)
			if !ok {
				continue // a value its scale cannot read is no label
			}
			l.Value = x
			if l.At, err = parseStamp(at); err != nil {
				return err
			}
			out = append(out, l)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
