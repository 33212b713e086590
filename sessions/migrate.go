package sessions

import (
	"fmt"
)

// migrate applies the missing schema steps, each in its own IMMEDIATE
// transaction that re-reads the version first, so two processes opening
// the same new file at once apply each step exactly once.
func (s *Store) migrate() error {
	for {
		done, err := s.migrateStep()
		if err != nil || done {
			return err
		}
	}
}

func (s *Store) migrateStep() (done bool, err error) {
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
