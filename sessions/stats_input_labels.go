package sessions

import (
	"cmp"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/gavel-dev/gavel/sessions/stats"
)

// statsLabelRow is one current label as readStatsLabels sorts it.
type statsLabelRow struct {
	unit                int
	dim, annotator, via string
	value               float64
}

// scannedLabel is a current label as scanStatsLabels reads it, before its
// unit is known.
type scannedLabel struct {
	item                string
	crit                int
	dim, annotator, via string
	value               float64
}

// readStatsLabels adds each annotator's current labels to their units,
// with how the annotator reached the item.
func readStatsLabels(tx *sql.Tx, units *statsUnits, codec *valueCodec) error {
	list, err := scanStatsLabels(tx, codec)
	if err != nil {
		return err
	}
	addStatsLabels(units, list)
	return nil
}

// scanStatsLabels reads every current label whose value its scale can
// read, packed when it can (readPackedLabels), else a row at a time.
func scanStatsLabels(tx *sql.Tx, codec *valueCodec) ([]scannedLabel, error) {
	if packedReads {
		list, ok, err := readPackedLabels(tx, codec)
		if err != nil || ok {
			return list, err
		}
	}
	return readLabelRows(tx, codec, "")
}

// readLabelRows reads a row at a time the current labels the condition
// where (a WHERE clause with parameters args, or "") selects, those whose value its scale can read. The stored current
// labels are read in their own order, without a join or ORDER BY: SQLite
// would sort a million rows through a temporary b-tree, and
// addStatsLabels sorts them faster.
func readLabelRows(tx *sql.Tx, codec *valueCodec, where string, args ...any) ([]scannedLabel, error) {
	// The driver copies every text value into a new string. A column
	// equal to the first label's comes back NULL instead: in most sessions
	// one dimension, a few annotators and a few ways of reaching an item
	// cover nearly every label.
	var first [3]string
	err := tx.QueryRow(`SELECT dimension, annotator, via FROM current_labels `+where+` LIMIT 1`, args...).Scan(&first[0], &first[1], &first[2])
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	k := len(args) // the first label's columns are the parameters after args
	rows, err := tx.Query(fmt.Sprintf(`SELECT item_id, criterion, NULLIF(dimension, ?%d), value, NULLIF(annotator, ?%d), NULLIF(via, ?%d)
		FROM current_labels `, k+1, k+2, k+3)+where, slices.Concat(args, []any{first[0], first[1], first[2]})...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var (
		list   []scannedLabel
		intern = stringInterner{}
	)
	orFirst := func(s sql.NullString, i int) string {
		if s.Valid {
			return intern.of(s.String)
		}
		return first[i]
	}
	for rows.Next() {
		var (
			item                string
			dim, annotator, via sql.NullString
			crit                int
			raw                 any
		)
		if err := rows.Scan(&item, &crit, &dim, &raw, &annotator, &via); err != nil {
			return nil, err
		}
		d := orFirst(dim, 0)
		value, readable := codec.decode(d, raw)
		if !readable {
			continue
		}
		list = append(list, scannedLabel{item: item, crit: crit, dim: d, annotator: orFirst(annotator, 1), via: orFirst(via, 2), value: value})
	}
	return list, rows.Err()
}

// addStatsLabels gives the scanned labels to their units (leaving out
// those of units the session lacks), as the statistics have always
// received them: sorted by unit, then dimension, then annotator, a unit's
// labels listing each annotator once, in the order that sort first meets
// them.
func addStatsLabels(units *statsUnits, scanned []scannedLabel) {
	list := make([]statsLabelRow, 0, len(scanned))
	for _, l := range scanned {
		if u, ok := units.find(l.item, l.crit); ok {
			list = append(list, statsLabelRow{unit: u, dim: l.dim, annotator: l.annotator, via: l.via, value: l.value})
		}
	}
	order := func(a, b statsLabelRow) int {
		if c := cmp.Compare(a.unit, b.unit); c != 0 {
			return c
		}
		if c := cmp.Compare(a.dim, b.dim); c != 0 {
			return c
		}
		return cmp.Compare(a.annotator, b.annotator)
	}
	// One annotator's labels on one dimension, ids in dataset order (the
	// usual imported column), come sorted already.
	if !slices.IsSortedFunc(list, order) {
		slices.SortFunc(list, order)
	}
	in := units.units
	// Every unit's labels come out of one allocation: a unit has at most
	// as many labels as it has rows.
	slab := make([]stats.Label, len(list))
	shared := oneValue{}
	for start := 0; start < len(list); {
		u := list[start].unit
		end := start + 1
		for end < len(list) && list[end].unit == u {
			end++
		}
		in[u].Labels = slab[start:start:end]
		foldUnitLabels(&in[u], list[start:end], shared)
		start = end
	}
}

// foldUnitLabels adds one unit's sorted label rows to it: a Label per
// annotator, in the order the rows first name them, holding a value per
// dimension. When the rows are all of one dimension, each annotator has
// one value, and the labels share one map per value (oneValue).
func foldUnitLabels(unit *stats.Unit, rows []statsLabelRow, shared oneValue) {
	if rows[0].dim == rows[len(rows)-1].dim {
		// sorted by dimension first: one dimension, an annotator per row
		for _, r := range rows {
			unit.Labels = append(unit.Labels, stats.Label{Annotator: r.annotator, Values: shared.of(r.dim, r.value), Provenance: r.via})
		}
		return
	}
	for _, r := range rows {
		i := slices.IndexFunc(unit.Labels, func(l stats.Label) bool { return l.Annotator == r.annotator })
		if i < 0 {
			i = len(unit.Labels)
			unit.Labels = append(unit.Labels, stats.Label{Annotator: r.annotator, Values: map[string]float64{}, Provenance: r.via})
		}
		unit.Labels[i].Values[r.dim] = r.value
	}
}

// oneValue hands out the maps holding a single value, one per dimension
// and value: a million labels or verdicts of one dimension on a binary
// scale share two maps rather than allocating a million. The statistics
// only read them.
type oneValue map[dimValue]map[string]float64

// dimValue is a dimension and the bits of a value (so that -0 and 0 keep
// their own maps).
type dimValue struct {
	dim  string
	bits uint64
}

// of is the shared map {dim: v}.
func (o oneValue) of(dim string, v float64) map[string]float64 {
	k := dimValue{dim, math.Float64bits(v)}
	m, ok := o[k]
	if !ok {
		m = map[string]float64{dim: v}
		o[k] = m
	}
	return m
}

// stringInterner hands back one copy of each distinct string, so that a
// million rows naming a handful of annotators, dimensions and judges keep
// a handful of strings alive rather than a million.
type stringInterner map[string]string

// of is the kept copy of s.
func (in stringInterner) of(s string) string {
	if k, ok := in[s]; ok {
		return k
	}
	in[s] = s
	return s
}
