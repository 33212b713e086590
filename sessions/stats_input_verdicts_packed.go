package sessions

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"
)

// packedVerdict is the condition under which a verdict is read packed:
// ok, without extra fields (no samples, no extras to read) and with a run
// and criterion that packedVerdictCode holds without overflow. The others
// (failed verdicts, verdicts with extra fields) are read a row at a time.
const packedVerdict = `v.status = 'ok' AND v.extra IS NULL AND v.criterion < 1048576 AND abs(v.run_id) < 2199023255552`

// packedVerdictCode is a packed verdict's run, criterion and order in one
// number (unpackVerdict reads it back).
const packedVerdictCode = `((v.run_id << 20) | v.criterion) << 1 | v.swapped`

// unpackVerdict reads packedVerdictCode.
func unpackVerdict(code int64) (run int64, crit int, swapped bool) {
	return code >> 21, int(code>>1) & (1<<20 - 1), code&1 == 1
}

// slowVerdict marks, among the packed codes, a verdict read a row at a
// time: no code is this low (|run| < 2^41).
const slowVerdict = math.MinInt64

// readPackedVerdicts gives every verdict to fn in id order, as
// readVerdictRows does, reading the ok ones without extra fields packed
// (see stats_input_packed.go) and the others a row at a time. ok is false,
// before any verdict was given to fn, when the packed lists cannot be
// read: an item id holding packSep, or (never seen) ids out of order.
func readPackedVerdicts(tx *sql.Tx, fn func(*verdictRow)) (ok bool, err error) {
	var (
		n                int64
		idList, itemList sql.NullString
		codeList         sql.NullString
	)
	err = tx.QueryRow(`SELECT count(*), group_concat(v.id, ','), group_concat(v.item_id, char(30)), `+
		packedInt(packedVerdict, packedVerdictCode)+` FROM verdicts v`).Scan(&n, &idList, &itemList, &codeList)
	if err != nil {
		return false, ignore(err, unpackable)
	}
	idsP, ok1 := splitPacked(idList, ',', n)
	items, ok2 := splitPacked(itemList, packSep, n)
	codesP, ok3 := splitPacked(codeList, ',', n)
	if !ok1 || !ok2 || !ok3 {
		return false, nil
	}
	ids := make([]int64, n)
	codes := make([]int64, n)
	slow := 0
	for i := range ids {
		id, ok := packedNumber(idsP.next())
		if !ok || (i > 0 && id <= ids[i-1]) {
			return false, nil
		}
		ids[i] = id
		c := codesP.next()
		if c == packSlow {
			codes[i] = slowVerdict
			slow++
			continue
		}
		if codes[i], ok = packedNumber(c); !ok {
			return false, nil
		}
	}
	if slow == len(ids) && slow > 0 {
		return false, nil // none packed: the row reader reads them as they come
	}
	var others []verdictRow
	if slow > 0 {
		err := readVerdictRows(tx, `WHERE `+slowRows(packedVerdict), func(r *verdictRow) { others = append(others, *r) })
		if err != nil {
			return false, err
		}
		// They must be the rows marked slow, in the same order.
		if len(others) != slow {
			return false, nil
		}
		j := 0
		for i, c := range codes {
			if c == slowVerdict {
				if others[j].id != ids[i] {
					return false, nil
				}
				j++
			}
		}
	}
	j := 0
	var r verdictRow
	for i, c := range codes {
		item := items.next()
		if c == slowVerdict {
			fn(&others[j])
			j++
			continue
		}
		r = verdictRow{id: ids[i], item: item}
		r.run, r.crit, r.swapped = unpackVerdict(c)
		fn(&r)
	}
	return true, nil
}

// packedValue is the condition under which a verdict value is read
// packed: of the first value's dimension (?1), and a whole number.
const packedValue = `dimension = ?1 AND ` + wholeValue

// maxValueDims bounds the packed reads of the verdict values: one per
// dimension met, the rest left to the row reader.
const maxValueDims = 8

// readPackedValues reads the verdict values as scanVerdictValues does:
// those of the first value's dimension that are whole numbers packed (see
// stats_input_packed.go), then those of each other dimension met (up to
// maxValueDims), then the rest (not whole numbers, of dimensions stored as
// names) a row at a time. ok is false when the packed lists cannot be
// read.
func readPackedValues(tx *sql.Tx, codec *valueCodec) (out []verdictValue, ok bool, err error) {
	var dim string
	err = tx.QueryRow(`SELECT dimension FROM verdict_values LIMIT 1`).Scan(&dim)
	if err == sql.ErrNoRows {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	if _, named := codec.scales[dim]; named {
		return nil, false, nil // stored as names, which are not packed
	}
	// Every value, those of the first dimension packed, the others marked.
	out, _, slow, ok, err := packValues(tx, codec, dim, packedInt(packedValue, castValue)+` FROM verdict_values`)
	if err != nil || !ok || slow == 0 {
		return out, ok, err
	}
	packed := []any{dim} // the dimensions read packed
	seen := packed       // and those met
	remaining := slow    // the values not read yet
	rows := false        // some are left to the row reader
	for remaining > 0 && len(seen) < maxValueDims {
		var d string
		err := tx.QueryRow(`SELECT dimension FROM verdict_values WHERE dimension NOT IN (`+placeholders(len(seen))+`) LIMIT 1`, seen...).Scan(&d)
		if errors.Is(err, sql.ErrNoRows) {
			break
		}
		if err != nil {
			return nil, false, err
		}
		seen = append(seen[:len(seen):len(seen)], d)
		if _, named := codec.scales[d]; named {
			rows = true // stored as names, which are not packed
			continue
		}
		more, m, slow, ok, err := packValues(tx, codec, d, packedInt(wholeValue, castValue)+` FROM verdict_values WHERE dimension = ?1`)
		if err != nil || !ok {
			return nil, ok, err
		}
		out = mergeValues(out, more)
		packed = append(packed[:len(packed):len(packed)], d)
		remaining -= m
		rows = rows || slow > 0
	}
	if remaining > 0 || rows {
		others, err := readValueRows(tx, codec, `WHERE `+slowRows(wholeValue+` AND dimension IN (`+placeholders(len(packed))+`)`), packed...)
		if err != nil {
			return nil, false, err
		}
		out = mergeValues(out, others)
	}
	return out, true, nil
}

// packValues runs the packed query of the values whose aggregate list
// (after the ids') and FROM clause are list, dim being parameter ?1, and
// gives the values it packs (of dimension dim), in verdict id order. It
// tells how many values the lists hold and how many are left to the row
// reader; ok is false when the lists cannot be read.
func packValues(tx *sql.Tx, codec *valueCodec, dim, list string) (out []verdictValue, n, slow int64, ok bool, err error) {
	var idList, valueList sql.NullString
	err = tx.QueryRow(`SELECT count(*), group_concat(verdict_id, ','), `+list, dim).Scan(&n, &idList, &valueList)
	if err != nil {
		return nil, 0, 0, false, ignore(err, unpackable)
	}
	ids, ok1 := splitPacked(idList, ',', n)
	values, ok2 := splitPacked(valueList, ',', n)
	if !ok1 || !ok2 {
		return nil, 0, 0, false, nil
	}
	out = make([]verdictValue, 0, n)
	last := int64(math.MinInt64)
	for range n {
		id, ok := packedNumber(ids.next())
		if !ok || id < last {
			return nil, 0, 0, false, nil
		}
		last = id
		v := values.next()
		if v == packSlow {
			slow++
			continue
		}
		x, ok := packedNumber(v)
		if !ok {
			return nil, 0, 0, false, nil
		}
		if f, ok := codec.decode(dim, float64(x)); ok {
			out = append(out, verdictValue{id, dim, f})
		}
	}
	return out, n, slow, true, nil
}

// placeholders is "?1, ?2, …, ?n".
func placeholders(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "?%d", i)
	}
	return b.String()
}

// mergeValues merges two lists of values in verdict id order into one.
func mergeValues(a, b []verdictValue) []verdictValue {
	out := make([]verdictValue, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if b[0].id < a[0].id {
			out = append(out, b[0])
			b = b[1:]
		} else {
			out = append(out, a[0])
			a = a[1:]
		}
	}
	out = append(out, a...)
	return append(out, b...)
}
