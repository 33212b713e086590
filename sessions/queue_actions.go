package sessions

import (
	"database/sql"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// What another backend (sessions/pg) needs to write and read the rows of
// actions exactly as this package does: the same checks, the same column
// values, the same reading back.

// ActionColumnNames are the columns of actions, in the order ActionRow
// gives their values.
var ActionColumnNames = []string{"id", "group_id", "kind", "item_id", "criterion", "dimension", "value", "note", "via",
	"annotator", "at", "undoes", "reason", "tag", "guidelines_id", "shown", "retest", "appeared_at", "sitting"}

// CheckAction is Record's check of one action (RecordAs refuses what it
// refuses, undo rows included).
func CheckAction(a Action) error { return checkAction(a) }

// CheckAnnotator is RecordAs's check of the annotator's name: trimmed,
// not empty.
func CheckAnnotator(annotator string) (string, error) {
	annotator = strings.TrimSpace(annotator)
	if annotator == "" {
		return "", fmt.Errorf("actions need an annotator name")
	}
	return annotator, nil
}

// ActionRow is the row of actions that a holds, as SQLite stores it: each
// value nil, int64, float64 or string, in ActionColumnNames' order. scales
// are the session's categorical dimensions (dimension_scales), whose
// values are stored by name.
func ActionRow(a Action, scales map[string]judge.Scale) []any {
	c := &valueCodec{scales: scales}
	var value, undoes any
	switch a.Kind {
	case KindLabel, KindAccept:
		value = c.encode(a.Dimension, a.Value)
	case KindTag:
		value = a.Value
	case KindUndo:
		undoes = a.Undoes
	}
	retest := int64(0)
	if a.Retest {
		retest = 1
	}
	shown := shownColumn(a.Shown, a.ShownRun)
	if x, ok := shown.(int); ok {
		shown = int64(x)
	}
	return []any{a.ID, a.Group, string(a.Kind), a.ItemID, int64(a.Criterion), a.Dimension, value, a.Note, a.Via,
		a.Annotator, stamp(a.At), undoes, nullText(a.Reason), nullText(a.Tag), nullID(a.Guidelines),
		shown, retest, nullStamp(a.Appeared), nullText(a.Sitting)}
}

// ActionFromRow reads an action from its row's values in ActionColumnNames'
// order (nil, int64, float64, string or []byte each), as Actions does.
func ActionFromRow(row []any, scales map[string]judge.Scale) (Action, error) {
	var a Action
	if len(row) != len(ActionColumnNames) {
		return a, fmt.Errorf("an action row of %d values, want %d", len(row), len(ActionColumnNames))
	}
	text := func(i int) (string, error) {
		switch x := row[i].(type) {
		case nil:
			return "", nil
		case string:
			return x, nil
		case []byte:
			return string(x), nil
		}
		return "", fmt.Errorf("actions.%s holds %T, not text", ActionColumnNames[i], row[i])
	}
	integer := func(i int) (int64, bool, error) {
		switch x := row[i].(type) {
		case nil:
			return 0, false, nil
		case int64:
			return x, true, nil
		case float64:
			if x == math.Trunc(x) {
				return int64(x), true, nil
			}
		}
		return 0, false, fmt.Errorf("actions.%s holds %v, not an integer", ActionColumnNames[i], row[i])
	}
	var err error
	var kind, at, appeared string
	var criterion, retest, shown int64
	var shownOK bool
	steps := []error{}
	do := func(e error) { steps = append(steps, e) }
	a.ID, _, err = integer(0)
	do(err)
	a.Group, _, err = integer(1)
	do(err)
	kind, err = text(2)
	do(err)
	a.Kind = ActionKind(kind)
	a.ItemID, err = text(3)
	do(err)
	criterion, _, err = integer(4)
	do(err)
	a.Criterion = int(criterion)
	a.Dimension, err = text(5)
	do(err)
	a.Note, err = text(7)
	do(err)
	a.Via, err = text(8)
	do(err)
	a.Annotator, err = text(9)
	do(err)
	at, err = text(10)
	do(err)
	a.Undoes, _, err = integer(11)
	do(err)
	a.Reason, err = text(12)
	do(err)
	a.Tag, err = text(13)
	do(err)
	a.Guidelines, _, err = integer(14)
	do(err)
	shown, shownOK, err = integer(15)
	do(err)
	retest, _, err = integer(16)
	do(err)
	a.Retest = retest != 0
	appeared, err = text(17)
	do(err)
	a.Sitting, err = text(18)
	do(err)
	for _, e := range steps {
		if e != nil {
			return a, e
		}
	}
	n := sql.NullInt64{Int64: shown, Valid: shownOK}
	a.Shown, a.ShownRun = shownFromColumn(n), shownRunFromColumn(n)
	if a.At, err = parseStamp(at); err != nil {
		return a, err
	}
	if appeared != "" {
		if a.Appeared, err = parseStamp(appeared); err != nil {
			return a, err
		}
	}
	c := &valueCodec{scales: scales}
	if a.Kind == KindTag {
		switch x := row[6].(type) {
		case float64:
			a.Value = x
		case int64:
			a.Value = float64(x)
		}
	} else if x, ok := c.decode(a.Dimension, row[6]); ok {
		a.Value = x
	} else if a.Kind == KindLabel || a.Kind == KindAccept {
		a.Value = math.NaN() // as scanActions: unreadable by its scale
	}
	return a, nil
}

// QueueSchemaSQL is the SQLite DDL of the queue's tables (schema v10),
// from which another backend makes its mirror of them.
func QueueSchemaSQL() string { return schemaV10 }

// Now is the time at the precision sessions store times.
func Now() time.Time { return now() }
