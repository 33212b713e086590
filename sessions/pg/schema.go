package pg

import (
	"database/sql"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// The PostgreSQL layout of a session (schema gavel_NAME) is made from the
// SQLite session's own schema, read with SQLite's pragmas, so it follows
// whatever schema version this build writes:
//
//   - gavel_meta (key, value): schema_version (the SQLite PRAGMA
//     user_version the tables mirror), created_at, created_by;
//   - one table per SQLite base table, with the same name and columns,
//     except the tables SQLite derives with triggers (past_labels,
//     decision_log), the annotator locks of live processes (locks) and
//     SQLite's own (sqlite_*);
//   - column types by the declared type's affinity: INTEGER bigint, REAL
//     double precision, TEXT text, BLOB bytea, none text;
//   - the same primary key. An INTEGER PRIMARY KEY (SQLite's rowid) gets a
//     sequence TABLE_COLUMN_seq, its column's default, set past the
//     largest id, from which team writers take new ids;
//   - the UNIQUE keys SQLite has (items.item_id, runs.key…), and a unique
//     index wherever SQLite has one on a single column for its non-NULL
//     values (actions.undoes);
//   - gavel_odd jsonb: per column, any value the typed column cannot hold
//     losslessly (see EncodeValue);
//   - gavel_rowid bigint, on a rowid table whose rowid is no column of its
//     own (dataset_mapping, api_batches): SQLite's rowid, so that a copy
//     back keeps the rows' order. NULL for rows a team writer added.
//
// Only primary-key columns are NOT NULL: a value the typed column cannot
// hold leaves a NULL there (text columns excepted, see EncodeValue). No
// CHECK or foreign key: the rows came from a checked SQLite session, and
// SQLite checks them again when a session is copied back.

// Column names the mirror adds to every table.
const (
	// OddColumn holds, per column, the values the typed columns cannot.
	OddColumn = "gavel_odd"
	// RowidColumn holds SQLite's rowid where it is no column of its own.
	RowidColumn = "gavel_rowid"
	// MetaTable is the session's own table: schema_version, created_at,
	// created_by.
	MetaTable = "gavel_meta"
)

// notCopied are the SQLite tables a PostgreSQL session does not hold:
// derived by SQLite's triggers from actions (copying back replays the
// actions in order and the triggers derive them again), or local to one
// machine's processes.
var notCopied = []string{"past_labels", "decision_log", "locks"}

// Copied reports whether a SQLite table of a session has a PostgreSQL
// mirror.
func Copied(table string) bool {
	return !strings.HasPrefix(table, "sqlite_") && !slices.Contains(notCopied, table)
}

// ColumnType is the PostgreSQL type of a mirrored column.
type ColumnType int

// The column types, from SQLite's type affinities.
const (
	TypeText ColumnType = iota
	TypeInteger
	TypeReal
	TypeBlob
)

// SQL is the type's name in PostgreSQL.
func (t ColumnType) SQL() string {
	switch t {
	case TypeInteger:
		return "bigint"
	case TypeReal:
		return "double precision"
	case TypeBlob:
		return "bytea"
	}
	return "text"
}

// affinity is the column type of a SQLite declared type, by SQLite's
// rules (https://sqlite.org/datatype3.html, 3.1): a NUMERIC affinity
// becomes double precision, its integers beyond 2^53 and its texts then
// going to gavel_odd.
func affinity(declared string) ColumnType {
	d := strings.ToUpper(declared)
	switch {
	case strings.Contains(d, "INT"):
		return TypeInteger
	case strings.Contains(d, "CHAR"), strings.Contains(d, "CLOB"), strings.Contains(d, "TEXT"):
		return TypeText
	case strings.Contains(d, "BLOB"):
		return TypeBlob
	case d == "":
		return TypeText
	}
	return TypeReal
}

// Column is a column of a mirrored table.
type Column struct {
	Name string
	Type ColumnType
}

// Table is a mirrored table, as read from a SQLite session.
type Table struct {
	Name    string
	Columns []Column
	// Key is the primary key's columns, in order.
	Key []string
	// Serial is the INTEGER PRIMARY KEY column, SQLite's rowid, whose new
	// ids come from the sequence Sequence names; "" when none.
	Serial string
	// Rowid: a rowid table whose rowid is no column (gavel_rowid keeps it).
	Rowid bool
	// Unique lists the table's other unique keys.
	Unique [][]string
	// Parents are the tables its foreign keys point at.
	Parents []string
}

// Column returns the named column.
func (t Table) Column(name string) (Column, bool) {
	for _, c := range t.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return Column{}, false
}

// Sequence is the name of the sequence of the Serial column.
func (t Table) Sequence() string {
	if t.Serial == "" {
		return ""
	}
	return t.Name + "_" + t.Serial + "_seq"
}

// SQLiteTables reads the mirrored tables of the SQLite session tx reads,
// parents before children (then by name), so that rows inserted in this
// order satisfy the foreign keys.
func SQLiteTables(tx *sql.Tx) ([]Table, error) {
	rows, err := tx.Query(`SELECT name, wr FROM pragma_table_list WHERE schema = 'main' AND type = 'table' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	type listed struct {
		name         string
		withoutRowid bool
	}
	var names []listed
	for rows.Next() {
		var l listed
		if err := rows.Scan(&l.name, &l.withoutRowid); err != nil {
			rows.Close()
			return nil, err
		}
		if Copied(l.name) {
			names = append(names, l)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var tables []Table
	for _, l := range names {
		t, err := sqliteTable(tx, l.name, l.withoutRowid)
		if err != nil {
			return nil, fmt.Errorf("reading table %s's schema: %w", l.name, err)
		}
		tables = append(tables, t)
	}
	return parentsFirst(tables), nil
}

func sqliteTable(tx *sql.Tx, name string, withoutRowid bool) (Table, error) {
	t := Table{Name: name}
	rows, err := tx.Query(`SELECT name, type, pk FROM pragma_table_info(?) ORDER BY cid`, name)
	if err != nil {
		return t, err
	}
	type keyCol struct {
		name     string
		pos      int
		declared string
	}
	var keys []keyCol
	for rows.Next() {
		var col, declared string
		var pk int
		if err := rows.Scan(&col, &declared, &pk); err != nil {
			rows.Close()
			return t, err
		}
		if strings.HasPrefix(col, "gavel_") {
			rows.Close()
			return t, fmt.Errorf("column %s: names starting gavel_ are the PostgreSQL mirror's own", col)
		}
		t.Columns = append(t.Columns, Column{Name: col, Type: affinity(declared)})
		if pk > 0 {
			keys = append(keys, keyCol{col, pk, declared})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return t, err
	}
	slices.SortFunc(keys, func(a, b keyCol) int { return a.pos - b.pos })
	for _, k := range keys {
		t.Key = append(t.Key, k.name)
	}
	if !withoutRowid {
		if len(keys) == 1 && strings.EqualFold(keys[0].declared, "INTEGER") && !descendingKey(tx, name) {
			t.Serial = keys[0].name
		} else {
			t.Rowid = true
		}
	}

	idx, err := tx.Query(`SELECT name, "unique", origin, partial FROM pragma_index_list(?) ORDER BY name`, name)
	if err != nil {
		return t, err
	}
	type index struct {
		name            string
		unique, partial bool
		origin          string
	}
	var indexes []index
	for idx.Next() {
		var i index
		if err := idx.Scan(&i.name, &i.unique, &i.origin, &i.partial); err != nil {
			idx.Close()
			return t, err
		}
		indexes = append(indexes, i)
	}
	idx.Close()
	if err := idx.Err(); err != nil {
		return t, err
	}
	for _, i := range indexes {
		if !i.unique || i.origin == "pk" {
			continue
		}
		cols, err := indexColumns(tx, i.name)
		if err != nil {
			return t, err
		}
		if i.partial && !(len(cols) == 1 && notNullOnly(tx, i.name, cols[0])) {
			continue // a condition PostgreSQL would need translated
		}
		if !slices.ContainsFunc(t.Unique, func(u []string) bool { return slices.Equal(u, cols) }) {
			t.Unique = append(t.Unique, cols)
		}
	}

	fks, err := tx.Query(`SELECT DISTINCT "table" FROM pragma_foreign_key_list(?) ORDER BY 1`, name)
	if err != nil {
		return t, err
	}
	for fks.Next() {
		var parent string
		if err := fks.Scan(&parent); err != nil {
			fks.Close()
			return t, err
		}
		if parent != name {
			t.Parents = append(t.Parents, parent)
		}
	}
	fks.Close()
	return t, fks.Err()
}

// descendingKey reports whether a table's INTEGER PRIMARY KEY is declared
// DESC, which SQLite does not make its rowid.
func descendingKey(tx *sql.Tx, table string) bool {
	var ddl string
	if err := tx.QueryRow(`SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?`, table).Scan(&ddl); err != nil {
		return false
	}
	return regexp.MustCompile(`(?i)\bPRIMARY\s+KEY\s+DESC\b`).MatchString(ddl)
}

func indexColumns(tx *sql.Tx, index string) ([]string, error) {
	rows, err := tx.Query(`SELECT name FROM pragma_index_info(?) ORDER BY seqno`, index)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c sql.NullString
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		if !c.Valid {
			return nil, fmt.Errorf("index %s is on an expression", index)
		}
		cols = append(cols, c.String)
	}
	return cols, rows.Err()
}

// notNullOnly reports whether a partial index's condition is "COL IS NOT
// NULL": PostgreSQL's unique keys leave NULLs apart already, so a plain
// unique key is the same.
func notNullOnly(tx *sql.Tx, index, col string) bool {
	var ddl string
	if err := tx.QueryRow(`SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?`, index).Scan(&ddl); err != nil {
		return false
	}
	_, cond, ok := strings.Cut(strings.ToUpper(ddl), " WHERE ")
	return ok && strings.Join(strings.Fields(cond), " ") == strings.ToUpper(col)+" IS NOT NULL"
}

// parentsFirst orders tables so that each comes after the tables its
// foreign keys point at, keeping the given order otherwise.
func parentsFirst(tables []Table) []Table {
	byName := map[string]int{}
	for i, t := range tables {
		byName[t.Name] = i
	}
	done := make([]bool, len(tables))
	var out []Table
	var visit func(i int, path []int)
	visit = func(i int, path []int) {
		if done[i] || slices.Contains(path, i) {
			return
		}
		for _, p := range tables[i].Parents {
			if j, ok := byName[p]; ok {
				visit(j, append(path, i))
			}
		}
		done[i] = true
		out = append(out, tables[i])
	}
	for i := range tables {
		visit(i, nil)
	}
	return out
}

// CreateSQL is the DDL that makes table t in schema: its sequence, the
// table, the sequence owned by its column.
func (t Table) CreateSQL(schema string) []string {
	var stmts []string
	seq := ""
	if t.Serial != "" {
		seq = pgx.Identifier{schema, t.Sequence()}.Sanitize()
		stmts = append(stmts, "CREATE SEQUENCE "+seq)
	}
	var defs []string
	for _, c := range t.Columns {
		d := quote(c.Name) + " " + c.Type.SQL()
		if slices.Contains(t.Key, c.Name) {
			d += " NOT NULL"
		}
		if c.Name == t.Serial {
			d += " DEFAULT nextval(" + literal(seq) + "::regclass)"
		}
		defs = append(defs, d)
	}
	if t.Rowid {
		defs = append(defs, quote(RowidColumn)+" bigint")
	}
	defs = append(defs, quote(OddColumn)+" jsonb")
	if len(t.Key) > 0 {
		defs = append(defs, "PRIMARY KEY ("+quoteAll(t.Key)+")")
	}
	for _, u := range t.Unique {
		defs = append(defs, "UNIQUE ("+quoteAll(u)+")")
	}
	stmts = append(stmts, "CREATE TABLE "+pgx.Identifier{schema, t.Name}.Sanitize()+" (\n\t"+strings.Join(defs, ",\n\t")+"\n)")
	if seq != "" {
		stmts = append(stmts, "ALTER SEQUENCE "+seq+" OWNED BY "+pgx.Identifier{schema, t.Name, t.Serial}.Sanitize())
	}
	return stmts
}

// metaSQL makes the session's gavel_meta table.
func metaSQL(schema string) string {
	return "CREATE TABLE " + pgx.Identifier{schema, MetaTable}.Sanitize() + " (key text PRIMARY KEY, value text NOT NULL)"
}

func quote(name string) string { return pgx.Identifier{name}.Sanitize() }

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quote(n)
	}
	return strings.Join(q, ", ")
}

// literal is a PostgreSQL string literal.
func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
