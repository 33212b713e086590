// Package dataset reads the eval files people already have — JSONL, JSON,
// CSV and TSV, gzip-compressed or not, and lm-evaluation-harness sample
// files — and maps their fields onto judge.Item.
//
// Field mapping is automatic for the common names (question, answer,
// prediction, id…), overridable with a --map specification (see ParseMap),
// and reaches nested fields with dotted paths such as "doc.question" or
// "resps.0.0". Every row keeps its original fields in Item.Fields. Verdicts
// of a judge that ran elsewhere and labels that people gave elsewhere are
// found and kept as raw text (Dataset.Imported) for a later step to read.
//
// Loading is built for large files: the file is read once into memory,
// JSONL is parsed on every core by a small hand-written JSON scanner that
// validates each row and decodes only the mapped fields, and the strings of
// the items point into the file's bytes wherever no unescaping is needed.
// A loaded dataset therefore holds little more than the file itself.
// OpenStream parses a JSONL file the same way but hands its items out in
// file order while the rest is parsed (the review screen opens on a
// million rows' first page at once); what needs every row is checked when
// the parse ends, and the result is the one Load gives. It reads the file
// a few megabytes at a time, and told to (Stream.StoreFields) keeps none
// of them: the items' texts are copied out and their rows kept in the
// form a session stores them, so that a million items take about the
// size of their texts.
//
// Decisions worth knowing:
//   - An item's ID is its id field, else its row number: the line number
//     for JSONL (so that blank lines do not shift the ids of the rows after
//     them), the position from 1 for a JSON list, the record from 1 after
//     the header for CSV and TSV. Bad rows skipped with SkipBad keep their
//     numbers, so the ids of the other rows do not depend on them.
//   - Ids must be unique: sessions match items by id. A repeated id is a
//     bad row (its message names the earlier line that has it), so it stops
//     the load, or is skipped with SkipBad. doc_id is not taken as an id on
//     its own, since it often names a document that several questions share
//     (MMLongBench-Doc); in lm-evaluation-harness files it is, with the
//     filter appended when a file holds several filters.
//   - Invalid UTF-8 is repaired, not refused: each bad sequence becomes
//     U+FFFD, the lines are counted (Dataset.InvalidUTF8Lines) and a warning
//     says where the first was. One stray byte should not block a million
//     rows, and repaired text is safe to show and to export.
//   - NaN, Infinity and -Infinity, which Python writes into JSON, are read
//     as numbers; Fields holds null in their place so that it stays JSON.
//   - A field of a row that is not a string becomes text: numbers as
//     written, true/false, null as "", a list of one value as that value,
//     other lists and objects as compact JSON.
//
// Bad input never panics: every error names the file, the line (and for a
// JSON document the element) and what is wrong, and says what to do.
package dataset
