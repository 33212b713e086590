package sessions

import "database/sql"

// labelTrigger is the trigger that keeps past_labels as labels and
// accepts are added (schema v4, v13).
const labelTrigger = "current_labels_on_label"

// A build's then (an import) adds a label per row of the file, a million
// at times, and the trigger's work for each, run as a trigger program one
// row at a time, was a sixth of that. While then runs the build drops the
// trigger; the writers of labels (groupWriter, recordGroups) see it gone
// and do its work themselves, for all the rows they added at once, in
// their own transaction: past_labels is whole after every write, as it is
// with the trigger, so what then reads is current. The trigger is made
// again from its own text before the session is put in place. The undo
// and delete triggers stay: few builds write undos.

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
// it does nothing. It is the trigger's statement for each of those labels
// at once: of a label and each other label of its key, the earlier is
// past when the later is live. Every pair with a label from first on is
// met, those whose later label an undo (whose trigger ran) took back
// leave both as the undo left them, so past_labels ends as the trigger,
// one row at a time, would have left it. A label of a new key costs one
// look at actions_by_item, which finds nothing else.
func keepCurrentLabels(tx *sql.Tx, first int64) error {
	var on int
	if err := tx.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND name = ?`, labelTrigger).Scan(&on); err != nil {
		return err
	}
	if on > 0 {
		return nil
	}
	_, err := tx.Exec(`INSERT INTO past_labels (id)
		SELECT min(a.id, b.id)
		FROM actions a JOIN actions b INDEXED BY actions_by_item ON b.item_id = a.item_id AND b.criterion = a.criterion
		WHERE a.id >= ? AND a.kind IN ('label', 'accept') AND a.retest = 0
			AND b.id <> a.id AND b.dimension = a.dimension AND b.annotator = a.annotator
			AND b.kind IN ('label', 'accept') AND b.retest = 0
			AND NOT EXISTS (SELECT 1 FROM actions u WHERE u.undoes = max(a.id, b.id))
		ON CONFLICT DO NOTHING`, first)
	return err
}
