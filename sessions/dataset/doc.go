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
//
// Bad input never panics: every error names the file, the line (and for a
// JSON document the element) and what is wrong, and says what to do.
package dataset
