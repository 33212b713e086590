package pg

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/gavel-dev/gavel/sessions"
)

// CopyOptions are the options of CopyFromSQLite.
type CopyOptions struct {
	// Replace allows replacing a session already at the destination.
	Replace bool
	// CreatedBy is the Gavel that copies (its version), kept in gavel_meta.
	CreatedBy string
}

// CopySummary counts the rows copied, per table.
type CopySummary struct {
	Rows map[string]int64
}

// Count is the number of rows of one table copied.
func (c CopySummary) Count(table string) int64 { return c.Rows[table] }

// copyAnnotator is the name a copy holds its new session's lock under.
const copyAnnotator = "gavel copy"

// CopyFromSQLite copies the SQLite session at srcPath into dst, in one
// PostgreSQL transaction: the session's schema and tables are made, every
// row is copied (COPY), the sequences are set past the largest ids. An
// older session file is upgraded first, as a read-only open does; it is
// read in one snapshot, so a review of it may go on meanwhile. A session
// already at dst is refused unless opts.Replace, then replaced whole.
func CopyFromSQLite(ctx context.Context, srcPath string, dst *Store, opts CopyOptions) (CopySummary, error) {
	sum := CopySummary{Rows: map[string]int64{}}
	if err := dst.Reach(ctx); err != nil {
		return sum, err
	}
	src, err := sessions.Open(srcPath, sessions.Options{ReadOnly: true})
	if err != nil {
		return sum, err
	}
	defer src.Close()
	var copyErr error // an error of PostgreSQL's side, not wrapped as the file's
	err = src.ReadSnapshot(func(stx *sql.Tx) error {
		var version int
		if err := stx.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil {
			return err
		}
		tables, err := SQLiteTables(stx)
		if err != nil {
			return err
		}
		copyErr = dst.copyIn(ctx, stx, tables, version, opts, &sum)
		return nil
	})
	if err == nil {
		err = copyErr
	}
	return sum, err
}

func (s *Store) copyIn(ctx context.Context, stx *sql.Tx, tables []Table, version int, opts CopyOptions, sum *CopySummary) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return s.connectError(ctx, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	schema := s.target.Schema
	var exists, isSession bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1),
			EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2)`,
		schema, MetaTable).Scan(&exists, &isSession); err != nil {
		return s.wrap(err, "looking for the session")
	}
	switch {
	case exists && !isSession:
		return fmt.Errorf("session %s: the database has a schema %s that is not a Gavel session: it is left alone; choose another session name", s.target.Shown, schema)
	case exists && !opts.Replace:
		return fmt.Errorf("session %s already exists: pass --replace to overwrite it with the copy, or choose another session name", s.target.Shown)
	case exists:
		if _, err := tx.Exec(ctx, `DROP SCHEMA `+quote(schema)+` CASCADE`); err != nil {
			return s.wrap(err, "removing the session to replace")
		}
	}
	if _, err := tx.Exec(ctx, `CREATE SCHEMA `+quote(schema)); err != nil {
		return s.wrap(err, "creating the session's schema")
	}
	if _, err := tx.Exec(ctx, metaSQL(schema)); err != nil {
		return s.wrap(err, "creating the session's tables")
	}
	createdBy := opts.CreatedBy
	if createdBy == "" {
		createdBy = "gavel"
	}
	meta := [][]any{
		{"schema_version", strconv.Itoa(version)},
		{"created_at", time.Now().UTC().Format("2006-01-02T15:04:05.000Z")},
		{"created_by", createdBy},
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{schema, MetaTable}, []string{"key", "value"}, pgx.CopyFromRows(meta)); err != nil {
		return s.wrap(err, "writing the session's version")
	}
	for _, t := range tables {
		for _, stmt := range t.CreateSQL(schema) {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return s.wrap(err, "creating table "+t.Name)
			}
		}
		n, err := s.copyTableIn(ctx, tx, stx, t)
		if err != nil {
			return err
		}
		sum.Rows[t.Name] = n
		if t.Serial != "" {
			seq := pgx.Identifier{schema, t.Sequence()}.Sanitize()
			if _, err := tx.Exec(ctx, `SELECT setval($1::regclass, coalesce(max(`+quote(t.Serial)+`), 0) + 1, false) FROM `+s.table(t.Name), seq); err != nil {
				return s.wrap(err, "setting "+t.Sequence())
			}
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return s.wrap(err, "committing the copy")
	}
	return nil
}

// copyTableIn copies one table's rows from SQLite into PostgreSQL.
func (s *Store) copyTableIn(ctx context.Context, tx pgx.Tx, stx *sql.Tx, t Table) (int64, error) {
	cols := make([]string, 0, len(t.Columns)+2)
	sel := make([]string, 0, len(t.Columns)+1)
	for _, c := range t.Columns {
		cols = append(cols, c.Name)
		sel = append(sel, quote(c.Name))
	}
	if t.Rowid {
		cols = append(cols, RowidColumn)
		sel = append(sel, "_rowid_")
	}
	cols = append(cols, OddColumn)
	rows, err := stx.QueryContext(ctx, `SELECT `+strings.Join(sel, ", ")+` FROM `+quote(t.Name))
	if err != nil {
		return 0, fmt.Errorf("reading table %s: %w", t.Name, err)
	}
	defer rows.Close()
	src := &sqliteRows{t: t, rows: rows, raw: make([]any, len(sel)), out: make([]any, len(cols))}
	src.ptrs = make([]any, len(sel))
	for i := range src.raw {
		src.ptrs[i] = &src.raw[i]
	}
	n, err := tx.CopyFrom(ctx, pgx.Identifier{s.target.Schema, t.Name}, cols, src)
	if src.err != nil {
		return 0, src.err
	}
	if err != nil {
		return 0, s.wrap(err, "copying table "+t.Name)
	}
	return n, nil
}

// sqliteRows feeds a SQLite table's rows to COPY, each value encoded for
// its column (EncodeValue).
type sqliteRows struct {
	t    Table
	rows *sql.Rows
	raw  []any
	ptrs []any
	out  []any
	row  int64
	err  error
}

func (r *sqliteRows) Next() bool {
	if r.err != nil || !r.rows.Next() {
		if r.err == nil {
			if err := r.rows.Err(); err != nil {
				r.err = fmt.Errorf("reading table %s: %w", r.t.Name, err)
			}
		}
		return false
	}
	r.row++
	if err := r.rows.Scan(r.ptrs...); err != nil {
		r.err = fmt.Errorf("reading table %s: %w", r.t.Name, err)
		return false
	}
	var odd map[string]*Odd
	for i, c := range r.t.Columns {
		typed, o, err := EncodeValue(c.Type, r.raw[i])
		if err != nil {
			r.err = fmt.Errorf("table %s, row %d, column %s: %w", r.t.Name, r.row, c.Name, err)
			return false
		}
		if o != nil {
			if typed == nil && slices.Contains(r.t.Key, c.Name) {
				r.err = fmt.Errorf("table %s, row %d: its key column %s holds a %s value, which a PostgreSQL %s column cannot: this session cannot be copied",
					r.t.Name, r.row, c.Name, o.T, c.Type.SQL())
				return false
			}
			if odd == nil {
				odd = map[string]*Odd{}
			}
			odd[c.Name] = o
		}
		r.out[i] = typed
	}
	k := len(r.t.Columns)
	if r.t.Rowid {
		r.out[k] = r.raw[k]
		k++
	}
	j, err := OddJSON(odd)
	if err != nil {
		r.err = fmt.Errorf("table %s, row %d: %w", r.t.Name, r.row, err)
		return false
	}
	if j == nil {
		r.out[k] = nil
	} else {
		r.out[k] = j
	}
	return true
}

func (r *sqliteRows) Values() ([]any, error) { return r.out, nil }

func (r *sqliteRows) Err() error { return r.err }

// CopyToSQLite copies the PostgreSQL session src into a new SQLite session
// file dstPath, which must not exist. The PostgreSQL session must have been
// made by a Gavel of this schema version. The file is made by this Gavel
// (its fresh schema, with SQLite's triggers), then filled from one
// consistent read of src in one transaction, tables in foreign-key order
// and actions in id order, so that the triggers derive the current labels
// and the decision log exactly as the original session had them. It is
// written under a temporary name in the same folder and put at dstPath
// only when complete: a failure leaves nothing.
func CopyToSQLite(ctx context.Context, src *Store, dstPath string) (CopySummary, error) {
	sum := CopySummary{Rows: map[string]int64{}}
	if _, err := os.Lstat(dstPath); err == nil {
		return sum, fmt.Errorf("%s already exists: gavel copy writes a new session; choose another name or delete it first", dstPath)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return sum, fmt.Errorf("cannot write session %s: %w", dstPath, err)
	}
	dir := filepath.Dir(dstPath)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return sum, fmt.Errorf("cannot write session %s: folder %s does not exist", dstPath, dir)
	}
	if err := src.Reach(ctx); err != nil {
		return sum, err
	}
	if err := src.upgrade(ctx); err != nil { // a session of an older Gavel (upgrade.go)
		return sum, err
	}
	tx, err := src.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return sum, src.connectError(ctx, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var exists bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, src.target.Schema).Scan(&exists); err != nil {
		return sum, src.wrap(err, "looking for the session")
	}
	if !exists {
		return sum, src.noSession(ctx)
	}
	version, err := src.SchemaVersion(ctx, tx)
	if err != nil {
		return sum, err
	}
	if version != sessions.SchemaVersion() {
		var by string
		_ = tx.QueryRow(ctx, `SELECT value FROM `+src.table(MetaTable)+` WHERE key = 'created_by'`).Scan(&by)
		what := fmt.Sprintf("session %s was made by another Gavel version (%s): its tables are schema v%d, this Gavel's v%d", src.target.Shown, by, version, sessions.SchemaVersion())
		if version > sessions.SchemaVersion() {
			return sum, errors.New(what + ": upgrade Gavel to copy it")
		}
		return sum, errors.New(what + ": copy it with the Gavel that made it")
	}

	// A new name, which sessions.Open creates with the permissions any
	// session file gets.
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(dir, "."+filepath.Base(dstPath)+".copy-"+hex.EncodeToString(rnd[:]))
	defer sessions.RemoveSessionFiles(tmp)
	st, err := sessions.Open(tmp, sessions.Options{Annotator: copyAnnotator})
	if err != nil {
		return sum, err
	}
	var inner error // the copy's own error, said without the temporary file's name
	err = st.WriteTx("copying the session in", func(stx *sql.Tx) error {
		inner = copyOut(ctx, src, tx, stx, version, &sum)
		return inner
	})
	if inner != nil {
		err = fmt.Errorf("copying session %s to %s: %w", src.target.Shown, dstPath, inner)
	}
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return sum, err
	}
	if err := sessions.PublishFile(tmp, dstPath); err != nil {
		return sum, err
	}
	return sum, nil
}

// copyOut fills the new SQLite session stx from the PostgreSQL one.
func copyOut(ctx context.Context, src *Store, tx pgx.Tx, stx *sql.Tx, version int, sum *CopySummary) error {
	var v int
	if err := stx.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		return err
	}
	if v != version {
		return fmt.Errorf("the new file has schema v%d, the PostgreSQL session v%d", v, version)
	}
	tables, err := SQLiteTables(stx)
	if err != nil {
		return err
	}
	if err := src.checkLayout(ctx, tx, tables); err != nil {
		return err
	}
	// Foreign keys are checked at the commit, so that the order of
	// rows within a table does not matter.
	if _, err := stx.Exec(`PRAGMA defer_foreign_keys = ON`); err != nil {
		return err
	}
	// The rows the creation put, if any (none today), and the
	// derived tables, which the actions' triggers fill again.
	for _, name := range []string{"past_labels", "decision_log"} {
		if _, err := stx.Exec(`DELETE FROM ` + quote(name)); err != nil {
			return err
		}
	}
	for i := len(tables) - 1; i >= 0; i-- {
		if _, err := stx.Exec(`DELETE FROM ` + quote(tables[i].Name)); err != nil {
			return err
		}
	}
	for _, t := range tables {
		n, err := src.copyTableOut(ctx, tx, stx, t)
		if err != nil {
			return err
		}
		sum.Rows[t.Name] = n
	}
	return nil
}

// checkLayout makes sure the PostgreSQL session has exactly the tables
// and columns of this Gavel's SQLite schema.
func (s *Store) checkLayout(ctx context.Context, tx pgx.Tx, tables []Table) error {
	rows, err := tx.Query(ctx, `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1`, s.target.Schema)
	if err != nil {
		return s.wrap(err, "reading the session's tables")
	}
	have := map[string][]string{}
	for rows.Next() {
		var t, c string
		if err := rows.Scan(&t, &c); err != nil {
			rows.Close()
			return s.wrap(err, "reading the session's tables")
		}
		have[t] = append(have[t], c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return s.wrap(err, "reading the session's tables")
	}
	delete(have, MetaTable)
	other := func(what string) error {
		return fmt.Errorf("session %s was made by another Gavel version: %s", s.target.Shown, what)
	}
	for _, t := range tables {
		cols, ok := have[t.Name]
		if !ok {
			return other("it has no table " + t.Name)
		}
		for _, c := range t.Columns {
			if !slices.Contains(cols, c.Name) {
				return other(fmt.Sprintf("its table %s has no column %s", t.Name, c.Name))
			}
		}
		for _, c := range cols {
			if _, known := t.Column(c); !known && c != OddColumn && c != RowidColumn {
				return other(fmt.Sprintf("its table %s has a column %s this Gavel does not know", t.Name, c))
			}
		}
		if !slices.Contains(cols, OddColumn) {
			return other(fmt.Sprintf("its table %s has no column %s", t.Name, OddColumn))
		}
		delete(have, t.Name)
	}
	for t := range have {
		return other("it has a table " + t + " this Gavel does not know")
	}
	return nil
}

// copyTableOut copies one table's rows from PostgreSQL into SQLite, in
// key order (ids ascending).
func (s *Store) copyTableOut(ctx context.Context, tx pgx.Tx, stx *sql.Tx, t Table) (int64, error) {
	var cols []string
	for _, c := range t.Columns {
		cols = append(cols, quote(c.Name))
	}
	order := quoteAll(t.Key)
	if t.Rowid {
		cols = append(cols, "_rowid_")
		order = quote(RowidColumn) + " NULLS LAST"
		if len(t.Key) > 0 {
			order += ", " + quoteAll(t.Key)
		}
	}
	query := `SELECT ` + t.SelectList() + ` FROM ` + s.table(t.Name)
	if order != "" {
		query += ` ORDER BY ` + order
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ")
	ins, err := stx.PrepareContext(ctx, `INSERT INTO `+quote(t.Name)+` (`+strings.Join(cols, ", ")+`) VALUES (`+marks+`)`)
	if err != nil {
		return 0, fmt.Errorf("writing table %s: %w", t.Name, err)
	}
	defer ins.Close()
	rows, err := tx.Query(ctx, query)
	if err != nil {
		return 0, s.wrap(err, "reading table "+t.Name)
	}
	defer rows.Close()
	vals := make([]any, len(cols))
	var n int64
	for rows.Next() {
		n++
		raw, err := rows.Values()
		if err != nil {
			return 0, s.wrap(err, "reading table "+t.Name)
		}
		if err := t.DecodeRow(raw, vals); err != nil {
			return 0, fmt.Errorf("session %s: table %s, row %d: %w", s.target.Shown, t.Name, n, err)
		}
		if _, err := ins.ExecContext(ctx, vals...); err != nil {
			return 0, fmt.Errorf("writing row %d of table %s: %w", n, t.Name, err)
		}
	}
	if err := rows.Err(); err != nil {
		return 0, s.wrap(err, "reading table "+t.Name)
	}
	return n, nil
}

// SelectList is the column list that reads a table's rows from
// PostgreSQL for DecodeRow: its columns in order, gavel_rowid on a rowid
// table, and gavel_odd as text.
func (t Table) SelectList() string {
	sel := make([]string, 0, len(t.Columns)+2)
	for _, c := range t.Columns {
		sel = append(sel, quote(c.Name))
	}
	if t.Rowid {
		sel = append(sel, quote(RowidColumn))
	}
	return strings.Join(append(sel, quote(OddColumn)+"::text"), ", ")
}

// DecodeRow turns one row read with SelectList (pgx's rows.Values) into
// the SQLite values it holds, written into out: one per column, then the
// rowid (nil: SQLite gives one) on a rowid table. These are the values to
// insert into the SQLite table, in the same order, to get back the row
// that was copied (CopyToSQLite does exactly this).
func (t Table) DecodeRow(raw, out []any) error {
	n := len(t.Columns)
	if t.Rowid {
		n++
	}
	if len(raw) != n+1 || len(out) < n {
		return fmt.Errorf("a row of %d values read, %d expected", len(raw), n+1)
	}
	var oddText string
	if o := raw[n]; o != nil {
		oddText, _ = o.(string)
	}
	odd, err := ParseOdd(oddText)
	if err != nil {
		return err
	}
	for i, c := range t.Columns {
		if out[i], err = DecodeValue(c.Type, raw[i], odd[c.Name]); err != nil {
			return fmt.Errorf("column %s: %w", c.Name, err)
		}
	}
	if t.Rowid {
		out[n-1] = raw[n-1]
	}
	return nil
}
