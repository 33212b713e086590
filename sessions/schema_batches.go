package sessions

// schemaBatches is the state of `gavel run --batch` (part of step v9):
// each chunk of a run's requests sent through a Batch API, recorded with
// its requests' keys before anything is uploaded, so that a restart finds
// the batch a crash left unsaved (by the chunk's marker in the batch's
// metadata) instead of submitting it twice, and resumes polling. Local to
// the session file, like responses: merge and export leave it out.
const schemaBatches = `
CREATE TABLE api_batches (
	chunk       TEXT    PRIMARY KEY,
	run_id      INTEGER NOT NULL REFERENCES runs (id),
	requests    INTEGER NOT NULL CHECK (requests >= 0),
	bytes       INTEGER NOT NULL CHECK (bytes >= 0),
	planned_at  TEXT    NOT NULL,
	input_file  TEXT    NOT NULL DEFAULT '',
	batch_id    TEXT    NOT NULL DEFAULT '',
	status      TEXT    NOT NULL DEFAULT 'planned',
	answered    INTEGER NOT NULL DEFAULT 0 CHECK (answered >= 0),
	failed      INTEGER NOT NULL DEFAULT 0 CHECK (failed >= 0),
	finished_at TEXT
);

CREATE INDEX api_batches_by_run ON api_batches (run_id);

CREATE TABLE api_batch_requests (
	key   TEXT NOT NULL PRIMARY KEY,
	chunk TEXT NOT NULL REFERENCES api_batches (chunk)
) WITHOUT ROWID;

CREATE INDEX api_batch_requests_by_chunk ON api_batch_requests (chunk);
`
