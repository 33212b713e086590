package pg

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// A judge run feeding a team session (`gavel run` on one machine while
// reviewers label on others): the rows of runs, run_dimensions,
// dimension_scales, verdicts and verdict_values exactly as sessions'
// EnsureRun and SaveVerdicts write them in SQLite (sessions.RunRow,
// sessions.VerdictRow), each value the typed column cannot hold in
// gavel_odd, so that a copy back gives the rows the SQLite store would
// have written.

// EnsureRun returns the session's run for info's name, model and params,
// creating it when missing; an existing run takes info's description,
// definition, dimensions and per-criterion flag, as sessions' EnsureRun
// does. Two writers ensuring the same run at once get the same run. It
// may be called again after an error: it converges on the same row.
func (s *Store) EnsureRun(ctx context.Context, info judge.Info) (sessions.Run, error) {
	if info.Name == "" {
		return sessions.Run{}, fmt.Errorf("session %s: a judge run needs a judge name", s.target.Shown)
	}
	key, params, def, err := sessions.RunRow(info)
	if err != nil {
		return sessions.Run{}, fmt.Errorf("session %s: %w", s.target.Shown, err)
	}
	run := sessions.Run{Info: info, Key: key}
	err = s.retry(ctx, "saving the judge run", func(tx pgx.Tx) error {
		w, err := s.newRowWriter(ctx, tx)
		if err != nil {
			return err
		}
		keyTyped, _, _ := EncodeValue(TypeText, key)
		var created *string
		err = tx.QueryRow(ctx, `SELECT id, created_at FROM `+s.table("runs")+` WHERE key = $1`, keyTyped).Scan(&run.ID, &created)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			at := sessions.Now()
			id, inserted, err := w.insert(ctx, "runs", []string{"key", "judge", "model", "params", "per_criterion", "description", "definition", "created_at"},
				[]any{key, info.Name, info.Model, params, boolInt(info.PerCriterion), info.Description, def, sessions.Stamp(at)}, "ON CONFLICT (key) DO NOTHING RETURNING id")
			if err != nil {
				return err
			}
			if !inserted {
				// Another writer made it meanwhile: the row is there now.
				return errRetry
			}
			run.ID, run.CreatedAt = id, at
		case err != nil:
			return err
		default:
			when, _, err := w.text(ctx, "runs", "created_at", run.ID, created)
			if err != nil {
				return err
			}
			if run.CreatedAt, err = sessions.ParseStamp(when); err != nil {
				return err
			}
			if err := w.update(ctx, "runs", run.ID, []string{"per_criterion", "description", "definition"},
				[]any{boolInt(info.PerCriterion), info.Description, def}); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `DELETE FROM `+s.table("run_dimensions")+` WHERE run_id = $1`, run.ID); err != nil {
				return err
			}
		}
		if err := w.declareScales(ctx, info.Dimensions); err != nil {
			return err
		}
		for i, d := range info.Dimensions {
			if _, _, err := w.insert(ctx, "run_dimensions", []string{"run_id", "position", "dimension", "scale", "description"},
				[]any{run.ID, int64(i), d.Name, string(d.Scale), d.Description}, ""); err != nil {
				return fmt.Errorf("dimension %q: %w", d.Name, err)
			}
		}
		return notify(ctx, tx, s.target.Session, "runs", run.ID)
	})
	if err != nil {
		return sessions.Run{}, err
	}
	return run, nil
}

// SaveVerdicts appends verdicts to a run, all or none, writing the rows
// sessions' SaveVerdicts writes. Their ids are reserved from
// verdicts_id_seq first; a transaction that fails for want of the server
// (a lost connection, a restart) is tried again with the same ids and
// times, ON CONFLICT (id) DO NOTHING, so a commit whose outcome was
// unknown is never written twice. It gives up when ctx is done or after
// about a minute without the server.
func (s *Store) SaveVerdicts(ctx context.Context, runID int64, vs []judge.Verdict) error {
	if len(vs) == 0 {
		return nil
	}
	for _, v := range vs {
		if v.Criterion < 0 {
			return fmt.Errorf("session %s: verdict for item %q has criterion %d: criteria start at 1 (0 is the whole item)", s.target.Shown, v.ItemID, v.Criterion)
		}
	}
	ids, err := s.reserveVerdictIDs(ctx, len(vs))
	if err != nil {
		return err
	}
	return s.saveVerdicts(ctx, runID, ids, sessions.Now(), vs)
}

// reserveVerdictIDs takes n ids from verdicts_id_seq, in order.
func (s *Store) reserveVerdictIDs(ctx context.Context, n int) ([]int64, error) {
	var ids []int64
	if err := s.retry(ctx, "reserving verdict ids", func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT nextval($1::regclass) FROM generate_series(1, $2)`, s.table("verdicts_id_seq"), n)
		if err != nil {
			return err
		}
		ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		return err
	}); err != nil {
		return nil, err
	}
	slices.Sort(ids)
	return ids, nil
}

// saveVerdicts writes vs under ids (one each, reserved), at for those
// without a time, and may be called again with the same arguments: a
// row whose id is there is left as it is.
func (s *Store) saveVerdicts(ctx context.Context, runID int64, ids []int64, at time.Time, vs []judge.Verdict) error {
	return s.retry(ctx, "saving verdicts", func(tx pgx.Tx) error {
		w, err := s.newRowWriter(ctx, tx)
		if err != nil {
			return err
		}
		var one int
		if err := tx.QueryRow(ctx, `SELECT 1 FROM `+s.table("runs")+` WHERE id = $1`, runID).Scan(&one); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("no judge run %d in this session", runID)
			}
			return err
		}
		if err := w.knownItems(ctx, vs); err != nil {
			return err
		}
		scales, err := w.scales(ctx)
		if err != nil {
			return err
		}
		// Every row in one round trip to the server: a judge's batch
		// does not wait a network delay per verdict.
		cols := append([]string{"id"}, sessions.VerdictColumnNames...)
		batch := &pgx.Batch{}
		var what []string // per queued statement, for its error
		for i, v := range vs {
			row, values := sessions.VerdictRow(runID, v, scales, at)
			stmt, args, err := w.insertSQL(ctx, "verdicts", cols, append([]any{ids[i]}, row...), "ON CONFLICT (id) DO NOTHING")
			if err != nil {
				return fmt.Errorf("verdict for item %q: %w", v.ItemID, err)
			}
			batch.Queue(stmt, args...)
			what = append(what, fmt.Sprintf("verdict for item %q", v.ItemID))
			dims := make([]string, 0, len(values))
			for d := range values {
				dims = append(dims, d)
			}
			slices.Sort(dims)
			for _, d := range dims {
				stmt, args, err := w.insertSQL(ctx, "verdict_values", []string{"verdict_id", "dimension", "value"}, []any{ids[i], d, values[d]},
					"ON CONFLICT DO NOTHING")
				if err != nil {
					return fmt.Errorf("verdict for item %q, dimension %q: %w", v.ItemID, d, err)
				}
				batch.Queue(stmt, args...)
				what = append(what, fmt.Sprintf("verdict for item %q, dimension %q", v.ItemID, d))
			}
		}
		results := tx.SendBatch(ctx, batch)
		for _, desc := range what {
			if _, err := results.Exec(); err != nil {
				results.Close()
				return fmt.Errorf("%s: %w", desc, err)
			}
		}
		if err := results.Close(); err != nil {
			return err
		}
		return notify(ctx, tx, s.target.Session, "verdicts", ids[len(ids)-1])
	})
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// errRetry asks retry for another round at once (a row another writer
// made meanwhile is there to read now).
var errRetry = errors.New("try again")

// retryFor is how long a write keeps trying while the server is away.
const retryFor = time.Minute

// retry runs fn in a transaction and commits it, again while the error is
// the server's absence (a lost connection, a restart, a failover) rather
// than the rows', until ctx is done or retryFor has passed. fn must write
// the same rows each time (ids fixed beforehand, ON CONFLICT DO NOTHING).
func (s *Store) retry(ctx context.Context, doing string, fn func(tx pgx.Tx) error) error {
	deadline := time.Now().Add(retryFor)
	wait := 50 * time.Millisecond
	for {
		err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{}, fn)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, errRetry):
			continue
		case !transient(err) || ctx.Err() != nil || time.Now().After(deadline):
			if transient(err) {
				return s.connectError(ctx, err)
			}
			return s.wrap(err, doing)
		}
		select {
		case <-ctx.Done():
			return s.wrap(ctx.Err(), doing)
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// transient reports whether err says the server could not be reached or
// went away, so that the same transaction may succeed later.
func transient(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// Connection exceptions, admin shutdown, cannot connect now,
		// serialization failures and deadlocks.
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03" ||
			pe.Code == "40001" || pe.Code == "40P01"
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || pgconn.SafeToRetry(err) || pgconn.Timeout(err) {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"conn closed", "unexpected EOF", "connection reset", "broken pipe", "connection refused", "failed to connect"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// rowWriter writes rows of any mirrored table in one transaction, each
// value through EncodeValue for its column's type.
type rowWriter struct {
	s  *Store
	tx pgx.Tx
}

func (s *Store) newRowWriter(_ context.Context, tx pgx.Tx) (*rowWriter, error) {
	return &rowWriter{s: s, tx: tx}, nil
}

// encode turns a table's row of SQLite values into typed values and the
// row's gavel_odd.
func (w *rowWriter) encode(ctx context.Context, table string, cols []string, vals []any) ([]any, []byte, error) {
	types, err := w.s.columnTypesOf(ctx, w.tx, table)
	if err != nil {
		return nil, nil, err
	}
	out := make([]any, len(vals))
	var odd map[string]*Odd
	for i, c := range cols {
		t, ok := types[c]
		if !ok {
			return nil, nil, fmt.Errorf("the session's table %s has no column %s: it was made by another Gavel version", table, c)
		}
		typed, o, err := EncodeValue(t, vals[i])
		if err != nil {
			return nil, nil, fmt.Errorf("column %s: %w", c, err)
		}
		if o != nil {
			if odd == nil {
				odd = map[string]*Odd{}
			}
			odd[c] = o
		}
		out[i] = typed
	}
	j, err := OddJSON(odd)
	return out, j, err
}

// insert writes one row; suffix is what follows VALUES (…) (ON CONFLICT,
// RETURNING id). With RETURNING, id is the returned id and inserted
// whether a row came back.
func (w *rowWriter) insert(ctx context.Context, table string, cols []string, vals []any, suffix string) (id int64, inserted bool, err error) {
	stmt, args, err := w.insertSQL(ctx, table, cols, vals, suffix)
	if err != nil {
		return 0, false, err
	}
	if strings.Contains(suffix, "RETURNING") {
		err := w.tx.QueryRow(ctx, stmt, args...).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return 0, false, nil
		}
		return id, err == nil, err
	}
	_, err = w.tx.Exec(ctx, stmt, args...)
	return 0, err == nil, err
}

// insertSQL is the statement and arguments that insert one row.
func (w *rowWriter) insertSQL(ctx context.Context, table string, cols []string, vals []any, suffix string) (string, []any, error) {
	typed, odd, err := w.encode(ctx, table, cols, vals)
	if err != nil {
		return "", nil, err
	}
	args := append(typed, jsonArg(odd))
	marks := make([]string, len(args))
	for i := range marks {
		marks[i] = fmt.Sprintf("$%d", i+1)
	}
	stmt := `INSERT INTO ` + w.s.table(table) + ` (` + quoteAll(append(slices.Clone(cols), OddColumn)) + `) VALUES (` + strings.Join(marks, ", ") + `) ` + suffix
	return stmt, args, nil
}

// update sets columns of the row with this id; the row's gavel_odd
// keeps its entries for the other columns.
func (w *rowWriter) update(ctx context.Context, table string, id int64, cols []string, vals []any) error {
	typed, odd, err := w.encode(ctx, table, cols, vals)
	if err != nil {
		return err
	}
	args := []any{id}
	var sets []string
	for i, c := range cols {
		args = append(args, typed[i])
		sets = append(sets, fmt.Sprintf("%s = $%d", quote(c), len(args)))
	}
	args = append(args, cols, jsonArg(odd))
	sets = append(sets, fmt.Sprintf("%[1]s = nullif((coalesce(%[1]s, '{}'::jsonb) - $%[2]d::text[]) || coalesce($%[3]d::jsonb, '{}'::jsonb), '{}'::jsonb)",
		quote(OddColumn), len(args)-1, len(args)))
	_, err = w.tx.Exec(ctx, `UPDATE `+w.s.table(table)+` SET `+strings.Join(sets, ", ")+` WHERE id = $1`, args...)
	return err
}

// text reads a text column's value of the row with this id: typed is what
// the typed column held; the row's gavel_odd is read when it names col.
func (w *rowWriter) text(ctx context.Context, table, col string, id int64, typed *string) (string, bool, error) {
	var oddText *string
	if err := w.tx.QueryRow(ctx, `SELECT `+quote(OddColumn)+`::text FROM `+w.s.table(table)+` WHERE id = $1`, id).Scan(&oddText); err != nil {
		return "", false, err
	}
	odd, err := ParseOdd(deref(oddText))
	if err != nil {
		return "", false, err
	}
	v, err := DecodeValue(TypeText, ptrAny(typed), odd[col])
	if err != nil {
		return "", false, err
	}
	str, ok := v.(string)
	return str, ok, nil
}

// scales reads the session's dimensions stored by name.
func (w *rowWriter) scales(ctx context.Context) (map[string]judge.Scale, error) {
	t := Table{Name: "dimension_scales", Columns: []Column{{"dimension", TypeText}, {"scale", TypeText}}}
	rows, err := w.tx.Query(ctx, `SELECT `+t.SelectList()+` FROM `+w.s.table(t.Name))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]judge.Scale{}
	vals := make([]any, 2)
	for rows.Next() {
		raw, err := rows.Values()
		if err != nil {
			return nil, err
		}
		if err := t.DecodeRow(raw, vals); err != nil {
			return nil, err
		}
		d, _ := vals[0].(string)
		sc, _ := vals[1].(string)
		out[d] = judge.Scale(sc)
	}
	return out, rows.Err()
}

// declareScales is sessions' declareScales: each categorical dimension's
// scale recorded once, another categorical scale for it refused.
func (w *rowWriter) declareScales(ctx context.Context, dims []judge.Dimension) error {
	have, err := w.scales(ctx)
	if err != nil {
		return err
	}
	for _, d := range dims {
		want, ok := sessions.RegistryScale(d)
		if !ok {
			continue
		}
		switch got, known := have[d.Name]; {
		case !known:
			if _, _, err := w.insert(ctx, "dimension_scales", []string{"dimension", "scale"}, []any{d.Name, string(want)}, "ON CONFLICT DO NOTHING"); err != nil {
				return err
			}
			have[d.Name] = want
		case got != want:
			return fmt.Errorf("dimension %q is on the scale %s in this session, not %s: give the new one another dimension name", d.Name, got, d.Scale)
		}
	}
	return nil
}

// knownItems refuses a verdict on an item the session does not have.
func (w *rowWriter) knownItems(ctx context.Context, vs []judge.Verdict) error {
	var want []string
	seen := map[string]bool{}
	for _, v := range vs {
		if !seen[v.ItemID] {
			seen[v.ItemID] = true
			typed, _, _ := EncodeValue(TypeText, v.ItemID)
			want = append(want, typed.(string))
		}
	}
	rows, err := w.tx.Query(ctx, `SELECT item_id FROM `+w.s.table("items")+` WHERE item_id = ANY($1)`, want)
	if err != nil {
		return err
	}
	found, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	if len(found) == len(want) {
		return nil
	}
	for _, v := range vs {
		typed, _, _ := EncodeValue(TypeText, v.ItemID)
		if !slices.Contains(found, typed.(string)) {
			return fmt.Errorf("verdict for unknown item %q", v.ItemID)
		}
	}
	return nil
}

// jsonArg is a gavel_odd argument: SQL NULL for none.
func jsonArg(j []byte) any {
	if j == nil {
		return nil
	}
	return j
}
