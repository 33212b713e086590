package sessions

// schemaV13 keeps the current labels as the few labels that are not
// current instead of a copy of the many that are:
//   - current_label_rows (v4) held every current label a second time,
//     with its key, value, via and time: at a million imported labels,
//     98 MB, a tenth of the session. past_labels holds the ids of the
//     labels and accepts (not re-tests) that are no longer current:
//     replaced by a later live one of the same annotator, item, criterion
//     and dimension, or undone. An import of a million labels, one per
//     item, adds nothing to it. current_labels reads the actions that
//     are not in it, with the same columns and meaning as before.
//   - actions_by_item indexes (item_id, criterion): the dimension, which
//     the reads by item then test on the action itself, was 8 MB of it at
//     a million labels, and an item has few actions.
//
// The triggers keep past_labels, whoever writes: a new label puts the one
// it replaces there (of each pair of labels of its key, the earlier when
// the later is live), an undo puts the undone one there and takes out the
// latest live one of its key, and a hand deletion settles the keys it
// touches. A build does the new labels' part in bulk (keepCurrentLabels).
//
// The upgrade derives past_labels from the actions (not from
// current_label_rows, so that it holds what the view means whatever the
// old table held; partitioned in the order of the old actions_by_item,
// which SQLite then reads instead of sorting every label: 5.9 s to 2.8 s
// at a million), drops the table and its triggers, and makes the index
// again: about 4 s for a million labels, once.
const schemaV13 = `
CREATE TABLE past_labels (id INTEGER PRIMARY KEY);

INSERT INTO past_labels (id)
SELECT id FROM (
	SELECT a.id, max(CASE WHEN NOT EXISTS (SELECT 1 FROM actions u WHERE u.undoes = a.id) THEN a.id END)
		OVER (PARTITION BY a.item_id, a.criterion, a.dimension, a.annotator) AS current_id
	FROM actions a
	WHERE a.kind IN ('label', 'accept') AND a.retest = 0)
WHERE current_id IS NULL OR id <> current_id;

DROP TRIGGER current_labels_on_label;
DROP TRIGGER current_labels_on_undo;
DROP TRIGGER current_labels_on_delete;
DROP VIEW current_labels;
DROP TABLE current_label_rows;

DROP INDEX actions_by_item;
CREATE INDEX actions_by_item ON actions (item_id, criterion);

-- Each annotator's current value per (item, criterion, dimension): the
-- latest live label or accept that is not a re-test. (NOT IN reads
-- past_labels by its key as NOT EXISTS does, for a third less time over a
-- million labels.)
CREATE VIEW current_labels AS
SELECT a.item_id, a.criterion, a.dimension, a.value, a.annotator, a.via, a.at,
       a.id AS action_id, a.kind = 'accept' AS accepted
FROM actions a
WHERE a.kind IN ('label', 'accept') AND a.retest = 0
  AND a.id NOT IN (SELECT id FROM past_labels);

-- A new label or accept (not a re-test): of it and each other label of
-- its key, the earlier is past when the later is live. With the others
-- already settled, that puts the one it replaces in past_labels (or
-- itself, when a label with a later id was written before it).
CREATE TRIGGER current_labels_on_label AFTER INSERT ON actions
WHEN NEW.kind IN ('label', 'accept') AND NEW.retest = 0
BEGIN
	INSERT INTO past_labels (id)
	SELECT min(b.id, NEW.id)
	FROM actions b INDEXED BY actions_by_item
	WHERE b.item_id = NEW.item_id AND b.criterion = NEW.criterion AND b.id <> NEW.id
		AND b.dimension = NEW.dimension AND b.annotator = NEW.annotator
		AND b.kind IN ('label', 'accept') AND b.retest = 0
		AND NOT EXISTS (SELECT 1 FROM actions u WHERE u.undoes = max(b.id, NEW.id))
	ON CONFLICT DO NOTHING;
END;

-- An undo makes the undone label past and the latest live label of its
-- key, if any, current again.
CREATE TRIGGER current_labels_on_undo AFTER INSERT ON actions
WHEN NEW.kind = 'undo'
BEGIN
	INSERT INTO past_labels (id)
	SELECT id FROM actions WHERE id = NEW.undoes AND kind IN ('label', 'accept') AND retest = 0
	ON CONFLICT DO NOTHING;
	DELETE FROM past_labels WHERE id = (
		SELECT max(a.id) FROM actions t JOIN actions a INDEXED BY actions_by_item
			ON a.item_id = t.item_id AND a.criterion = t.criterion
		WHERE t.id = NEW.undoes AND t.kind IN ('label', 'accept') AND t.retest = 0
			AND a.dimension = t.dimension AND a.annotator = t.annotator
			AND a.kind IN ('label', 'accept') AND a.retest = 0
			AND NOT EXISTS (SELECT 1 FROM actions u WHERE u.undoes = a.id));
END;

-- Actions are never deleted by Gavel; a hand edit that deletes one leaves
-- past_labels as the view means it: the deleted action out of it, and the
-- key of the deleted label (or of the label a deleted undo undid) settled
-- again: every label of it past but the latest live one.
CREATE TRIGGER current_labels_on_delete AFTER DELETE ON actions
BEGIN
	DELETE FROM past_labels WHERE id = OLD.id;
	INSERT INTO past_labels (id)
	SELECT a.id FROM actions a
	WHERE (a.annotator, a.item_id, a.criterion, a.dimension) IN ` + deletedLabelKeys + `
		AND a.kind IN ('label', 'accept') AND a.retest = 0
		AND a.id IS NOT (
			SELECT max(b.id) FROM actions b
			WHERE b.annotator = a.annotator AND b.item_id = a.item_id AND b.criterion = a.criterion
				AND b.dimension = a.dimension AND b.kind IN ('label', 'accept') AND b.retest = 0
				AND NOT EXISTS (SELECT 1 FROM actions u WHERE u.undoes = b.id))
	ON CONFLICT DO NOTHING;
	DELETE FROM past_labels WHERE id IN (
		SELECT max(b.id) FROM actions b
		WHERE (b.annotator, b.item_id, b.criterion, b.dimension) IN ` + deletedLabelKeys + `
			AND b.kind IN ('label', 'accept') AND b.retest = 0
			AND NOT EXISTS (SELECT 1 FROM actions u WHERE u.undoes = b.id)
		GROUP BY b.annotator, b.item_id, b.criterion, b.dimension);
END;
`

// deletedLabelKeys lists, in the delete trigger, the keys a deleted action
// touched: its own, when it was a label or accept, and that of the label
// or accept it undid, when it was an undo. (A trigger's statements cannot
// share a WITH clause.)
const deletedLabelKeys = `(
	SELECT annotator, item_id, criterion, dimension FROM actions
	WHERE id = OLD.undoes AND kind IN ('label', 'accept') AND retest = 0
	UNION ALL
	SELECT OLD.annotator, OLD.item_id, OLD.criterion, OLD.dimension
	WHERE OLD.kind IN ('label', 'accept') AND OLD.retest = 0)`
