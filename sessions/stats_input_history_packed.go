package sessions

import (
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// decisionsPacked reads an annotator's labels, accepts, "can't judge"
// and tag actions as one row of two lists (see stats_input_packed.go): a
// hundred thousand decisions a row at a time cost the driver far more
// than SQLite. SQLite's cost grows with every list and every function
// per action, so the query reads as little as it can:
//
//   - one record per action (separator packSep) of what changes from one
//     action to the next, its fields joined by concat_ws with fieldSep:
//     the id (which also checks the order), the group, the item, the run
//     shown ("" unknown, 0 hidden, a run's id), the sitting, the two
//     times (read as text: SQLite's julianday costs more than both texts
//     and Go's reading of them), the value as a whole number and, when a
//     guidelines filter needs it (%s), the guidelines version;
//   - one element more (oddPacked) for each action that is not the usual
//     label: another kind, a re-test, a criterion other than 0, a
//     dimension other than the annotator's first label's (parameter 2),
//     a value that is not a whole number.
//
// It reads the table, not live_actions: the view's check of every action
// for an undo costs as much as a field, and the annotator's undone
// actions, few, are read apart (undoneOf) and skipped.
var decisionsPacked = `SELECT count(*),
	group_concat(concat_ws(char(31), id, coalesce(nullif(group_id, id), ''), item_id, coalesce(shown, ''), coalesce(sitting, ''),
		at, coalesce(appeared_at, ''), coalesce(CAST(value AS INTEGER), '')%s), char(30)),
	group_concat(` + oddPacked + `, '')
		FILTER (WHERE kind <> 'label' OR retest + criterion <> 0 OR dimension <> ?2 OR value <> CAST(value AS INTEGER))
FROM actions WHERE +annotator = ?1 AND id >= ?3 AND id < ?4 AND kind IN ('label', 'accept', 'cant_judge', 'tag')`

// fieldSep separates the fields of a record of decisionsPacked: the ASCII
// unit separator.
const fieldSep = '\x1f'

// The fields of a record of decisionsPacked.
const (
	fdID = iota
	fdGroup
	fdItem
	fdShown
	fdSitting
	fdAt
	fdAppeared
	fdValue
	fdGuidelines // only with a guidelines filter
)

// oddPacked is an unusual action written whole (oddElement), from the
// columns of actions.
var oddPacked = oddElement("")

// packedHistory is a range of an annotator's history read packed
// (decisionsPacked), to fold with foldPacked.
type packedHistory struct {
	firstDim   string
	guidelines bool
	undone     map[int64]bool
	// n is the number of records: of decisions (decisionsPacked), or of
	// the decision log's rows of every kind (readLogHistory).
	n            int64
	records, odd sql.NullString
	// tooLong is set when SQLite could not build the lists.
	tooLong bool
	// fromLog: read from the decision log (readLogHistory), whose records
	// have the log's fields (logFields).
	fromLog bool
}

// packedFields says where a record's fields are: the two layouts of
// decisionsPacked (with or without the guidelines version) and the decision
// log's. -1: not in the record.
type packedFields struct {
	n, at, appeared, ms, value, guidelines, dimension int
}

// The fields of a decision log record (schemaDecisionLog): the first five
// are decisionsPacked's.
const (
	flMillis = fdSitting + 1 + iota
	flValue
	flGuidelines
	flDimension
)

func (p *packedHistory) fields() packedFields {
	switch {
	case p.fromLog:
		return packedFields{n: flDimension + 1, at: -1, appeared: -1, ms: flMillis, value: flValue, guidelines: flGuidelines, dimension: flDimension}
	case p.guidelines:
		return packedFields{n: fdGuidelines + 1, at: fdAt, appeared: fdAppeared, ms: -1, value: fdValue, guidelines: fdGuidelines, dimension: -1}
	}
	return packedFields{n: fdValue + 1, at: fdAt, appeared: fdAppeared, ms: -1, value: fdValue, guidelines: -1, dimension: -1}
}

// historyKeys is what every packed read of an annotator's history needs:
// the dimension of their first label (the usual one), and their undone
// actions.
func historyKeys(tx *sql.Tx, annotator string) (firstDim string, undone map[int64]bool, err error) {
	err = tx.QueryRow(`SELECT dimension FROM actions WHERE annotator = ?1 AND kind IN ('label', 'accept') ORDER BY id LIMIT 1`, annotator).Scan(&firstDim)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", nil, err
	}
	undone, err = undoneOf(tx, annotator)
	return firstDim, undone, err
}

// readPackedHistory reads the actions of an annotator's history whose ids
// are in [lo, hi) packed, with their guidelines versions when guidelines
// (historyKeys gives firstDim and undone).
func readPackedHistory(tx *sql.Tx, annotator string, guidelines bool, firstDim string, undone map[int64]bool, lo, hi int64) (*packedHistory, error) {
	p := &packedHistory{guidelines: guidelines, firstDim: firstDim, undone: undone}
	extra := ""
	if guidelines {
		extra = `, coalesce(guidelines_id, 0)`
	}
	err := tx.QueryRow(fmt.Sprintf(decisionsPacked, extra), annotator, p.firstDim, lo, hi).Scan(&p.n, &p.records, &p.odd)
	if unpackable(err) {
		p.tooLong, err = true, nil
	}
	return p, err
}

// foldPacked folds a range of an annotator's history read packed into h;
// false when the lists cannot be read (a text holding a separator, a list
// too long for SQLite, rows out of order): the row reader reads the
// history instead.
func foldPacked(codec *valueCodec, h *historyFold, p *packedHistory) bool {
	if p.tooLong {
		return false
	}
	firstDim, n, records, undone := p.firstDim, p.n, p.records, p.undone
	at := p.fields()
	if n == 0 {
		return true
	}
	list, ok := splitPacked(records, packSep, n)
	if !ok {
		return false
	}
	odds := oddList{rest: p.odd.String}
	next, okOdd := odds.next()
	h.reserve(int(n))
	last := int64(-1)
	var f [flDimension + 1]string
	for range n {
		if !list.nextFields(f[:at.n]) {
			return false
		}
		id, ok := packedNumber(f[fdID])
		group, okg := id, true
		if f[fdGroup] != "" {
			group, okg = packedNumber(f[fdGroup])
		}
		if !ok || !okg || id <= last || !okOdd {
			return false
		}
		last = id
		kind, text, odd := byte(kindLetterLabel), "", next.id == id
		if odd {
			kind, text = next.kind, next.text
		}
		if !decisionKind(kind) {
			next, okOdd = odds.next()
			continue // a note or an undo, which the decision log lists too
		}
		// Filled in place, and taken back if it is no decision.
		d := h.slot()
		d.Group, d.ItemID, d.Dimension = group, f[fdItem], firstDim
		if at.dimension >= 0 {
			d.Dimension = f[at.dimension]
		}
		if odd {
			d.Retest, d.Criterion, d.Dimension = next.retest, next.criterion, next.dimension
			next, okOdd = odds.next()
		}
		d.Dimension = h.dimension(d.Dimension)
		if !h.shown(d, f[fdShown]) {
			return false
		}
		d.Sitting = h.sitting(f[fdSitting])
		switch {
		case at.ms >= 0 && f[at.ms] != "":
			// "x": a time not in Gavel's layout, which only the row
			// reader reads.
			ms, okm := packedNumber(f[at.ms])
			if !okm {
				return false
			}
			d.Seconds, d.Timed = float64(ms)/1000, true
		case at.appeared >= 0 && f[at.appeared] != "":
			d.Seconds, d.Timed = secondsBetween(f[at.appeared], f[at.at])
		}
		if p.guidelines {
			g, okg := packedNumber(f[at.guidelines])
			if !okg {
				return false
			}
			d.Guidelines = g
		}
		whole := f[at.value]
		switch {
		case kind == kindLetterCantJudge || kind == kindLetterTag:
		case text != "":
			d.Value, d.HasValue = decodePacked(codec, d.Dimension, text)
		case whole != "":
			x, okv := packedNumber(whole)
			if !okv {
				return false
			}
			d.Value, d.HasValue = codec.decode(d.Dimension, float64(x))
		}
		switch {
		case undone[id]:
			h.drop()
		case kind == kindLetterTag:
			item := d.ItemID
			h.drop()
			h.tag(item, text, whole == "1")
		default:
			h.decided(kind, text)
		}
	}
	// Every unusual action is one of the list's.
	if !okOdd || next.id != 0 {
		return false
	}
	return true
}

// nextFields splits the list's next element, a record, into exactly
// len(f) fields (fieldSep between them); false when it holds another
// number (a text holding fieldSep). It looks at each byte of the record
// once: the fields are short, and a call to strings.IndexByte for each
// of them and for the record cost twice as much.
func (p *packedList) nextFields(f []string) bool {
	rest, last := p.rest, len(f)-1
	k, start := 0, 0
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if c > fieldSep { // most bytes: one comparison (packSep is below)
			continue
		}
		switch c {
		case fieldSep:
			if k == last {
				return false
			}
			f[k] = rest[start:i]
			k++
			start = i + 1
		case p.sep:
			f[k], p.rest = rest[start:i], rest[i+1:]
			return k == last
		}
	}
	f[k], p.rest = rest[start:], ""
	return k == last
}

// decisionKind tells whether kind, the first letter of actions.kind, is a
// decision's (a label, accept, "can't judge" or tag action): not a note's
// or an undo's.
func decisionKind(kind byte) bool {
	switch kind {
	case kindLetterLabel, kindLetterAccept, kindLetterCantJudge, kindLetterTag:
		return true
	}
	return false
}

// oddAction is an element of oddPacked.
type oddAction struct {
	id              int64 // 0 past the last
	kind            byte
	retest          bool
	criterion       int
	dimension, text string
}

// oddList walks the elements of oddPacked.
type oddList struct{ rest string }

// next is the next element (id 0 past the last); false when it cannot be
// read.
func (l *oddList) next() (oddAction, bool) {
	var a oddAction
	if l.rest == "" {
		return a, true
	}
	id, ok := l.number(0)
	if !ok || id <= 0 || len(l.rest) < 3 || (l.rest[1] != '0' && l.rest[1] != '1') || l.rest[2] != ',' {
		return a, false
	}
	a.id, a.kind, a.retest = id, l.rest[0], l.rest[1] == '1'
	l.rest = l.rest[3:]
	crit, ok1 := l.number(',')
	dimLen, ok2 := l.number(',')
	if !ok1 || !ok2 || crit != int64(int(crit)) || dimLen < 0 || dimLen > int64(len(l.rest)) {
		return a, false
	}
	a.criterion, a.dimension, l.rest = int(crit), l.rest[:dimLen], l.rest[dimLen:]
	textLen, ok3 := l.number(0)
	if !ok3 || textLen < 0 || textLen >= int64(len(l.rest)) || l.rest[0] != ',' {
		return a, false
	}
	a.text, l.rest = l.rest[1:textLen+1], l.rest[textLen+1:]
	return a, true
}

// number reads the digits at the start of the rest, then the byte after
// them when it is sep (0: none).
func (l *oddList) number(sep byte) (int64, bool) {
	i := 0
	for i < len(l.rest) && l.rest[i] >= '0' && l.rest[i] <= '9' {
		i++
	}
	n, ok := packedNumber(l.rest[:i])
	if !ok {
		return 0, false
	}
	l.rest = l.rest[i:]
	if sep != 0 {
		if l.rest == "" || l.rest[0] != sep {
			return 0, false
		}
		l.rest = l.rest[1:]
	}
	return n, true
}

// undoneOf is the set of the annotator's actions an undo undid (what
// live_actions leaves out besides the undo rows): few, read by the partial
// index on undoes (CROSS JOIN keeps SQLite from walking every action of
// the annotator instead). An undo undoes its own annotator's action, but
// the join does not rely on it.
func undoneOf(tx *sql.Tx, annotator string) (map[int64]bool, error) {
	rows, err := tx.Query(`SELECT u.undoes FROM actions u CROSS JOIN actions a ON a.id = u.undoes
		WHERE u.undoes IS NOT NULL AND a.annotator = ?1`, annotator)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}

// decodePacked decodes a value as oddPacked writes a value that is not a
// whole number: "t" and the text for a text value, the number otherwise.
func decodePacked(codec *valueCodec, dim, raw string) (float64, bool) {
	switch {
	case raw == "":
		return 0, false
	case strings.HasPrefix(raw, "t"):
		return codec.decode(dim, raw[1:])
	}
	x, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		return 0, false
	}
	return codec.decode(dim, x)
}
