package sessions

import (
	"database/sql"
	"strconv"
	"strings"

	"github.com/gavel-dev/gavel/sessions/stats"
)

// historyPacked reads an annotator's history as one row of lists (see
// stats_input_packed.go): a hundred thousand decisions a row at a time
// cost the driver far more than SQLite. The one-character lists (the
// kind's first letter, shown as 0, 1 or 2 for NULL, retest) are joined
// with nothing; a value is written with a "t" before it when it is text
// (a category's name), so that it is decoded as the row reader decodes
// it. The ids come along to check that the lists are in the order of the
// history (the index on annotator and id gives it).
const historyPacked = `SELECT count(*),
	group_concat(id, ','), group_concat(group_id, ','), group_concat(criterion, ','),
	group_concat(substr(kind, 1, 1), ''), group_concat(coalesce(shown, 2), ''), group_concat(retest, ''),
	group_concat(coalesce(guidelines_id, 0), ','),
	group_concat(item_id, char(30)), group_concat(dimension, char(30)), group_concat(coalesce(sitting, ''), char(30)),
	group_concat(at, char(30)), group_concat(coalesce(appeared_at, ''), char(30)),
	group_concat(iif(typeof(value) = 'text', 't' || value, coalesce(value, '')), char(30)),
	group_concat(coalesce(reason, ''), ','), group_concat(coalesce(tag, ''), char(30))
FROM live_actions WHERE annotator = ? AND kind <> 'note'`

// readHistoryPacked folds an annotator's history read packed into h. ok
// is false when the lists cannot be read (a text holding a separator, a
// list too long for SQLite, rows out of order): the row reader reads it.
func readHistoryPacked(tx *sql.Tx, codec *valueCodec, h *historyFold) (ok bool, err error) {
	var n int64
	var cols [15]sql.NullString
	dest := []any{&n}
	for i := range cols {
		dest = append(dest, &cols[i])
	}
	if err := tx.QueryRow(historyPacked, h.annotator).Scan(dest...); err != nil {
		return false, ignore(err, unpackable)
	}
	if n == 0 {
		return true, nil
	}
	seps := [15]byte{',', ',', ',', 0, 0, 0, ',', packSep, packSep, packSep, packSep, packSep, packSep, ',', packSep}
	var lists [15]packedList
	for i, c := range cols {
		if seps[i] == 0 {
			if !c.Valid || int64(len(c.String)) != n {
				return false, nil
			}
			continue
		}
		l, ok := splitPacked(c, seps[i], n)
		if !ok {
			return false, nil
		}
		lists[i] = l
	}
	kinds, shown, retest := cols[3].String, cols[4].String, cols[5].String
	ids, groups, crits, guides := &lists[0], &lists[1], &lists[2], &lists[6]
	items, dims, sittings, ats, appeareds, values, reasons, tags := &lists[7], &lists[8], &lists[9], &lists[10], &lists[11], &lists[12], &lists[13], &lists[14]
	last := int64(-1)
	for i := range n {
		id, ok1 := packedNumber(ids.next())
		group, ok2 := packedNumber(groups.next())
		crit, ok3 := packedNumber(crits.next())
		guide, ok4 := packedNumber(guides.next())
		if !ok1 || !ok2 || !ok3 || !ok4 || id <= last || crit != int64(int(crit)) {
			return false, nil
		}
		last = id
		d := stats.Decision{Group: group, ItemID: items.next(), Criterion: int(crit), Guidelines: guide,
			Dimension: h.intern.of(dims.next()), Sitting: h.intern.of(sittings.next()), Retest: retest[i] == '1'}
		switch shown[i] {
		case '0':
			d.Shown = stats.ShownBlind
		case '1':
			d.Shown = stats.ShownVerdict
		}
		at, appeared := ats.next(), appeareds.next()
		if appeared != "" {
			d.Seconds, d.Timed = secondsBetween(appeared, at)
		}
		raw, reason, tag := values.next(), reasons.next(), tags.next()
		d.Value, d.HasValue = decodePacked(codec, d.Dimension, raw)
		h.action(kinds[i], d, reason, tag, d.HasValue && d.Value == 1)
	}
	return true, nil
}

// decodePacked decodes a value as historyPacked writes it: "" for NULL,
// "t" and the text for a text value, the number otherwise.
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
