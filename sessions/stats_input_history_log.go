package sessions

import (
	"database/sql"
	"sync/atomic"
)

// logPacked reads a range of an annotator's history from the decision log
// (schemaDecisionLog): the records and odd elements as decisionsPacked
// gives them, but each record one stored text, and the count of the log's
// rows, to compare with actions'. It reads the rows of every kind, notes
// and undos too, which foldPacked skips: each has an odd element (its kind
// is not a label's) whose first letter tells it from a decision, and a
// FILTER on the decision column, evaluated for each row and each list,
// cost SQLite more than the few rows it left out.
const logPacked = `SELECT count(*), group_concat(record, char(30)), group_concat(odd, '')
FROM decision_log WHERE annotator = ?1 AND id >= ?2 AND id < ?3`

// actionsIn counts an annotator's actions in an id range, from the index
// on annotator and id alone.
const actionsIn = `SELECT count(*) FROM actions WHERE annotator = ?1 AND id >= ?2 AND id < ?3`

// logReads turns reading histories from the decision log on; tests turn it
// off to compare the log with actions. logRanges counts the ranges read
// from it, for tests that check which reader ran.
var (
	logReads  = true
	logRanges atomic.Int64
)

// readLogHistory reads the actions of an annotator's history whose ids are
// in [lo, hi) from the decision log, like readPackedHistory; nil when the
// log does not hold every action of the range (an action written before
// the log, or without a sitting or labelling column): the caller then
// reads actions. When the log holds a row of the annotator's for every id
// of the range (one person's review, no one else's actions between
// theirs), no action of theirs can be missing and actions are not
// counted: counting them took a fifth of the time reading the log.
func readLogHistory(tx *sql.Tx, annotator string, guidelines bool, firstDim string, undone map[int64]bool, lo, hi int64) (*packedHistory, error) {
	if !logReads {
		return nil, nil
	}
	var all int64
	p := &packedHistory{guidelines: guidelines, firstDim: firstDim, undone: undone, fromLog: true}
	err := tx.QueryRow(logPacked, annotator, lo, hi).Scan(&p.n, &p.records, &p.odd)
	if unpackable(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if p.n != hi-lo {
		if err := tx.QueryRow(actionsIn, annotator, lo, hi).Scan(&all); err != nil {
			return nil, err
		}
		if all != p.n {
			return nil, nil
		}
	}
	logRanges.Add(1)
	return p, nil
}
