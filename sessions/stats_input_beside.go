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

// labelsBeside is the current labels being read on a second connection.
type labelsBeside struct {
	done   chan struct{}
	labels []scannedLabel
	same   bool // the second connection saw the same moment as tx
	err    error
}

// wait is the labels read beside, once read; same is false when they
// are not of tx's moment (or were not read), and the caller reads them
// itself.
func (b *labelsBeside) wait() (labels []scannedLabel, same bool, err error) {
	if b == nil {
		return nil, false, nil
	}
	<-b.done
	return b.labels, b.same, b.err
}

// readLabelsBeside starts reading the current labels on a second read
// connection while the caller reads the units and verdicts in tx: the two
// largest reads of the statistics then take one core each. The labels
// count only when the second transaction has tx's stamp (statsStamp),
// that is when no label, verdict, item, run or scale was added between
// the two transactions' first reads; otherwise wait says so and the
// caller reads them in tx. Reading tx's stamp here fixes tx's moment
// before the second connection starts.
func (s *Store) readLabelsBeside(tx *sql.Tx) (*labelsBeside, error) {
	want, err := readStamp(tx)
	if err != nil {
		return nil, err
	}
	b := &labelsBeside{done: make(chan struct{})}
	go func() {
		defer close(b.done)
		other, err := s.db.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
		if err != nil {
			b.err = err
			return
		}
		defer other.Rollback()
		got, err := readStamp(other)
		if err != nil || !slices.Equal(got, want) {
			b.err = err
			return
		}
		codec, err := loadCodec(other)
		if err != nil {
			b.err = err
			return
		}
		b.labels, b.err = scanStatsLabels(other, codec)
		b.same = b.err == nil
	}()
	return b, nil
}
