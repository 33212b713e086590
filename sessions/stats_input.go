package sessions

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// RunLabel names a run for people: the judge's name, with the model when
// it has one ("docqa · gpt-4o").
func RunLabel(r Run) string {
	if r.Info.Model != "" {
		return r.Info.Name + " · " + r.Info.Model
	}
	return r.Info.Name
}

// RunNames gives every run a distinct RunLabel.
func RunNames(runs []Run) map[int64]string {
	count := map[string]int{}
	for _, r := range runs {
		count[RunLabel(r)]++
	}
	names := make(map[int64]string, len(runs))
	for _, r := range runs {
		n := RunLabel(r)
		if count[n] > 1 {
			n = fmt.Sprintf("%s #%d", n, r.ID)
		}
		names[r.ID] = n
	}
	return names
}

// ExtraSamples is the key of Verdict.Extra under which a judge that
// sampled several times keeps every sample (judge/llm's ExtraSamples): a
// list of objects {"status": "ok", "values": {dimension: number}, …}.
// StatsInput reads it for the sample flip rate.
const ExtraSamples = "samples"

// StatsInput gathers what the agreement statistics read from a session:
// every run as a judge (named by RunLabel, with "#ID" added when two runs
// would share a name), every item and rubric criterion as a unit with its
// segments, every verdict oldest first (re-judges included) with the
// samples of judges that sampled several times, and every annotator's
// current labels with how they reached the item. It is what both the
// statistics screen and `gavel stats` compute from, so they show the same
// figures. Dimensions that people labelled and no run rates are listed in
// Input.Dimensions with their scale (see labelOnlyDimensions), so that a
// session with labels and no judge reports the agreement among annotators.
//
// Everything is read in one read transaction, so the figures describe one
// moment of the session even while a review or a judge run writes to it.
func (s *Store) StatsInput() (stats.Input, error) {
	var in stats.Input
	err := s.read("reading the session for statistics", func(tx *sql.Tx) error {
		var err error
		in, err = readStatsInput(tx)
		return err
	})
	if err != nil {
		return stats.Input{}, err
	}
	return in, nil
}

// unitKey identifies a unit: an item, or one of its rubric criteria.
type unitKey struct {
	item string
	crit int
}

func readStatsInput(tx *sql.Tx) (stats.Input, error) {
	var in stats.Input
	runs, err := readStatsRuns(tx)
	if err != nil {
		return in, err
	}
	names := RunNames(runs)
	perCriterion := false
	for _, r := range runs {
		in.Judges = append(in.Judges, stats.JudgeSpec{Key: names[r.ID], Dimensions: r.Info.Dimensions, PerCriterion: r.Info.PerCriterion})
		perCriterion = perCriterion || r.Info.PerCriterion
	}
	units, err := readStatsUnits(tx, perCriterion, &in)
	if err != nil {
		return in, err
	}
	if err := readStatsVerdicts(tx, names, units, &in); err != nil {
		return in, err
	}
	if err := readStatsExtras(tx, names, units, &in); err != nil {
		return in, err
	}
	if err := readStatsLabels(tx, units, &in); err != nil {
		return in, err
	}
	codec, err := loadCodec(tx)
	if err != nil {
		return in, err
	}
	in.Dimensions = labelOnlyDimensions(runs, codec, in.Units)
	return in, nil
}

// labelOnlyDimensions lists, by name, the dimensions people labelled that
// no run rates, each with its scale, so that a session with labels and no
// judge still gets the agreement among its annotators.
//
// A dimension whose values are names (nominal, pairwise) has its scale in
// dimension_scales. Binary and ordinal values are stored as numbers and
// their scale is recorded only with a run, so for a dimension no run
// rates it is read from the labels' values, conservatively: 0 and 1 alone
// are binary; other numbers are read as an exported file's are
// (exportedScale): 0, 0.5 and 1 ternary, whole numbers within 1–5
// Likert, other whole numbers the range from 0 (when a 0 is there) or 1
// to 10, or to 100. A dimension whose values fit none of these (negative,
// fractional, above 100) is left out rather than guessed. The labels do
// not say a point no one used: an ordinal:1-10 dimension labelled only
// within 1–5 reads as Likert, which changes Gwet's AC1 and AC2 (their
// chance terms count the scale's categories) but neither Krippendorff's
// alpha nor Fleiss' kappa.
func labelOnlyDimensions(runs []Run, codec *valueCodec, units []stats.Unit) []judge.Dimension {
	judged := map[string]bool{}
	for _, r := range runs {
		for _, d := range r.Info.Dimensions {
			judged[d.Name] = true
		}
	}
	values := map[string]map[float64]bool{}
	for _, u := range units {
		for _, l := range u.Labels {
			for dim, v := range l.Values {
				if judged[dim] {
					continue
				}
				if values[dim] == nil {
					values[dim] = map[float64]bool{}
				}
				values[dim][v] = true
			}
		}
	}
	var out []judge.Dimension
	for _, dim := range slices.Sorted(maps.Keys(values)) {
		scale, ok := codec.scales[dim]
		if !ok {
			scale, ok = labelScale(values[dim])
		}
		if ok && scale.Known() {
			out = append(out, judge.Dimension{Name: dim, Scale: scale})
		}
	}
	return out
}

// labelScale tells the scale of numeric label values (see
// labelOnlyDimensions).
func labelScale(values map[float64]bool) (judge.Scale, bool) {
	binary := true
	texts := make([]string, 0, len(values))
	for v := range values {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return "", false
		}
		binary = binary && (v == 0 || v == 1)
		texts = append(texts, strconv.FormatFloat(v, 'f', -1, 64))
	}
	if binary {
		return judge.Binary, len(values) > 0
	}
	slices.Sort(texts) // exportedScale reads names in order met; numbers only here
	return exportedScale(texts)
}

// maxExtraText is the longest extra value counted as a category: longer
// text is a comment or an answer, not a category.
const maxExtraText = 32

// readStatsExtras gives each unit's current ok verdict the short scalar
// fields of its extra JSON (error types, scores, rules) as text, for the
// report's counts. Byte offsets kept for highlighting are left out.
func readStatsExtras(tx *sql.Tx, names map[int64]string, units map[unitKey]int, in *stats.Input) error {
	rows, err := tx.Query(`SELECT v.run_id, v.item_id, v.criterion, j.key,
		       CASE j.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE CAST(j.value AS TEXT) END
		FROM current_verdicts v,
		     json_each(CASE WHEN json_valid(v.extra) THEN v.extra ELSE '{}' END) j
		WHERE v.status = 'ok'
		  AND j.type IN ('text', 'integer', 'true', 'false')
		  AND length(CAST(j.value AS TEXT)) <= ?
		  AND j.key NOT LIKE '%\_start' ESCAPE '\' AND j.key NOT LIKE '%\_end' ESCAPE '\'`, maxExtraText)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			run             int64
			item, key, text string
			crit            int
		)
		if err := rows.Scan(&run, &item, &crit, &key, &text); err != nil {
			return err
		}
		u, ok := units[unitKey{item, crit}]
		name, known := names[run]
		if !ok || !known {
			continue
		}
		vs := in.Units[u].Verdicts
		for i := len(vs) - 1; i >= 0; i-- {
			if vs[i].Judge == name {
				if vs[i].Extra == nil {
					vs[i].Extra = map[string]string{}
				}
				vs[i].Extra[key] = text
				break
			}
		}
	}
	return rows.Err()
}

// readStatsRuns reads what statistics need of each run, oldest first: its
// name and model (for RunNames), whether it rates criteria, and its
// dimensions.
func readStatsRuns(tx *sql.Tx) ([]Run, error) {
	rows, err := tx.Query(`SELECT id, judge, model, per_criterion FROM runs ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var runs []Run
	byID := map[int64]int{}
	for rows.Next() {
		var r Run
		if err := rows.Scan(&r.ID, &r.Info.Name, &r.Info.Model, &r.Info.PerCriterion); err != nil {
			return nil, err
		}
		byID[r.ID] = len(runs)
		runs = append(runs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	dims, err := tx.Query(`SELECT run_id, dimension, scale FROM run_dimensions ORDER BY run_id, position`)
	if err != nil {
		return nil, err
	}
	defer dims.Close()
	for dims.Next() {
		var id int64
		var d judge.Dimension
		var scale string
		if err := dims.Scan(&id, &d.Name, &scale); err != nil {
			return nil, err
		}
		d.Scale = judge.Scale(scale)
		if i, ok := byID[id]; ok {
			runs[i].Info.Dimensions = append(runs[i].Info.Dimensions, d)
		}
	}
	return runs, dims.Err()
}

// readStatsUnits makes one unit per item in dataset order, followed by one
// per rubric criterion when some judge rates criteria, and returns where
// each unit is. Only ids, criteria counts and segments are read: the
// items' text is not needed.
func readStatsUnits(tx *sql.Tx, perCriterion bool, in *stats.Input) (map[unitKey]int, error) {
	var ids []string
	rows, err := tx.Query(`SELECT item_id FROM items ORDER BY idx`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}

	segments := map[string]map[string]string{}
	seg, err := tx.Query(`SELECT item_id, name, value FROM item_segments`)
	if err != nil {
		return nil, err
	}
	defer seg.Close()
	for seg.Next() {
		var id, name, v string
		if err := seg.Scan(&id, &name, &v); err != nil {
			return nil, err
		}
		if segments[id] == nil {
			segments[id] = map[string]string{}
		}
		segments[id][name] = v
	}
	if err := seg.Err(); err != nil {
		return nil, err
	}

	criteria := map[string]int{}
	if perCriterion {
		crit, err := tx.Query(`SELECT item_id, max(criterion) FROM item_criteria GROUP BY item_id`)
		if err != nil {
			return nil, err
		}
		defer crit.Close()
		for crit.Next() {
			var id string
			var k int
			if err := crit.Scan(&id, &k); err != nil {
				return nil, err
			}
			criteria[id] = k
		}
		if err := crit.Err(); err != nil {
			return nil, err
		}
	}

	units := make(map[unitKey]int, len(ids))
	for _, id := range ids {
		units[unitKey{id, 0}] = len(in.Units)
		in.Units = append(in.Units, stats.Unit{ItemID: id, Segments: segments[id]})
		for k := 1; k <= criteria[id]; k++ {
			units[unitKey{id, k}] = len(in.Units)
			in.Units = append(in.Units, stats.Unit{ItemID: id, Criterion: k, Segments: segments[id]})
		}
	}
	return units, nil
}

// samplesColumn is a verdict's list of samples as JSON text, or NULL when
// it has none (or its extra fields are not valid JSON). The nested CASE
// keeps SQLite from parsing extra fields that cannot hold samples.
const samplesColumn = `CASE WHEN instr(v.extra, '"` + ExtraSamples + `"') > 0 THEN
	CASE WHEN json_valid(v.extra) THEN
		CASE WHEN json_type(v.extra, '$.` + ExtraSamples + `') = 'array' THEN json_extract(v.extra, '$.` + ExtraSamples + `') END
	END
END`

// readStatsVerdicts adds every verdict of every run to its unit, oldest
// first (by id, so that the last one of a run is its current verdict, as
// Verdicts has it).
func readStatsVerdicts(tx *sql.Tx, names map[int64]string, units map[unitKey]int, in *stats.Input) error {
	codec, err := loadCodec(tx)
	if err != nil {
		return err
	}
	rows, err := tx.Query(`SELECT v.id, v.run_id, v.item_id, v.criterion, v.swapped, v.status, ` + samplesColumn + `, vv.dimension, vv.value
		FROM verdicts v
		LEFT JOIN verdict_values vv ON vv.verdict_id = v.id
		ORDER BY v.id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	lastID := int64(-1)
	var cur *stats.Verdict
	for rows.Next() {
		var (
			id, run      int64
			item, status string
			crit         int
			swapped      bool
			samples, dim sql.NullString
			value        any
		)
		if err := rows.Scan(&id, &run, &item, &crit, &swapped, &status, &samples, &dim, &value); err != nil {
			return err
		}
		if id != lastID {
			lastID, cur = id, nil
			u, ok := units[unitKey{item, crit}]
			name, known := names[run]
			if !ok || !known {
				continue
			}
			vs := &in.Units[u].Verdicts
			*vs = append(*vs, stats.Verdict{Judge: name, Status: judge.Status(status), Swapped: swapped})
			cur = &(*vs)[len(*vs)-1]
			if samples.Valid {
				cur.Samples = parseSamples(samples.String)
			}
		}
		if x, ok := codec.decode(dim.String, value); cur != nil && dim.Valid && ok {
			if cur.Values == nil {
				cur.Values = map[string]float64{}
			}
			cur.Values[dim.String] = x
		}
	}
	return rows.Err()
}

// parseSamples reads the values of each readable sample from a verdict's
// list of samples. Samples that could not be read (status other than ok)
// have no values to compare and are left out; entries that are not
// samples are skipped rather than failing the statistics.
func parseSamples(text string) []map[string]float64 {
	var raw []json.RawMessage
	if json.Unmarshal([]byte(text), &raw) != nil {
		return nil
	}
	var out []map[string]float64
	for _, r := range raw {
		var s struct {
			Status *string        `json:"status"`
			Values map[string]any `json:"values"`
		}
		if json.Unmarshal(r, &s) != nil {
			continue
		}
		if s.Status != nil && judge.Status(*s.Status) != judge.StatusOK {
			continue
		}
		vals := map[string]float64{}
		for k, v := range s.Values {
			if x, ok := v.(float64); ok {
				vals[k] = x
			}
		}
		if len(vals) > 0 {
			out = append(out, vals)
		}
	}
	return out
}

// readStatsLabels adds each annotator's current labels to their units,
// with how the annotator reached the item.
func readStatsLabels(tx *sql.Tx, units map[unitKey]int, in *stats.Input) error {
	rows, err := tx.Query(`SELECT l.item_id, l.criterion, l.dimension, l.value, l.annotator, l.via
		FROM current_labels l
		JOIN items i ON i.item_id = l.item_id
		ORDER BY i.idx, l.criterion, l.dimension, l.annotator`)
	if err != nil {
		return err
	}
	defer rows.Close()
	codec, err := loadCodec(tx)
	if err != nil {
		return err
	}
	type lkey struct {
		unit      int
		annotator string
	}
	at := map[lkey]int{}
	for rows.Next() {
		var (
			item, dim, annotator, via string
			crit                      int
			raw                       any
		)
		if err := rows.Scan(&item, &crit, &dim, &raw, &annotator, &via); err != nil {
			return err
		}
		u, ok := units[unitKey{item, crit}]
		value, readable := codec.decode(dim, raw)
		if !ok || !readable {
			continue
		}
		k := lkey{u, annotator}
		i, seen := at[k]
		if !seen {
			i = len(in.Units[u].Labels)
			at[k] = i
			in.Units[u].Labels = append(in.Units[u].Labels, stats.Label{Annotator: annotator, Values: map[string]float64{}, Provenance: via})
		}
		in.Units[u].Labels[i].Values[dim] = value
	}
	return rows.Err()
}
