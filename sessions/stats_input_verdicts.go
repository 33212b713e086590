package sessions

import (
	"cmp"
	"database/sql"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// samplesColumn is a verdict's list of samples as JSON text, or NULL when
// it has none (or its extra fields are not valid JSON). The nested CASE
// keeps SQLite from parsing extra fields that cannot hold samples.
const samplesColumn = `CASE WHEN instr(v.extra, '"` + ExtraSamples + `"') > 0 THEN
	CASE WHEN json_valid(v.extra) THEN
		CASE WHEN json_type(v.extra, '$.` + ExtraSamples + `') = 'array' THEN json_extract(v.extra, '$.` + ExtraSamples + `') END
	END
END`

// maxExtraText is the longest extra value counted as a category: longer
// text is a comment or an answer, not a category.
const maxExtraText = 32

// extrasColumn is, for an ok verdict with extra fields, the short scalar
// fields the report counts (error types, scores, rules) as a JSON list of
// [key, text] pairs; NULL for any other verdict. Byte offsets kept for
// highlighting are left out.
const extrasColumn = `CASE WHEN v.status = 'ok' AND v.extra IS NOT NULL THEN (
	SELECT json_group_array(json_array(j.key,
		CASE j.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE CAST(j.value AS TEXT) END))
	FROM json_each(CASE WHEN json_valid(v.extra) THEN v.extra ELSE '{}' END) j
	WHERE j.type IN ('text', 'integer', 'true', 'false')
	  AND length(CAST(j.value AS TEXT)) <= ` + "?1" + `
	  AND j.key NOT LIKE '%\_start' ESCAPE '\' AND j.key NOT LIKE '%\_end' ESCAPE '\')
END`

// currentKey is what a current verdict is current for: the latest verdict
// of a run per unit and order (the current_verdicts view's grouping).
type currentKey struct {
	run     int64
	swapped bool
	unit    int
}

// extrasOf is the latest verdict of a currentKey that had extra fields
// counted, or a later one without (pairs nil), which takes its place.
type extrasOf struct {
	id    int64
	name  string
	pairs [][2]string
}

// readStatsVerdicts adds every verdict of every run to its unit, oldest
// first (by id, so that the last one of a run is its current verdict, as
// Verdicts has it), and gives each unit's current ok verdicts the short
// scalar fields of their extra JSON as text.
//
// The verdicts' values are not read here: scanVerdictValues reads them
// in one scan (beside, on another connection), and addVerdictValues
// merges them by id, instead of a join that looks up every verdict's
// values (SQLite would seek once per verdict). The extra fields are read in the
// same scan, for ok verdicts only, and a verdict's are kept while no later
// verdict of its run, unit and order replaces it — what the
// current_verdicts view selects with a subquery per row.
//
// The verdicts are read packed (readPackedVerdicts) when they can be,
// else a row at a time.
func readStatsVerdicts(tx *sql.Tx, names map[int64]string, units *statsUnits) ([]verdictPlace, error) {
	p := newVerdictPlacer(names, units)
	ok := false
	if packedReads {
		var err error
		if ok, err = readPackedVerdicts(tx, p.add); err != nil {
			return nil, err
		}
	}
	if !ok {
		if err := readVerdictRows(tx, "", p.add); err != nil {
			return nil, err
		}
	}
	return p.finish(), nil
}

// verdictRow is what the statistics read of a verdict.
type verdictRow struct {
	id, run int64
	item    string
	crit    int
	swapped bool
	// status is NULL for ok (which is then not copied into a new string
	// for every verdict).
	status sql.NullString
	// samples and extra are samplesColumn and extrasColumn.
	samples, extra sql.NullString
}

// readVerdictRows reads the verdicts a row at a time in id order, those
// the condition where (a WHERE clause, or "") selects, giving each to fn.
func readVerdictRows(tx *sql.Tx, where string, fn func(*verdictRow)) error {
	rows, err := tx.Query(`SELECT v.id, v.run_id, v.item_id, v.criterion, v.swapped, NULLIF(v.status, 'ok'), `+samplesColumn+`, `+extrasColumn+`
		FROM verdicts v `+where+`
		ORDER BY v.id`, maxExtraText)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r verdictRow
		if err := rows.Scan(&r.id, &r.run, &r.item, &r.crit, &r.swapped, &r.status, &r.samples, &r.extra); err != nil {
			return err
		}
		fn(&r)
	}
	return rows.Err()
}

// verdictPlacer adds verdicts, in id order, to their units.
type verdictPlacer struct {
	names    map[int64]string
	units    *statsUnits
	statuses stringInterner
	extras   map[currentKey]*extrasOf
	placed   []verdictPlace
	slab     []stats.Verdict
}

func newVerdictPlacer(names map[int64]string, units *statsUnits) *verdictPlacer {
	// Most units have a verdict of each judge: room for one per unit.
	return &verdictPlacer{names: names, units: units, statuses: stringInterner{}, extras: map[currentKey]*extrasOf{},
		slab: make([]stats.Verdict, 0, len(units.units)), placed: make([]verdictPlace, 0, len(units.units))}
}

// add places the next verdict, leaving out those of a unit the session
// lacks or of an unknown run.
func (p *verdictPlacer) add(r *verdictRow) {
	u, ok := p.units.find(r.item, r.crit)
	name, known := p.names[r.run]
	if !ok || !known {
		return
	}
	vs := &p.units.units[u].Verdicts
	if cap(*vs) == 0 && len(p.slab) < cap(p.slab) {
		// a unit's first verdict, from one allocation for all
		p.slab = p.slab[:len(p.slab)+1]
		*vs = p.slab[len(p.slab)-1 : len(p.slab)-1 : len(p.slab)]
	}
	st := judge.StatusOK
	if r.status.Valid {
		st = judge.Status(p.statuses.of(r.status.String))
	}
	*vs = append(*vs, stats.Verdict{Judge: name, Status: st, Swapped: r.swapped})
	cur := &(*vs)[len(*vs)-1]
	if r.samples.Valid {
		cur.Samples = parseSamples(r.samples.String)
	}
	p.placed = append(p.placed, verdictPlace{id: r.id, unit: u, at: len(*vs) - 1})
	if r.extra.Valid {
		p.extras[currentKey{r.run, r.swapped, u}] = &extrasOf{id: r.id, name: name, pairs: parseExtraPairs(r.extra.String)}
	} else if len(p.extras) > 0 {
		if e, ok := p.extras[currentKey{r.run, r.swapped, u}]; ok {
			e.pairs = nil // replaced by a later verdict without any
		}
	}
}

// finish gives the current verdicts their extra fields and tells where
// each verdict went.
func (p *verdictPlacer) finish() []verdictPlace {
	addExtras(p.units.units, p.extras)
	return p.placed
}

// addExtras gives each current verdict's extra fields to its unit's last
// verdict of the same judge, in verdict id order (the order the
// current_verdicts view yields them, which decides between a pair's two
// orders when both have a field).
func addExtras(in []stats.Unit, extras map[currentKey]*extrasOf) {
	type found struct {
		unit int
		e    *extrasOf
	}
	var list []found
	for k, e := range extras {
		if len(e.pairs) > 0 {
			list = append(list, found{k.unit, e})
		}
	}
	slices.SortFunc(list, func(a, b found) int { return cmp.Compare(a.e.id, b.e.id) })
	for _, f := range list {
		vs := in[f.unit].Verdicts
		for i := len(vs) - 1; i >= 0; i-- {
			if vs[i].Judge == f.e.name {
				if vs[i].Extra == nil {
					vs[i].Extra = map[string]string{}
				}
				for _, p := range f.e.pairs {
					vs[i].Extra[p[0]] = p[1]
				}
				break
			}
		}
	}
}

// parseExtraPairs reads extrasColumn's list of [key, text] pairs. A key
// that is not text (an element's position, where the extra fields are a
// list) is written in decimal, as SQLite gives it.
func parseExtraPairs(text string) [][2]string {
	var raw [][2]any
	if json.Unmarshal([]byte(text), &raw) != nil {
		return nil
	}
	out := make([][2]string, 0, len(raw))
	for _, r := range raw {
		var p [2]string
		for i, x := range r {
			switch t := x.(type) {
			case string:
				p[i] = t
			case float64:
				p[i] = strconv.FormatFloat(t, 'f', -1, 64)
			}
		}
		out = append(out, p)
	}
	return out
}

// verdictPlace is where readStatsVerdicts put a verdict: unit and
// position in its Verdicts.
type verdictPlace struct {
	id       int64
	unit, at int
}

// verdictValue is one readable value of a verdict.
type verdictValue struct {
	id    int64
	dim   string
	value float64
}

// scanVerdictValues reads every verdict value its scale can read, in
// verdict id order, packed when it can (readPackedValues).
func scanVerdictValues(tx *sql.Tx, codec *valueCodec) ([]verdictValue, error) {
	if packedReads {
		out, ok, err := readPackedValues(tx, codec)
		if err != nil || ok {
			return out, err
		}
	}
	return readValueRows(tx, codec, "")
}

// readValueRows reads the verdict values the condition where (a WHERE
// clause, or "") selects, a row at a time, in verdict id order
// (verdict_values' key order, so SQLite does not sort).
func readValueRows(tx *sql.Tx, codec *valueCodec, where string, args ...any) ([]verdictValue, error) {
	rows, err := tx.Query(`SELECT verdict_id, dimension, value FROM verdict_values `+where+` ORDER BY verdict_id, dimension`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var (
		out    []verdictValue
		intern = stringInterner{}
	)
	for rows.Next() {
		var (
			id  int64
			dim string
			raw any
		)
		if err := rows.Scan(&id, &dim, &raw); err != nil {
			return nil, err
		}
		if x, ok := codec.decode(dim, raw); ok {
			out = append(out, verdictValue{id, intern.of(dim), x})
		}
	}
	return out, rows.Err()
}

// addVerdictValues gives each placed verdict its values (a map only when
// it has some), both lists being in verdict id order. Verdicts with a
// single value share one map per value (oneValue).
func addVerdictValues(in []stats.Unit, placed []verdictPlace, values []verdictValue) {
	j := 0
	shared := oneValue{}
	for _, p := range placed {
		for j < len(values) && values[j].id < p.id {
			j++
		}
		end := j
		for end < len(values) && values[end].id == p.id {
			end++
		}
		var m map[string]float64
		switch {
		case end == j+1:
			m = shared.of(values[j].dim, values[j].value)
		case end > j+1:
			m = make(map[string]float64, end-j)
			for _, v := range values[j:end] {
				m[v.dim] = v.value
			}
		}
		j = end
		in[p.unit].Verdicts[p.at].Values = m
	}
}
