package sessions

import (
	"context"
	"database/sql"
)

// read runs fn in a read transaction, so that its queries see one
// consistent snapshot even while another process writes.
func (s *Store) read(what string, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(s.readContext(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return s.wrap(err, what)
	}
	defer tx.Rollback()
	return s.wrap(fn(tx), what)
}

// write runs fn in an IMMEDIATE write transaction and commits it. With
// synchronous=FULL the commit has reached the disk when write returns nil.
func (s *Store) write(what string, fn func(tx *sql.Tx) error) error {
	w, err := s.writable()
	if err != nil {
		return err
	}
	tx, err := w.Begin()
	if err != nil {
		return s.wrap(err, what)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return s.wrap(err, what)
	}
	return s.wrap(tx.Commit(), what)
}

// queryer is what *sql.DB and *sql.Tx share for reading.
type queryer interface {
	Query(query string, args ...any) (*sql.Rows, error)
	QueryRow(query string, args ...any) *sql.Row
}

// readContext is the context of the store's read transactions: Close
// ends it, so that the reads in flight stop rather than keep the quit
// waiting.
func (s *Store) readContext() context.Context {
	if s.reading != nil {
		return s.reading
	}
	return context.Background()
}
