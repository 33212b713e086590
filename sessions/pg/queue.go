package pg

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// A team's work queue in a PostgreSQL session: the same tables
// (queue_slots, queue_settings) and the same semantics as in SQLite (see
// sessions' queue.go; the contract suite sessions/queuetest runs against
// both). What differs is how claims stay apart: each Claim takes a
// transaction lock for its annotator (one person's claims never
// interleave, so nobody gets both slots of an item) and the slots it
// hands out FOR UPDATE SKIP LOCKED, so that people claiming at the same
// instant pass over the rows another is taking instead of waiting for
// them, and a row another committed meanwhile is checked again.
//
// The methods on *Store take a context; Queue is the same without one,
// for sessions.Queue.

// Queue is a PostgreSQL session's queue as a sessions.Queue (and
// sessions.QueueStore): Store's methods under one context.
type Queue struct {
	s   *Store
	ctx context.Context
}

// NewQueue is the queue of the session s under ctx. Its Close closes s.
func NewQueue(ctx context.Context, s *Store) *Queue { return &Queue{s: s, ctx: ctx} }

// OpenQueue connects to the session at the URL raw and returns its queue,
// refusing with a clear message a server that does not answer, a session
// that is not there (naming those that are) and one made by a newer Gavel.
func OpenQueue(ctx context.Context, raw string) (*Queue, error) {
	s, err := Connect(ctx, raw)
	if err != nil {
		return nil, err
	}
	if err := s.Reach(ctx); err != nil {
		s.Close()
		return nil, err
	}
	ok, err := s.Exists(ctx)
	if err == nil && !ok {
		err = s.noSession(ctx)
	}
	if err == nil {
		var v int
		if v, err = s.SchemaVersion(ctx, s.pool); err == nil && v > sessions.SchemaVersion() {
			err = fmt.Errorf("session %s was made by a newer Gavel (schema v%d; this one reads up to v%d): update Gavel", s.where(), v, sessions.SchemaVersion())
		}
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return NewQueue(ctx, s), nil
}

var _ sessions.QueueStore = (*Queue)(nil)

// Store is the session the queue is in.
func (q *Queue) Store() *Store { return q.s }

func (q *Queue) Assign(o sessions.AssignOptions) (sessions.AssignSummary, error) {
	return q.s.Assign(q.ctx, o)
}
func (q *Queue) Claim(annotator string, n int) ([]string, error) {
	return q.s.Claim(q.ctx, annotator, n)
}
func (q *Queue) Release(annotator string, ids []string) error {
	return q.s.Release(q.ctx, annotator, ids)
}
func (q *Queue) RecordAs(annotator string, acts []sessions.Action) ([]sessions.Action, error) {
	return q.s.RecordAs(q.ctx, annotator, acts)
}
func (q *Queue) Progress() ([]sessions.QueueProgress, error) { return q.s.Progress(q.ctx) }
func (q *Queue) QueueSettings() (sessions.QueueSettings, error) {
	return q.s.QueueSettings(q.ctx)
}
func (q *Queue) QueueSlots() ([]sessions.QueueSlot, error) { return q.s.QueueSlots(q.ctx) }
func (q *Queue) Actions(annotator string) ([]sessions.Action, error) {
	return q.s.Actions(q.ctx, annotator)
}
func (q *Queue) UndoItemAs(annotator, itemID string) ([]sessions.Action, error) {
	return q.s.UndoItemAs(q.ctx, annotator, itemID)
}
func (q *Queue) SetQueueClock(now func() time.Time) { q.s.SetQueueClock(now) }

// Close closes the session's pool.
func (q *Queue) Close() error {
	q.s.Close()
	return nil
}

// SetQueueClock sets the clock claims are made and expire by (tests; nil
// restores the system's).
func (s *Store) SetQueueClock(now func() time.Time) { s.queueClock.Set(now) }

func (s *Store) queueNow() time.Time { return s.queueClock.Now() }

// where is how the queue's messages name the session: its URL, without
// the password.
func (s *Store) where() string { return s.target.Shown }

// queueTx is writeTx for the queue: its refusals reach the caller as they
// are (they name the session), driver errors wrapped.
func (s *Store) queueTx(ctx context.Context, doing string, opts pgx.TxOptions, fn func(tx pgx.Tx) error) error {
	var plain error
	err := pgx.BeginTxFunc(ctx, s.pool, opts, func(tx pgx.Tx) error {
		err := fn(tx)
		if isQueueRefusal(err) {
			plain = err
		}
		return err
	})
	if plain != nil {
		return plain
	}
	if err != nil {
		// A server not answering, or a connection lost, is said as such
		// (explain), not in the driver's words.
		if e := s.explain(ctx, err); e != err {
			return e
		}
	}
	return s.wrap(err, doing)
}

func isQueueRefusal(err error) bool {
	for _, e := range []error{sessions.ErrNoQueue, sessions.ErrQueueExists, sessions.ErrNotInTeam, sessions.ErrAssign} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// sql replaces {table} in text with the session's qualified table names.
func (s *Store) sql(text string) string {
	for _, t := range []string{"queue_slots", "queue_settings", "actions", "items"} {
		text = strings.ReplaceAll(text, "{"+t+"}", s.table(t))
	}
	return text
}

// decidedSQL: person (an SQL expression) has a live decision on the item
// of slot q.
const decidedSQL = `EXISTS (SELECT 1 FROM {actions} a WHERE a.item_id = q.item_id AND a.annotator = %s
	AND a.kind IN ('label', 'accept', 'cant_judge') AND NOT EXISTS (SELECT 1 FROM {actions} u WHERE u.undoes = a.id))`

// slotDoneSQL: slot q's holder has decided its item.
var slotDoneSQL = fmt.Sprintf(decidedSQL, "coalesce(q.claimed_by, q.annotator)")

// claimableSQL: the annotator ($1) may take slot q.
var claimableSQL = `NOT ` + slotDoneSQL + ` AND NOT ` + fmt.Sprintf(decidedSQL, "$1") + `
	AND NOT EXISTS (SELECT 1 FROM {queue_slots} o WHERE o.item_id = q.item_id AND o.slot <> q.slot
		AND coalesce(o.claimed_by, o.annotator) = $1)`

const slotColumns = `q.item_id, q.slot, q.annotator, q.rank, q.claimed_by, q.claimed_at, q.expires_at, q.` + OddColumn + `::text`

// hasQueueTables reports whether the session has the queue's tables.
func (s *Store) hasQueueTables(ctx context.Context, tx pgx.Tx) (bool, error) {
	var n int
	err := tx.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = $1 AND tablename IN ('queue_slots', 'queue_settings')`,
		s.target.Schema).Scan(&n)
	return n == 2, err
}

// queueSettings reads the settings: NoQueueError without any.
func (s *Store) queueSettings(ctx context.Context, tx pgx.Tx) (sessions.QueueSettings, error) {
	ok, err := s.hasQueueTables(ctx, tx)
	if err != nil {
		return sessions.QueueSettings{}, err
	}
	if !ok {
		return sessions.QueueSettings{}, sessions.NoQueueError(s.where())
	}
	rows, err := readSettings(ctx, tx, s.sql(`SELECT key, value, `+OddColumn+`::text FROM {queue_settings}`))
	if err != nil {
		return sessions.QueueSettings{}, err
	}
	st, err := sessions.ParseQueueSettings(rows)
	if errors.Is(err, sessions.ErrNoQueue) {
		return st, sessions.NoQueueError(s.where())
	}
	return st, err
}

func readSettings(ctx context.Context, tx pgx.Tx, query string) (map[string]string, error) {
	rows, err := tx.Query(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, v, oddText *string
		if err := rows.Scan(&k, &v, &oddText); err != nil {
			return nil, err
		}
		odd, err := ParseOdd(deref(oddText))
		if err != nil {
			return nil, err
		}
		key, err := decodeText(ptrAny(k), odd["key"])
		if err != nil {
			return nil, err
		}
		val, err := decodeText(ptrAny(v), odd["value"])
		if err != nil {
			return nil, err
		}
		out[key] = val
	}
	return out, rows.Err()
}

func decodeText(typed any, odd *Odd) (string, error) {
	v, err := DecodeValue(TypeText, typed, odd)
	if err != nil {
		return "", err
	}
	switch x := v.(type) {
	case string:
		return x, nil
	case []byte:
		return string(x), nil
	case nil:
		return "", nil
	}
	return fmt.Sprint(v), nil
}

// QueueSettings reads the queue's settings.
func (s *Store) QueueSettings(ctx context.Context) (sessions.QueueSettings, error) {
	var st sessions.QueueSettings
	err := s.queueTx(ctx, "reading the queue", readOnly, func(tx pgx.Tx) error {
		var err error
		st, err = s.queueSettings(ctx, tx)
		return err
	})
	return st, err
}

var readOnly = pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}

// scanSlots reads slots (slotColumns) from a query.
func scanSlots(ctx context.Context, tx pgx.Tx, query string, args ...any) ([]sessions.QueueSlot, error) {
	rows, err := tx.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []sessions.QueueSlot
	for rows.Next() {
		var item, annotator, by, at, exp, oddText *string
		var q sessions.QueueSlot
		var slot int64
		if err := rows.Scan(&item, &slot, &annotator, &q.Rank, &by, &at, &exp, &oddText); err != nil {
			return nil, err
		}
		odd, err := ParseOdd(deref(oddText))
		if err != nil {
			return nil, err
		}
		q.Slot = int(slot)
		for _, c := range []struct {
			col   string
			typed *string
			to    *string
		}{{"item_id", item, &q.ItemID}, {"annotator", annotator, &q.Annotator}, {"claimed_by", by, &q.ClaimedBy}} {
			if *c.to, err = decodeText(ptrAny(c.typed), odd[c.col]); err != nil {
				return nil, err
			}
		}
		for _, c := range []struct {
			col   string
			typed *string
			to    *time.Time
		}{{"claimed_at", at, &q.ClaimedAt}, {"expires_at", exp, &q.ExpiresAt}} {
			text, err := decodeText(ptrAny(c.typed), odd[c.col])
			if err != nil {
				return nil, err
			}
			if text != "" {
				if *c.to, err = sessions.ParseStamp(text); err != nil {
					return nil, err
				}
			}
		}
		out = append(out, q)
	}
	return out, rows.Err()
}

// QueueSlots reads every slot, in rank and slot order.
func (s *Store) QueueSlots(ctx context.Context) ([]sessions.QueueSlot, error) {
	var out []sessions.QueueSlot
	err := s.queueTx(ctx, "reading the queue", readOnly, func(tx pgx.Tx) error {
		if ok, err := s.hasQueueTables(ctx, tx); err != nil || !ok {
			return err
		}
		var err error
		out, err = scanSlots(ctx, tx, s.sql(`SELECT `+slotColumns+` FROM {queue_slots} q ORDER BY q.rank, q.slot`))
		return err
	})
	return out, err
}

// ensureQueueTables makes the queue's tables in a session copied from a
// Gavel older than schema v10, as the copy would have made them, and the
// indexes the queue's queries use.
func (s *Store) ensureQueueTables(ctx context.Context, tx pgx.Tx) error {
	ok, err := s.hasQueueTables(ctx, tx)
	if err != nil {
		return err
	}
	if !ok {
		stmts, err := queueTablesSQL(s.target.Schema)
		if err != nil {
			return err
		}
		for _, st := range stmts {
			if _, err := tx.Exec(ctx, st); err != nil {
				return err
			}
		}
		// v10 adds these two tables only: a v9 session is a v10 one now.
		if _, err := tx.Exec(ctx, `UPDATE `+s.table(MetaTable)+` SET value = '10' WHERE key = 'schema_version' AND value = '9'`); err != nil {
			return err
		}
	}
	for _, idx := range []string{
		`CREATE INDEX IF NOT EXISTS queue_actions_by_item ON {actions} (item_id, annotator)`,
		`CREATE INDEX IF NOT EXISTS queue_slots_by_annotator ON {queue_slots} (annotator, rank)`,
		`CREATE INDEX IF NOT EXISTS queue_slots_by_rank ON {queue_slots} (slot, rank)`,
	} {
		if _, err := tx.Exec(ctx, s.sql(idx)); err != nil {
			return err
		}
	}
	return nil
}

// queueTablesSQL is the DDL of the queue's tables as the copy's mirror
// makes them: read from the SQLite DDL of schema v10 in a database in
// memory.
func queueTablesSQL(schema string) ([]string, error) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(sessions.QueueSchemaSQL()); err != nil {
		return nil, err
	}
	tx, err := db.Begin()
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	tables, err := SQLiteTables(tx)
	if err != nil {
		return nil, err
	}
	var stmts []string
	for _, t := range tables {
		stmts = append(stmts, t.CreateSQL(schema)...)
	}
	return stmts, nil
}

// lockKey is a transaction lock's key for the session and a purpose.
func (s *Store) lockKey(purpose string) string { return s.target.Schema + "/" + purpose }

// Assign deals the session's items to a team (see sessions' queue.go).
func (s *Store) Assign(ctx context.Context, o sessions.AssignOptions) (sessions.AssignSummary, error) {
	o, err := sessions.CheckAssign(o)
	if err != nil {
		return sessions.AssignSummary{}, err
	}
	var sum sessions.AssignSummary
	err = s.queueTx(ctx, "assigning the queue", pgx.TxOptions{}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, s.lockKey("assign")); err != nil {
			return err
		}
		if err := s.ensureQueueTables(ctx, tx); err != nil {
			return err
		}
		// Claims wait until the new deal is in.
		if _, err := tx.Exec(ctx, s.sql(`LOCK TABLE {queue_slots} IN EXCLUSIVE MODE`)); err != nil {
			return err
		}
		rows, err := readSettings(ctx, tx, s.sql(`SELECT key, value, `+OddColumn+`::text FROM {queue_settings}`))
		if err != nil {
			return err
		}
		kept := map[string][]sessions.QueueSlot{}
		if len(rows) > 0 {
			if !o.Replace {
				st, err := sessions.ParseQueueSettings(rows)
				if err != nil {
					return err
				}
				return sessions.QueueExistsError(s.where(), st)
			}
			if o, err = sessions.ReplacingQueue(o, rows); err != nil {
				return err
			}
			done, err := scanSlots(ctx, tx, s.sql(`SELECT `+slotColumns+` FROM {queue_slots} q WHERE `+slotDoneSQL))
			if err != nil {
				return err
			}
			for _, d := range done {
				kept[d.ItemID] = append(kept[d.ItemID], d)
			}
		}
		ids, err := s.itemIDs(ctx, tx)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			return fmt.Errorf("%w: %s has no items yet: import a dataset first", sessions.ErrAssign, s.where())
		}
		slots, overlap := sessions.DealQueue(ids, o, kept)
		at := s.queueNow()
		for _, t := range []string{"queue_slots", "queue_settings"} {
			if _, err := tx.Exec(ctx, `DELETE FROM `+s.table(t)); err != nil {
				return err
			}
		}
		src := make([][]any, 0, len(slots))
		for _, q := range slots {
			row, err := slotRow(q)
			if err != nil {
				return err
			}
			src = append(src, row)
		}
		cols := []string{"item_id", "slot", "annotator", "rank", "claimed_by", "claimed_at", "expires_at", OddColumn}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{s.target.Schema, "queue_slots"}, cols, pgx.CopyFromRows(src)); err != nil {
			return err
		}
		sum = sessions.SummariseDeal(o, slots, kept, overlap, at)
		for _, kv := range sessions.QueueSettingRows(sum.Settings) {
			if _, err := tx.Exec(ctx, s.sql(`INSERT INTO {queue_settings} (key, value) VALUES ($1, $2)`), kv[0], kv[1]); err != nil {
				return err
			}
		}
		return notify(ctx, tx, s.target.Session, "queue_slots", 0)
	})
	if err != nil {
		return sessions.AssignSummary{}, err
	}
	return sum, nil
}

// slotRow is a slot's row for queue_slots, odd texts in gavel_odd.
func slotRow(q sessions.QueueSlot) ([]any, error) {
	odd := map[string]*Odd{}
	text := func(col string, v any) (any, error) {
		typed, o, err := EncodeValue(TypeText, v)
		if o != nil {
			odd[col] = o
		}
		return typed, err
	}
	item, err := text("item_id", q.ItemID)
	if err != nil {
		return nil, err
	}
	annotator, err := text("annotator", q.Annotator)
	if err != nil {
		return nil, err
	}
	var by, at, exp any
	if q.ClaimedBy != "" {
		if by, err = text("claimed_by", q.ClaimedBy); err != nil {
			return nil, err
		}
		at, exp = sessions.Stamp(q.ClaimedAt), sessions.Stamp(q.ExpiresAt)
	}
	oddJSON, err := OddJSON(odd)
	if err != nil {
		return nil, err
	}
	return []any{item, int64(q.Slot), annotator, q.Rank, by, at, exp, oddJSON}, nil
}

// itemIDs reads the items' ids in dataset order.
func (s *Store) itemIDs(ctx context.Context, tx pgx.Tx) ([]string, error) {
	rows, err := tx.Query(ctx, s.sql(`SELECT item_id, `+OddColumn+`::text FROM {items} ORDER BY idx`))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id, oddText *string
		if err := rows.Scan(&id, &oddText); err != nil {
			return nil, err
		}
		odd, err := ParseOdd(deref(oddText))
		if err != nil {
			return nil, err
		}
		v, err := decodeText(ptrAny(id), odd["item_id"])
		if err != nil {
			return nil, err
		}
		ids = append(ids, v)
	}
	return ids, rows.Err()
}

// Claim hands out up to n items for annotator to label (see sessions'
// queue.go).
func (s *Store) Claim(ctx context.Context, annotator string, n int) ([]string, error) {
	annotator, err := sessions.CheckClaim(annotator, n)
	if err != nil {
		return nil, err
	}
	var out []string
	err = s.queueTx(ctx, "claiming items", pgx.TxOptions{}, func(tx pgx.Tx) error {
		out = nil
		st, err := s.queueSettings(ctx, tx)
		if err != nil {
			return err
		}
		if err := st.InTeam(s.where(), annotator); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, s.lockKey("claim/"+annotator)); err != nil {
			return err
		}
		at := s.queueNow()
		nowText, until := sessions.Stamp(at), sessions.Stamp(at.Add(st.ClaimTimeout))
		// 1. In hand: renewed.
		held, err := scanSlots(ctx, tx, s.sql(`SELECT `+slotColumns+` FROM {queue_slots} q
			WHERE q.claimed_by = $1 AND q.expires_at COLLATE "C" > $2 AND NOT `+slotDoneSQL+`
			ORDER BY q.rank, q.slot FOR UPDATE OF q`), annotator, nowText)
		if err != nil {
			return err
		}
		for _, q := range held {
			if err := s.setClaim(ctx, tx, q, annotator, "", until); err != nil {
				return err
			}
			if len(out) < n {
				out = append(out, q.ItemID)
			}
		}
		// 2. Own slots, then 3. others'.
		for _, phase := range []string{
			`q.annotator = $1 AND (q.claimed_by IS NULL OR q.expires_at COLLATE "C" <= $2) AND ` + claimableSQL + `
			ORDER BY q.rank, q.slot LIMIT $3 FOR UPDATE OF q SKIP LOCKED`,
			`q.annotator <> $1 AND (q.claimed_by IS NULL OR q.expires_at COLLATE "C" <= $2) AND ` + claimableSQL + `
			ORDER BY q.slot, q.rank LIMIT $3 FOR UPDATE OF q SKIP LOCKED`,
		} {
			for len(out) < n {
				found, err := scanSlots(ctx, tx, s.sql(`SELECT `+slotColumns+` FROM {queue_slots} q WHERE `+phase), annotator, nowText, n-len(out))
				if err != nil {
					return err
				}
				if len(found) == 0 {
					break
				}
				picked := map[string]bool{}
				for _, q := range found {
					if picked[q.ItemID] {
						continue // the item's other slot: never both to one person
					}
					picked[q.ItemID] = true
					if err := s.setClaim(ctx, tx, q, annotator, nowText, until); err != nil {
						return err
					}
					out = append(out, q.ItemID)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// setClaim claims slot q for annotator until until; since "" renews the
// claim (claimed_at kept).
func (s *Store) setClaim(ctx context.Context, tx pgx.Tx, q sessions.QueueSlot, annotator, since, until string) error {
	item, _, err := EncodeValue(TypeText, q.ItemID)
	if err != nil {
		return err
	}
	if since == "" {
		_, err = tx.Exec(ctx, s.sql(`UPDATE {queue_slots} SET expires_at = $3 WHERE item_id = $1 AND slot = $2`), item, int64(q.Slot), until)
		return err
	}
	_, err = tx.Exec(ctx, s.sql(`UPDATE {queue_slots} SET claimed_by = $3, claimed_at = $4, expires_at = $5 WHERE item_id = $1 AND slot = $2`),
		item, int64(q.Slot), annotator, since, until)
	return err
}

// Release gives back annotator's claims on the items; done slots and
// items not claimed by annotator are left as they are.
func (s *Store) Release(ctx context.Context, annotator string, itemIDs []string) error {
	annotator, err := sessions.CheckClaim(annotator, 1)
	if err != nil {
		return err
	}
	return s.queueTx(ctx, "releasing items", pgx.TxOptions{}, func(tx pgx.Tx) error {
		st, err := s.queueSettings(ctx, tx)
		if err != nil {
			return err
		}
		if err := st.InTeam(s.where(), annotator); err != nil {
			return err
		}
		items := make([]string, 0, len(itemIDs))
		for _, id := range itemIDs {
			typed, _, err := EncodeValue(TypeText, id)
			if err != nil {
				return err
			}
			items = append(items, typed.(string))
		}
		_, err = tx.Exec(ctx, s.sql(`UPDATE {queue_slots} q SET claimed_by = NULL, claimed_at = NULL, expires_at = NULL
			WHERE q.item_id = ANY($1) AND q.claimed_by = $2 AND NOT `+slotDoneSQL), items, annotator)
		return err
	})
}

// Progress counts each annotator's slots: the team in its order, then
// anyone else who holds done slots.
func (s *Store) Progress(ctx context.Context) ([]sessions.QueueProgress, error) {
	var out []sessions.QueueProgress
	err := s.queueTx(ctx, "reading the queue's progress", readOnly, func(tx pgx.Tx) error {
		st, err := s.queueSettings(ctx, tx)
		if err != nil {
			return err
		}
		nowText := sessions.Stamp(s.queueNow())
		counts := [5]map[string]int{{}, {}, {}, {}, {}}
		// A slot dealt to q.annotator that another holds (not expired).
		heldByOther := `(q.claimed_by IS NOT NULL AND q.claimed_by <> q.annotator AND q.expires_at COLLATE "C" > $1)`
		for i, c := range []struct {
			query string
			args  []any
		}{
			{`SELECT q.annotator, count(*) FROM {queue_slots} q GROUP BY 1`, nil},
			{`SELECT q.claimed_by, count(*) FROM {queue_slots} q WHERE q.claimed_by IS NOT NULL AND q.expires_at COLLATE "C" > $1 AND NOT ` +
				slotDoneSQL + ` GROUP BY 1`, []any{nowText}},
			{`SELECT coalesce(q.claimed_by, q.annotator), count(*) FROM {queue_slots} q WHERE ` + slotDoneSQL + ` GROUP BY 1`, nil},
			{`SELECT q.annotator, count(*) FROM {queue_slots} q WHERE (q.claimed_by IS NOT NULL AND q.claimed_by <> q.annotator AND ` +
				slotDoneSQL + `) OR ` + heldByOther + ` GROUP BY 1`, []any{nowText}},
			{`SELECT q.annotator, count(*) FROM {queue_slots} q WHERE NOT ` + slotDoneSQL + ` AND NOT ` + heldByOther + ` GROUP BY 1`, []any{nowText}},
		} {
			rows, err := tx.Query(ctx, s.sql(c.query), c.args...)
			if err != nil {
				return err
			}
			for rows.Next() {
				var who string
				var n int64
				if err := rows.Scan(&who, &n); err != nil {
					rows.Close()
					return err
				}
				counts[i][who] += int(n)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
		out = sessions.MergeProgress(st.Annotators, counts[0], counts[1], counts[2], counts[3], counts[4])
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

var _ sessions.VerdictStore = (*Queue)(nil)

// EnsureRun returns the team session's run of the judge info describes,
// made when it has none (Store.EnsureRun).
func (q *Queue) EnsureRun(info judge.Info) (sessions.Run, error) { return q.s.EnsureRun(q.ctx, info) }

// SaveVerdicts adds verdicts to a run of the team session
// (Store.SaveVerdicts: ids reserved first, never written twice).
func (q *Queue) SaveVerdicts(runID int64, vs []judge.Verdict) error {
	return q.s.SaveVerdicts(q.ctx, runID, vs)
}

// Verdicts returns the run's current verdicts as a session file would:
// read from a snapshot of the team session copied into a temporary file
// (CopyToSQLite), so that they are what every reader of the session sees.
func (q *Queue) Verdicts(runID int64) ([]judge.Verdict, error) {
	dir, err := os.MkdirTemp("", "gavel-verdicts-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "snapshot.gavel")
	if _, err := CopyToSQLite(q.ctx, q.s, path); err != nil {
		return nil, err
	}
	local, err := sessions.Open(path, sessions.Options{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer local.Close()
	return local.Verdicts(runID)
}
