package sessions

// schemaV8 is SPEC "Labelling well": the human side of labelling.
//   - guidelines keeps every version of the annotation guidelines (the
//     Markdown a person reads, not the judge's prompt): text, SHA-256 and
//     when it was first seen; a label records the version on screen.
//   - session_tags is the session's set of failure tags.
//   - actions gains two kinds and seven columns. 'cant_judge' is one
//     annotator's decision that the item cannot be judged, with a reason
//     (gold-wrong, ambiguous, unreadable, other; the note says more); it
//     is not a label. 'tag' puts a failure tag on an item (value 1) or
//     takes it off (value 0). guidelines_id is the version on screen;
//     shown is the id of the run whose verdict was on screen, 0 when the
//     verdict was hidden, NULL when unknown (as in every action before
//     v8), so that the anchoring check compares a person with the judge
//     they saw and no other; retest marks a re-test label, which never
//     replaces the first one (the current-label triggers skip it);
//     appeared_at is when the item appeared (seconds per decision = at -
//     appeared_at); sitting names the process that wrote the action (one
//     review from open to quit), for fatigue.
//
// shown has no REFERENCES runs (id): its 0 (hidden) names no run, and a
// foreign key would refuse it. Record checks that a run it names exists,
// as it checks guidelines_id.
//
// SQLite cannot widen a CHECK in place, so actions is rebuilt: a new
// table whose undoes column references itself (the rename below rewrites
// that reference to "actions"), every row copied with its id, the old
// table, its views and its triggers dropped and made again. Foreign keys
// stay on: the new table's rows reference only itself, so dropping the
// old one leaves no row pointing at it.
const schemaV8 = `
DROP TRIGGER current_labels_on_label;
DROP TRIGGER current_labels_on_undo;
DROP TRIGGER current_labels_on_delete;
DROP VIEW current_notes;
DROP VIEW live_actions;

CREATE TABLE guidelines (
	id         INTEGER PRIMARY KEY,
	sha256     TEXT    NOT NULL UNIQUE,
	text       TEXT    NOT NULL,
	first_seen TEXT    NOT NULL
);

CREATE TABLE session_tags (
	name     TEXT NOT NULL PRIMARY KEY CHECK (name <> ''),
	added_at TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE actions_v8 (
	id            INTEGER PRIMARY KEY,
	group_id      INTEGER NOT NULL,
	kind          TEXT    NOT NULL CHECK (kind IN ('label', 'accept', 'note', 'undo', 'cant_judge', 'tag')),
	item_id       TEXT    NOT NULL REFERENCES items (item_id),
	criterion     INTEGER NOT NULL CHECK (criterion >= 0),
	dimension     TEXT    NOT NULL,
	value         REAL,
	note          TEXT    NOT NULL,
	via           TEXT    NOT NULL,
	annotator     TEXT    NOT NULL,
	at            TEXT    NOT NULL,
	undoes        INTEGER REFERENCES actions_v8 (id),
	reason        TEXT    CHECK (reason IN ('gold-wrong', 'ambiguous', 'unreadable', 'other')),
	tag           TEXT    CHECK (tag <> ''),
	guidelines_id INTEGER REFERENCES guidelines (id),
	shown         INTEGER CHECK (shown >= 0),
	retest        INTEGER NOT NULL DEFAULT 0 CHECK (retest IN (0, 1)),
	appeared_at   TEXT,
	sitting       TEXT,
	CHECK ((kind = 'undo') = (undoes IS NOT NULL)),
	CHECK (kind NOT IN ('label', 'accept') OR (value IS NOT NULL AND dimension <> '')),
	CHECK ((kind = 'cant_judge') = (reason IS NOT NULL)),
	CHECK ((kind = 'tag') = (tag IS NOT NULL)),
	CHECK (kind <> 'tag' OR value IN (0, 1)),
	CHECK (retest = 0 OR kind IN ('label', 'accept', 'cant_judge'))
);

INSERT INTO actions_v8 (id, group_id, kind, item_id, criterion, dimension, value, note, via, annotator, at, undoes)
SELECT id, group_id, kind, item_id, criterion, dimension, value, note, via, annotator, at, undoes FROM actions ORDER BY id;

DROP TABLE actions;
ALTER TABLE actions_v8 RENAME TO actions;

CREATE INDEX actions_by_annotator ON actions (annotator, id);
CREATE INDEX actions_by_group ON actions (group_id);
CREATE INDEX actions_by_item ON actions (item_id, criterion, dimension);
CREATE UNIQUE INDEX actions_undone ON actions (undoes) WHERE undoes IS NOT NULL;

-- The actions that carry labelling-well data, so that statistics tell at
-- once whether a session has any (imports write none of these columns,
-- so they add no entry). A sitting alone is not such data: every action
-- Record writes has one, a script's (gavel label) too, and no figure
-- reads a sitting without a decision that says how it was made. A query
-- uses it only when it repeats this WHERE term exactly.
CREATE INDEX actions_labelling ON actions (annotator)
WHERE kind IN ('cant_judge', 'tag') OR shown IS NOT NULL OR appeared_at IS NOT NULL OR retest = 1;

-- Actions that count: not undo rows, and not undone by one.
CREATE VIEW live_actions AS
SELECT a.*
FROM actions a
WHERE a.kind <> 'undo'
  AND NOT EXISTS (SELECT 1 FROM actions u WHERE u.undoes = a.id);

-- Each annotator's current note per item: the latest live note, unless its
-- text is empty (an empty note clears).
CREATE VIEW current_notes AS
SELECT item_id, annotator, note, at, id AS action_id
FROM (
	SELECT a.*, row_number() OVER (
		PARTITION BY annotator, item_id ORDER BY id DESC) AS rn
	FROM live_actions a
	WHERE kind = 'note'
)
WHERE rn = 1 AND note <> '';

-- Each annotator's current "can't judge" per item: a live cant_judge that
-- is not a re-test, with no later live label, accept or cant_judge (not a
-- re-test) of that annotator on the item. Written so that SQLite reads the
-- few cant_judge rows through actions_labelling (its first term repeats
-- that index's) and each one's later actions through actions_by_item (the
-- unary + keeps it off actions_by_annotator, which walks the annotator's
-- whole history): 500 marks among 100,000 labels, 0.5 s -> 0.02 s.
CREATE VIEW current_cant_judge AS
SELECT c.item_id, c.annotator, c.reason, c.note, c.at, c.id AS action_id
FROM actions c
WHERE c.kind IN ('cant_judge', 'tag') AND c.kind = 'cant_judge' AND c.retest = 0
  AND NOT EXISTS (SELECT 1 FROM actions u WHERE u.undoes = c.id)
  AND NOT EXISTS (SELECT 1 FROM actions b
                  WHERE b.item_id = c.item_id AND +b.annotator = c.annotator AND +b.id > c.id
                    AND b.kind IN ('label', 'accept', 'cant_judge') AND b.retest = 0
                    AND NOT EXISTS (SELECT 1 FROM actions u WHERE u.undoes = b.id));

-- Each annotator's current failure tags per item: a live tag action that
-- put the tag on, with no later live tag action of that annotator on the
-- item for that tag. Read like current_cant_judge.
CREATE VIEW current_tags AS
SELECT t.item_id, t.annotator, t.tag, t.at, t.id AS action_id
FROM actions t
WHERE t.kind IN ('cant_judge', 'tag') AND t.kind = 'tag' AND t.value = 1
  AND NOT EXISTS (SELECT 1 FROM actions u WHERE u.undoes = t.id)
  AND NOT EXISTS (SELECT 1 FROM actions b
                  WHERE b.item_id = t.item_id AND +b.annotator = t.annotator AND +b.id > t.id
                    AND b.kind = 'tag' AND b.tag = t.tag
                    AND NOT EXISTS (SELECT 1 FROM actions u WHERE u.undoes = b.id));

-- A new label or accept is the current one of its key; a re-test label
-- never replaces the first.
CREATE TRIGGER current_labels_on_label AFTER INSERT ON actions
WHEN NEW.kind IN ('label', 'accept') AND NEW.retest = 0
BEGIN
	INSERT INTO current_label_rows (annotator, item_id, criterion, dimension, value, via, at, action_id, accepted)
	VALUES (NEW.annotator, NEW.item_id, NEW.criterion, NEW.dimension, NEW.value, NEW.via, NEW.at, NEW.id, NEW.kind = 'accept')
	ON CONFLICT (annotator, item_id, criterion, dimension) DO UPDATE SET
		value = excluded.value, via = excluded.via, at = excluded.at,
		action_id = excluded.action_id, accepted = excluded.accepted
	WHERE excluded.action_id > current_label_rows.action_id;
END;

-- An undo makes the latest live label or accept before the undone one
-- current again, or none.
CREATE TRIGGER current_labels_on_undo AFTER INSERT ON actions
WHEN NEW.kind = 'undo'
BEGIN
	DELETE FROM current_label_rows
	WHERE (annotator, item_id, criterion, dimension) IN (
		SELECT annotator, item_id, criterion, dimension FROM actions
		WHERE id = NEW.undoes AND kind IN ('label', 'accept') AND retest = 0);
	INSERT INTO current_label_rows (annotator, item_id, criterion, dimension, value, via, at, action_id, accepted)
	SELECT a.annotator, a.item_id, a.criterion, a.dimension, a.value, a.via, a.at, a.id, a.kind = 'accept'
	FROM actions t
	JOIN live_actions a ON a.item_id = t.item_id AND a.criterion = t.criterion
		AND a.dimension = t.dimension AND a.annotator = t.annotator
	WHERE t.id = NEW.undoes AND t.kind IN ('label', 'accept') AND t.retest = 0
		AND a.kind IN ('label', 'accept') AND a.retest = 0
	ORDER BY a.id DESC LIMIT 1;
END;

-- Actions are never deleted by Gavel; a hand edit that deletes one leaves
-- the stored rows as the view would derive them.
CREATE TRIGGER current_labels_on_delete AFTER DELETE ON actions
BEGIN
	DELETE FROM current_label_rows
	WHERE (annotator, item_id, criterion, dimension) IN (
		SELECT annotator, item_id, criterion, dimension FROM actions
		WHERE id = OLD.undoes AND kind IN ('label', 'accept') AND retest = 0
		UNION ALL
		SELECT OLD.annotator, OLD.item_id, OLD.criterion, OLD.dimension
		WHERE OLD.kind IN ('label', 'accept') AND OLD.retest = 0);
	INSERT INTO current_label_rows (annotator, item_id, criterion, dimension, value, via, at, action_id, accepted)
	SELECT a.annotator, a.item_id, a.criterion, a.dimension, a.value, a.via, a.at, a.id, a.kind = 'accept'
	FROM live_actions a
	WHERE a.kind IN ('label', 'accept') AND a.retest = 0 AND a.id = (
		SELECT max(b.id) FROM live_actions b
		WHERE b.kind IN ('label', 'accept') AND b.retest = 0 AND b.annotator = a.annotator AND b.item_id = a.item_id
			AND b.criterion = a.criterion AND b.dimension = a.dimension)
	AND (a.annotator, a.item_id, a.criterion, a.dimension) IN (
		SELECT annotator, item_id, criterion, dimension FROM actions
		WHERE id = OLD.undoes AND kind IN ('label', 'accept') AND retest = 0
		UNION ALL
		SELECT OLD.annotator, OLD.item_id, OLD.criterion, OLD.dimension
		WHERE OLD.kind IN ('label', 'accept') AND OLD.retest = 0);
END;
`
