package sessions

// applicationID marks a SQLite file as a Gavel session (PRAGMA
// application_id); it spells "Gavl" in ASCII.
const applicationID = 0x4761766C

// migration is one step of the schema, applied in its own transaction. The
// list only ever grows: a released step is never edited, a change is a new
// step. A session's PRAGMA user_version is the number of steps applied.
type migration struct {
	name string
	sql  string
	// rebuild: the step rebuilds a table (a new table, every row copied,
	// the old one dropped). It runs with foreign keys off, as SQLite
	// advises for a rebuild, and checks them all before its commit:
	// checked row by row, they were half of the upgrade's time.
	rebuild bool
}

// migrations lists every schema step in order; step i brings the session to
// version i+1. SCHEMA.md documents the result for people who query it.
var migrations = []migration{
	{name: "initial schema", sql: schemaV1},
	{name: "response cache", sql: schemaV2},
	{name: "every scale, pairwise items and swapped-order verdicts", sql: schemaV3},
	{name: "stored current labels and segments kept on the item", sql: schemaV4},
	{name: "items' segments indexed for statistics", sql: schemaV5},
	{name: "the calibration / evaluation split", sql: schemaV6},
	{name: "each run's judge definition", sql: schemaV7},
	{name: "labelling well: guidelines, can't judge, tags, re-tests, visibility", sql: schemaV8, rebuild: true},
	{name: "labelling plans, Batch API submissions, decision log", sql: schemaV9 + schemaBatches + schemaDecisionLog},
	{name: "a team's work queue: queue slots and settings", sql: schemaV10},
	{name: "field layouts and segment sets stored once", sql: schemaV11},
	{name: "indexes no read used dropped or made partial", sql: schemaV12},
	{name: "current labels kept as the labels no longer current", sql: schemaV13},
}

// schemaVersion is the newest schema this build reads and writes.
var schemaVersion = len(migrations)

const schemaV1 = `
CREATE TABLE dataset (
	id         INTEGER PRIMARY KEY CHECK (id = 1),
	path       TEXT    NOT NULL,
	sha256     TEXT    NOT NULL,
	format     TEXT    NOT NULL,
	items      INTEGER NOT NULL,
	created_at TEXT    NOT NULL
);

CREATE TABLE dataset_mapping (
	role  TEXT PRIMARY KEY,
	field TEXT NOT NULL
);

CREATE TABLE items (
	idx        INTEGER PRIMARY KEY,
	item_id    TEXT    NOT NULL UNIQUE,
	question   TEXT    NOT NULL,
	gold       TEXT    NOT NULL,
	prediction TEXT    NOT NULL,
	fields     TEXT
);

CREATE TABLE item_criteria (
	item_id   TEXT    NOT NULL REFERENCES items (item_id),
	criterion INTEGER NOT NULL CHECK (criterion >= 1),
	text      TEXT    NOT NULL,
	PRIMARY KEY (item_id, criterion)
) WITHOUT ROWID;

CREATE TABLE item_segments (
	item_id TEXT NOT NULL REFERENCES items (item_id),
	name    TEXT NOT NULL,
	value   TEXT NOT NULL,
	PRIMARY KEY (item_id, name)
) WITHOUT ROWID;

CREATE INDEX item_segments_by_name ON item_segments (name, value);

CREATE TABLE runs (
	id            INTEGER PRIMARY KEY,
	key           TEXT    NOT NULL UNIQUE,
	judge         TEXT    NOT NULL,
	model         TEXT    NOT NULL,
	params        TEXT    NOT NULL,
	per_criterion INTEGER NOT NULL CHECK (per_criterion IN (0, 1)),
	description   TEXT    NOT NULL,
	created_at    TEXT    NOT NULL
);

CREATE TABLE run_dimensions (
	run_id      INTEGER NOT NULL REFERENCES runs (id),
	position    INTEGER NOT NULL,
	dimension   TEXT    NOT NULL,
	scale       TEXT    NOT NULL,
	description TEXT    NOT NULL,
	PRIMARY KEY (run_id, dimension)
) WITHOUT ROWID;

CREATE TABLE verdicts (
	id                INTEGER PRIMARY KEY,
	run_id            INTEGER NOT NULL REFERENCES runs (id),
	item_id           TEXT    NOT NULL REFERENCES items (item_id),
	criterion         INTEGER NOT NULL CHECK (criterion >= 0),
	status            TEXT    NOT NULL,
	reason            TEXT    NOT NULL,
	error             TEXT    NOT NULL,
	raw               TEXT    NOT NULL,
	model             TEXT    NOT NULL,
	prompt_tokens     INTEGER NOT NULL,
	completion_tokens INTEGER NOT NULL,
	latency_ms        REAL    NOT NULL,
	confidence        REAL,
	extra             TEXT,
	created_at        TEXT    NOT NULL
);

CREATE INDEX verdicts_by_item ON verdicts (run_id, item_id, criterion, id);
CREATE INDEX verdicts_by_status ON verdicts (run_id, status);

CREATE TABLE verdict_values (
	verdict_id INTEGER NOT NULL REFERENCES verdicts (id),
	dimension  TEXT    NOT NULL,
	value      REAL    NOT NULL,
	PRIMARY KEY (verdict_id, dimension)
) WITHOUT ROWID;

CREATE TABLE actions (
	id        INTEGER PRIMARY KEY,
	group_id  INTEGER NOT NULL,
	kind      TEXT    NOT NULL CHECK (kind IN ('label', 'accept', 'note', 'undo')),
	item_id   TEXT    NOT NULL REFERENCES items (item_id),
	criterion INTEGER NOT NULL CHECK (criterion >= 0),
	dimension TEXT    NOT NULL,
	value     REAL,
	note      TEXT    NOT NULL,
	via       TEXT    NOT NULL,
	annotator TEXT    NOT NULL,
	at        TEXT    NOT NULL,
	undoes    INTEGER REFERENCES actions (id),
	CHECK ((kind = 'undo') = (undoes IS NOT NULL)),
	CHECK (kind NOT IN ('label', 'accept') OR (value IS NOT NULL AND dimension <> ''))
);

CREATE INDEX actions_by_annotator ON actions (annotator, id);
CREATE INDEX actions_by_group ON actions (group_id);
CREATE INDEX actions_by_item ON actions (item_id, criterion, dimension);
CREATE UNIQUE INDEX actions_undone ON actions (undoes) WHERE undoes IS NOT NULL;

CREATE TABLE locks (
	annotator    TEXT    PRIMARY KEY,
	pid          INTEGER NOT NULL,
	host         TEXT    NOT NULL,
	token        TEXT    NOT NULL,
	started_at   TEXT    NOT NULL,
	heartbeat_at TEXT    NOT NULL
);

-- Actions that count: not undo rows, and not undone by one.
CREATE VIEW live_actions AS
SELECT a.*
FROM actions a
WHERE a.kind <> 'undo'
  AND NOT EXISTS (SELECT 1 FROM actions u WHERE u.undoes = a.id);

-- Each annotator's current value per (item, criterion, dimension): the
-- latest live label or accept.
CREATE VIEW current_labels AS
SELECT item_id, criterion, dimension, value, annotator, via, at,
       id AS action_id, kind = 'accept' AS accepted
FROM (
	SELECT a.*, row_number() OVER (
		PARTITION BY annotator, item_id, criterion, dimension ORDER BY id DESC) AS rn
	FROM live_actions a
	WHERE kind IN ('label', 'accept')
)
WHERE rn = 1;

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

-- The latest verdict of each run per (item, criterion); older ones are
-- history (re-judges).
CREATE VIEW current_verdicts AS
SELECT v.id AS verdict_id, v.run_id, r.judge, r.model AS run_model,
       v.item_id, v.criterion, v.status, v.reason, v.error, v.raw, v.model,
       v.prompt_tokens, v.completion_tokens, v.latency_ms, v.confidence,
       v.extra, v.created_at
FROM verdicts v
JOIN runs r ON r.id = v.run_id
WHERE v.id = (SELECT max(w.id) FROM verdicts w
              WHERE w.run_id = v.run_id AND w.item_id = v.item_id AND w.criterion = v.criterion);

-- One row per dimension of each current verdict.
CREATE VIEW current_verdict_values AS
SELECT c.verdict_id, c.run_id, c.judge, c.run_model, c.item_id, c.criterion,
       vv.dimension, vv.value, c.confidence, c.created_at
FROM current_verdicts c
JOIN verdict_values vv ON vv.verdict_id = c.verdict_id;
`

// schemaV2 adds the cache of model responses, so that reopening or
// re-running a session costs nothing (see ResponseCache).
const schemaV2 = `
CREATE TABLE responses (
	key        TEXT PRIMARY KEY,
	response   TEXT NOT NULL,
	created_at TEXT NOT NULL
) WITHOUT ROWID;
`

// schemaV3 widens the scales (nominal categories, any ordinal range,
// pairwise preferences) and adds pairwise items and the swap audit:
//   - values by scale: verdict_values.value and actions.value hold the
//     number on binary and ordinal scales and the category's name on
//     nominal and pairwise ones ('A', 'B', 'tie'); dimension_scales records
//     the scale of every dimension whose values are names, so a label can
//     be read without its judge;
//   - items.response_a and items.response_b hold a pair's two responses;
//   - verdicts.swapped is the order key: 1 for a verdict made with the two
//     responses shown in the other order (its value in the original A/B
//     terms). The current verdict is per run, item, criterion and order, so
//     a swapped verdict is never a re-judge of the original one.
const schemaV3 = `
CREATE TABLE dimension_scales (
	dimension TEXT PRIMARY KEY,
	scale     TEXT NOT NULL
) WITHOUT ROWID;

ALTER TABLE items ADD COLUMN response_a TEXT NOT NULL DEFAULT '';
ALTER TABLE items ADD COLUMN response_b TEXT NOT NULL DEFAULT '';

ALTER TABLE verdicts ADD COLUMN swapped INTEGER NOT NULL DEFAULT 0 CHECK (swapped IN (0, 1));

DROP INDEX verdicts_by_item;
CREATE INDEX verdicts_by_item ON verdicts (run_id, swapped, item_id, criterion, id);

DROP VIEW current_verdict_values;
DROP VIEW current_verdicts;

-- The latest verdict of each run per (item, criterion, order); older ones
-- are history (re-judges). swapped = 1 rows are the second order of a
-- pairwise judgment.
CREATE VIEW current_verdicts AS
SELECT v.id AS verdict_id, v.run_id, r.judge, r.model AS run_model,
       v.item_id, v.criterion, v.swapped, v.status, v.reason, v.error, v.raw, v.model,
       v.prompt_tokens, v.completion_tokens, v.latency_ms, v.confidence,
       v.extra, v.created_at
FROM verdicts v
JOIN runs r ON r.id = v.run_id
WHERE v.id = (SELECT max(w.id) FROM verdicts w
              WHERE w.run_id = v.run_id AND w.swapped = v.swapped
                AND w.item_id = v.item_id AND w.criterion = v.criterion);

-- One row per dimension of each current verdict.
CREATE VIEW current_verdict_values AS
SELECT c.verdict_id, c.run_id, c.judge, c.run_model, c.item_id, c.criterion, c.swapped,
       vv.dimension, vv.value, c.confidence, c.created_at
FROM current_verdicts c
JOIN verdict_values vv ON vv.verdict_id = c.verdict_id;
`

// schemaV4 makes a large session quick to read and small on disk:
//   - current_label_rows stores what the current_labels view derived with a
//     window function over every action (4 s at 1,000,000 labels, even for
//     the C sqlite3): triggers on actions keep it up to date, whoever
//     writes, and current_labels now reads it. The view's columns and
//     meaning are unchanged;
//   - items.segments holds an item's segments as one JSON object, instead
//     of a row per segment in a table with its own index (a quarter of the
//     dataset's size, and two inserts per item); item_segments becomes a
//     view with the same columns;
//   - dataset.file_size and dataset.file_mtime record the dataset file's
//     size and modification time when its hash was taken, so a reopen can
//     tell an unchanged file without reading it first (the hash is then
//     checked in the background).
const schemaV4 = `
ALTER TABLE dataset ADD COLUMN file_size INTEGER;
ALTER TABLE dataset ADD COLUMN file_mtime TEXT;

CREATE TABLE current_label_rows (
	annotator TEXT    NOT NULL,
	item_id   TEXT    NOT NULL,
	criterion INTEGER NOT NULL,
	dimension TEXT    NOT NULL,
	value     REAL,
	via       TEXT    NOT NULL,
	at        TEXT    NOT NULL,
	action_id INTEGER NOT NULL,
	accepted  INTEGER NOT NULL,
	PRIMARY KEY (annotator, item_id, criterion, dimension)
) WITHOUT ROWID;

INSERT INTO current_label_rows (annotator, item_id, criterion, dimension, value, via, at, action_id, accepted)
SELECT annotator, item_id, criterion, dimension, value, via, at, action_id, accepted FROM current_labels;

DROP VIEW current_labels;

-- Each annotator's current value per (item, criterion, dimension): the
-- latest live label or accept (kept by the triggers below).
CREATE VIEW current_labels AS
SELECT item_id, criterion, dimension, value, annotator, via, at, action_id, accepted
FROM current_label_rows;

-- A new label or accept is the current one of its key.
CREATE TRIGGER current_labels_on_label AFTER INSERT ON actions
WHEN NEW.kind IN ('label', 'accept')
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
		WHERE id = NEW.undoes AND kind IN ('label', 'accept'));
	INSERT INTO current_label_rows (annotator, item_id, criterion, dimension, value, via, at, action_id, accepted)
	SELECT a.annotator, a.item_id, a.criterion, a.dimension, a.value, a.via, a.at, a.id, a.kind = 'accept'
	FROM actions t
	JOIN live_actions a ON a.item_id = t.item_id AND a.criterion = t.criterion
		AND a.dimension = t.dimension AND a.annotator = t.annotator
	WHERE t.id = NEW.undoes AND t.kind IN ('label', 'accept') AND a.kind IN ('label', 'accept')
	ORDER BY a.id DESC LIMIT 1;
END;

-- Actions are never deleted by Gavel; a hand edit that deletes one leaves
-- the stored rows as the view would derive them.
CREATE TRIGGER current_labels_on_delete AFTER DELETE ON actions
BEGIN
	DELETE FROM current_label_rows
	WHERE (annotator, item_id, criterion, dimension) IN (
		SELECT annotator, item_id, criterion, dimension FROM actions
		WHERE id = OLD.undoes AND kind IN ('label', 'accept')
		UNION ALL
		SELECT OLD.annotator, OLD.item_id, OLD.criterion, OLD.dimension
		WHERE OLD.kind IN ('label', 'accept'));
	INSERT INTO current_label_rows (annotator, item_id, criterion, dimension, value, via, at, action_id, accepted)
	SELECT a.annotator, a.item_id, a.criterion, a.dimension, a.value, a.via, a.at, a.id, a.kind = 'accept'
	FROM live_actions a
	WHERE a.kind IN ('label', 'accept') AND a.id = (
		SELECT max(b.id) FROM live_actions b
		WHERE b.kind IN ('label', 'accept') AND b.annotator = a.annotator AND b.item_id = a.item_id
			AND b.criterion = a.criterion AND b.dimension = a.dimension)
	AND (a.annotator, a.item_id, a.criterion, a.dimension) IN (
		SELECT annotator, item_id, criterion, dimension FROM actions
		WHERE id = OLD.undoes AND kind IN ('label', 'accept')
		UNION ALL
		SELECT OLD.annotator, OLD.item_id, OLD.criterion, OLD.dimension
		WHERE OLD.kind IN ('label', 'accept'));
END;

ALTER TABLE items ADD COLUMN segments TEXT;

UPDATE items SET segments = (
	SELECT json_group_object(s.name, s.value) FROM item_segments s WHERE s.item_id = items.item_id)
WHERE item_id IN (SELECT item_id FROM item_segments);

DROP INDEX item_segments_by_name;
DROP TABLE item_segments;

-- One row per segment of each item, as the v1-v3 table had.
CREATE VIEW item_segments AS
SELECT i.item_id, j.key AS name, j.value AS value
FROM items i, json_each(i.segments) j
WHERE i.segments IS NOT NULL;
`

// schemaV5 indexes items.segments (the items that have some), so that
// statistics read every item's segments from a small index grouped by
// value (a few kilobytes per thousand items, a dozen distinct objects)
// instead of the whole items table with its texts: at 100,000 items the
// read went from 0.27 s to 0.03 s.
const schemaV5 = `
CREATE INDEX items_by_segments ON items (segments) WHERE segments IS NOT NULL;
`

// schemaV6 records the calibration / evaluation split (gavel split, SPEC
// "Improving a judge"): its seed and calibration share. An item's part is
// a pure function of the seed and its id (Split.PartOf), so only these two
// numbers are stored, and the part of an item never moves as labels or
// items arrive. A replaced split stays as history: the current one is the
// row with the highest id.
const schemaV6 = `
CREATE TABLE splits (
	id          INTEGER PRIMARY KEY,
	seed        TEXT    NOT NULL CHECK (seed <> '' AND seed NOT GLOB '*[^0-9]*' AND (seed = '0' OR seed NOT GLOB '0*')),
	calibration REAL    NOT NULL CHECK (calibration > 0 AND calibration < 1),
	created_at  TEXT    NOT NULL
);
`

// schemaV7 keeps each run's judge definition (judge.Info.Definition: the
// judge file's whole text, a built-in's exported file), so that a variant
// of a judge (SPEC "Improving a judge") can be read back, edited and run
// again from the session alone. NULL for runs without one (match, imported
// verdicts, runs recorded before v7).
const schemaV7 = `
ALTER TABLE runs ADD COLUMN definition TEXT;
`
