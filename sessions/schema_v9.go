package sessions

// schemaV9 is SPEC "Labels where they count": labelling plans.
//   - plans holds each plan drawn by `gavel plan`: its design, target size
//     n (the only column ever updated: an extension raises it), seed, the
//     run whose verdicts it was drawn from (run_id, with judge the run's
//     name as the statistics showed it then; NULL and empty for a plan drawn
//     without a judge), the stratification field and the active design's
//     floor. The seed is a 64-bit unsigned number stored in SQLite's
//     signed integer: a value above 2^63 − 1 reads as itself − 2^64.
//   - plan_units holds one row per item of the dataset for every plan,
//     not only the chosen ones: the corrected estimate (PPI) uses every
//     verdict, and the probabilities of the chosen items depend on all
//     the sizes. verdict_id is the judge's current ok verdict on the item
//     when the plan was drawn (a re-judge later does not change what the
//     plan's estimates use), size the item's size measure, prn its
//     permanent random number, stratum its value of the stratification
//     field. Probabilities and the selection are derived from (size, prn,
//     stratum, n) when read, never stored, so an extension cannot leave
//     a stale one.
const schemaV9 = `
CREATE TABLE plans (
	id       INTEGER PRIMARY KEY,
	design   TEXT    NOT NULL CHECK (design IN ('uniform', 'stratified', 'active')),
	n        INTEGER NOT NULL CHECK (n >= 1),
	seed     INTEGER NOT NULL,
	judge    TEXT    NOT NULL DEFAULT '',
	run_id   INTEGER REFERENCES runs (id),
	stratify TEXT    NOT NULL DEFAULT '' CHECK ((design = 'stratified') = (stratify <> '')),
	floor    REAL    NOT NULL DEFAULT 0.2 CHECK (floor >= 0 AND floor <= 1),
	created  TEXT    NOT NULL
);

CREATE TABLE plan_units (
	plan_id    INTEGER NOT NULL REFERENCES plans (id),
	item_id    TEXT    NOT NULL REFERENCES items (item_id),
	verdict_id INTEGER REFERENCES verdicts (id),
	size       REAL    NOT NULL CHECK (size >= 0),
	prn        REAL    NOT NULL CHECK (prn > 0 AND prn < 1),
	stratum    TEXT    NOT NULL DEFAULT '',
	PRIMARY KEY (plan_id, item_id)
) WITHOUT ROWID;
`
