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

// scannedLabels are the current labels as scanStatsLabels reads them,
// before their units are known.
type scannedLabels struct {
	list  []scannedLabel
	kinds labelKinds
}

// scannedLabel is one current label. Its dimension, annotator and way of
// reaching the item are a labelKind, for a million labels name a few.
type scannedLabel struct {
	item  string
	crit  int32
	kind  uint32
	value float64
}

// labelKind is the dimension, annotator and via of labels.
type labelKind struct {
	dim, annotator, via string
}

// labelKinds numbers the labelKinds met.
type labelKinds struct {
	list  []labelKind
	index map[labelKind]uint32
}

// of is k's number.
func (ks *labelKinds) of(k labelKind) uint32 {
	if i, ok := ks.index[k]; ok {
		return i
	}
	if ks.index == nil {
		ks.index = map[labelKind]uint32{}
	}
	i := uint32(len(ks.list))
	ks.list = append(ks.list, k)
	ks.index[k] = i
	return i
}

// add adds a label, leaving out a criterion beyond int32 (no unit has it).
func (s *scannedLabels) add(item string, crit int64, kind uint32, value float64) {
	if crit == int64(int32(crit)) {
		s.list = append(s.list, scannedLabel{item: item, crit: int32(crit), kind: kind, value: value})
	}
}

// statsLabelRow is one current label as addStatsLabels sorts it: rank
// orders its kind by dimension, then annotator.
type statsLabelRow struct {
	unit       int
	rank, kind uint32
	value      float64
}

// scanStatsLabels reads every current label whose value its scale can
// read, packed when it can (readPackedLabels), else a row at a time.
func scanStatsLabels(tx *sql.Tx, codec *valueCodec) (*scannedLabels, error) {
	if packedReads {
		list, ok, err := readPackedLabels(tx, codec)
		if err != nil || ok {
			return list, err
		}
	}
	out := &scannedLabels{}
	return out, readLabelRows(tx, codec, out, "")
}

// readLabelRows adds to out, read a row at a time, the current labels the
// condition where (a WHERE clause with parameters args, or "") selects, those whose value its scale can read. The stored current
// labels are read in their own order, without a join or ORDER BY: SQLite
// would sort a million rows through a temporary b-tree, and
// addStatsLabels sorts them faster.
func readLabelRows(tx *sql.Tx, codec *valueCodec, out *scannedLabels, where string, args ...any) error {
	// The driver copies every text value into a new string. A column
	// equal to the first label's comes back NULL instead: in most sessions
	// one dimension, a few annotators and a few ways of reaching an item
	// cover nearly every label.
	var first [3]string
	err := tx.QueryRow(`SELECT dimension, annotator, via FROM current_labels `+where+` LIMIT 1`, args...).Scan(&first[0], &first[1], &first[2])
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	k := len(args) // the first label's columns are the parameters after args
	rows, err := tx.Query(fmt.Sprintf(`SELECT item_id, criterion, NULLIF(dimension, ?%d), value, NULLIF(annotator, ?%d), NULLIF(via, ?%d)
		FROM current_labels `, k+1, k+2, k+3)+where, slices.Concat(args, []any{first[0], first[1], first[2]})...)
	if err != nil {
		return err
	}
	defer rows.Close()
	intern := stringInterner{}
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
			crit                int64
			raw                 any
		)
		if err := rows.Scan(&item, &crit, &dim, &raw, &annotator, &via); err != nil {
			return err
		}
		d := orFirst(dim, 0)
		value, readable := codec.decode(d, raw)
		if !readable {
			continue
		}
		out.add(item, crit, out.kinds.of(labelKind{d, orFirst(annotator, 1), orFirst(via, 2)}), value)
	}
	return rows.Err()
}

// addStatsLabels gives the scanned labels to their units (leaving out
// those of units the session lacks), as the statistics have always
// received them: sorted by unit, then dimension, then annotator, a unit's
// labels listing each annotator once, in the order that sort first meets
// them. It tells the values labelled on each dimension.
func addStatsLabels(units *statsUnits, scanned *scannedLabels) map[string]map[float64]bool {
	kinds := scanned.kinds.list
	// rank orders the kinds by dimension, then annotator; kinds differing
	// in via alone never meet on one unit and dimension (an annotator has
	// one current label there).
	byName := make([]uint32, len(kinds))
	for i := range byName {
		byName[i] = uint32(i)
	}
	slices.SortFunc(byName, func(a, b uint32) int {
		ka, kb := kinds[a], kinds[b]
		if c := cmp.Compare(ka.dim, kb.dim); c != 0 {
			return c
		}
		return cmp.Compare(ka.annotator, kb.annotator)
	})
	rank := make([]uint32, len(kinds))
	for r, k := range byName {
		rank[k] = uint32(r)
	}
	list := make([]statsLabelRow, 0, len(scanned.list))
	labelled := map[string]map[float64]bool{}
	// last is the value a kind's previous label had: a million labels of
	// a kind that repeat a handful of values add them only when it changes.
	last := make([]float64, len(kinds))
	for i := range last {
		last[i] = math.NaN() // never a label's value
	}
	for _, l := range scanned.list {
		u, ok := units.find(l.item, int(l.crit))
		if !ok {
			continue
		}
		list = append(list, statsLabelRow{unit: u, rank: rank[l.kind], kind: l.kind, value: l.value})
		if l.value != last[l.kind] {
			last[l.kind] = l.value
			dim := kinds[l.kind].dim
			if labelled[dim] == nil {
				labelled[dim] = map[float64]bool{}
			}
			labelled[dim][l.value] = true
		}
	}
	order := func(a, b statsLabelRow) int {
		if c := cmp.Compare(a.unit, b.unit); c != 0 {
			return c
		}
		return cmp.Compare(a.rank, b.rank)
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
		foldUnitLabels(&in[u], list[start:end], kinds, shared)
		start = end
	}
	return labelled
}

// foldUnitLabels adds one unit's sorted label rows to it: a Label per
// annotator, in the order the rows first name them, holding a value per
// dimension. When the rows are all of one dimension, each annotator has
// one value, and the labels share one map per value (oneValue).
func foldUnitLabels(unit *stats.Unit, rows []statsLabelRow, kinds []labelKind, shared oneValue) {
	if kinds[rows[0].kind].dim == kinds[rows[len(rows)-1].kind].dim {
		// sorted by dimension first: one dimension, an annotator per row
		for _, r := range rows {
			k := kinds[r.kind]
			unit.Labels = append(unit.Labels, stats.Label{Annotator: k.annotator, Values: shared.of(k.dim, r.value), Provenance: k.via})
		}
		return
	}
	for _, r := range rows {
		k := kinds[r.kind]
		i := slices.IndexFunc(unit.Labels, func(l stats.Label) bool { return l.Annotator == k.annotator })
		if i < 0 {
			i = len(unit.Labels)
			unit.Labels = append(unit.Labels, stats.Label{Annotator: k.annotator, Values: map[string]float64{}, Provenance: k.via})
		}
		unit.Labels[i].Values[k.dim] = r.value
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
