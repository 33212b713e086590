// Package sessions stores a Gavel session: one SQLite file that holds the
// dataset's identity and mapped items, every judge run and verdict (re-judges
// kept as history) and every human action (labels, accepts, notes, undos —
// append-only, with the current state derived by views).
//
// The file is meant to be read by people too: real columns for everything
// one filters on, JSON only for open-ended extras, and the views
// current_labels, current_verdicts, current_verdict_values and current_notes
// (see SCHEMA.md). It runs in WAL mode with synchronous=FULL, so a label
// confirmed by Record survives a killed process or a power cut, and
// `gavel stats` can read a session while a review is open.
//
// One process at a time may label a session as a given annotator: Open takes
// a lock row (pid, host, start time, heartbeat) and refuses a second live
// holder with a message that says who holds it; stale locks are taken over.
//
// A Store is safe for concurrent use. StartJudging runs a judge through
// judge.RunPool and commits its verdicts in small batches.
package sessions
