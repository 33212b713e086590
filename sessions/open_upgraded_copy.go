package sessions

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
)

// upgradeInPlace brings an older session's file to this Gavel's schema
// (upgradeSchema); tests replace it to fail as on a file that cannot be
// written, which root (the tests' user in CI) always can.
var upgradeInPlace = upgradeSchema

// readUpgradedCopy reads an older session that this process cannot write
// (a colleague's share, a read-only mount, an archive) through a copy in
// the temporary folder, upgraded there: a read-only command then works on
// it as on any session, and the file stays as it is. The copy is a
// snapshot (SQLite's VACUUM INTO, through the read connection's mode, so
// immutable when the folder cannot be written) and goes when the store
// closes; Notice says that it was read so. older is the error of the
// plain open, returned when no copy can be made.
func (s *Store) readUpgradedCopy(abs string, older error) error {
	var version int
	if s.db == nil || s.db.QueryRow("PRAGMA user_version").Scan(&version) != nil {
		return older
	}
	dir, err := os.MkdirTemp("", "gavel-upgraded-")
	if err != nil {
		return older
	}
	tmp := filepath.Join(dir, filepath.Base(abs))
	if err := s.snapshot(abs, tmp); err != nil {
		os.RemoveAll(dir)
		return fmt.Errorf("%w (and a copy to read could not be made in %s: %v)", older, os.TempDir(), err)
	}
	s.closeDBs()
	s.db = nil
	notice := s.notice // what the read of the file itself could not see
	s.notice, s.immutable = "", false
	if err := upgradeSchema(tmp); err != nil {
		os.RemoveAll(dir)
		return fmt.Errorf("%w (and the copy made to read could not be upgraded: %v)", older, err)
	}
	if err := s.openReadOnly(tmp); err != nil {
		s.closeDBs()
		s.db = nil
		os.RemoveAll(dir)
		return err
	}
	s.upgradedCopy = dir
	s.notice = fmt.Sprintf("%s was written by an older Gavel (schema v%d; this one reads v%d) and cannot be written here: it is read through an upgraded copy, the file left as it is. "+
		"Open it once where it can be written (gavel review, or any command) to upgrade it for good.", s.path, version, schemaVersion)
	if notice != "" {
		s.notice = notice + " " + s.notice
	}
	return nil
}

// snapshot writes a consistent copy of the session at abs to tmp, read as
// the store reads it (immutable or not). VACUUM INTO needs a connection
// that is not query_only, as the store's readers are: a writer's data
// source name, opened read-only.
func (s *Store) snapshot(abs, tmp string) error {
	d := dsn(abs, true, true)
	if s.immutable {
		d = immutableDSN(d)
	}
	db, err := sql.Open("sqlite", d)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Exec("VACUUM INTO ?", tmp)
	return err
}

// removeUpgradedCopy removes the copy readUpgradedCopy read, once closed.
func (s *Store) removeUpgradedCopy() error {
	if s.upgradedCopy == "" {
		return nil
	}
	if err := os.RemoveAll(s.upgradedCopy); err != nil {
		return fmt.Errorf("the upgraded copy of %s in %s could not be removed: %w", s.path, s.upgradedCopy, err)
	}
	return nil
}
