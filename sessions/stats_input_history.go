package sessions

import (
	"database/sql"
	"errors"
	"slices"

	"github.com/gavel-dev/gavel/sessions/stats"
)

// historyPart is the histories of every other annotator, read and folded
// in a transaction of its own, so that the histories of several
// annotators are read on two connections at once (readStatsInputWith):
// part 0 those of the first, third, … annotator in the actions_labelling
// index, part 1 the others. Each annotator's history is read whole and
// in order (readHistory), so that it is folded as it is read and the
// fold is the annotator's: gatherHistories only puts the parts'
// annotators back in order.
//
// One annotator's history is not split between connections (it was, in
// two halves by id): the fold is sequential, so the second half waited
// until every read was over to be folded after the first, on the one
// goroutine left, while on two cores the connections already keep both
// busy; with more cores the verdicts' read (readStatsJudged) is the
// longest anyway, a screen history of as many decisions as there are
// verdicts taking about three fifths of its time (at 100,000 items as at
// 1,000,000).
type historyPart struct {
	// who lists the annotators in the actions_labelling index, folds the
	// histories of the part's among them.
	who   []string
	folds map[string]*historyFold
}

// readHistoryPart reads and folds part 0 or 1 of the annotators'
// histories (see historyPart).
func readHistoryPart(tx *sql.Tx, o StatsOptions, part int) (*historyPart, error) {
	h := &historyPart{folds: map[string]*historyFold{}}
	var err error
	if h.who, err = labellingAnnotators(tx); err != nil || len(h.who) <= part {
		return h, err
	}
	codec, err := loadCodec(tx)
	if err != nil {
		return nil, err
	}
	names, err := statsRunNames(tx)
	if err != nil {
		return nil, err
	}
	for i := part; i < len(h.who); i += 2 {
		a := h.who[i]
		if h.folds[a], err = readHistory(tx, codec, names, a, o.Guidelines != GuidelinesAll); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// gatherHistories gathers every annotator's marks, tags and decisions
// from the two parts, in the order of the annotators; false when the
// parts do not list the same annotators (read at two moments).
func gatherHistories(p0, p1 *historyPart) (*historiesRead, bool) {
	if !slices.Equal(p0.who, p1.who) {
		return nil, false
	}
	r := &historiesRead{}
	for i, a := range p0.who {
		f := p0.folds[a]
		if i%2 == 1 {
			f = p1.folds[a]
		}
		if f == nil {
			return nil, false
		}
		f.into(r)
	}
	return r, true
}

// readHistory reads and folds an annotator's history. Of one whose
// decisions do not record how they were made (recordsHow), only the
// history of the items they marked or tagged is read, by the row reader.
// Another's is read packed, in chunks of historyChunk ids, each folded as
// it is read, and whole by the row reader when a chunk cannot be read.
func readHistory(tx *sql.Tx, codec *valueCodec, names map[int64]string, a string, guidelines bool) (*historyFold, error) {
	f := newFold(a, names, guidelines)
	how, err := recordsHow(tx, a)
	if err != nil {
		return nil, err
	}
	if !how {
		return f, readHistoryRows(tx, codec, f, onlyMarkedOrTagged)
	}
	if packedReads {
		ok, err := readPackedHistories(tx, codec, f)
		if err != nil || ok {
			return f, err
		}
		if packedMissed != nil {
			packedMissed(a)
		}
		f = newFold(a, names, guidelines)
	}
	return f, readHistoryRows(tx, codec, f, "")
}

// readPackedHistories reads and folds f's annotator's history packed, in
// chunks of historyChunk ids (from the decision log when it holds every
// action of the chunk, else from actions); false when a chunk cannot be
// read (foldPacked).
func readPackedHistories(tx *sql.Tx, codec *valueCodec, f *historyFold) (bool, error) {
	a := f.annotator
	lo, hi, err := historyRange(tx, a)
	if err != nil {
		return false, err
	}
	firstDim, undone, err := historyKeys(tx, a)
	if err != nil {
		return false, err
	}
	for from := lo; from < hi; from += historyChunk {
		to := min(from+historyChunk, hi)
		p, err := readLogHistory(tx, a, f.guidelines, firstDim, undone, from, to)
		if err == nil && p == nil {
			p, err = readPackedHistory(tx, a, f.guidelines, firstDim, undone, from, to)
		}
		if err != nil {
			return false, err
		}
		if from == lo {
			// Room for the whole history, from its first chunk's share.
			f.reserve(int((hi - lo) * p.n / max(min(historyChunk, hi-lo), 1)))
		}
		if !foldPacked(codec, f, p) {
			return false, nil
		}
	}
	return true, nil
}

// historyChunk is the most ids a packed read of a history covers: SQLite
// builds its list by doubling a buffer, which at a million actions costs
// more in copies and fresh pages than the list itself; a list of this
// many is cheap, and is dropped once folded. Tests make it small.
var historyChunk int64 = 50_000

// historyRange is the range of ids [lo, hi) of an annotator's history.
// Two looks at the index on annotator and id.
func historyRange(tx *sql.Tx, annotator string) (lo, hi int64, err error) {
	var first, last sql.NullInt64
	if err := tx.QueryRow(`SELECT min(id) FROM actions WHERE annotator = ?1`, annotator).Scan(&first); err != nil {
		return 0, 0, err
	}
	if err := tx.QueryRow(`SELECT max(id) FROM actions WHERE annotator = ?1`, annotator).Scan(&last); err != nil {
		return 0, 0, err
	}
	if !first.Valid || !last.Valid {
		return 0, 0, nil
	}
	return first.Int64, last.Int64 + 1, nil
}

// packedMissed, when set (by tests), hears of each history the packed
// read could not read.
var packedMissed func(annotator string)

// onlyMarkedOrTagged narrows the row reader to the items the annotator
// ever marked "can't judge" or tagged.
const onlyMarkedOrTagged = `AND item_id IN (SELECT item_id FROM actions WHERE annotator = ?1 AND kind IN ('cant_judge', 'tag'))`

// recordsHow tells whether some action of the annotator records how a
// decision was made (a visibility, a time on screen, a re-test), by the
// actions_labelling index (the WHERE term repeats its predicate, so that
// SQLite reads it): the annotators of the review screen do, scripts
// (gavel label, which records a sitting only) and imports do not.
func recordsHow(tx *sql.Tx, annotator string) (bool, error) {
	var one int
	err := tx.QueryRow(`SELECT 1 FROM actions WHERE annotator = ?1 AND (`+labellingPredicate+`)
		AND (shown IS NOT NULL OR appeared_at IS NOT NULL OR retest = 1) LIMIT 1`, annotator).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// historyFold derives the current state of one annotator from their
// history, oldest first. A marked item is one whose latest live label,
// accept or "can't judge" that is not a re-test is a "can't judge" (the
// view current_cant_judge); a tag is on an item when the latest live tag
// action of that tag there put it on (current_tags). Tag actions are
// folded apart from the decisions (tag), each in its own order: neither
// changes the other.
type historyFold struct {
	annotator string
	// names names the runs for Decision.ShownJudge; guidelines says
	// whether decisions carry their guidelines version (a filter needs
	// it).
	names      map[int64]string
	guidelines bool
	intern     stringInterner
	// lastDim, lastSitting and lastShown keep the latest interned or
	// named value: they repeat from one decision to the next.
	lastDim, lastSitting, lastShownText, lastShownJudge string
	lastShown                                           int64
	tags                                                map[tagAt]bool
	tagOrder                                            []tagAt
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

func newFold(annotator string, names map[int64]string, guidelines bool) *historyFold {
	return &historyFold{annotator: annotator, names: names, guidelines: guidelines,
		intern: stringInterner{}, tags: map[tagAt]bool{}, marked: map[string]string{}, lastShown: -1}
}

// reserve makes room for n decisions.
func (h *historyFold) reserve(n int) {
	if cap(h.decisions)-len(h.decisions) < n {
		h.decisions = append(make([]stats.Decision, 0, len(h.decisions)+n), h.decisions...)
	}
}

// dimension and sitting intern a decision's dimension and sitting.
func (h *historyFold) dimension(s string) string {
	if s != h.lastDim {
		h.lastDim = h.intern.of(s)
	}
	return h.lastDim
}

func (h *historyFold) sitting(s string) string {
	if s != h.lastSitting {
		h.lastSitting = h.intern.of(s)
	}
	return h.lastSitting
}

// shown sets d's visibility from actions.shown written as text: "" not
// recorded, 0 hidden, a run's id that run's verdict on screen. False for
// anything else.
func (h *historyFold) shown(d *stats.Decision, text string) bool {
	if text == "" {
		return true
	}
	if text != h.lastShownText {
		n, ok := packedNumber(text)
		if !ok || n < 0 {
			return false
		}
		h.lastShownText, h.lastShown, h.lastShownJudge = text, n, shownJudgeOf(n, h.names)
	}
	h.setShown(d, h.lastShown, h.lastShownJudge)
	return true
}

// setShown sets d's visibility from actions.shown n (not NULL), the
// judge named judgeName.
func (h *historyFold) setShown(d *stats.Decision, n int64, judgeName string) {
	if n == 0 {
		d.Shown = stats.ShownBlind
		return
	}
	d.Shown, d.ShownJudge = stats.ShownVerdict, judgeName
}

// Kinds as the first letter of actions.kind.
const (
	kindLetterLabel     = 'l'
	kindLetterAccept    = 'a'
	kindLetterCantJudge = 'c'
	kindLetterTag       = 't'
)

// decision folds one label, accept or "can't judge": d holds every field
// but Kind and Annotator; reason is a "can't judge"'s.
func (h *historyFold) decision(kind byte, d stats.Decision, reason string) {
	*h.slot() = d
	h.decided(kind, reason)
}

// slot adds a zero decision to h's and gives it, for the caller to fill in
// place and fold with decided, or take back with drop: the packed reader
// fills a hundred thousand, which a copy or two of each (25 words) would
// slow.
func (h *historyFold) slot() *stats.Decision {
	h.decisions = append(h.decisions, stats.Decision{})
	return &h.decisions[len(h.decisions)-1]
}

// drop takes back the decision slot gave.
func (h *historyFold) drop() {
	n := len(h.decisions) - 1
	h.decisions[n] = stats.Decision{}
	h.decisions = h.decisions[:n]
}

// decided folds the decision slot gave, which holds every field but Kind
// and Annotator, as a label, accept or "can't judge" (reason is its
// reason), or takes it back for another kind.
func (h *historyFold) decided(kind byte, reason string) {
	d := &h.decisions[len(h.decisions)-1]
	switch kind {
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
		h.drop()
		return
	}
	d.Annotator = h.annotator
	h.how = h.how || d.Shown != "" || d.Timed || d.Retest
}

// tag folds one tag action: tag put on the item (on) or taken off.
func (h *historyFold) tag(item, tag string, on bool) {
	k := tagAt{item, h.intern.of(tag)}
	if _, seen := h.tags[k]; !seen {
		h.tagOrder = append(h.tagOrder, k)
	}
	h.tags[k] = on
}

// into adds the annotator's marks, tags and decisions to r. An item
// marked, labelled and marked again is twice in markOrder and has one
// mark: each is taken out of marked as it is added.
func (h *historyFold) into(r *historiesRead) {
	for _, item := range h.markOrder {
		if reason, ok := h.marked[item]; ok {
			delete(h.marked, item)
			r.marks = append(r.marks, stats.CantJudgeMark{ItemID: item, Annotator: h.annotator, Reason: reason})
			if r.cantJudge == nil {
				r.cantJudge = map[[2]string]bool{}
			}
			r.cantJudge[[2]string{h.annotator, item}] = true
		}
	}
	for _, k := range h.tagOrder {
		if h.tags[k] {
			r.tags = append(r.tags, stats.TagMark{ItemID: k.item, Annotator: h.annotator, Tag: k.tag})
		}
	}
	if h.how {
		if r.decisions == nil {
			r.decisions = h.decisions // no copy for the first (usually only) annotator
		} else {
			r.decisions = append(r.decisions, h.decisions...)
		}
	}
}

// readHistoryRows reads the history a row at a time, narrowed by where
// (a condition after the annotator's, "" for none). Text columns that
// repeat (the dimension, the sitting) come back NULL when equal to the
// first row's, so that the driver does not copy them for every row; a
// NULL sitting is read as "" first, so that it is not taken for the
// first row's.
func readHistoryRows(tx *sql.Tx, codec *valueCodec, h *historyFold, where string) error {
	var first [2]string
	err := tx.QueryRow(`SELECT dimension, coalesce(sitting, '') FROM live_actions WHERE annotator = ?1 AND kind <> 'note' ORDER BY id LIMIT 1`, h.annotator).Scan(&first[0], &first[1])
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	rows, err := tx.Query(`SELECT group_id, kind, item_id, criterion, NULLIF(dimension, ?2), value, at, appeared_at,
			shown, retest, NULLIF(coalesce(sitting, ''), ?3), guidelines_id, reason, tag
		FROM live_actions WHERE annotator = ?1 AND kind <> 'note' `+where+` ORDER BY id`, h.annotator, first[0], first[1])
	if err != nil {
		return err
	}
	defer rows.Close()
	orFirst := func(s sql.NullString, i int) string {
		if s.Valid {
			return h.intern.of(s.String)
		}
		return first[i]
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
		if kind[0] == kindLetterTag {
			on := false
			switch x := value.(type) {
			case int64:
				on = x == 1
			case float64:
				on = x == 1
			}
			h.tag(d.ItemID, tag.String, on)
			continue
		}
		d.Dimension = orFirst(dim, 0)
		d.Value, d.HasValue = codec.decode(d.Dimension, value)
		if shown.Valid && shown.Int64 >= 0 {
			h.setShown(&d, shown.Int64, shownJudgeOf(shown.Int64, h.names))
		}
		d.Sitting = orFirst(sitting, 1)
		if h.guidelines {
			d.Guidelines = guidelines.Int64
		}
		if appeared.Valid {
			d.Seconds, d.Timed = secondsBetween(appeared.String, at)
		}
		h.decision(kind[0], d, reason.String)
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
