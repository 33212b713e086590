package sessions

import (
	"database/sql"
	"errors"
	"slices"
)

// packedLabel is the condition under which an annotator's current label
// is read packed: on a whole item, of the annotator's first label's
// dimension (parameter dim) and way of reaching the item (via), and a
// whole number.
func packedLabel(dim, via string) string {
	return `criterion = 0 AND dimension = ` + dim + ` AND via = ` + via + ` AND ` + wholeValue
}

// readPackedLabels reads the current labels as readLabelRows does, an
// annotator at a time (the current labels are keyed by annotator first,
// so each annotator's are a range of the key): those packedLabel covers
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

// readAnnotatorPacked adds to out one annotator's current labels (first:
// the annotator, the dimension and via of its first label) for
// readPackedLabels. When the annotator is the only one (only), every
// label is theirs, and SQLite need not compare each label's annotator.
func readAnnotatorPacked(tx *sql.Tx, codec *valueCodec, first [3]string, only bool, out *scannedLabels) (bool, error) {
	annotator, dim, via := first[0], first[1], first[2]
	var (
		n                  int64
		itemList, valueLst sql.NullString
	)
	theirs := `WHERE annotator = ?3`
	if only {
		theirs = `WHERE ?3 IS NOT NULL` // a constant: no test per label
	}
	err := tx.QueryRow(`SELECT count(*), group_concat(item_id, char(30)), `+packedInt(packedLabel("?1", "?2"), `CAST(value AS INTEGER)`)+
		` FROM current_labels `+theirs, dim, via, annotator).Scan(&n, &itemList, &valueLst)
	if err != nil {
		return false, ignore(err, unpackable)
	}
	items, ok1 := splitPacked(itemList, packSep, n)
	values, ok2 := splitPacked(valueLst, ',', n)
	if !ok1 || !ok2 {
		return false, nil
	}
	out.list = slices.Grow(out.list, int(n))
	kind := out.kinds.of(labelKind{dim, annotator, via})
	slow := false
	for range n {
		item, v := items.next(), values.next()
		if v == packSlow {
			slow = true
			continue
		}
		x, ok := packedNumber(v)
		if !ok {
			return false, nil
		}
		if f, ok := codec.decode(dim, float64(x)); ok {
			out.add(item, 0, kind, f)
		}
	}
	if slow {
		err := readLabelRows(tx, codec, out, `WHERE annotator = ?3 AND `+slowRows(packedLabel("?1", "?2")), dim, via, annotator)
		if err != nil {
			return false, err
		}
	}
	return true, nil
}
