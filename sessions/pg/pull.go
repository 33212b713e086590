package pg

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/gavel-dev/gavel/sessions"
)

// Pulling a team session into its replica (see replica.go): the rows
// others wrote since the last pull, read from one snapshot of the
// session, inserted into the local file in one transaction.
//
// Tables whose rows are numbered (an INTEGER PRIMARY KEY: actions,
// verdicts, runs, guidelines, plans, splits, items) are followed by id:
// each pull reads the rows past the highest id seen, and those in the
// holes below it. Ids come from sequences and are taken before the
// commit, so a transaction that took id 10 may commit after another took
// 11: a pull that saw 11 and not 10 keeps 10 as a hole and looks for it
// again at every pull (a writer retrying after the server restarted
// commits minutes later under the ids it reserved). Their child tables
// (verdict_values, run_dimensions, plan_units, item_criteria) are read
// with the parent rows. The small tables without ids (session_tags,
// dimension_scales…) are read whole when they changed, and set to what
// the team session holds. Local or mutable bookkeeping is not followed:
// the response cache, Batch API submissions and the queue's slots (the
// queue is asked directly).

// notFollowed are the tables a pull leaves alone.
var notFollowed = []string{"responses", "api_batches", "api_batch_requests", "queue_slots", "queue_settings"}

// childOf names, for a table read with its parent rows, the parent, the
// parent's column and the child's column that refers to it.
var childOf = map[string]struct{ parent, parentCol, col string }{
	"verdict_values": {"verdicts", "id", "verdict_id"},
	"run_dimensions": {"runs", "id", "run_id"},
	"plan_units":     {"plans", "id", "plan_id"},
	"item_criteria":  {"items", "item_id", "item_id"},
}

// span is an inclusive range of ids not seen yet below a table's mark.
type span struct{ lo, hi int64 }

// mark is how far a numbered table has been read: every id up to last,
// but those in holes.
type mark struct {
	last  int64
	holes []span
}

// maxHoles bounds the holes kept per table: past it, the oldest are
// merged (a range looked up costs one index scan, whatever its width).
const maxHoles = 4096

// Pulled says what a pull brought in.
type Pulled struct {
	// Rows counts the rows inserted, per table.
	Rows map[string]int
	// Actions, Verdicts and Runs are the ids of the new actions, verdicts
	// and runs.
	Actions, Verdicts, Runs []int64
	// ActionsBy counts the new actions per annotator.
	ActionsBy map[string]int
}

// Any reports whether the pull brought anything.
func (p Pulled) Any() bool {
	for _, n := range p.Rows {
		if n > 0 {
			return true
		}
	}
	return false
}

// puller follows a team session's tables into a local session file.
type puller struct {
	src    *Store
	local  *sessions.Store
	tables []Table // the replica's mirrored tables, parents first
	mu     sync.Mutex
	marks  map[string]*mark
	counts map[string]int64 // the small tables' row counts last read
}

// newPuller reads the replica's tables and, for each numbered one, how
// far it holds the team session's rows: up to its highest id, less the
// gaps below it (rows in flight when it was copied or last pulled, or
// ids never used: looked for again at each pull).
func newPuller(src *Store, local *sessions.Store) (*puller, error) {
	p := &puller{src: src, local: local, marks: map[string]*mark{}, counts: map[string]int64{}}
	err := local.ReadSnapshot(func(tx *sql.Tx) error {
		tables, err := SQLiteTables(tx)
		if err != nil {
			return err
		}
		for _, t := range tables {
			if slices.Contains(notFollowed, t.Name) {
				continue
			}
			p.tables = append(p.tables, t)
			if t.Serial == "" {
				continue
			}
			m, err := localMark(tx, t)
			if err != nil {
				return fmt.Errorf("reading table %s: %w", t.Name, err)
			}
			p.marks[t.Name] = m
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// localMark is what a replica's numbered table holds: its highest id and
// the gaps below.
func localMark(tx *sql.Tx, t Table) (*mark, error) {
	id := quote(t.Serial)
	m := &mark{}
	if err := tx.QueryRow(`SELECT coalesce(max(` + id + `), 0) FROM ` + quote(t.Name)).Scan(&m.last); err != nil {
		return nil, err
	}
	rows, err := tx.Query(`SELECT prev + 1, cur - 1 FROM (
		SELECT ` + id + ` AS cur, lag(` + id + `, 1, 0) OVER (ORDER BY ` + id + `) AS prev FROM ` + quote(t.Name) + `)
		WHERE cur > prev + 1 ORDER BY cur`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var s span
		if err := rows.Scan(&s.lo, &s.hi); err != nil {
			return nil, err
		}
		if s.lo < 1 {
			s.lo = 1
		}
		if s.lo <= s.hi {
			m.holes = append(m.holes, s)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	m.holes = capHoles(m.holes)
	return m, nil
}

// pulledTable is what one table brought: the rows inserted, the ids
// read of a numbered table, and the values of the columns its children
// are read by.
type pulledTable struct {
	t        Table
	inserted int
	read     int
	ids      []int64
	keys     map[string][]any // parent column -> values read
	by       map[string]int   // actions: rows read per annotator
	full     bool             // read whole: the count to remember
}

// pull reads what is new in the team session, in one snapshot, and
// inserts it into the replica in one transaction, row by row as it is
// read (a catch-up after a long absence holds no table in memory).
func (p *puller) pull(ctx context.Context) (Pulled, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := Pulled{Rows: map[string]int{}, ActionsBy: map[string]int{}}
	var got []*pulledTable
	err := p.src.readTx(ctx, "reading what is new", func(tx pgx.Tx) error {
		version, err := p.src.SchemaVersion(ctx, tx)
		if err != nil {
			return err
		}
		if version != sessions.SchemaVersion() {
			return fmt.Errorf("the session's tables are schema v%d, this Gavel's v%d: use a Gavel of schema v%d", version, sessions.SchemaVersion(), version)
		}
		return p.local.WriteTx("saving the team's work", func(stx *sql.Tx) error {
			got = nil
			if _, err := stx.Exec(`PRAGMA defer_foreign_keys = ON`); err != nil {
				return err
			}
			keys := map[string][]any{} // "parent.column" -> the values read
			for _, t := range p.tables {
				pt := &pulledTable{t: t, keys: map[string][]any{}}
				var err error
				switch c, child := childOf[t.Name]; {
				case t.Serial != "":
					err = p.readNumbered(ctx, tx, stx, pt)
				case child:
					err = p.readChildren(ctx, tx, stx, pt, c.col, keys[c.parent+"."+c.parentCol])
				default:
					err = p.readSmall(ctx, tx, stx, pt)
				}
				if err != nil {
					return fmt.Errorf("table %s: %w", t.Name, err)
				}
				for col, vs := range pt.keys {
					keys[t.Name+"."+col] = vs
				}
				got = append(got, pt)
			}
			return nil
		})
	})
	if err != nil {
		return Pulled{}, err
	}
	// Only once the rows are in: the marks move on.
	for _, pt := range got {
		if m := p.marks[pt.t.Name]; m != nil {
			m.advance(pt.ids)
		}
		if pt.full {
			p.counts[pt.t.Name] = int64(pt.read)
		}
		if pt.inserted > 0 || pt.read > 0 {
			out.Rows[pt.t.Name] = pt.inserted
		}
		switch pt.t.Name {
		case "actions":
			out.Actions = pt.ids
			out.ActionsBy = pt.by
		case "verdicts":
			out.Verdicts = pt.ids
		case "runs":
			out.Runs = pt.ids
		}
	}
	if out.ActionsBy == nil {
		out.ActionsBy = map[string]int{}
	}
	return out, nil
}

// columnIndex is a column's place in t's columns, -1 when it has none.
func columnIndex(t Table, name string) int {
	return slices.IndexFunc(t.Columns, func(c Column) bool { return c.Name == name })
}

// selectList is what a pull reads of t: its columns, its rowid on a rowid
// table, and gavel_odd.
func selectList(t Table, alias string) string {
	var sel []string
	for _, c := range t.Columns {
		sel = append(sel, alias+quote(c.Name))
	}
	if t.Rowid {
		sel = append(sel, alias+quote(RowidColumn))
	}
	return strings.Join(append(sel, alias+quote(OddColumn)+"::text"), ", ")
}

// readNumbered reads a numbered table's rows past its mark and in its
// holes into the replica.
func (p *puller) readNumbered(ctx context.Context, tx pgx.Tx, stx *sql.Tx, pt *pulledTable) error {
	t := pt.t
	m := p.marks[t.Name]
	los, his := make([]int64, len(m.holes)), make([]int64, len(m.holes))
	for i, h := range m.holes {
		los[i], his[i] = h.lo, h.hi
	}
	id := quote(t.Serial)
	q := `SELECT ` + selectList(t, "t.") + ` FROM ` + p.src.table(t.Name) + ` t WHERE t.` + id + ` > $1
		UNION ALL
		SELECT ` + selectList(t, "t.") + ` FROM ` + p.src.table(t.Name) + ` t
		JOIN unnest($2::bigint[], $3::bigint[]) AS h(lo, hi) ON t.` + id + ` BETWEEN h.lo AND h.hi AND t.` + id + ` <= $1
		ORDER BY ` + fmt.Sprint(columnIndex(t, t.Serial)+1)
	return p.copyRows(ctx, tx, stx, pt, q, m.last, los, his)
}

// readChildren reads the rows of a child table whose column col holds one
// of keys (the parent rows just read) into the replica.
func (p *puller) readChildren(ctx context.Context, tx pgx.Tx, stx *sql.Tx, pt *pulledTable, col string, keys []any) error {
	if len(keys) == 0 {
		return nil
	}
	t := pt.t
	c, ok := t.Column(col)
	if !ok {
		return fmt.Errorf("no column %s", col)
	}
	typed := make([]any, 0, len(keys))
	for _, k := range keys {
		v, _, err := EncodeValue(c.Type, k)
		if err != nil {
			return err
		}
		typed = append(typed, v)
	}
	arr := "bigint[]"
	if c.Type == TypeText {
		arr = "text[]"
	}
	q := `SELECT ` + selectList(t, "") + ` FROM ` + p.src.table(t.Name) + ` WHERE ` + quote(col) + ` = ANY($1::` + arr + `)`
	return p.copyRows(ctx, tx, stx, pt, q, typed)
}

// readSmall reads a table without ids whole, when its row count changed
// since the last pull (or at the first), and sets the replica's rows to
// the session's.
func (p *puller) readSmall(ctx context.Context, tx pgx.Tx, stx *sql.Tx, pt *pulledTable) error {
	t := pt.t
	if len(t.Key) == 0 {
		return nil // no key to match rows by: left as copied
	}
	var n int64
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM `+p.src.table(t.Name)).Scan(&n); err != nil {
		return err
	}
	if last, ok := p.counts[t.Name]; ok && last == n {
		return nil
	}
	pt.full = true
	return p.copyRows(ctx, tx, stx, pt, `SELECT `+selectList(t, "")+` FROM `+p.src.table(t.Name))
}

// copyRows runs a query of selectList's columns and inserts each row, as
// the SQLite values it stands for, into the replica: a row whose key is
// there already is left (it came before, or this process wrote it),
// except in a small table read whole, which takes the session's values.
// It keeps the ids of a numbered table, the values its children are read
// by, and for actions the annotators.
func (p *puller) copyRows(ctx context.Context, tx pgx.Tx, stx *sql.Tx, pt *pulledTable, q string, args ...any) error {
	t := pt.t
	key := t.Key
	if len(key) == 0 && t.Serial != "" {
		key = []string{t.Serial}
	}
	if len(key) == 0 {
		return nil
	}
	var cols []string
	for _, c := range t.Columns {
		cols = append(cols, quote(c.Name))
	}
	if t.Rowid {
		cols = append(cols, "_rowid_")
	}
	conflict := ` ON CONFLICT (` + quoteAll(key) + `) DO NOTHING`
	if pt.full {
		var set []string
		for _, c := range t.Columns {
			if !slices.Contains(key, c.Name) {
				set = append(set, quote(c.Name)+" = excluded."+quote(c.Name))
			}
		}
		if len(set) > 0 {
			conflict = ` ON CONFLICT (` + quoteAll(key) + `) DO UPDATE SET ` + strings.Join(set, ", ")
		}
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ")
	ins, err := stx.PrepareContext(ctx, `INSERT INTO `+quote(t.Name)+` (`+strings.Join(cols, ", ")+`) VALUES (`+marks+`)`+conflict)
	if err != nil {
		return err
	}
	defer ins.Close()
	serial := -1
	if t.Serial != "" {
		serial = columnIndex(t, t.Serial)
	}
	keyCols := map[string]int{} // the columns children are read by
	for _, c := range childOf {
		if c.parent == t.Name {
			if k := columnIndex(t, c.parentCol); k >= 0 {
				keyCols[c.parentCol] = k
			}
		}
	}
	who := -1
	if t.Name == "actions" {
		who = columnIndex(t, "annotator")
		pt.by = map[string]int{}
	}
	rows, err := tx.Query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	vals := make([]any, len(cols))
	for rows.Next() {
		raw, err := rows.Values()
		if err != nil {
			return err
		}
		var oddText string
		if o := raw[len(raw)-1]; o != nil {
			oddText, _ = o.(string)
		}
		odd, err := ParseOdd(oddText)
		if err != nil {
			return err
		}
		for i, c := range t.Columns {
			if vals[i], err = DecodeValue(c.Type, raw[i], odd[c.Name]); err != nil {
				return fmt.Errorf("column %s: %w", c.Name, err)
			}
		}
		if t.Rowid {
			vals[len(t.Columns)] = raw[len(t.Columns)] // NULL: SQLite numbers the row
		}
		res, err := ins.ExecContext(ctx, vals...)
		if err != nil {
			return err
		}
		if k, err := res.RowsAffected(); err == nil && k > 0 {
			pt.inserted++
		}
		pt.read++
		if serial >= 0 {
			if id, ok := vals[serial].(int64); ok {
				pt.ids = append(pt.ids, id)
			}
		}
		for col, k := range keyCols {
			pt.keys[col] = append(pt.keys[col], vals[k])
		}
		if who >= 0 {
			if a, ok := vals[who].(string); ok {
				pt.by[a]++
			}
		}
	}
	return rows.Err()
}

// advance moves the mark past the ids read: the ids seen leave the
// holes, and the ones skipped between the old mark and the new become
// holes.
func (m *mark) advance(ids []int64) {
	if len(ids) == 0 {
		return
	}
	seen := slices.Clone(ids)
	slices.Sort(seen)
	seen = slices.Compact(seen)
	// Holes filled.
	var holes []span
	for _, h := range m.holes {
		holes = append(holes, cut(h, seen)...)
	}
	// New ids past the mark, and the gaps between them.
	next := m.last
	for _, id := range seen {
		if id <= m.last {
			continue
		}
		if id > next+1 {
			holes = append(holes, span{next + 1, id - 1})
		}
		next = id
	}
	m.last = next
	m.holes = capHoles(holes)
}

// cut removes the ids in seen (sorted) from a hole.
func cut(h span, seen []int64) []span {
	i, _ := slices.BinarySearch(seen, h.lo)
	var out []span
	lo := h.lo
	for ; i < len(seen) && seen[i] <= h.hi; i++ {
		if seen[i] > lo {
			out = append(out, span{lo, seen[i] - 1})
		}
		lo = seen[i] + 1
	}
	if lo <= h.hi {
		out = append(out, span{lo, h.hi})
	}
	return out
}

// capHoles keeps at most maxHoles holes, merging the oldest (lowest) ones
// into one range.
func capHoles(holes []span) []span {
	slices.SortFunc(holes, func(a, b span) int {
		switch {
		case a.lo < b.lo:
			return -1
		case a.lo > b.lo:
			return 1
		}
		return 0
	})
	if over := len(holes) - maxHoles; over > 0 {
		merged := span{holes[0].lo, holes[over].hi}
		holes = append([]span{merged}, holes[over+1:]...)
	}
	return holes
}
