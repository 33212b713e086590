package sessions

import (
	"context"
	"database/sql"
	"slices"
)

// statsStamp tells two read transactions of a session apart: the highest
// id of the tables Gavel only ever appends to (actions, whose triggers
// keep current_label_rows; verdicts; items; runs) and the number of
// registered scales. Gavel never updates or deletes those rows, so two
// transactions with the same stamp see the same labels, verdicts, items,
// runs and scales.
const statsStamp = `SELECT (SELECT max(id) FROM actions), (SELECT max(id) FROM verdicts),
	(SELECT max(idx) FROM items), (SELECT max(id) FROM runs), (SELECT count(*) FROM dimension_scales)`

// readStamp reads statsStamp in tx; reading it also fixes the moment tx
// sees (a WAL read transaction takes its snapshot at its first read).
func readStamp(tx *sql.Tx) ([]sql.NullInt64, error) {
	stamp := make([]sql.NullInt64, 5)
	err := tx.QueryRow(statsStamp).Scan(&stamp[0], &stamp[1], &stamp[2], &stamp[3], &stamp[4])
	return stamp, err
}

// statsBeside is what is read on a second connection: the verdicts'
// values and the current labels.
type statsBeside struct {
	values []verdictValue
	labels *scannedLabels
	// same says the second connection saw the same moment as tx (and
	// read without error).
	same bool
	err  error
}

// besideRead is a statsBeside being read.
type besideRead struct {
	done chan struct{}
	got  statsBeside
}

// wait is what was read beside, once read. When it is not of tx's moment
// (same is false), the caller reads it itself.
func (b *besideRead) wait() statsBeside {
	<-b.done
	return b.got
}

// readBeside starts reading the verdicts' values and the current labels
// on a second read connection while the caller reads the units and
// verdicts in tx: the largest reads of the statistics then take one core
// each. What it reads counts only when the second transaction has tx's
// stamp (statsStamp), that is when no label, verdict, item, run or scale
// was added between the two transactions' first reads; otherwise the
// caller reads it in tx. Reading tx's stamp here fixes tx's moment before
// the second connection starts.
func (s *Store) readBeside(tx *sql.Tx) (*besideRead, error) {
	want, err := readStamp(tx)
	if err != nil {
		return nil, err
	}
	b := &besideRead{done: make(chan struct{})}
	go func() {
		defer close(b.done)
		b.got = s.readBesideIn(want)
	}()
	return b, nil
}

// readBesideIn reads statsBeside in a new read transaction if it has the
// stamp want.
func (s *Store) readBesideIn(want []sql.NullInt64) (got statsBeside) {
	other, err := s.db.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return statsBeside{err: err}
	}
	defer other.Rollback()
	stamp, err := readStamp(other)
	if err != nil || !slices.Equal(stamp, want) {
		return statsBeside{err: err}
	}
	codec, err := loadCodec(other)
	if err != nil {
		return statsBeside{err: err}
	}
	if got.values, err = scanVerdictValues(other, codec); err != nil {
		return statsBeside{err: err}
	}
	if got.labels, err = scanStatsLabels(other, codec); err != nil {
		return statsBeside{err: err}
	}
	got.same = true
	return got
}
