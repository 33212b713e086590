package pg

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/gavel-dev/gavel/sessions"
)

// The schema steps since v9 only add tables and columns (v10 the queue's
// tables, v11 item_layouts, segment_sets and the items' columns that name
// them; v12 changes only the session file's indexes, which the mirror does
// not copy), so a team session made by an older Gavel is brought up to this
// build's schema by adding what its mirror lacks: the new tables, empty,
// and the new columns, NULL in every row, as SQLite's own upgrade leaves
// them. Older sessions keep the message that names their version.
const firstAdditiveVersion = 9

// upgrade brings a team session of schema v9 or later, made by an older
// Gavel, to this build's: done once, by whoever comes first (the others
// wait on a transaction lock and find it done). A session that is
// current, older than v9 or newer is left as it is, for the callers'
// checks to explain.
func (s *Store) upgrade(ctx context.Context) error {
	v, err := s.SchemaVersion(ctx, s.pool)
	if err != nil || v >= sessions.SchemaVersion() || v < firstAdditiveVersion {
		return nil // the callers read the version again and say why
	}
	mirror, err := currentMirror()
	if err != nil {
		return err
	}
	err = pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, s.lockKey("upgrade")); err != nil {
			return err
		}
		v, err := s.SchemaVersion(ctx, tx)
		if err != nil || v >= sessions.SchemaVersion() || v < firstAdditiveVersion {
			return err
		}
		have := map[string]map[string]bool{}
		rows, err := tx.Query(ctx, `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1`, s.target.Schema)
		if err != nil {
			return err
		}
		for rows.Next() {
			var t, c string
			if err := rows.Scan(&t, &c); err != nil {
				rows.Close()
				return err
			}
			if have[t] == nil {
				have[t] = map[string]bool{}
			}
			have[t][c] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, t := range mirror {
			cols, ok := have[t.Name]
			if !ok {
				for _, st := range t.CreateSQL(s.target.Schema) {
					if _, err := tx.Exec(ctx, st); err != nil {
						return fmt.Errorf("making table %s: %w", t.Name, err)
					}
				}
				continue
			}
			for _, c := range t.Columns {
				if cols[c.Name] {
					continue
				}
				if _, err := tx.Exec(ctx, `ALTER TABLE `+s.table(t.Name)+` ADD COLUMN `+quote(c.Name)+` `+c.Type.SQL()); err != nil {
					return fmt.Errorf("adding column %s.%s: %w", t.Name, c.Name, err)
				}
			}
		}
		_, err = tx.Exec(ctx, `UPDATE `+s.table(MetaTable)+` SET value = $1 WHERE key = 'schema_version'`, fmt.Sprint(sessions.SchemaVersion()))
		return err
	})
	if err != nil {
		return s.wrap(err, fmt.Sprintf("upgrading the session from schema v%d to v%d", v, sessions.SchemaVersion()))
	}
	return nil
}

// currentMirror is the mirrored tables of this build's schema, read from
// an empty session made in memory.
func currentMirror() ([]Table, error) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, step := range sessions.SchemaSQL() {
		if _, err := db.Exec(step); err != nil {
			return nil, err
		}
	}
	tx, err := db.Begin()
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	return SQLiteTables(tx)
}
