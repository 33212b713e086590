package sessions

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"
)

// Options for Open.
type Options struct {
	// Annotator is who labels; required unless ReadOnly. One live process
	// at a time may hold a session for a given annotator.
	Annotator string
	// ReadOnly opens for stats and export: no lock, no writes, and it works
	// while a review of the same session is open.
	ReadOnly bool
}

// Store is an open session. It is safe for concurrent use.
type Store struct {
	path      string
	annotator string
	readOnly  bool

	// db serves reads (query_only connections); w is the one writer
	// connection, nil when read-only. Keeping writes on one connection
	// serialises them inside the process, so they never meet SQLITE_BUSY
	// from each other; BEGIN IMMEDIATE makes them wait for other
	// processes' writers instead of failing halfway through.
	db *sql.DB
	w  *sql.DB

	lock *lockHolder

	closeOnce sync.Once

	// cache is the response cache, made on first use; Close flushes it.
	cache     *ResponseCache
	cacheOnce sync.Once
	closeErr  error

	// immutable is set when a read-only store reads the file with
	// SQLite's immutable mode (see openImmutable); notice then says what
	// it cannot see.
	immutable bool
	notice    string
	// upgradedCopy is the temporary folder of the upgraded copy an older
	// session that cannot be written is read through
	// (readUpgradedCopy); Close removes it.
	upgradedCopy string
	// stopReading, when set, ends the read transactions in flight
	// (readContext): Close calls it first, so that a quit does not wait
	// for the statistics of a million items still being read.
	reading     context.Context
	stopReading context.CancelFunc
	// tidy is the session's absolute path when a read-only open may have
	// made its -wal and -shm files (tidyAfterReading); "" otherwise.
	tidy string

	// upstream, when set, is where judge runs are written first (a
	// team session's replica: upstream.go).
	upstream Upstream

	// queueClock is what the team queue claims by (queue_store.go).
	queueClock Clock

	// building is set on the store a build gives its then (writeBuild):
	// the import's batch writers then leave the CHECK constraints to
	// their own checks (see writeUnchecked).
	building bool
}

// busyTimeoutMS is how long a statement waits for another process's write
// to finish before it gives up.
const busyTimeoutMS = 10000

// maxReaders bounds the read connections (and so the open files) of a
// store; reads are short, so a few suffice for the screen and a judge run.
const maxReaders = 4

// sqliteMagic starts every SQLite database file.
var sqliteMagic = []byte("SQLite format 3\x00")

// Open opens the session at path, creating the file (and its schema) when it
// is missing or empty and upgrading an older schema. A writable open takes
// the annotator's lock; Close releases it. Open refuses, with a message that
// says what to do, a file that is not a Gavel session, one written by a
// newer Gavel, a damaged one, and one that another live process labels as
// the same annotator.
func Open(path string, opts Options) (*Store, error) {
	if path == "" {
		return nil, errors.New("no session file given: pass --session FILE")
	}
	if isTeamURL(path) {
		return nil, newError(ErrNotSession, nil, "%s is a team session in PostgreSQL: %s; for other commands copy it to a file first (gavel copy URL FILE.gavel)", redactURL(path), TeamCommands)
	}
	annotator := strings.TrimSpace(opts.Annotator)
	if !opts.ReadOnly && annotator == "" {
		return nil, fmt.Errorf("session %s: an annotator name is required to label: pass --annotator NAME", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", path, err)
	}
	size, err := inspectFile(path, abs, opts.ReadOnly)
	if err != nil {
		return nil, err
	}
	s := &Store{path: path, annotator: annotator, readOnly: opts.ReadOnly}
	s.reading, s.stopReading = context.WithCancel(context.Background())
	if opts.ReadOnly {
		if size == 0 {
			return nil, newError(ErrNotSession, nil, "session %s is empty: it holds nothing yet to read", path)
		}
		err = s.openReadOnly(abs)
		if errors.Is(err, ErrOlderSchema) {
			if upgradeInPlace(abs) == nil {
				s.closeDBs()
				err = s.openReadOnly(abs)
			} else {
				err = s.readUpgradedCopy(abs, err)
			}
		}
	} else {
		err = s.openWritable(abs)
	}
	if err != nil {
		s.closeDBs()
		return nil, err
	}
	return s, nil
}

// inspectFile checks what is at abs before SQLite touches it, so that a
// random file is refused rather than opened, and returns its size (0 when
// missing).
func inspectFile(path, abs string, readOnly bool) (int64, error) {
	st, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if readOnly {
			return 0, newError(fs.ErrNotExist, err, "there is no session at %s: check the path", path)
		}
		dir := filepath.Dir(abs)
		if _, derr := os.Stat(dir); derr != nil {
			return 0, fmt.Errorf("cannot create session %s: folder %s does not exist", path, dir)
		}
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("cannot open session %s: %w", path, err)
	case st.IsDir():
		return 0, newError(ErrNotSession, nil, "%s is not a Gavel session: it is a folder", path)
	case st.Size() == 0:
		return 0, nil
	}
	f, err := os.Open(abs)
	if err != nil {
		return 0, fmt.Errorf("cannot open session %s: %w", path, err)
	}
	defer f.Close()
	head := make([]byte, 100)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return 0, fmt.Errorf("cannot read session %s: %w", path, err)
	}
	if !bytes.HasPrefix(head[:n], sqliteMagic) {
		return 0, newError(ErrNotSession, nil, "%s is not a Gavel session: it is not an SQLite database", path)
	}
	if n < len(head) {
		return 0, damaged(path, fmt.Errorf("the file is cut short (%d bytes)", n))
	}
	return st.Size(), nil
}

// openWritable opens the session for writing and takes the annotator's
// lock.
func (s *Store) openWritable(abs string) error {
	if err := s.openWriter(abs); err != nil {
		return err
	}
	return s.acquireLock()
}

// openWriter opens the session's writer connection (WAL, upgraded to this
// build's schema) and its readers, without taking a lock: openWritable
// takes the annotator's, a replica (OpenReplica) none.
func (s *Store) openWriter(abs string) error {
	w, err := sql.Open("sqlite", dsn(abs, true, false))
	if err != nil {
		return fmt.Errorf("cannot open session %s: %w", s.path, err)
	}
	w.SetMaxOpenConns(1)
	s.w = w

	_, version, err := s.identify(w)
	if err != nil {
		return err
	}
	var mode string
	if err := w.QueryRow("PRAGMA journal_mode = WAL").Scan(&mode); err != nil {
		return s.wrap(err, "switching to WAL mode")
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("session %s: SQLite could not use WAL mode here (it kept %q): keep the session on a local disk", s.path, mode)
	}
	if version < schemaVersion {
		if err := s.migrate(); err != nil {
			return err
		}
	}
	if s.db, err = sql.Open("sqlite", dsn(abs, false, false)); err != nil {
		return fmt.Errorf("cannot open session %s: %w", s.path, err)
	}
	s.db.SetMaxOpenConns(maxReaders)
	return nil
}

// openReadOnly opens the session for reading only. A session in WAL mode
// needs its -shm (and -wal) files even to be read, and SQLite creates them
// beside the session when they are missing: in a folder the reader may not
// write (a colleague's share, a read-only mount, an archive) mode=ro alone
// fails with "attempt to write a readonly database". Then the session is
// opened again as immutable (see openImmutable).
func (s *Store) openReadOnly(abs string) error {
	err := s.openReadOnlyWith(dsn(abs, false, true))
	if err == nil {
		s.tidy = abs
	}
	if err == nil || !needsImmutable(err) {
		return err
	}
	if s.db != nil {
		s.db.Close()
		s.db = nil
	}
	return s.openImmutable(abs)
}

// openImmutable reads the session with immutable=1: SQLite then takes no
// lock and never looks at the -wal and -shm files, so it needs no write
// access anywhere. The price, and why it is only a fallback:
//   - changes still in a -wal file (a Gavel that is labelling right now,
//     or one killed before it checkpointed) are not seen; Notice says so
//     when such a file exists;
//   - SQLite trusts the file not to change while it is open, so should a
//     writer that can write the folder checkpoint into the file during a
//     read, that read may see a mix of old and new pages: wrong figures or
//     a "malformed" error. Reads are short and each export or stats run
//     is a snapshot, so running the command again after the writer quits
//     gives the right answer.
func (s *Store) openImmutable(abs string) error {
	if st, err := os.Stat(abs + "-wal"); err == nil && st.Size() > 0 {
		s.notice = fmt.Sprintf("%s is read from its main file only: its folder cannot be written, so the %s bytes of recent changes in %s-wal are left out. "+
			"Quit the Gavel that labels it (quitting folds them in), or copy the session with `gavel export`, for the latest labels.",
			s.path, strconv.FormatInt(st.Size(), 10), s.path)
	}
	s.immutable = true
	return s.openReadOnlyWith(immutableDSN(dsn(abs, false, true)))
}

// needsImmutable reports whether a read-only open failed for want of
// writing the -shm or -wal files or their folder.
func needsImmutable(err error) bool {
	var se *sessionError
	if !errors.As(err, &se) {
		return false
	}
	return errors.Is(err, ErrPermission) || errors.Is(err, ErrStorage)
}

// immutableDSN adds immutable=1 to a read-only data source name.
func immutableDSN(d string) string {
	u, err := url.Parse(d)
	if err != nil {
		return d
	}
	q := u.Query()
	q.Set("immutable", "1")
	u.RawQuery = q.Encode()
	return u.String()
}

// upgradeSchema brings an older session to this Gavel's schema so that a
// read-only command (stats, export) can read it: the migrations are the
// ones a writable open applies, each in its own transaction, and take no
// annotator lock. It fails, leaving the file as it was, where the file
// cannot be written; the read-only open then reads an upgraded copy
// (readUpgradedCopy).
func upgradeSchema(abs string) error {
	w, err := sql.Open("sqlite", dsn(abs, true, false))
	if err != nil {
		return err
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	up := &Store{path: abs, w: w}
	if _, _, err := up.identify(w); err != nil {
		return err
	}
	if err := up.migrate(); err != nil {
		return err
	}
	// The steps' changes into the file: otherwise this command and every
	// read-only one after it reads them through the -wal file (a reader
	// cannot checkpoint), page by page, until a writer opens the session.
	// A reader of another process may hold it up; the next writer then
	// finishes it.
	var busy, logFrames, done int
	if err := w.QueryRow("PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &done); err != nil &&
		sqliteCode(err) != sqlite3.SQLITE_BUSY && sqliteCode(err) != sqlite3.SQLITE_LOCKED {
		return err
	}
	return nil
}

// openReadOnlyWith opens the read connections with the data source name d
// and checks that they reach a Gavel session this Gavel reads.
func (s *Store) openReadOnlyWith(d string) error {
	db, err := sqlOpen("sqlite", d)
	if err != nil {
		return fmt.Errorf("cannot open session %s: %w", s.path, err)
	}
	db.SetMaxOpenConns(maxReaders)
	s.db = db
	fresh, version, err := s.identify(db)
	if err != nil {
		return err
	}
	if fresh {
		return newError(ErrNotSession, nil, "session %s is empty: it holds nothing yet to read", s.path)
	}
	if version < schemaVersion {
		return newError(ErrOlderSchema, nil,
			"session %s uses schema v%d, older than this Gavel's v%d: open it once for labelling (gavel review) to upgrade it, then try again",
			s.path, version, schemaVersion)
	}
	return nil
}

// sqlOpen opens a database/sql handle; tests replace it to make an open
// fail the way a read-only folder does.
var sqlOpen = sql.Open

// Notice is something the reader of a read-only store should know about
// what it reads (a session read without its recent changes), or "".
func (s *Store) Notice() string { return s.notice }

// identify reads the session's mark and schema version. fresh means an
// SQLite file with nothing in it yet, which Open may turn into a session.
func (s *Store) identify(db *sql.DB) (fresh bool, version int, err error) {
	var appID int64
	if err := db.QueryRow("PRAGMA application_id").Scan(&appID); err != nil {
		return false, 0, s.openError(err)
	}
	if err := db.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		return false, 0, s.openError(err)
	}
	switch appID {
	case applicationID:
	case 0:
		var n int
		if err := db.QueryRow("SELECT count(*) FROM sqlite_master").Scan(&n); err != nil {
			return false, 0, s.openError(err)
		}
		if n > 0 {
			return false, 0, newError(ErrNotSession, nil,
				"%s is not a Gavel session: it is an SQLite database of another program (it holds tables but no Gavel mark); choose another --session file",
				s.path)
		}
		return true, 0, nil
	default:
		return false, 0, newError(ErrNotSession, nil,
			"%s is not a Gavel session: it is an SQLite database of another program (application id %#08x); choose another --session file",
			s.path, uint32(appID))
	}
	if version < 0 {
		return false, 0, damaged(s.path, fmt.Errorf("impossible schema version %d", version))
	}
	if version > schemaVersion {
		return false, 0, newError(ErrNewerSchema, nil,
			"session %s was written by a newer Gavel (schema v%d; this Gavel reads up to v%d): upgrade Gavel",
			s.path, version, schemaVersion)
	}
	return false, version, nil
}

// openError explains a failure of the first queries on a file.
func (s *Store) openError(err error) error {
	if e := explain(s.path, err); e != nil {
		return e
	}
	return fmt.Errorf("cannot open session %s: %w", s.path, err)
}

// dsn builds the modernc.org/sqlite data source name for a session file:
// a file: URI (so that any character in the path is safe) with the
// per-connection settings every connection needs.
func dsn(abs string, writer, readOnly bool) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive path: file:///C:/...
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeoutMS))
	q.Add("_pragma", "foreign_keys(1)")
	// FULL makes every commit fsync the WAL: a confirmed label survives
	// a power cut, not only a crash. Readers may run the checkpoint on
	// close, so they get it too.
	q.Add("_pragma", "synchronous(FULL)")
	if writer {
		q.Set("_txlock", "immediate")
	} else {
		q.Add("_pragma", "query_only(1)")
	}
	if readOnly {
		q.Set("mode", "ro")
	}
	u := url.URL{Scheme: "file", Path: p, RawQuery: q.Encode()}
	return u.String()
}

// Path returns the session file's path as given to Open.
func (s *Store) Path() string { return s.path }

// Annotator returns the annotator the store labels as ("" for a read-only
// store opened without one).
func (s *Store) Annotator() string { return s.annotator }

// ReadOnly reports whether the store was opened read-only.
func (s *Store) ReadOnly() bool { return s.readOnly }

// Close releases the annotator's lock and closes the file. Stop any
// Judging on the store first. Close is safe to call twice.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		var errs []error
		if s.cache != nil {
			errs = append(errs, s.cache.close())
		}
		// The reads still running end first (their transactions are
		// rolled back after the statement running): the checkpoint
		// after them can empty the -wal, which a reader kept from it.
		if s.stopReading != nil {
			s.stopReading()
		}
		if s.db != nil {
			errs = append(errs, s.db.Close()) // closeDBs closes it again: a no-op
		}
		errs = append(errs, s.checkpoint())
		if s.lock != nil {
			errs = append(errs, s.releaseLock())
		}
		errs = append(errs, s.closeDBs(), s.removeUpgradedCopy())
		if s.tidy != "" {
			tidyAfterReading(s.tidy)
		}
		s.closeErr = s.wrap(errors.Join(errs...), "closing")
	})
	return s.closeErr
}

// checkpoint copies every change in the -wal file into the session file
// and empties the -wal, so that the .gavel file alone holds everything:
// a copy of it made after Gavel quits, by any means, is complete. A
// reader of another process (gavel stats) may keep the checkpoint from
// finishing; that is no error, the next close or SQLite's own automatic
// checkpoint finishes it.
func (s *Store) checkpoint() error {
	if s.w == nil || s.lockLost() != nil {
		return nil
	}
	var busy, logFrames, done int
	err := s.w.QueryRow("PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &done)
	if sqliteCode(err) == sqlite3.SQLITE_BUSY || sqliteCode(err) == sqlite3.SQLITE_LOCKED {
		return nil
	}
	return err
}

func (s *Store) closeDBs() error {
	var errs []error
	if s.db != nil {
		errs = append(errs, s.db.Close())
	}
	if s.w != nil {
		errs = append(errs, s.w.Close())
	}
	return errors.Join(errs...)
}

// writable returns the writer, or an error when the store is read-only or
// its lock was taken over.
func (s *Store) writable() (*sql.DB, error) {
	if s.readOnly {
		return nil, newError(ErrReadOnly, nil, "session %s is open read-only: it cannot be changed", s.path)
	}
	if err := s.lockLost(); err != nil {
		return nil, err
	}
	return s.w, nil
}

// TeamCommands says which commands take a team session's URL, for the
// messages that refuse one elsewhere: the one list of them.
const TeamCommands = "gavel review, run, label, stats, export, report, compare, plan (its list and --show), assign and copy open it, and gavel import DATA --session URL makes one"

// isTeamURL reports whether a session argument is a PostgreSQL URL (a
// team session, package sessions/pg) rather than a file.
func isTeamURL(path string) bool {
	return strings.HasPrefix(path, "postgres://") || strings.HasPrefix(path, "postgresql://")
}

// redactURL is a URL fit to print: its password replaced.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "a postgres:// URL"
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}
