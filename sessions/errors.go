package sessions

import (
	"errors"
	"fmt"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Sentinel errors, for errors.Is. The errors Open and the Store return carry
// a full sentence for the user; these only classify them.
var (
	// ErrNotSession means the file is not a Gavel session (not SQLite, or
	// an SQLite database of another program).
	ErrNotSession = errors.New("not a Gavel session")
	// ErrNewerSchema means the session was written by a newer Gavel.
	ErrNewerSchema = errors.New("session written by a newer Gavel")
	// ErrOlderSchema means a read-only open met a session that must be
	// upgraded first, which only a writable open does.
	ErrOlderSchema = errors.New("session needs upgrading")
	// ErrDamaged means SQLite found the file corrupt.
	ErrDamaged = errors.New("session file is damaged")
	// ErrLocked means another live process labels the session as the same
	// annotator; the error is a *LockedError.
	ErrLocked = errors.New("session locked by another process")
	// ErrReadOnly means a write was attempted on a store opened ReadOnly.
	ErrReadOnly = errors.New("session opened read-only")
	// ErrLockLost means this process's lock was taken over by another
	// process (after this one stalled past the heartbeat limit).
	ErrLockLost = errors.New("session lock lost")
)

// sessionError is a user-facing message classified by a sentinel and
// optionally caused by a lower-level error.
type sessionError struct {
	kind  error
	msg   string
	cause error
}

func (e *sessionError) Error() string   { return e.msg }
func (e *sessionError) Unwrap() []error { return []error{e.kind, e.cause} }

func newError(kind, cause error, format string, args ...any) error {
	return &sessionError{kind: kind, msg: fmt.Sprintf(format, args...), cause: cause}
}

// LockedError says which live process holds the session for an annotator.
type LockedError struct {
	Path      string
	Annotator string
	PID       int
	Host      string
	Since     time.Time
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("session %s is already open for labelling by annotator %q (pid %d on host %s since %s). "+
		"Close that Gavel first, or label as someone else with --annotator NAME.",
		e.Path, e.Annotator, e.PID, e.Host, clock(e.Since))
}

// Is makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// clock renders a lock's start time: the time of day when it is today, the
// date too otherwise.
func clock(t time.Time) string {
	t = t.Local()
	now := time.Now()
	if y, m, d := t.Date(); y == now.Year() && m == now.Month() && d == now.Day() {
		return t.Format("15:04:05")
	}
	return t.Format("2006-01-02 15:04:05")
}

// sqliteCode returns the primary SQLite result code of err, or 0.
func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff
	}
	return 0
}

// isDamage reports whether err says the database file is corrupt.
func isDamage(err error) bool {
	switch sqliteCode(err) {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return true
	}
	return false
}

// wrap turns a low-level error into one that names the session and, for a
// damaged file, says what to do. what says what was being done.
func (s *Store) wrap(err error, what string) error {
	if err == nil {
		return nil
	}
	var se *sessionError
	if errors.As(err, &se) {
		return err
	}
	if isDamage(err) {
		return damaged(s.path, err)
	}
	return fmt.Errorf("session %s: %s: %w", s.path, what, err)
}

func damaged(path string, err error) error {
	return newError(ErrDamaged, err,
		"session %s is damaged (%v): restore it from a backup, or try `sqlite3 %s .recover` to salvage what is left",
		path, err, path)
}
