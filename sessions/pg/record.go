package pg

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// The team's action writer: the rows of actions exactly as sessions'
// RecordAs writes them in SQLite (sessions.ActionRow), each value the
// typed column cannot hold in gavel_odd (EncodeValue), so that a copy back
// to SQLite gives the same rows.
//
// Ids come from the session's sequence actions_id_seq and are reserved
// before the insert: a writer that lost its connection during a commit
// does not know whether the rows are in; it calls again with the same ids
// and the insert, ON CONFLICT (id) DO NOTHING, finds them there instead of
// adding them twice. A group's id is its first action's id, unique across
// writers without a lock (SQLite's max + 1 needs its single writer).
// Ids are unique but, across writers, not in commit order: a reader that
// follows new actions by id must look again for the holes.

// ReserveActionIDs takes n new action ids from the session's sequence,
// ascending. They are reserved by a committed transaction: nextval gives
// its transaction an id, so the commit flushes the sequence's step to the
// server's log, and a server that crashes afterwards never hands them out
// again.
func (s *Store) ReserveActionIDs(ctx context.Context, n int) ([]int64, error) {
	if n <= 0 {
		return nil, nil
	}
	var ids []int64
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT nextval($1::regclass) FROM generate_series(1, $2)`, s.table("actions_id_seq"), n)
		if err != nil {
			return err
		}
		ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		return err
	})
	if err != nil {
		return nil, s.wrap(err, "reserving action ids")
	}
	slices.Sort(ids)
	return ids, nil
}

// RecordAs commits one group of actions as annotator, with the checks of
// sessions' RecordAs. When every action's ID is 0, ids are reserved and
// written into acts (ID and Group) before the insert, so that calling
// again with the same slice after an error whose outcome is unknown
// writes nothing twice; when every ID is set (ReserveActionIDs, or an
// earlier call), they are used as given, with Group as given or the first
// id. The returned copies are the stored rows.
func (s *Store) RecordAs(ctx context.Context, annotator string, acts []sessions.Action) ([]sessions.Action, error) {
	annotator, err := sessions.CheckAnnotator(annotator)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", s.target.Shown, err)
	}
	if len(acts) == 0 {
		return nil, nil
	}
	for _, a := range acts {
		if err := sessions.CheckAction(a); err != nil {
			return nil, fmt.Errorf("session %s: %w", s.target.Shown, err)
		}
	}
	if err := s.presetIDs(ctx, acts); err != nil {
		return nil, err
	}
	at := sessions.Now()
	out := slices.Clone(acts)
	for i := range out {
		out[i].Annotator, out[i].Undoes = annotator, 0
		if out[i].At.IsZero() || out[i].At.After(at) {
			out[i].At = at // a decision's time is the caller's when it gives one
		}
	}
	var stored []sessions.Action
	err = s.writeTx(ctx, "saving labels", func(tx pgx.Tx) error {
		w, err := s.newActionWriter(ctx, tx)
		if err != nil {
			return err
		}
		if err := w.check(ctx, out); err != nil {
			return err
		}
		if stored, err = w.insert(ctx, out); err != nil {
			return err
		}
		return notify(ctx, tx, s.target.Session, "actions", maxID(stored))
	})
	if err != nil {
		return nil, err
	}
	return stored, nil
}

// presetIDs gives acts their ids and group: reserved now when none has
// one, kept when all have.
func (s *Store) presetIDs(ctx context.Context, acts []sessions.Action) error {
	set := 0
	for _, a := range acts {
		if a.ID != 0 {
			set++
		}
	}
	switch set {
	case 0:
		ids, err := s.ReserveActionIDs(ctx, len(acts))
		if err != nil {
			return err
		}
		for i := range acts {
			acts[i].ID, acts[i].Group = ids[i], ids[0]
		}
	case len(acts):
		group := acts[0].Group
		if group == 0 {
			group = acts[0].ID
		}
		for i := range acts {
			if acts[i].ID < 0 || (acts[i].Group != 0 && acts[i].Group != group) {
				return fmt.Errorf("session %s: the actions of one group carry different groups or a negative id", s.target.Shown)
			}
			acts[i].Group = group
		}
	default:
		return fmt.Errorf("session %s: %d of %d actions carry an id: give every one its reserved id, or none", s.target.Shown, set, len(acts))
	}
	return nil
}

// RecordUndo writes undo rows as annotator: each with Undoes, the id of a
// live action of theirs that is no undo; ItemID, Criterion and Dimension
// are taken from it. Ids are reserved or kept as RecordAs does, so a
// retry writes nothing twice; a second undo of one action is refused.
func (s *Store) RecordUndo(ctx context.Context, annotator string, undos []sessions.Action) ([]sessions.Action, error) {
	annotator, err := sessions.CheckAnnotator(annotator)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", s.target.Shown, err)
	}
	if len(undos) == 0 {
		return nil, nil
	}
	for _, u := range undos {
		if u.Kind != sessions.KindUndo || u.Undoes <= 0 {
			return nil, fmt.Errorf("session %s: an undo row has kind undo and names the action it undoes", s.target.Shown)
		}
	}
	if err := s.presetIDs(ctx, undos); err != nil {
		return nil, err
	}
	var stored []sessions.Action
	err = s.writeTx(ctx, "undoing", func(tx pgx.Tx) error {
		w, err := s.newActionWriter(ctx, tx)
		if err != nil {
			return err
		}
		targets := make([]int64, len(undos))
		for i, u := range undos {
			targets[i] = u.Undoes
		}
		undone, err := w.read(ctx, `id = ANY($1)`, targets)
		if err != nil {
			return err
		}
		byID := map[int64]sessions.Action{}
		for _, a := range undone {
			byID[a.ID] = a
		}
		// An action undone already, by another undo row than the one
		// given (a retry finds its own), cannot be undone again.
		var twice int64
		err = tx.QueryRow(ctx, `SELECT coalesce(min(undoes), 0) FROM `+s.table("actions")+` WHERE undoes = ANY($1) AND NOT (id = ANY($2))`,
			targets, undoIDs(undos)).Scan(&twice)
		if err != nil {
			return err
		}
		if twice != 0 {
			return fmt.Errorf("action %d is undone already", twice)
		}
		at := sessions.Now()
		rows := make([]sessions.Action, len(undos))
		for i, u := range undos {
			a, ok := byID[u.Undoes]
			switch {
			case !ok:
				return fmt.Errorf("action %d is not in the session", u.Undoes)
			case a.Annotator != annotator:
				return fmt.Errorf("action %d is %q's, not %q's", u.Undoes, a.Annotator, annotator)
			case a.Kind == sessions.KindUndo:
				return fmt.Errorf("action %d is an undo: undo rows are not undone", u.Undoes)
			}
			rows[i] = sessions.Action{ID: u.ID, Group: u.Group, Kind: sessions.KindUndo, ItemID: a.ItemID, Criterion: a.Criterion,
				Dimension: a.Dimension, Annotator: annotator, At: at, Undoes: a.ID, Sitting: u.Sitting}
		}
		if stored, err = w.insert(ctx, rows); err != nil {
			return err
		}
		return notify(ctx, tx, s.target.Session, "actions", maxID(stored))
	})
	if err != nil {
		return nil, err
	}
	return stored, nil
}

// maxID is the largest id of the actions.
func maxID(acts []sessions.Action) int64 {
	var m int64
	for _, a := range acts {
		m = max(m, a.ID)
	}
	return m
}

func undoIDs(undos []sessions.Action) []int64 {
	ids := make([]int64, len(undos))
	for i, u := range undos {
		ids[i] = u.ID
	}
	return ids
}

// UndoItemAs takes back annotator's latest group that still has a live
// action on itemID (its actions on itemID only), as sessions' UndoItem
// does, and returns the undone actions (nil, nil when none is left). It
// is not idempotent: a caller that must retry writes the undo rows with
// RecordUndo and kept ids.
func (s *Store) UndoItemAs(ctx context.Context, annotator, itemID string) ([]sessions.Action, error) {
	annotator, err := sessions.CheckAnnotator(annotator)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", s.target.Shown, err)
	}
	var live []sessions.Action
	err = s.readTx(ctx, "undoing", func(tx pgx.Tx) error {
		w, err := s.newActionWriter(ctx, tx)
		if err != nil {
			return err
		}
		who, _, _ := EncodeValue(TypeText, annotator)
		item, _, _ := EncodeValue(TypeText, itemID)
		var group int64
		err = tx.QueryRow(ctx, `SELECT a.group_id FROM `+s.table("actions")+` a WHERE a.annotator = $1 AND a.item_id = $2 AND a.kind <> 'undo'
			AND NOT EXISTS (SELECT 1 FROM `+s.table("actions")+` u WHERE u.undoes = a.id) ORDER BY a.id DESC LIMIT 1`, who, item).Scan(&group)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		live, err = w.read(ctx, `group_id = $1 AND annotator = $2 AND item_id = $3 AND kind <> 'undo'
			AND NOT EXISTS (SELECT 1 FROM `+s.table("actions")+` u WHERE u.undoes = a.id)`, group, who, item)
		return err
	})
	if err != nil || len(live) == 0 {
		return nil, err
	}
	undos := make([]sessions.Action, len(live))
	for i, a := range live {
		undos[i] = sessions.Action{Kind: sessions.KindUndo, Undoes: a.ID}
	}
	if _, err := s.RecordUndo(ctx, annotator, undos); err != nil {
		return nil, err
	}
	return live, nil
}

// Actions returns annotator's history ("" for everyone's), undo rows
// included, oldest first, read as sessions' Actions reads it.
func (s *Store) Actions(ctx context.Context, annotator string) ([]sessions.Action, error) {
	var out []sessions.Action
	err := s.readTx(ctx, "reading the history", func(tx pgx.Tx) error {
		w, err := s.newActionWriter(ctx, tx)
		if err != nil {
			return err
		}
		who, _, _ := EncodeValue(TypeText, annotator)
		out, err = w.read(ctx, `$1 = '' OR annotator = $1`, who)
		return err
	})
	return out, err
}

// writeTx runs fn in a read-write transaction and commits it.
func (s *Store) writeTx(ctx context.Context, doing string, fn func(tx pgx.Tx) error) error {
	return s.wrap(pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{}, fn), doing)
}

// readTx runs fn in a read-only REPEATABLE READ transaction: one snapshot.
func (s *Store) readTx(ctx context.Context, doing string, fn func(tx pgx.Tx) error) error {
	return s.wrap(pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn), doing)
}

// columnTypes caches the types of the mirrored tables' columns, per
// session schema and table.
var columnTypes sync.Map // "schema.table" → map[string]ColumnType

// columnTypesOf reads the PostgreSQL types of a table's columns.
func (s *Store) columnTypesOf(ctx context.Context, tx pgx.Tx, table string) (map[string]ColumnType, error) {
	key := s.target.Schema + "." + table
	if v, ok := columnTypes.Load(key); ok {
		return v.(map[string]ColumnType), nil
	}
	rows, err := tx.Query(ctx, `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2`,
		s.target.Schema, table)
	if err != nil {
		return nil, err
	}
	types := map[string]ColumnType{}
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			rows.Close()
			return nil, err
		}
		switch typ {
		case "bigint", "integer", "smallint":
			types[name] = TypeInteger
		case "double precision", "real", "numeric":
			types[name] = TypeReal
		case "bytea":
			types[name] = TypeBlob
		default:
			types[name] = TypeText
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(types) == 0 {
		return nil, fmt.Errorf("the session has no table %s (is it a Gavel session? gavel copy makes one)", table)
	}
	columnTypes.Store(key, types)
	return types, nil
}

// actionWriter writes and reads actions in one transaction.
type actionWriter struct {
	s      *Store
	tx     pgx.Tx
	types  map[string]ColumnType
	scales map[string]judge.Scale
}

func (s *Store) newActionWriter(ctx context.Context, tx pgx.Tx) (*actionWriter, error) {
	types, err := s.columnTypesOf(ctx, tx, "actions")
	if err != nil {
		return nil, err
	}
	for _, c := range sessions.ActionColumnNames {
		if _, ok := types[c]; !ok {
			return nil, fmt.Errorf("the session's actions table has no column %s: it was made by another Gavel version", c)
		}
	}
	w := &actionWriter{s: s, tx: tx, types: types, scales: map[string]judge.Scale{}}
	rows, err := tx.Query(ctx, `SELECT dimension, scale, `+OddColumn+`::text FROM `+s.table("dimension_scales"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var dim, scale *string
		var oddText *string
		if err := rows.Scan(&dim, &scale, &oddText); err != nil {
			return nil, err
		}
		odd, err := ParseOdd(deref(oddText))
		if err != nil {
			return nil, err
		}
		d, err := DecodeValue(TypeText, ptrAny(dim), odd["dimension"])
		if err != nil {
			return nil, err
		}
		sc, err := DecodeValue(TypeText, ptrAny(scale), odd["scale"])
		if err != nil {
			return nil, err
		}
		ds, _ := d.(string)
		ss, _ := sc.(string)
		w.scales[ds] = judge.Scale(ss)
	}
	return w, rows.Err()
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func ptrAny(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

// check refuses what sessions' RecordAs refuses in the session: unknown
// items, guidelines or runs; and adds the tags used to session_tags.
func (w *actionWriter) check(ctx context.Context, acts []sessions.Action) error {
	seen := map[string]bool{}
	for _, a := range acts {
		if a.Guidelines != 0 && !seen[fmt.Sprint("g", a.Guidelines)] {
			if err := w.exists(ctx, "guidelines", "id", a.Guidelines); err != nil {
				return fmt.Errorf("item %q: guidelines version %d is not in the session (AddGuidelines gives the id)", a.ItemID, a.Guidelines)
			}
			seen[fmt.Sprint("g", a.Guidelines)] = true
		}
		if a.ShownRun != 0 && !seen[fmt.Sprint("r", a.ShownRun)] {
			if err := w.exists(ctx, "runs", "id", a.ShownRun); err != nil {
				return fmt.Errorf("item %q: the run shown (%d) is not in the session", a.ItemID, a.ShownRun)
			}
			seen[fmt.Sprint("r", a.ShownRun)] = true
		}
		if !seen["i"+a.ItemID] {
			id, _, _ := EncodeValue(TypeText, a.ItemID)
			if err := w.exists(ctx, "items", "item_id", id); err != nil {
				return fmt.Errorf("unknown item %q", a.ItemID)
			}
			seen["i"+a.ItemID] = true
		}
		if a.Kind == sessions.KindTag {
			if err := w.addTag(ctx, a.Tag, a.At); err != nil {
				return err
			}
		}
	}
	return nil
}

var errMissing = errors.New("missing")

func (w *actionWriter) exists(ctx context.Context, table, col string, v any) error {
	var one int
	err := w.tx.QueryRow(ctx, `SELECT 1 FROM `+w.s.table(table)+` WHERE `+quote(col)+` = $1 LIMIT 1`, v).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return errMissing
	}
	return err
}

// addTag is sessions' addSessionTag: the tag joins the set unless there,
// a millisecond after the newest when that is as new or newer.
func (w *actionWriter) addTag(ctx context.Context, name string, at time.Time) error {
	tbl := w.s.table("session_tags")
	if _, err := w.tx.Exec(ctx, `LOCK TABLE `+tbl+` IN SHARE ROW EXCLUSIVE MODE`); err != nil {
		return err
	}
	typed, odd, err := EncodeValue(TypeText, name)
	if err != nil {
		return err
	}
	if w.exists(ctx, "session_tags", "name", typed) == nil {
		return nil
	}
	var last *string
	if err := w.tx.QueryRow(ctx, `SELECT max(added_at COLLATE "C") FROM `+tbl).Scan(&last); err != nil {
		return err
	}
	if last != nil {
		if t, err := sessions.ParseStamp(*last); err == nil && !t.Before(at) {
			at = t.Add(time.Millisecond)
		}
	}
	oddJSON, err := OddJSON(oddMap("name", odd))
	if err != nil {
		return err
	}
	_, err = w.tx.Exec(ctx, `INSERT INTO `+tbl+` (name, added_at, `+OddColumn+`) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
		typed, sessions.Stamp(at), oddJSON)
	return err
}

func oddMap(col string, odd *Odd) map[string]*Odd {
	if odd == nil {
		return nil
	}
	return map[string]*Odd{col: odd}
}

// insert writes the actions (ids set) ON CONFLICT (id) DO NOTHING and
// returns the stored rows; an id already there must hold the same action.
func (w *actionWriter) insert(ctx context.Context, acts []sessions.Action) ([]sessions.Action, error) {
	cols := append(slices.Clone(sessions.ActionColumnNames), OddColumn)
	marks := make([]string, len(cols))
	for i := range marks {
		marks[i] = fmt.Sprintf("$%d", i+1)
	}
	stmt := `INSERT INTO ` + w.s.table("actions") + ` (` + quoteAll(cols) + `) VALUES (` + strings.Join(marks, ", ") + `) ON CONFLICT (id) DO NOTHING`
	inserted := int64(0)
	ids := make([]int64, len(acts))
	for i, a := range acts {
		ids[i] = a.ID
		row := sessions.ActionRow(a, w.scales)
		args := make([]any, 0, len(cols))
		odd := map[string]*Odd{}
		for j, v := range row {
			name := sessions.ActionColumnNames[j]
			typed, o, err := EncodeValue(w.types[name], v)
			if err != nil {
				return nil, fmt.Errorf("action column %s: %w", name, err)
			}
			if o != nil {
				odd[name] = o
			}
			args = append(args, typed)
		}
		oddJSON, err := OddJSON(odd)
		if err != nil {
			return nil, err
		}
		args = append(args, oddJSON)
		tag, err := w.tx.Exec(ctx, stmt, args...)
		if err != nil {
			return nil, err
		}
		inserted += tag.RowsAffected()
	}
	stored, err := w.read(ctx, `id = ANY($1)`, ids)
	if err != nil {
		return nil, err
	}
	if inserted < int64(len(acts)) {
		byID := map[int64]sessions.Action{}
		for _, a := range stored {
			byID[a.ID] = a
		}
		for _, a := range acts {
			b, ok := byID[a.ID]
			if !ok || b.Annotator != a.Annotator || b.Kind != a.Kind || b.ItemID != a.ItemID || b.Undoes != a.Undoes {
				return nil, fmt.Errorf("action id %d is taken by another action: reserve new ids (ReserveActionIDs)", a.ID)
			}
		}
	}
	return stored, nil
}

// read reads the actions a WHERE condition (on columns of actions a)
// selects, in id order.
func (w *actionWriter) read(ctx context.Context, where string, args ...any) ([]sessions.Action, error) {
	cols := make([]string, len(sessions.ActionColumnNames))
	for i, c := range sessions.ActionColumnNames {
		cols[i] = "a." + quote(c)
	}
	rows, err := w.tx.Query(ctx, `SELECT `+strings.Join(cols, ", ")+`, a.`+OddColumn+`::text FROM `+w.s.table("actions")+` a WHERE `+where+` ORDER BY a.id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []sessions.Action
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		n := len(sessions.ActionColumnNames)
		oddText, _ := vals[n].(string)
		odd, err := ParseOdd(oddText)
		if err != nil {
			return nil, err
		}
		row := make([]any, n)
		for i, name := range sessions.ActionColumnNames {
			if row[i], err = DecodeValue(w.types[name], vals[i], odd[name]); err != nil {
				return nil, fmt.Errorf("actions.%s: %w", name, err)
			}
		}
		a, err := sessions.ActionFromRow(row, w.scales)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}
