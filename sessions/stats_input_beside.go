package sessions

import (
	"context"
	"database/sql"
	"slices"
)

// statsStamp tells two read transactions of a session apart: the highest
// id of the tables Gavel only ever appends to (actions, whose triggers
// keep past_labels; verdicts; items; runs) and the number of
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

// besideRead is a read running on another connection.
type besideRead struct {
	done chan struct{}
	// same says the other connection saw tx's moment and read without
	// error.
	same bool
	// giveUp stops waiting for a connection.
	giveUp context.CancelFunc
}

// wait tells, once the read is over, whether it counts (it saw tx's
// moment and did not fail). A read still waiting for a free connection
// (the pool's others busy with the screen or a judge run) gives up, and
// does not count. When it does not, the caller reads the same in tx.
func (b *besideRead) wait() bool {
	b.giveUp()
	<-b.done
	return b.same
}

// readBeside runs read on another read connection while the caller goes
// on reading in tx: the large reads of the statistics then share the
// cores. What read reads counts only when the second transaction has
// want, tx's stamp (statsStamp), that is when no label, verdict, item,
// run or scale was added between the two transactions' first reads;
// otherwise the caller reads it in tx. Reading tx's stamp before starting
// fixes tx's moment before the other connection starts.
func (s *Store) readBeside(want []sql.NullInt64, read func(other *sql.Tx) error) *besideRead {
	ctx, giveUp := context.WithCancel(context.Background())
	b := &besideRead{done: make(chan struct{}), giveUp: giveUp}
	if !besideReads {
		close(b.done)
		return b
	}
	go func() {
		defer close(b.done)
		b.same = s.readBesideIn(ctx, want, read)
	}()
	return b
}

// besideReads turns the reads on other connections on; tests turn it off
// to compare them with tx reading everything.
var besideReads = true

// readBesideIn runs read in a new read transaction, on a connection got
// before ctx is done, if it has the stamp want, and tells whether it did
// without error.
func (s *Store) readBesideIn(ctx context.Context, want []sql.NullInt64, read func(other *sql.Tx) error) bool {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return false
	}
	defer conn.Close()
	other, err := conn.BeginTx(s.readContext(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return false
	}
	defer other.Rollback()
	stamp, err := readStamp(other)
	if err != nil || !slices.Equal(stamp, want) {
		return false
	}
	return read(other) == nil
}
