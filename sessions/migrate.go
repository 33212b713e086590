package sessions

import (
	"database/sql"
	"errors"
	"fmt"
)

// UpgradeNotice, when set, is told before a session written by an older
// Gavel is upgraded (its path, its schema version and this build's), and
// the function it returns is called when the upgrade has ended. An upgrade
// runs once per file but can take seconds on a large one (v13 derives a
// table from every label: about 4 s at a million), so the command line
// says what it waits for. Set it before any session is opened.
var UpgradeNotice func(path string, from, to int) (done func())

// migrate applies the missing schema steps, each in its own IMMEDIATE
// transaction that re-reads the version first, so two processes opening
// the same new file at once apply each step exactly once.
func (s *Store) migrate() error {
	var from int
	if UpgradeNotice != nil && s.w.QueryRow("PRAGMA user_version").Scan(&from) == nil && from > 0 && from < schemaVersion {
		defer UpgradeNotice(s.path, from, schemaVersion)()
	}
	for {
		done, err := s.migrateStep()
		if err != nil || done {
			return err
		}
	}
}

func (s *Store) migrateStep() (done bool, err error) {
	// The foreign keys pragma does nothing inside a transaction, so a
	// rebuild's is set before it, from the version as it reads now.
	// Another process may upgrade meanwhile: the version read in the
	// transaction decides which step runs, and with the keys off any
	// step is checked before its commit.
	keysOff := false
	var pre, keys int
	if err := s.w.QueryRow("PRAGMA user_version").Scan(&pre); err == nil && pre >= 0 && pre < len(migrations) && migrations[pre].rebuild {
		if err := s.w.QueryRow("PRAGMA foreign_keys").Scan(&keys); err != nil {
			return false, s.wrap(err, "upgrading the schema")
		}
		if keys == 1 { // a build writes its new file with the keys off
			if _, err := s.w.Exec("PRAGMA foreign_keys = OFF"); err != nil {
				return false, s.wrap(err, "upgrading the schema")
			}
			keysOff = true
			defer s.w.Exec("PRAGMA foreign_keys = ON") // after the rollback below, outside any transaction
		}
	}
	tx, err := s.w.Begin()
	if err != nil {
		return false, s.wrap(err, "upgrading the schema")
	}
	defer tx.Rollback()
	var version int
	if err := tx.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		return false, s.wrap(err, "reading the schema version")
	}
	if version < 0 {
		return false, damaged(s.path, fmt.Errorf("impossible schema version %d", version))
	}
	if version > schemaVersion {
		return false, newError(ErrNewerSchema, nil,
			"session %s was written by a newer Gavel (schema v%d; this Gavel reads up to v%d): upgrade Gavel",
			s.path, version, schemaVersion)
	}
	if version == schemaVersion {
		return true, nil
	}
	m := migrations[version]
	if _, err := tx.Exec(m.sql); err != nil {
		return false, s.wrap(err, fmt.Sprintf("upgrading the schema to v%d (%s)", version+1, m.name))
	}
	if keysOff {
		if err := foreignKeysHold(tx); err != nil {
			return false, damaged(s.path, err)
		}
	}
	// PRAGMA takes no bound parameters; both values are integers we own.
	if _, err := tx.Exec(fmt.Sprintf("PRAGMA application_id = %d", applicationID)); err != nil {
		return false, s.wrap(err, "marking the file as a Gavel session")
	}
	if _, err := tx.Exec(fmt.Sprintf("PRAGMA user_version = %d", version+1)); err != nil {
		return false, s.wrap(err, "recording the schema version")
	}
	if err := tx.Commit(); err != nil {
		return false, s.wrap(err, fmt.Sprintf("upgrading the schema to v%d", version+1))
	}
	return false, nil
}

// foreignKeysHold reports the first row that points at no row of the
// table its foreign key names.
func foreignKeysHold(tx *sql.Tx) error {
	var table, parent string
	var rowid sql.NullInt64
	var fk int
	err := tx.QueryRow("PRAGMA foreign_key_check").Scan(&table, &rowid, &parent, &fk)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("row %d of table %s points at no row of %s", rowid.Int64, table, parent)
}
