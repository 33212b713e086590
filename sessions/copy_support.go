package sessions

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// What `gavel copy` (package sessions/pg) needs of a session file: the
// schema version this build writes, one consistent read of every table,
// one write transaction for filling a new session, and a file-to-file copy.

// SchemaVersion is the schema version (PRAGMA user_version) of the sessions
// this build reads and writes.
func SchemaVersion() int { return schemaVersion }

// SchemaSQL is the SQL of every schema step this build applies, in order:
// run on an empty database, it makes a session's tables (package pg reads
// from them what an older team session lacks).
func SchemaSQL() []string {
	out := make([]string, 0, schemaVersion)
	for _, m := range migrations[:schemaVersion] {
		out = append(out, m.sql)
	}
	return out
}

// ReadSnapshot runs fn in one read transaction of the session: every query
// in it sees the same state, even while another process labels.
func (s *Store) ReadSnapshot(fn func(tx *sql.Tx) error) error {
	return s.read("reading the session", fn)
}

// WriteTx runs fn in one write transaction of a writable session and
// commits it, for copying a whole session in: all of it is written, or
// nothing. what says what is done, for the error message.
func (s *Store) WriteTx(what string, fn func(tx *sql.Tx) error) error {
	return s.write(what, fn)
}

// CopyFile writes a copy of the session at src into a new file dst, which
// must not exist: every table as it is (SQLite's VACUUM INTO, from one
// consistent read, so a review of src may go on meanwhile), the locks of
// src's live processes left out. An older session is upgraded first, as a
// read-only open does. Nothing is left at dst when it fails.
func CopyFile(src, dst string) error {
	if _, err := os.Lstat(dst); err == nil {
		return newError(fs.ErrExist, nil, "%s already exists: gavel copy writes a new session; choose another name or delete it first", dst)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cannot write session %s: %w", dst, err)
	}
	dir := filepath.Dir(dst)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("cannot write session %s: folder %s does not exist", dst, dir)
	}
	s, err := Open(src, Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer s.Close()
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(dst)+".copy-*")
	if err != nil {
		return fmt.Errorf("cannot write session %s: %w", dst, err)
	}
	tmpPath := tmp.Name()
	tmp.Close()
	os.Remove(tmpPath) // VACUUM INTO wants to create the file itself
	defer RemoveSessionFiles(tmpPath)
	abs, err := filepath.Abs(tmpPath)
	if err != nil {
		return fmt.Errorf("cannot write session %s: %w", dst, err)
	}
	if err := vacuumInto(s, abs); err != nil {
		return fmt.Errorf("copying session %s to %s: %w", src, dst, err)
	}
	w, err := sql.Open("sqlite", dsn(abs, true, false))
	if err != nil {
		return fmt.Errorf("cannot write session %s: %w", dst, err)
	}
	_, err = w.Exec(`DELETE FROM locks`)
	if err == nil {
		var mode string
		err = w.QueryRow(`PRAGMA journal_mode = WAL`).Scan(&mode)
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing session %s: %w", dst, err)
	}
	return PublishFile(tmpPath, dst)
}

// vacuumInto writes the session into a new file at abs. VACUUM INTO reads
// one snapshot itself and cannot run inside a transaction, nor on the
// store's query_only connections (it writes, elsewhere): it gets a
// read-only connection of its own, immutable when the store's are.
func vacuumInto(s *Store, abs string) error {
	srcAbs, err := filepath.Abs(s.path)
	if err != nil {
		return err
	}
	u, err := url.Parse(dsn(srcAbs, false, true))
	if err != nil {
		return err
	}
	q := u.Query()
	q["_pragma"] = slices.DeleteFunc(q["_pragma"], func(p string) bool { return p == "query_only(1)" })
	if s.immutable {
		q.Set("immutable", "1")
	}
	u.RawQuery = q.Encode()
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Exec(`VACUUM INTO ?`, abs)
	return err
}

// PublishFile moves a finished session file tmp to dst, which must not
// exist: it is linked there (so a file that appeared at dst meanwhile is
// never replaced) and tmp removed; where links cannot be made it is
// renamed after one more look.
func PublishFile(tmp, dst string) error {
	err := os.Link(tmp, dst)
	switch {
	case err == nil:
		return os.Remove(tmp)
	case errors.Is(err, fs.ErrExist):
		return newError(fs.ErrExist, nil, "%s already exists: gavel copy writes a new session; choose another name or delete it first", dst)
	}
	if _, serr := os.Lstat(dst); serr == nil {
		return newError(fs.ErrExist, nil, "%s already exists: gavel copy writes a new session; choose another name or delete it first", dst)
	}
	if err := os.Rename(tmp, dst); err != nil {
		return fmt.Errorf("cannot write session %s: %w", dst, err)
	}
	return nil
}

// RemoveSessionFiles removes a session file and the files SQLite keeps
// beside it (-wal, -shm, -journal), ignoring those that are not there.
func RemoveSessionFiles(path string) {
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		os.Remove(path + suffix)
	}
}

// The rows a judge run writes, for another store (sessions/pg) that must
// write exactly what EnsureRun and SaveVerdicts write here.

// RunRow is what EnsureRun writes of info in the runs table: the run's key,
// its params as canonical JSON, and its definition (nil for none).
func RunRow(info judge.Info) (key, params string, def any, err error) {
	if key, err = RunKey(info); err != nil {
		return "", "", nil, err
	}
	p, err := canonicalParams(info.Params)
	if err != nil {
		return "", "", nil, err
	}
	return key, string(p), definition(info), nil
}

// RegistryScale is the scale EnsureRun records in dimension_scales for a
// dimension whose values are stored by name; ok is false for the others.
func RegistryScale(d judge.Dimension) (scale judge.Scale, ok bool) {
	if !d.Scale.Categorical() {
		return "", false
	}
	return registryScale(d.Scale), true
}

// VerdictColumnNames are the columns of a verdicts row VerdictRow gives,
// in its order (the id aside).
var VerdictColumnNames = []string{"run_id", "item_id", "criterion", "swapped", "status", "reason", "error", "raw", "model",
	"prompt_tokens", "completion_tokens", "latency_ms", "confidence", "extra", "created_at"}

// VerdictRow is what SaveVerdicts writes for one verdict of run runID,
// as SQLite values (nil, int64, float64, string): its verdicts row
// (VerdictColumnNames) and its verdict_values, the stored value per
// dimension; scales are the session's dimensions stored by name
// (dimension_scales). at is the time to record when v has none.
func VerdictRow(runID int64, v judge.Verdict, scales map[string]judge.Scale, at time.Time) (row []any, values map[string]any) {
	if !v.At.IsZero() {
		at = v.At
	}
	var conf any
	if v.Confidence != nil && !math.IsNaN(*v.Confidence) {
		conf = *v.Confidence
	}
	swapped := int64(0)
	if v.Swapped {
		swapped = 1
	}
	row = []any{runID, v.ItemID, int64(v.Criterion), swapped, string(v.Status),
		judge.CutText(v.Reason, judge.TextHead, judge.TextTail), judge.CutText(v.Error, judge.TextHead, judge.TextTail),
		judge.CutText(v.Raw, judge.RawHead, judge.RawTail), v.Model,
		int64(v.PromptTokens), int64(v.CompletionTokens), float64(v.Latency) / float64(time.Millisecond), conf,
		capJSON(extraJSON(v.Extra)), stamp(at)}
	codec := &valueCodec{scales: scales}
	values = map[string]any{}
	for dim, x := range v.Values {
		if math.IsNaN(x) {
			continue // NaN means no value
		}
		values[dim] = codec.encode(dim, x)
	}
	return row, values
}
