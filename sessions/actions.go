package sessions

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// ActionKind says what a human action does.
type ActionKind string

const (
	// KindLabel sets the annotator's value for (item, criterion,
	// dimension).
	KindLabel ActionKind = "label"
	// KindAccept sets the value too, copied from the judge's verdict; the
	// label is marked Accepted so statistics can tell the two apart.
	KindAccept ActionKind = "accept"
	// KindNote sets the annotator's note on an item; an empty note clears.
	KindNote ActionKind = "note"
	// KindUndo is written by Undo only: it cancels the action it Undoes.
	KindUndo ActionKind = "undo"
	// KindCantJudge is one annotator's decision that the whole item cannot
	// be judged, with a Reason (and a Note for "other"). It is not a
	// label: the item counts as reviewed for that person and is left out
	// of every agreement figure, until a later label or accept by the same
	// person, or an undo, takes it back.
	KindCantJudge ActionKind = "cant_judge"
	// KindTag puts the failure tag Tag on the item (Value 1) or takes it
	// off (Value 0).
	KindTag ActionKind = "tag"
)

// Reasons an item cannot be judged, as commands and the session spell them.
const (
	ReasonGoldWrong  = "gold-wrong"
	ReasonAmbiguous  = "ambiguous"
	ReasonUnreadable = "unreadable"
	ReasonOther      = "other"
)

// CantJudgeReasons lists the reasons in the order screens offer them.
var CantJudgeReasons = []string{ReasonGoldWrong, ReasonAmbiguous, ReasonUnreadable, ReasonOther}

// Visibility says whether the judge's verdict was on screen when a
// decision was made (the anchoring check compares blind and shown); with
// ShownVerdict, Action.ShownRun names the run whose verdict it was.
type Visibility int8

const (
	// ShownUnknown: not recorded (actions before schema v8, imports,
	// gavel label), or a verdict shown whose run is not known.
	ShownUnknown Visibility = iota
	// ShownVerdict: the verdict of run ShownRun was visible.
	ShownVerdict
	// ShownBlind: the verdict was hidden (blind mode, a blind share, a
	// re-test).
	ShownBlind
)

// Action is one row of the append-only history of human actions.
type Action struct {
	// ID orders every action of the session; Group gathers the actions
	// of one key press. Both are set by Record.
	ID, Group int64
	Kind      ActionKind
	ItemID    string
	// Criterion is 0 for the whole item, k for rubric criterion k.
	Criterion int
	// Dimension and Value are what a label or accept sets; binary
	// dimensions use 1 for YES and 0 for NO.
	Dimension string
	Value     float64
	// Note is a note's text.
	Note string
	// Via is how the item was reached: "order", "random", "filter:<name>"…
	Via string
	// Annotator is set by Record. At is when the decision was made:
	// the caller's time (the review screen's key press, which may be
	// saved seconds later), or Record's when zero or later than its own.
	Annotator string
	At        time.Time
	// Undoes is, for an undo row, the ID of the action it cancels.
	Undoes int64

	// Reason is a cant_judge's reason (one of CantJudgeReasons).
	Reason string
	// Tag is a tag action's failure tag.
	Tag string
	// Guidelines is the id of the guidelines version on screen when the
	// decision was made (Store.AddGuidelines), 0 for none.
	Guidelines int64
	// Shown says whether the judge's verdict was visible, and ShownRun,
	// with ShownVerdict only, which run's (its id in the session): the
	// anchoring check compares the person with that judge alone. A
	// caller that showed a verdict but cannot name its run records
	// ShownUnknown, never a guess.
	Shown    Visibility
	ShownRun int64
	// Retest marks a re-test: the item shown again, blind, to the person
	// who labelled it. A re-test never replaces the first label.
	Retest bool
	// Appeared is when the item appeared on screen (zero: unknown); the
	// time a decision took is At - Appeared.
	Appeared time.Time
	// Sitting names the store that wrote the action (one review, from
	// open to quit); set by Record, empty for imported history.
	Sitting string
}

// Record commits the actions of one key press as one group and returns
// only once the commit is on disk (WAL, synchronous=FULL), so a screen
// that confirms after Record never shows a label a crash could lose. The
// returned copies carry ID, Group, Annotator and At, and Sitting (the
// store's lock token) when the caller left it empty. Kinds label and
// accept need a Dimension and a finite Value; cant_judge a Reason; tag a
// Tag (CheckTagName) and Value 1 or 0; note needs nothing more; undo rows
// are Undo's (or UndoItem's) to write.
func (s *Store) Record(acts []Action) ([]Action, error) {
	return s.RecordAs(s.annotator, acts)
}

func checkAction(a Action) error {
	if a.ItemID == "" {
		return errors.New("an action needs an item id")
	}
	if a.Criterion < 0 {
		return fmt.Errorf("item %q: criterion %d: criteria start at 1 (0 is the whole item)", a.ItemID, a.Criterion)
	}
	switch a.Kind {
	case KindLabel, KindAccept:
		if a.Dimension == "" {
			return fmt.Errorf("item %q: a %s needs a dimension", a.ItemID, a.Kind)
		}
		if math.IsNaN(a.Value) || math.IsInf(a.Value, 0) {
			return fmt.Errorf("item %q: %v is not a label value", a.ItemID, a.Value)
		}
	case KindNote:
	case KindCantJudge:
		if !slices.Contains(CantJudgeReasons, a.Reason) {
			return fmt.Errorf("item %q: %q is not a reason an item cannot be judged (want %s)", a.ItemID, a.Reason, strings.Join(CantJudgeReasons, ", "))
		}
	case KindTag:
		if err := CheckTagName(a.Tag); err != nil {
			return fmt.Errorf("item %q: %w", a.ItemID, err)
		}
		if a.Value != 0 && a.Value != 1 {
			return fmt.Errorf("item %q: a tag action's value is 1 (on) or 0 (off), not %v", a.ItemID, a.Value)
		}
	case KindUndo:
		return errors.New("undo actions are written by Undo, not Record")
	default:
		return fmt.Errorf("item %q: unknown action kind %q (want label, accept, note, cant_judge or tag)", a.ItemID, a.Kind)
	}
	if a.Kind == KindCantJudge && a.Reason == "" || a.Kind != KindCantJudge && a.Reason != "" {
		return fmt.Errorf("item %q: only a cant_judge action has a reason", a.ItemID)
	}
	if a.Kind != KindTag && a.Tag != "" {
		return fmt.Errorf("item %q: only a tag action has a tag", a.ItemID)
	}
	if a.Retest && a.Kind != KindLabel && a.Kind != KindAccept && a.Kind != KindCantJudge {
		return fmt.Errorf("item %q: a %s cannot be a re-test", a.ItemID, a.Kind)
	}
	if a.Shown < ShownUnknown || a.Shown > ShownBlind {
		return fmt.Errorf("item %q: unknown visibility %d", a.ItemID, a.Shown)
	}
	// actions.shown holds the run's id, 0 for hidden and NULL for
	// unknown: "shown, run unknown" has no value there, and a decision
	// whose judge is not known cannot be compared with the judge it saw.
	if a.Shown == ShownVerdict && a.ShownRun <= 0 {
		return fmt.Errorf("item %q: a decision made with the verdict shown names the run shown (ShownRun); record ShownUnknown when it is not known", a.ItemID)
	}
	if a.Shown != ShownVerdict && a.ShownRun != 0 {
		return fmt.Errorf("item %q: only a decision made with the verdict shown names a run shown", a.ItemID)
	}
	return nil
}

// nextGroup numbers a new group: past every action's id and every group
// number, so that it is the id its first action will get (SQLite gives a
// new row the largest id + 1), unless an older group number is larger.
// A group of one then has group_id = id, which the partial index
// actions_by_group leaves out (schema v12); an older session's groups,
// numbered 1, 2, 3… apart from the ids, stay as they are. Both maxima
// are read from an index's end, and writes are serialised by the
// IMMEDIATE transaction, so the number cannot be taken twice.
func nextGroup(tx *sql.Tx) (int64, error) {
	var g int64
	err := tx.QueryRow(`SELECT max(coalesce((SELECT max(id) FROM actions), 0),
		coalesce((SELECT max(group_id) FROM actions WHERE group_id <> id), 0)) + 1`).Scan(&g)
	return g, err
}

// actionWriter inserts actions, storing each value by its dimension's
// scale.
type actionWriter struct {
	stmt  *sql.Stmt
	codec *valueCodec
}

func (w *actionWriter) Close() error { return w.stmt.Close() }

func prepareInsertAction(tx *sql.Tx) (*actionWriter, error) {
	codec, err := loadCodec(tx)
	if err != nil {
		return nil, err
	}
	stmt, err := tx.Prepare(`INSERT INTO actions (group_id, kind, item_id, criterion, dimension, value, note, via, annotator, at, undoes,
			reason, tag, guidelines_id, shown, retest, appeared_at, sitting)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return nil, err
	}
	return &actionWriter{stmt: stmt, codec: codec}, nil
}

func insertAction(w *actionWriter, a Action) (int64, error) {
	var value, undoes any
	if a.Kind == KindLabel || a.Kind == KindAccept {
		value = w.codec.encode(a.Dimension, a.Value)
	}
	if a.Kind == KindUndo {
		undoes = a.Undoes
	}
	if a.Kind == KindTag {
		value = a.Value
	}
	res, err := w.stmt.Exec(a.Group, string(a.Kind), a.ItemID, a.Criterion, a.Dimension, value, a.Note, a.Via, a.Annotator, stamp(a.At), undoes,
		nullText(a.Reason), nullText(a.Tag), nullID(a.Guidelines), shownColumn(a.Shown, a.ShownRun), a.Retest, nullStamp(a.Appeared), nullText(a.Sitting))
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// Undo undoes this annotator's latest group that is not undone yet, by
// writing one undo row per action of that group (history is never
// deleted). It returns the undone actions, or nil, nil when there is
// nothing left to undo. Calling it again walks further back; undo rows are
// not themselves undoable.
func (s *Store) Undo() ([]Action, error) {
	var undone []Action
	err := s.write("undoing", func(tx *sql.Tx) error {
		var target int64
		err := tx.QueryRow(`SELECT group_id FROM live_actions WHERE annotator = ? ORDER BY id DESC LIMIT 1`, s.annotator).Scan(&target)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		rows, err := tx.Query(groupActions, target, s.annotator)
		if err != nil {
			return err
		}
		undone, err = scanActions(tx, rows)
		if err != nil {
			return err
		}
		return s.writeUndo(tx, undone)
	})
	if err != nil {
		return nil, err
	}
	return undone, nil
}

// writeUndo writes, as one new group, an undo row for each of acts.
func (s *Store) writeUndo(tx *sql.Tx, acts []Action) error {
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
	for _, a := range acts {
		u := Action{Group: group, Kind: KindUndo, ItemID: a.ItemID, Criterion: a.Criterion, Dimension: a.Dimension,
			Annotator: s.annotator, At: at, Undoes: a.ID}
		if s.lock != nil {
			u.Sitting = s.lock.token
		}
		if _, err := insertAction(ins, u); err != nil {
			return err
		}
	}
	return nil
}

// actionColumns is what scanActions reads.
const actionColumns = `id, group_id, kind, item_id, criterion, dimension, value, note, via, annotator, at, undoes,
	reason, tag, guidelines_id, shown, retest, appeared_at, sitting`

func scanActions(tx *sql.Tx, rows *sql.Rows) ([]Action, error) {
	defer rows.Close()
	codec, err := loadCodec(tx)
	if err != nil {
		return nil, err
	}
	var out []Action
	for rows.Next() {
		var a Action
		var kind, at string
		var value any
		var undoes, guidelines, shown sql.NullInt64
		var reason, tag, appeared, sitting sql.NullString
		if err := rows.Scan(&a.ID, &a.Group, &kind, &a.ItemID, &a.Criterion, &a.Dimension, &value, &a.Note, &a.Via,
			&a.Annotator, &at, &undoes, &reason, &tag, &guidelines, &shown, &a.Retest, &appeared, &sitting); err != nil {
			return nil, err
		}
		a.Kind, a.Undoes = ActionKind(kind), undoes.Int64
		a.Reason, a.Tag, a.Guidelines, a.Sitting = reason.String, tag.String, guidelines.Int64, sitting.String
		a.Shown, a.ShownRun = shownFromColumn(shown), shownRunFromColumn(shown)
		if appeared.Valid {
			t, err := parseStamp(appeared.String)
			if err != nil {
				return nil, err
			}
			a.Appeared = t
		}
		if a.Kind == KindTag {
			if x, ok := value.(float64); ok {
				a.Value = x
			} else if x, ok := value.(int64); ok {
				a.Value = float64(x)
			}
		} else if x, ok := codec.decode(a.Dimension, value); ok {
			a.Value = x
		} else if a.Kind == KindLabel || a.Kind == KindAccept {
			// A value its scale cannot read: kept in history as NaN, which
			// every derivation of the current label treats as no value.
			a.Value = math.NaN()
		}
		var err error
		if a.At, err = parseStamp(at); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Actions returns the whole history of human actions, undo rows included,
// oldest first; annotator "" means every annotator. It is for exports and
// audits; the current state is what Labels and Notes give.
func (s *Store) Actions(annotator string) ([]Action, error) {
	return s.readActions(`FROM actions WHERE ? = '' OR annotator = ? ORDER BY id`, annotator, annotator)
}

// readActions reads the actions a query's FROM … clause selects, every
// column (actionColumns).
func (s *Store) readActions(from string, args ...any) ([]Action, error) {
	var out []Action
	err := s.read("reading the history", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT `+actionColumns+` `+from, args...)
		if err != nil {
			return err
		}
		out, err = scanActions(tx, rows)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// nullText stores "" as NULL.
func nullText(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// nullID stores 0 as NULL.
func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// nullStamp stores the zero time as NULL.
func nullStamp(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return stamp(t)
}

// shownColumn is actions.shown: the id of the run shown, 0 blind, NULL
// unknown (a verdict shown without its run included).
func shownColumn(v Visibility, run int64) any {
	switch {
	case v == ShownVerdict && run > 0:
		return run
	case v == ShownBlind:
		return 0
	}
	return nil
}

// shownFromColumn is the visibility actions.shown records: NULL unknown,
// 0 blind, a run's id shown.
func shownFromColumn(n sql.NullInt64) Visibility {
	switch {
	case !n.Valid || n.Int64 < 0:
		return ShownUnknown
	case n.Int64 > 0:
		return ShownVerdict
	}
	return ShownBlind
}

// shownRunFromColumn is the run actions.shown names, 0 for none.
func shownRunFromColumn(n sql.NullInt64) int64 {
	if n.Valid && n.Int64 > 0 {
		return n.Int64
	}
	return 0
}
