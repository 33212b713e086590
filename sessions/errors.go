package sessions

import (
	"errors"
	"fmt"
	"strings"
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
	// ErrPermission means the operating system refused to open or write
	// the session file or its folder.
	ErrPermission = errors.New("no permission on the session")
	// ErrStorage means the disk failed the session: full, failing, or a
	// network drive that dropped.
	ErrStorage = errors.New("session storage failed")
	// ErrBusy means another program held the session's write lock for
	// longer than Gavel waits.
	ErrBusy = errors.New("session busy")
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
	if e := explain(s.path, err); e != nil {
		return e
	}
	return fmt.Errorf("session %s: %s: %w", s.path, what, err)
}

// explain turns an SQLite error into a sentence that names the session
// file, says what is wrong and what to do; nil when err is not one it
// knows (the caller then reports it as it is). SQLite's own text, with its
// numeric code, stays in the message after the explanation, for bug
// reports.
func explain(path string, err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return nil
	}
	code := se.Code()
	switch code & 0xff {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return damaged(path, err)
	case sqlite3.SQLITE_READONLY:
		what := "the file or its folder is read-only"
		switch code {
		case sqlite3.SQLITE_READONLY_DIRECTORY:
			what = "its folder is read-only, and SQLite must create the session's -wal and -shm files beside it"
		case sqlite3.SQLITE_READONLY_CANTINIT, sqlite3.SQLITE_READONLY_CANTLOCK:
			what = "its -shm file cannot be written"
		case sqlite3.SQLITE_READONLY_DBMOVED:
			what = "the file was moved or deleted while open"
		}
		return newError(ErrPermission, err,
			"cannot write session %s: %s (%v). Give yourself write permission on the file, its folder and the -wal and -shm files beside it (chmod u+w %[1]s*), "+
				"or copy the session to a folder you can write; `gavel stats` and `gavel export` read it where it is",
			path, what, err)
	case sqlite3.SQLITE_PERM, sqlite3.SQLITE_AUTH:
		return newError(ErrPermission, err,
			"cannot use session %s: permission denied (%v). Check who owns the file and its folder (ls -l), or work on a copy",
			path, err)
	case sqlite3.SQLITE_CANTOPEN:
		return newError(ErrPermission, err,
			"cannot open session %s (%v): check that the file and its folder exist and that you may read them "+
				"(and write them, to label); a session on a network drive or in a synced folder may also refuse this",
			path, err)
	case sqlite3.SQLITE_FULL:
		return newError(ErrStorage, err,
			"cannot write session %s: the disk is full (%v). Free some space and try again; what was confirmed before is safe",
			path, err)
	case sqlite3.SQLITE_IOERR:
		what := "the disk failed a read or write"
		switch code {
		case sqlite3.SQLITE_IOERR_SHMOPEN, sqlite3.SQLITE_IOERR_SHMSIZE, sqlite3.SQLITE_IOERR_SHMMAP, sqlite3.SQLITE_IOERR_SHMLOCK:
			what = "SQLite cannot use the session's -shm file beside it (a folder without write permission, a network drive, or a full disk)"
		case sqlite3.SQLITE_IOERR_NOMEM:
			what = "the computer ran out of memory"
		}
		return newError(ErrStorage, err,
			"disk error on session %s: %s (%v). Check the free space (df -h) and the permissions of its folder; "+
				"a session on a network drive or a removable disk is safer copied to a local disk first",
			path, what, err)
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return newError(ErrBusy, err,
			"session %s stayed locked by another program for more than %d s (%v): close whatever writes to it (an sqlite3 shell, another tool) and try again",
			path, busyTimeoutMS/1000, err)
	case sqlite3.SQLITE_ERROR:
		if msg := se.Error(); strings.Contains(msg, "no such table") || strings.Contains(msg, "no such column") {
			return newError(ErrDamaged, err,
				"session %s is missing part of Gavel's schema (%v): it was damaged or changed by another program, "+
					"or made by a Gavel of another version. Restore it from a backup, or upgrade Gavel if a newer one made it",
				path, err)
		}
	}
	return nil
}

func damaged(path string, err error) error {
	return newError(ErrDamaged, err,
		"session %s is damaged (%v): restore it from a backup, or try `sqlite3 %s .recover` to salvage what is left",
		path, err, path)
}
