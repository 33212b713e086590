package sessions

// schemaV10 is SPEC "Teams": the work queue of a team labelling one
// session (Store.Assign, Claim, Release; see queue.go for the semantics).
//   - queue_slots holds one row per place an item has in the queue: slot 0
//     for every item, slot 1 too for the seeded share of items that two
//     people label (the overlap, for agreement between people). annotator
//     is whom `gavel assign` dealt the slot to, rank the item's place in
//     the seeded order (both slots of an item share it). claimed_by,
//     claimed_at and expires_at are the current or last claim: set by
//     Claim, cleared by Release, all three NULL or none. A slot is done
//     when its holder — claimed_by, else annotator — has a live decision
//     on the item (a label or accept on any dimension, or a "can't
//     judge"); an undo reopens it. Done is derived when read, never
//     stored, so that no write of an action has to touch the queue.
//   - queue_settings holds the assignment's settings as text: annotators
//     (a JSON array, in the order given), overlap (the share, as Go
//     formats a float64), seed (decimal), claim_timeout (a Go duration,
//     e.g. 30m0s), created_at and blind ("true" or "false"; absent in
//     queues assigned before it: not blind).
//
// Both tables are shared data (a PostgreSQL session mirrors them), not a
// process's local state.
const schemaV10 = `
CREATE TABLE queue_slots (
	item_id    TEXT    NOT NULL REFERENCES items (item_id),
	slot       INTEGER NOT NULL CHECK (slot IN (0, 1)),
	annotator  TEXT    NOT NULL CHECK (annotator <> ''),
	rank       INTEGER NOT NULL CHECK (rank >= 0),
	claimed_by TEXT    CHECK (claimed_by <> ''),
	claimed_at TEXT,
	expires_at TEXT,
	CHECK ((claimed_by IS NULL) = (claimed_at IS NULL) AND (claimed_by IS NULL) = (expires_at IS NULL)),
	PRIMARY KEY (item_id, slot)
) WITHOUT ROWID;

CREATE INDEX queue_slots_by_annotator ON queue_slots (annotator, rank);
CREATE INDEX queue_slots_by_rank ON queue_slots (slot, rank);
CREATE INDEX queue_slots_by_claimant ON queue_slots (claimed_by) WHERE claimed_by IS NOT NULL;

CREATE TABLE queue_settings (
	key   TEXT NOT NULL PRIMARY KEY,
	value TEXT NOT NULL
) WITHOUT ROWID;
`
