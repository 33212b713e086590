package sessions

// schemaV11 stores once what many items repeat, so that a session stays
// small beside its dataset file:
//   - item_layouts holds stored forms of items.fields (the row with the
//     text of the item's own columns elided, see build_fields.go) that
//     several items share: a generated or exported dataset has a handful
//     over a million rows (the same member names, the texts elided). An
//     item whose layout column names one has a NULL fields column; its
//     fields are the layout's text. Gavel stores the first item of a
//     layout inline and the later ones by reference, so an item whose row
//     is like no other costs what it did before.
//   - segment_sets holds the distinct segments objects (the text
//     items.segments held, e.g. {"category":"dates"}); an item whose
//     segment_set names one has a NULL segments column. The index
//     items_by_segment_set lets the statistics read every item's segments
//     grouped by set without reading the items' texts, as
//     items_by_segments does for the items that hold theirs inline.
//
// Items written before v11 keep both inline, and any item may: a reader
// takes coalesce(items.fields, item_layouts.fields) and
// coalesce(items.segments, segment_sets.segments). Gavel never sets both
// an inline value and a reference on one item. Both tables only grow:
// their rows are never changed nor deleted, so a text read once by id
// stays right. The upgrade adds two columns (NULL in every old row: no
// row is rewritten) and the new index, which reads the items once.
const schemaV11 = `
CREATE TABLE item_layouts (
	id     INTEGER PRIMARY KEY,
	fields TEXT    NOT NULL UNIQUE
);

CREATE TABLE segment_sets (
	id       INTEGER PRIMARY KEY,
	segments TEXT    NOT NULL UNIQUE
);

ALTER TABLE items ADD COLUMN layout INTEGER REFERENCES item_layouts (id);
ALTER TABLE items ADD COLUMN segment_set INTEGER REFERENCES segment_sets (id);

CREATE INDEX items_by_segment_set ON items (segment_set) WHERE segment_set IS NOT NULL;

DROP VIEW item_segments;

-- One row per segment of each item, whether it holds its segments or
-- names a set.
CREATE VIEW item_segments AS
SELECT i.item_id, j.key AS name, j.value AS value
FROM items i
LEFT JOIN segment_sets s ON s.id = i.segment_set
JOIN json_each(coalesce(i.segments, s.segments)) j
WHERE coalesce(i.segments, s.segments) IS NOT NULL;
`

// itemColumns is what the readers select of an item, from items i joined
// to its layout l and segment set s (itemJoins): its columns, its fields
// and segments wherever they are stored.
const itemColumns = `i.idx, i.item_id, i.question, i.gold, i.prediction, i.response_a, i.response_b,
	coalesce(i.fields, l.fields), coalesce(i.segments, s.segments)`

// itemJoins joins an item to its layout and segment set.
const itemJoins = `items i
	LEFT JOIN item_layouts l ON l.id = i.layout
	LEFT JOIN segment_sets s ON s.id = i.segment_set`
