package sessions

import (
	"cmp"
	"database/sql"
	"slices"
	"strings"

	"github.com/gavel-dev/gavel/sessions/stats"
)

// statsUnits finds a unit of the statistics input from the item id and
// criterion a verdict or label row names. Each item's units are laid out
// together (the whole item, then its criteria in order). Rows mostly come
// in dataset order (verdicts by id) or in id order (labels by their key),
// so find first tries the unit after the last one found in each order and
// only then searches the ids: no map of a million strings to build and
// probe.
type statsUnits struct {
	units []stats.Unit
	// byID lists each item's id with its whole-item unit, in id order.
	byID []idUnit
	// last is the unit find found last; lastID its item's place in byID,
	// or -1 when that was not looked up.
	last, lastID int
	// idxs lists the items' idx in ascending (dataset) order.
	idxs []int64
}

// idUnit is an item id and the index of its whole-item unit.
type idUnit struct {
	id   string
	unit int
}

// find is the index in units of (item, crit), or false when the session
// has no such unit (an item not in the dataset, a criterion it lacks).
func (u *statsUnits) find(item string, crit int) (int, bool) {
	if crit < 0 {
		return 0, false
	}
	for _, c := range [2]int{u.last, u.last + 1} {
		if c < len(u.units) && u.units[c].ItemID == item {
			return u.at(c-u.units[c].Criterion, item, crit)
		}
	}
	p := u.lastID + 1
	if p >= len(u.byID) || u.byID[p].id != item {
		var found bool
		p, found = slices.BinarySearchFunc(u.byID, item, func(e idUnit, id string) int { return strings.Compare(e.id, id) })
		if !found {
			return 0, false
		}
	}
	u.lastID = p
	return u.at(u.byID[p].unit, item, crit)
}

// at is the unit of criterion crit of the item whose units start at base.
func (u *statsUnits) at(base int, item string, crit int) (int, bool) {
	i := base + crit
	if i >= len(u.units) || u.units[i].Criterion != crit || u.units[i].ItemID != item {
		return 0, false
	}
	u.last = i
	return i, true
}

// readStatsUnits makes one unit per item in dataset order, followed by one
// per rubric criterion when some judge rates criteria. Only ids and
// criteria counts are read (the items' text is not needed); the segments
// are read beside (scanSegmentGroups) and added by addSegments.
//
// The ids come without ORDER BY, which lets SQLite read them from the
// item_id index alone instead of the whole items table; they are put in
// dataset order here.
func readStatsUnits(tx *sql.Tx, perCriterion bool, in *stats.Input) (*statsUnits, error) {
	items, err := readStatsItems(tx)
	if err != nil {
		return nil, err
	}
	// items came in id order (from the index), which find's byID keeps;
	// order lists them in dataset order.
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	byIdx := func(a, b int) int { return cmp.Compare(items[a].idx, items[b].idx) }
	if !slices.IsSortedFunc(order, byIdx) {
		slices.SortFunc(order, byIdx)
	}
	idxs := make([]int64, len(items))
	for i, k := range order {
		idxs[i] = items[k].idx
	}

	criteria := map[string]int{}
	if perCriterion {
		if criteria, err = readCriteriaCounts(tx); err != nil {
			return nil, err
		}
	}

	in.Units = make([]stats.Unit, 0, len(items))
	byID := make([]idUnit, len(items))
	for _, k := range order {
		it := items[k]
		byID[k] = idUnit{it.id, len(in.Units)}
		in.Units = append(in.Units, stats.Unit{ItemID: it.id})
		for c := 1; c <= criteria[it.id]; c++ {
			in.Units = append(in.Units, stats.Unit{ItemID: it.id, Criterion: c})
		}
	}
	cmpID := func(a, b idUnit) int { return strings.Compare(a.id, b.id) }
	if !slices.IsSortedFunc(byID, cmpID) {
		slices.SortFunc(byID, cmpID)
	}
	return &statsUnits{units: in.Units, byID: byID, lastID: -1, idxs: idxs}, nil
}

// statsItem is an item's place in the dataset and its id.
type statsItem struct {
	idx int64
	id  string
}

// readStatsItems reads every item's idx and id, packed when it can
// (readPackedItems), in the order of the item_id index.
func readStatsItems(tx *sql.Tx) ([]statsItem, error) {
	if packedReads {
		items, ok, err := readPackedItems(tx)
		if err != nil || ok {
			return items, err
		}
	}
	return readItemRows(tx)
}

// readPackedItems reads the items' idx and ids as two packed lists (see
// stats_input_packed.go); ok is false when an id holds packSep.
func readPackedItems(tx *sql.Tx) ([]statsItem, bool, error) {
	var (
		n        int64
		idx, ids sql.NullString
	)
	err := tx.QueryRow(`SELECT count(*), group_concat(idx, ','), group_concat(item_id, char(30)) FROM items`).Scan(&n, &idx, &ids)
	if err != nil {
		return nil, false, ignore(err, unpackable)
	}
	idxList, ok1 := splitPacked(idx, ',', n)
	idList, ok2 := splitPacked(ids, packSep, n)
	if !ok1 || !ok2 {
		return nil, false, nil
	}
	items := make([]statsItem, n)
	for i := range items {
		x, ok := packedNumber(idxList.next())
		if !ok {
			return nil, false, nil
		}
		items[i] = statsItem{idx: x, id: idList.next()}
	}
	return items, true, nil
}

// readItemRows reads every item's idx and id a row at a time.
func readItemRows(tx *sql.Tx) ([]statsItem, error) {
	var items []statsItem
	rows, err := tx.Query(`SELECT idx, item_id FROM items`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var it statsItem
		if err := rows.Scan(&it.idx, &it.id); err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	return items, rows.Err()
}

// readCriteriaCounts is the number of rubric criteria of each item that has
// some.
func readCriteriaCounts(tx *sql.Tx) (map[string]int, error) {
	criteria := map[string]int{}
	rows, err := tx.Query(`SELECT item_id, max(criterion) FROM item_criteria GROUP BY item_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var k int
		if err := rows.Scan(&id, &k); err != nil {
			return nil, err
		}
		criteria[id] = k
	}
	return criteria, rows.Err()
}

// hintUnits gives each decision its unit (stats.Decision.Unit), which
// find finds in a step or two when the decisions follow the dataset's
// order or the ids' (a review in order, a script), by a binary search
// otherwise; the statistics would otherwise look every one up in a map of
// every unit.
func hintUnits(ds []stats.Decision, units *statsUnits) {
	for i := range ds {
		if u, ok := units.find(ds[i].ItemID, ds[i].Criterion); ok {
			ds[i].Unit = int32(u + 1)
		}
	}
}
