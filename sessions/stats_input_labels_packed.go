package sessions

import (
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// packedLabel is the condition under which an annotator's current label
// is read packed: on a whole item, of the annotator's first label's
// dimension (parameter dim) and way of reaching the item (via), and a
// whole number.
func packedLabel(dim, via string) string {
	return `criterion = 0 AND dimension = ` + dim + ` AND via = ` + via + ` AND ` + wholeValue
}

// readPackedLabels reads the current labels as readLabelRows does, an
// annotator at a time (the annotators found through actions_by_annotator,
// each in one look): those packedLabel covers
// packed (see stats_input_packed.go), the others a row at a time. ok is
// false when the packed lists cannot be read.
func readPackedLabels(tx *sql.Tx, codec *valueCodec) (out *scannedLabels, ok bool, err error) {
	const firstOf = `SELECT annotator, dimension, via FROM current_labels `
	var annotators [][3]string // annotator, dimension, via of each annotator's first label
	var first [3]string
	err = tx.QueryRow(firstOf+`ORDER BY annotator LIMIT 1`).Scan(&first[0], &first[1], &first[2])
	for ; err == nil; err = tx.QueryRow(firstOf+`WHERE annotator > ?1 ORDER BY annotator LIMIT 1`, first[0]).Scan(&first[0], &first[1], &first[2]) {
		annotators = append(annotators, first)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, false, err
	}
	out = &scannedLabels{}
	for _, first := range annotators {
		if _, named := codec.scales[first[1]]; named {
			// stored as names, which are not packed
			err = readLabelRows(tx, codec, out, `WHERE annotator = ?1`, first[0])
		} else {
			ok, err = readAnnotatorPacked(tx, codec, first, len(annotators) == 1, out)
			if !ok && err == nil {
				return nil, false, nil
			}
		}
		if err != nil {
			return nil, false, err
		}
	}
	return out, true, nil
}

// maxLabelKinds bounds the packed reads of one annotator's labels: one
// per dimension and via met (on whole items), the rest left to the row
// reader.
const maxLabelKinds = 8

// castValue is a packed value: a whole number (wholeValue).
const castValue = `CAST(value AS INTEGER)`

// readAnnotatorPacked adds to out one annotator's current labels (first:
// the annotator, the dimension and via of its first label) for
// readPackedLabels. The labels of the first label's dimension and via are
// read packed, then those of each other dimension and via met on whole
// items (up to maxLabelKinds), then the rest (on criteria, not whole
// numbers, of dimensions stored as names) a row at a time. When the
// annotator is the only one (only), every label is theirs, and SQLite
// need not compare each label's annotator.
func readAnnotatorPacked(tx *sql.Tx, codec *valueCodec, first [3]string, only bool, out *scannedLabels) (bool, error) {
	annotator, dim, via := first[0], first[1], first[2]
	// theirs(p) selects the annotator's labels, the annotator being
	// parameter p.
	theirs := func(p string) string {
		if only {
			return `WHERE ` + p + ` IS NOT NULL` // a constant: no test per label
		}
		return `WHERE annotator = ` + p
	}
	const packedQuery = `SELECT count(*), group_concat(item_id, char(30)), `
	// All of the annotator's labels, those of the first label's kind
	// packed, the others marked.
	_, slow, ok, err := packLabels(tx, codec, out, labelKind{dim, annotator, via},
		packedQuery+packedInt(packedLabel("?1", "?2"), castValue)+` FROM current_labels `+theirs("?3"), dim, via, annotator)
	if err != nil || !ok || slow == 0 {
		return ok, err
	}
	packed := [][2]string{{dim, via}} // the kinds read packed
	seen := packed                    // and those met, on whole items
	remaining := slow                 // the labels not read yet
	rows := false                     // some are left to the row reader
	for remaining > 0 && len(seen) < maxLabelKinds {
		in, args := kindsIn(seen, 2)
		var d, v string
		err := tx.QueryRow(`SELECT dimension, via FROM current_labels `+theirs("?1")+` AND criterion = 0 AND (dimension, via) NOT IN `+in+` LIMIT 1`,
			append([]any{annotator}, args...)...).Scan(&d, &v)
		if errors.Is(err, sql.ErrNoRows) {
			break
		}
		if err != nil {
			return false, err
		}
		seen = append(seen[:len(seen):len(seen)], [2]string{d, v})
		if _, named := codec.scales[d]; named {
			rows = true // stored as names, which are not packed
			continue
		}
		n, slow, ok, err := packLabels(tx, codec, out, labelKind{d, annotator, v},
			packedQuery+packedInt(wholeValue, castValue)+` FROM current_labels `+theirs("?3")+` AND criterion = 0 AND dimension = ?1 AND via = ?2`, d, v, annotator)
		if err != nil || !ok {
			return ok, err
		}
		packed = append(packed[:len(packed):len(packed)], [2]string{d, v})
		remaining -= n
		rows = rows || slow > 0
	}
	if remaining > 0 || rows {
		in, args := kindsIn(packed, 2)
		err := readLabelRows(tx, codec, out, theirs("?1")+` AND `+slowRows(`criterion = 0 AND `+wholeValue+` AND (dimension, via) IN `+in),
			append([]any{annotator}, args...)...)
		if err != nil {
			return false, err
		}
	}
	return true, nil
}

// packLabels runs query, which counts labels and lists their items and
// packed values, and adds the packed ones to out with kind k. It tells
// how many labels the lists hold and how many are left to the row
// reader; ok is false when the lists cannot be read.
func packLabels(tx *sql.Tx, codec *valueCodec, out *scannedLabels, k labelKind, query string, args ...any) (n, slow int64, ok bool, err error) {
	var itemList, valueList sql.NullString
	if err := tx.QueryRow(query, args...).Scan(&n, &itemList, &valueList); err != nil {
		return 0, 0, false, ignore(err, unpackable)
	}
	items, ok1 := splitPacked(itemList, packSep, n)
	values, ok2 := splitPacked(valueList, ',', n)
	if !ok1 || !ok2 {
		return 0, 0, false, nil
	}
	out.list = slices.Grow(out.list, int(n))
	kind := out.kinds.of(k)
	for range n {
		item, v := items.next(), values.next()
		if v == packSlow {
			slow++
			continue
		}
		x, ok := packedNumber(v)
		if !ok {
			return 0, 0, false, nil
		}
		if f, ok := codec.decode(k.dim, float64(x)); ok {
			out.add(item, 0, kind, f)
		}
	}
	return n, slow, true, nil
}

// kindsIn is the SQL list "(VALUES (?a, ?b), …)" of kinds (dimension and
// via), its parameters numbered from first on, and those parameters.
func kindsIn(kinds [][2]string, first int) (string, []any) {
	var b strings.Builder
	args := make([]any, 0, 2*len(kinds))
	b.WriteString("(VALUES ")
	for i, k := range kinds {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(?%d, ?%d)", first+2*i, first+2*i+1)
		args = append(args, k[0], k[1])
	}
	b.WriteString(")")
	return b.String(), args
}
