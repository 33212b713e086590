package sessions

import (
	"database/sql"
	"errors"

	"github.com/gavel-dev/gavel/sessions/stats"
)

// readHistory reads one annotator's live labels, accepts, "can't judge"
// decisions and tag actions, oldest first, and adds to r their current
// "can't judge" marks, their current tags and, when some decision records
// how it was made, their decisions (see readLabelling). The history is
// read packed when it can (readHistoryPacked), else a row at a time.
func (r *labellingRead) readHistory(tx *sql.Tx, codec *valueCodec, annotator string) error {
	h := newHistoryFold(annotator)
	if packedReads {
		ok, err := readHistoryPacked(tx, codec, h)
		if err != nil {
			return err
		}
		if ok {
			h.into(r)
			return nil
		}
		h = newHistoryFold(annotator)
	}
	if err := readHistoryRows(tx, codec, h); err != nil {
		return err
	}
	h.into(r)
	return nil
}

// historyFold derives the current state of one annotator from their
// history, oldest first. A marked item is one whose latest live label,
// accept or "can't judge" that is not a re-test is a "can't judge" (the
// view current_cant_judge); a tag is on an item when the latest live tag
// action of that tag there put it on (current_tags).
type historyFold struct {
	annotator string
	intern    stringInterner
	tags      map[tagAt]bool
	tagOrder  []tagAt
	// marked holds an item's reason while its latest decision is a
	// "can't judge".
	marked    map[string]string
	markOrder []string
	decisions []stats.Decision
	// how is set once a decision records how it was made.
	how bool
}

// tagAt is a tag on an item.
type tagAt struct{ item, tag string }

func newHistoryFold(annotator string) *historyFold {
	return &historyFold{annotator: annotator, intern: stringInterner{}, tags: map[tagAt]bool{}, marked: map[string]string{}}
}

// Kinds as the first letter of actions.kind: what the packed read lists.
const (
	kindLetterLabel     = 'l'
	kindLetterAccept    = 'a'
	kindLetterCantJudge = 'c'
	kindLetterTag       = 't'
)

// action folds one action: d holds its item, criterion, group and, for a
// decision, every other field but Kind and Annotator; reason is a "can't
// judge"'s, tag and on a tag action's.
func (h *historyFold) action(kind byte, d stats.Decision, reason, tag string, on bool) {
	switch kind {
	case kindLetterTag:
		k := tagAt{d.ItemID, h.intern.of(tag)}
		if _, seen := h.tags[k]; !seen {
			h.tagOrder = append(h.tagOrder, k)
		}
		h.tags[k] = on
		return
	case kindLetterCantJudge:
		d.Kind, d.Value, d.HasValue = stats.KindCantJudge, 0, false
		if !d.Retest {
			if _, seen := h.marked[d.ItemID]; !seen {
				h.markOrder = append(h.markOrder, d.ItemID)
			}
			h.marked[d.ItemID] = h.intern.of(reason)
		}
	case kindLetterLabel, kindLetterAccept:
		d.Kind = stats.KindLabel
		if kind == kindLetterAccept {
			d.Kind = stats.KindAccept
		}
		if !d.Retest {
			delete(h.marked, d.ItemID)
		}
	default:
		return
	}
	d.Annotator = h.annotator
	h.how = h.how || d.Shown != "" || d.Timed || d.Retest
	h.decisions = append(h.decisions, d)
}

// into adds the annotator's marks, tags and decisions to r.
func (h *historyFold) into(r *labellingRead) {
	li := r.in
	for _, item := range h.markOrder {
		if reason, ok := h.marked[item]; ok {
			li.CantJudge = append(li.CantJudge, stats.CantJudgeMark{ItemID: item, Annotator: h.annotator, Reason: reason})
			if r.cantJudge == nil {
				r.cantJudge = map[[2]string]bool{}
			}
			r.cantJudge[[2]string{h.annotator, item}] = true
		}
	}
	for _, k := range h.tagOrder {
		if h.tags[k] {
			li.Tags = append(li.Tags, stats.TagMark{ItemID: k.item, Annotator: h.annotator, Tag: k.tag})
		}
	}
	if h.how {
		li.Decisions = append(li.Decisions, h.decisions...)
	}
}

// shownOf is a decision's visibility from actions.shown.
func shownOf(v Visibility) string {
	switch v {
	case ShownBlind:
		return stats.ShownBlind
	case ShownVerdict:
		return stats.ShownVerdict
	}
	return ""
}

// readHistoryRows reads the history a row at a time. Text columns that
// repeat (the dimension, the sitting) come back NULL when equal to the
// first row's, so that the driver does not copy them for every row.
func readHistoryRows(tx *sql.Tx, codec *valueCodec, h *historyFold) error {
	var first [2]sql.NullString
	err := tx.QueryRow(`SELECT dimension, sitting FROM live_actions WHERE annotator = ?1 AND kind <> 'note' ORDER BY id LIMIT 1`, h.annotator).Scan(&first[0], &first[1])
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	rows, err := tx.Query(`SELECT group_id, kind, item_id, criterion, NULLIF(dimension, ?2), value, at, appeared_at,
			shown, retest, NULLIF(sitting, ?3), guidelines_id, reason, tag
		FROM live_actions WHERE annotator = ?1 AND kind <> 'note' ORDER BY id`, h.annotator, first[0].String, first[1].String)
	if err != nil {
		return err
	}
	defer rows.Close()
	orFirst := func(s sql.NullString, i int) string {
		if s.Valid {
			return h.intern.of(s.String)
		}
		return first[i].String
	}
	for rows.Next() {
		var (
			d                                   stats.Decision
			kind, at                            string
			dim, sitting, reason, tag, appeared sql.NullString
			value                               any
			shown, guidelines                   sql.NullInt64
		)
		if err := rows.Scan(&d.Group, &kind, &d.ItemID, &d.Criterion, &dim, &value, &at, &appeared,
			&shown, &d.Retest, &sitting, &guidelines, &reason, &tag); err != nil {
			return err
		}
		if kind == "" {
			continue
		}
		d.Dimension = orFirst(dim, 0)
		d.Value, d.HasValue = codec.decode(d.Dimension, value)
		d.Shown = shownOf(shownFromColumn(shown))
		d.Sitting, d.Guidelines = orFirst(sitting, 1), guidelines.Int64
		if appeared.Valid {
			d.Seconds, d.Timed = secondsBetween(appeared.String, at)
		}
		on := false
		switch x := value.(type) {
		case int64:
			on = x == 1
		case float64:
			on = x == 1
		}
		h.action(kind[0], d, reason.String, tag.String, on)
	}
	return rows.Err()
}

// secondsBetween is the time from one stored time to another, in seconds.
// Stored times have one layout (timeLayout), read here without
// time.Parse, which a hundred thousand decisions would notice; another
// layout (a hand edit) goes through parseStamp.
func secondsBetween(from, to string) (float64, bool) {
	a, ok1 := stampMillis(from)
	b, ok2 := stampMillis(to)
	if ok1 && ok2 {
		return float64(b-a) / 1000, true
	}
	t0, err0 := parseStamp(from)
	t1, err1 := parseStamp(to)
	if err0 != nil || err1 != nil {
		return 0, false
	}
	return t1.Sub(t0).Seconds(), true
}

// stampMillis reads a time stored as timeLayout (2006-01-02T15:04:05.000Z)
// as milliseconds since 1970; false for any other text.
func stampMillis(s string) (int64, bool) {
	if len(s) != len(timeLayout) || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != '.' || s[23] != 'Z' {
		return 0, false
	}
	var f [7]int64
	for i, p := range [7][2]int{{0, 4}, {5, 2}, {8, 2}, {11, 2}, {14, 2}, {17, 2}, {20, 3}} {
		for _, c := range []byte(s[p[0] : p[0]+p[1]]) {
			if c < '0' || c > '9' {
				return 0, false
			}
			f[i] = f[i]*10 + int64(c-'0')
		}
	}
	if f[1] < 1 || f[1] > 12 || f[2] < 1 || f[2] > 31 || f[3] > 23 || f[4] > 59 || f[5] > 60 {
		return 0, false
	}
	days := daysFromCivil(f[0], f[1], f[2])
	return ((days*24+f[3])*60+f[4])*60000 + f[5]*1000 + f[6], true
}

// daysFromCivil is the number of days from 1970-01-01 to the date, in
// the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}
