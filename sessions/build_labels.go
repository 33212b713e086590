package sessions

import "database/sql"

// labelTrigger is the trigger that keeps current_label_rows as labels and
// accepts are added (schema v4).
const labelTrigger = "current_labels_on_label"

// A build's then (an import) adds a label per row of the file, a million
// at times, and the trigger's work for each, one upsert at a time, was a
// sixth of that. While then runs the build drops the trigger; the writers
// of labels (groupWriter, recordGroups) see it gone and do its work
// themselves, for all the rows they added at once, in their own
// transaction: current_label_rows is whole after every write, as it is
// with the trigger, so what then reads is current. The trigger is made
// again from its own text before the session is put in place.

// suspendLabelTrigger drops the label trigger of the build's file and
// returns what makes it again, from the text sqlite_schema kept, so that
// the finished session's schema reads as every other's.
func suspendLabelTrigger(db *sql.DB) (restore func() error, err error) {
	var text string
	if err := db.QueryRow(`SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = ?`, labelTrigger).Scan(&text); err != nil {
		return nil, err
	}
	if _, err := db.Exec(`DROP TRIGGER ` + labelTrigger); err != nil {
		return nil, err
	}
	return func() error {
		_, err := db.Exec(text)
		return err
	}, nil
}

// keepCurrentLabels does the label trigger's work for the actions of ids
// from first on, when a build has suspended it; with the trigger there
// it does nothing. The statement is the trigger's, on every label and
// accept in id order, so the rows are those the trigger would have left.
func keepCurrentLabels(tx *sql.Tx, first int64) error {
	var on int
	if err := tx.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND name = ?`, labelTrigger).Scan(&on); err != nil {
		return err
	}
	if on > 0 {
		return nil
	}
	_, err := tx.Exec(`INSERT INTO current_label_rows (annotator, item_id, criterion, dimension, value, via, at, action_id, accepted)
		SELECT annotator, item_id, criterion, dimension, value, via, at, id, kind = 'accept'
		FROM actions
		WHERE id >= ? AND kind IN ('label', 'accept') AND retest = 0
		ORDER BY id
		ON CONFLICT (annotator, item_id, criterion, dimension) DO UPDATE SET
			value = excluded.value, via = excluded.via, at = excluded.at,
			action_id = excluded.action_id, accepted = excluded.accepted
		WHERE excluded.action_id > current_label_rows.action_id`, first)
	return err
}
