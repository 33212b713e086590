package sessions

import (
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"
)

// QueueStore is what both backends' queues offer beyond Queue: the
// queue read back, the history, an undo on a team member's behalf and a
// settable clock. The contract suite and gavel assign use it.
type QueueStore interface {
	Queue
	QueueClock
	// QueueSettings reads the queue's settings (ErrNoQueue without one).
	QueueSettings() (QueueSettings, error)
	// QueueSlots reads every slot, in rank and slot order.
	QueueSlots() ([]QueueSlot, error)
	// Actions is the history of annotator ("" for everyone), oldest first.
	Actions(annotator string) ([]Action, error)
	// UndoItemAs takes back annotator's latest group that still has a
	// live action on the item (only its actions on the item), as
	// Store.UndoItem does for the store's own annotator.
	UndoItemAs(annotator, itemID string) ([]Action, error)
}

var _ QueueStore = (*Store)(nil)

// Clock is the clock a queue's claims are made and expire by: the
// system's, unless a test sets another (QueueClock). Both backends' stores
// hold one.
type Clock struct {
	f atomic.Pointer[func() time.Time]
}

// Set sets the clock (tests); nil restores the system's.
func (c *Clock) Set(now func() time.Time) {
	if now == nil {
		c.f.Store(nil)
		return
	}
	c.f.Store(&now)
}

// Now is the clock's time, UTC, to the millisecond as sessions store it.
func (c *Clock) Now() time.Time {
	if f := c.f.Load(); f != nil {
		return (*f)().UTC().Truncate(time.Millisecond)
	}
	return now()
}

// SetQueueClock sets the clock the store's queue claims by and expires
// claims by (tests; nil restores the system's).
func (s *Store) SetQueueClock(now func() time.Time) { s.queueClock.Set(now) }

func (s *Store) queueNow() time.Time { return s.queueClock.Now() }

// queueWrite is write for the queue: its own refusals (queueError) reach
// the caller as they are, already naming the session.
func (s *Store) queueWrite(what string, fn func(tx *sql.Tx) error) error {
	var plain error
	err := s.write(what, func(tx *sql.Tx) error {
		err := fn(tx)
		var qe *queueError
		if errors.As(err, &qe) {
			plain = err
		}
		return err
	})
	if plain != nil {
		return plain
	}
	return err
}

// The SQL of a slot's state, q being the slot's row in queue_slots.
const (
	// decidedBy: person (an expression) has a live decision on q's item.
	sqliteDecided = `EXISTS (SELECT 1 FROM actions a WHERE a.item_id = q.item_id AND a.annotator = %s
		AND a.kind IN ('label', 'accept', 'cant_judge') AND NOT EXISTS (SELECT 1 FROM actions u WHERE u.undoes = a.id))`
)

// sqliteSlotDone is true for a done slot: its holder decided the item.
var sqliteSlotDone = fmt.Sprintf(sqliteDecided, "coalesce(q.claimed_by, q.annotator)")

// sqliteClaimable is true for a slot the annotator (the parameter, given
// twice) may take: not done, an item they have not decided, and no other
// slot of the item theirs.
var sqliteClaimable = `NOT ` + sqliteSlotDone + ` AND NOT ` + fmt.Sprintf(sqliteDecided, "?") + `
	AND NOT EXISTS (SELECT 1 FROM queue_slots o WHERE o.item_id = q.item_id AND o.slot <> q.slot
		AND coalesce(o.claimed_by, o.annotator) = ?)`

func readQueueSettings(tx *sql.Tx) (map[string]string, error) {
	rows, err := tx.Query(`SELECT key, value FROM queue_settings`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, rows.Err()
}

// queueSettings reads the settings; a session without a queue gets
// NoQueueError.
func (s *Store) queueSettings(tx *sql.Tx) (QueueSettings, error) {
	rows, err := readQueueSettings(tx)
	if err != nil {
		return QueueSettings{}, err
	}
	st, err := ParseQueueSettings(rows)
	if errors.Is(err, ErrNoQueue) {
		return st, NoQueueError(s.path)
	}
	return st, err
}

// QueueSettings reads the queue's settings.
func (s *Store) QueueSettings() (QueueSettings, error) {
	var st QueueSettings
	var plain error
	err := s.read("reading the queue", func(tx *sql.Tx) error {
		var err error
		st, err = s.queueSettings(tx)
		if errors.Is(err, ErrNoQueue) {
			plain = err
		}
		return err
	})
	if plain != nil {
		return st, plain
	}
	return st, err
}

// Assign deals the session's items to a team (see queue.go).
func (s *Store) Assign(o AssignOptions) (AssignSummary, error) {
	o, err := CheckAssign(o)
	if err != nil {
		return AssignSummary{}, err
	}
	var sum AssignSummary
	err = s.queueWrite("assigning the queue", func(tx *sql.Tx) error {
		rows, err := readQueueSettings(tx)
		if err != nil {
			return err
		}
		kept := map[string][]QueueSlot{}
		if len(rows) > 0 {
			if !o.Replace {
				st, err := ParseQueueSettings(rows)
				if err != nil {
					return err
				}
				return QueueExistsError(s.path, st)
			}
			if o, err = ReplacingQueue(o, rows); err != nil {
				return err
			}
			done, err := scanSlots(tx, `SELECT q.item_id, q.slot, q.annotator, q.rank, q.claimed_by, q.claimed_at, q.expires_at
				FROM queue_slots q WHERE `+sqliteSlotDone)
			if err != nil {
				return err
			}
			for _, d := range done {
				kept[d.ItemID] = append(kept[d.ItemID], d)
			}
		}
		ids, err := itemIDs(tx)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			return &queueError{kind: ErrAssign, msg: "cannot assign: " + s.path + " has no items yet: import a dataset first"}
		}
		slots, overlap := DealQueue(ids, o, kept)
		at := s.queueNow()
		for _, q := range []string{`DELETE FROM queue_slots`, `DELETE FROM queue_settings`} {
			if _, err := tx.Exec(q); err != nil {
				return err
			}
		}
		ins, err := tx.Prepare(`INSERT INTO queue_slots (item_id, slot, annotator, rank, claimed_by, claimed_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		for _, q := range slots {
			if _, err := ins.Exec(q.ItemID, q.Slot, q.Annotator, q.Rank, nullText(q.ClaimedBy), nullStamp(q.ClaimedAt), nullStamp(q.ExpiresAt)); err != nil {
				return err
			}
		}
		sum = SummariseDeal(o, slots, kept, overlap, at)
		for _, kv := range QueueSettingRows(sum.Settings) {
			if _, err := tx.Exec(`INSERT INTO queue_settings (key, value) VALUES (?, ?)`, kv[0], kv[1]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return AssignSummary{}, err
	}
	return sum, nil
}

func itemIDs(tx *sql.Tx) ([]string, error) {
	rows, err := tx.Query(`SELECT item_id FROM items ORDER BY idx`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

func scanSlots(tx *sql.Tx, query string, args ...any) ([]QueueSlot, error) {
	rows, err := tx.Query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []QueueSlot
	for rows.Next() {
		var q QueueSlot
		var by, at, exp sql.NullString
		if err := rows.Scan(&q.ItemID, &q.Slot, &q.Annotator, &q.Rank, &by, &at, &exp); err != nil {
			return nil, err
		}
		q.ClaimedBy = by.String
		if at.Valid {
			if q.ClaimedAt, err = parseStamp(at.String); err != nil {
				return nil, err
			}
		}
		if exp.Valid {
			if q.ExpiresAt, err = parseStamp(exp.String); err != nil {
				return nil, err
			}
		}
		out = append(out, q)
	}
	return out, rows.Err()
}

// QueueSlots reads every slot of the queue, in rank and slot order.
func (s *Store) QueueSlots() ([]QueueSlot, error) {
	var out []QueueSlot
	err := s.read("reading the queue", func(tx *sql.Tx) error {
		var err error
		out, err = scanSlots(tx, `SELECT item_id, slot, annotator, rank, claimed_by, claimed_at, expires_at FROM queue_slots ORDER BY rank, slot`)
		return err
	})
	return out, err
}

// Claim hands out up to n items for annotator to label (see queue.go).
func (s *Store) Claim(annotator string, n int) ([]string, error) {
	annotator, err := CheckClaim(annotator, n)
	if err != nil {
		return nil, err
	}
	var out []string
	err = s.queueWrite("claiming items", func(tx *sql.Tx) error {
		st, err := s.queueSettings(tx)
		if err != nil {
			return err
		}
		if err := st.InTeam(s.path, annotator); err != nil {
			return err
		}
		at := s.queueNow()
		nowText, until := stamp(at), stamp(at.Add(st.ClaimTimeout))
		// 1. In hand: renewed.
		held, err := scanSlots(tx, `SELECT q.item_id, q.slot, q.annotator, q.rank, q.claimed_by, q.claimed_at, q.expires_at
			FROM queue_slots q WHERE q.claimed_by = ? AND q.expires_at > ? AND NOT `+sqliteSlotDone+` ORDER BY q.rank, q.slot`,
			annotator, nowText)
		if err != nil {
			return err
		}
		for _, q := range held {
			if _, err := tx.Exec(`UPDATE queue_slots SET expires_at = ? WHERE item_id = ? AND slot = ?`, until, q.ItemID, q.Slot); err != nil {
				return err
			}
			if len(out) < n {
				out = append(out, q.ItemID)
			}
		}
		// 2. Own slots, then 3. others'.
		for _, phase := range []string{
			`q.annotator = ? AND (q.claimed_by IS NULL OR q.expires_at <= ?) AND ` + sqliteClaimable + ` ORDER BY q.rank, q.slot LIMIT ?`,
			`q.annotator <> ? AND (q.claimed_by IS NULL OR q.expires_at <= ?) AND ` + sqliteClaimable + ` ORDER BY q.slot, q.rank LIMIT ?`,
		} {
			for len(out) < n {
				found, err := scanSlots(tx, `SELECT q.item_id, q.slot, q.annotator, q.rank, q.claimed_by, q.claimed_at, q.expires_at
					FROM queue_slots q WHERE `+phase, annotator, nowText, annotator, annotator, n-len(out))
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
					if _, err := tx.Exec(`UPDATE queue_slots SET claimed_by = ?, claimed_at = ?, expires_at = ? WHERE item_id = ? AND slot = ?`,
						annotator, nowText, until, q.ItemID, q.Slot); err != nil {
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

// Release gives back annotator's claims on the items; done slots and
// items not claimed by annotator are left as they are.
func (s *Store) Release(annotator string, itemIDs []string) error {
	annotator, err := CheckClaim(annotator, 1)
	if err != nil {
		return err
	}
	return s.queueWrite("releasing items", func(tx *sql.Tx) error {
		st, err := s.queueSettings(tx)
		if err != nil {
			return err
		}
		if err := st.InTeam(s.path, annotator); err != nil {
			return err
		}
		stmt, err := tx.Prepare(`UPDATE queue_slots AS q SET claimed_by = NULL, claimed_at = NULL, expires_at = NULL
			WHERE q.item_id = ? AND q.claimed_by = ? AND NOT ` + sqliteSlotDone)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, id := range itemIDs {
			if _, err := stmt.Exec(id, annotator); err != nil {
				return err
			}
		}
		return nil
	})
}

// Progress counts each annotator's slots: the team in its order, then
// anyone else who holds done slots.
func (s *Store) Progress() ([]QueueProgress, error) {
	var out []QueueProgress
	var plain error
	err := s.read("reading the queue's progress", func(tx *sql.Tx) error {
		st, err := s.queueSettings(tx)
		if err != nil {
			if errors.Is(err, ErrNoQueue) {
				plain = err
			}
			return err
		}
		nowText := stamp(s.queueNow())
		counts := [5]map[string]int{{}, {}, {}, {}, {}}
		// A slot dealt to q.annotator that another holds (not expired).
		heldByOther := `(q.claimed_by IS NOT NULL AND q.claimed_by <> q.annotator AND q.expires_at > ?)`
		for i, c := range []struct {
			query string
			args  []any
		}{
			{`SELECT annotator, count(*) FROM queue_slots GROUP BY annotator`, nil},
			{`SELECT q.claimed_by, count(*) FROM queue_slots q WHERE q.claimed_by IS NOT NULL AND q.expires_at > ? AND NOT ` +
				sqliteSlotDone + ` GROUP BY q.claimed_by`, []any{nowText}},
			{`SELECT coalesce(q.claimed_by, q.annotator), count(*) FROM queue_slots q WHERE ` + sqliteSlotDone + ` GROUP BY 1`, nil},
			{`SELECT q.annotator, count(*) FROM queue_slots q WHERE (q.claimed_by IS NOT NULL AND q.claimed_by <> q.annotator AND ` +
				sqliteSlotDone + `) OR ` + heldByOther + ` GROUP BY 1`, []any{nowText}},
			{`SELECT q.annotator, count(*) FROM queue_slots q WHERE NOT ` + sqliteSlotDone + ` AND NOT ` + heldByOther + ` GROUP BY 1`, []any{nowText}},
		} {
			rows, err := tx.Query(c.query, c.args...)
			if err != nil {
				return err
			}
			for rows.Next() {
				var who string
				var n int
				if err := rows.Scan(&who, &n); err != nil {
					rows.Close()
					return err
				}
				counts[i][who] += n
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
		out = MergeProgress(st.Annotators, counts[0], counts[1], counts[2], counts[3], counts[4])
		return nil
	})
	if plain != nil {
		return nil, plain
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// UndoItemAs is UndoItem for annotator: it takes back their latest group
// that still has a live action on itemID (its actions on itemID only),
// and returns them, or nil, nil when nothing is left to undo there.
func (s *Store) UndoItemAs(annotator, itemID string) ([]Action, error) {
	var undone []Action
	err := s.write("undoing", func(tx *sql.Tx) error {
		var target int64
		err := tx.QueryRow(`SELECT group_id FROM live_actions WHERE annotator = ? AND item_id = ? ORDER BY id DESC LIMIT 1`,
			annotator, itemID).Scan(&target)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		rows, err := tx.Query(groupActionsOnItem,
			target, annotator, itemID)
		if err != nil {
			return err
		}
		if undone, err = scanActions(tx, rows); err != nil {
			return err
		}
		group, err := nextGroup(tx)
		if err != nil {
			return err
		}
		ins, err := prepareInsertAction(tx)
		if err != nil {
			return err
		}
		defer ins.Close()
		at := now()
		for _, a := range undone {
			u := Action{Group: group, Kind: KindUndo, ItemID: a.ItemID, Criterion: a.Criterion, Dimension: a.Dimension,
				Annotator: annotator, At: at, Undoes: a.ID}
			if annotator == s.annotator && s.lock != nil {
				u.Sitting = s.lock.token
			}
			if _, err := insertAction(ins, u); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return undone, nil
}

// MergeProgress makes Progress's rows from counts per person: the team
// first, in its order, then anyone else with a count, by name.
func MergeProgress(team []string, assigned, claimed, done, taken, left map[string]int) []QueueProgress {
	row := func(a string) QueueProgress {
		return QueueProgress{Annotator: a, Assigned: assigned[a], Claimed: claimed[a], Done: done[a], Taken: taken[a], Left: left[a]}
	}
	var out []QueueProgress
	for _, a := range team {
		out = append(out, row(a))
	}
	var others []string
	for _, m := range []map[string]int{assigned, claimed, done} {
		for a := range m {
			if !slices.Contains(team, a) && !slices.Contains(others, a) {
				others = append(others, a)
			}
		}
	}
	slices.Sort(others)
	for _, a := range others {
		out = append(out, row(a))
	}
	return out
}
