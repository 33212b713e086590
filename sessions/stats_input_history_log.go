package sessions

import (
	"database/sql"
	"sync/atomic"
)

// logPacked reads a range of an annotator's history from the decision log
// (schemaDecisionLog): the records and odd elements as decisionsPacked
// gives them, but each record one stored text, and the count of the log's
// rows of every kind, to compare with actions'.
const logPacked = `SELECT count(*), count(*) FILTER (WHERE decision),
	group_concat(record, char(30)) FILTER (WHERE decision),
	group_concat(odd, '') FILTER (WHERE decision AND odd IS NOT NULL)
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
// reads actions.
func readLogHistory(tx *sql.Tx, annotator string, guidelines bool, firstDim string, undone map[int64]bool, lo, hi int64) (*packedHistory, error) {
	if !logReads {
		return nil, nil
	}
	var all, logged int64
	p := &packedHistory{guidelines: guidelines, firstDim: firstDim, undone: undone, fromLog: true}
	err := tx.QueryRow(logPacked, annotator, lo, hi).Scan(&logged, &p.n, &p.records, &p.odd)
	if unpackable(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := tx.QueryRow(actionsIn, annotator, lo, hi).Scan(&all); err != nil {
		return nil, err
	}
	if all != logged {
		return nil, nil
	}
	logRanges.Add(1)
	return p, nil
}
