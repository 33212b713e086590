package sessions

import (
	"cmp"
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

// Variants names every run by its judge's name and its place among the
// runs of that name: "NAME@K", K counting from 1 in the order of the run
// ids ("docqa@1", "docqa@2" for a variant of its prompt or model). Pass
// every run of the session: a subset numbers differently.
func Variants(runs []Run) map[int64]string {
	sorted := slices.Clone(runs)
	slices.SortFunc(sorted, func(a, b Run) int { return cmp.Compare(a.ID, b.ID) })
	seen := map[string]int{}
	out := make(map[int64]string, len(runs))
	for _, r := range sorted {
		if _, dup := out[r.ID]; dup {
			continue
		}
		seen[r.Info.Name]++
		out[r.ID] = fmt.Sprintf("%s@%d", r.Info.Name, seen[r.Info.Name])
	}
	return out
}

// variantLabel is RunLabel with the judge's name replaced by the run's
// variant ("docqa@2 · gpt-4o").
func variantLabel(r Run, variant string) string {
	if r.Info.Model != "" {
		return variant + " · " + r.Info.Model
	}
	return variant
}

// RunNames gives every run a distinct name: its RunLabel, or, when runs
// share that label, the label with the judge's name replaced by the run's
// variant (Variants: "docqa@2 · gpt-4o"), so that gavel stats and gavel
// compare name a variant as --judge docqa@2 finds it. Pass every run of
// the session, as for Variants. A name that would still clash (a judge
// named like another's variant) takes the run's id: "docqa@2 #7".
func RunNames(runs []Run) map[int64]string {
	count := map[string]int{}
	for _, r := range runs {
		count[RunLabel(r)]++
	}
	variants := Variants(runs)
	names := make(map[int64]string, len(runs))
	taken := map[string]int{}
	for _, r := range runs {
		n := RunLabel(r)
		if count[n] > 1 {
			n = variantLabel(r, variants[r.ID])
		}
		names[r.ID] = n
		taken[n]++
	}
	for _, r := range runs {
		if n := names[r.ID]; taken[n] > 1 {
			names[r.ID] = fmt.Sprintf("%s #%d", n, r.ID)
		}
	}
	return names
}

// ExtraSamples is the key of Verdict.Extra under which a judge that
// sampled several times keeps every sample (judge/llm's ExtraSamples): a
// list of objects {"status": "ok", "values": {dimension: number}, …}.
// StatsInput reads it for the sample flip rate.
const ExtraSamples = "samples"

// ExtraConfidenceWithheld is the key of Verdict.Extra that says why a
// verdict has no confidence although the server sent logprobs
// (judge/llm's ExtraConfidenceWithheld): they cannot describe the answer
// written, as under llama.cpp's grammar.
const ExtraConfidenceWithheld = "confidence_withheld"

// StatsInput gathers what the agreement statistics read from a session:
// every run as a judge (named by RunNames: RunLabel, with the run's
// variant "NAME@K" for the name when two runs would share a label), every item and rubric criterion as a unit with its
// segments, every verdict oldest first (re-judges included) with the
// samples of judges that sampled several times, and every annotator's
// current labels with how they reached the item. It is what both the
// statistics screen and `gavel stats` compute from, so they show the same
// figures. Dimensions that people labelled and no run rates are listed in
// Input.Dimensions with their scale (see labelOnlyDimensions), so that a
// session with labels and no judge reports the agreement among annotators.
//
// The figures describe one moment of the session even while a review or a
// judge run writes to it: see readBeside for how the largest reads run
// beside the rest on other connections. The large tables are read packed
// (see stats_input_packed.go).
//
// Units, labels and verdicts with the same segments or the same single
// value share one map: the input is for reading (as Compute does), not
// for changing.
//
// Every label is counted (StatsInputWith chooses by guidelines version)
// except an annotator's labels on an item they marked "can't judge", left
// out of every figure; Input.Labelling holds what the session records of
// how people labelled (stats_input_labelling.go).
func (s *Store) StatsInput() (stats.Input, error) {
	return s.StatsInputWith(StatsOptions{})
}

// readStatsInputWith reads the statistics input in tx, with the largest
// reads on three other connections meanwhile when they see the same
// moment (readBeside): the verdicts' values and the current labels on one,
// the items' segments and the guidelines on another, the verdicts'
// confidences and the annotators' histories (how people labelled) on the
// third, every other annotator's history after the segments.
func (s *Store) readStatsInputWith(tx *sql.Tx, o StatsOptions) (stats.Input, error) {
	var in stats.Input
	want, err := readStamp(tx)
	if err != nil {
		return in, err
	}
	var (
		values []verdictValue
		labels *scannedLabels
		groups []segmentGroup
	)
	readValues := func(tx *sql.Tx) error {
		codec, err := loadCodec(tx)
		if err != nil {
			return err
		}
		if values, err = scanVerdictValues(tx, codec); err != nil {
			return err
		}
		labels, err = scanStatsLabels(tx, codec)
		return err
	}
	// How people labelled is read in three parts: the guidelines and tag
	// set (with the labels per version) after the segments, on their
	// connection, then there the histories of every other annotator
	// (historyPart), while the others' are read and folded on a
	// connection of its own, after the verdicts' confidences (a scan of
	// the verdicts that most sessions find none in). The guidelines and
	// the tag set are not in the stamp; a version added between the reads
	// is at most listed early.
	var (
		lab         *labellingRead
		h0, h1      *historyPart
		confidences []verdictConfidence
	)
	readSegments := func(tx *sql.Tx) (err error) {
		if groups, err = scanSegmentGroups(tx); err != nil {
			return err
		}
		if lab, err = readLabellingBase(tx, s.path, o); err != nil {
			return err
		}
		h1, err = readHistoryPart(tx, o, 1)
		return err
	}
	readHist := func(tx *sql.Tx) (err error) {
		if confidences, err = scanConfidences(tx); err != nil {
			return err
		}
		h0, err = readHistoryPart(tx, o, 0)
		return err
	}
	besideHist := s.readBeside(want, readHist)
	besideValues := s.readBeside(want, readValues)
	besideSegments := s.readBeside(want, readSegments)
	runs, units, placed, err := readStatsJudged(tx, &in)
	sameValues, sameSegments, sameHist := besideValues.wait(), besideSegments.wait(), besideHist.wait()
	if err != nil {
		return in, err
	}
	// What another connection failed to read, or read at another moment
	// of the session, is read here, in tx.
	if !sameSegments {
		if err := readSegments(tx); err != nil {
			return in, err
		}
	}
	if !sameValues {
		if err := readValues(tx); err != nil {
			return in, err
		}
	}
	if !sameHist {
		if err := readHist(tx); err != nil {
			return in, err
		}
	}
	hist, ok := gatherHistories(h0, h1)
	if !ok {
		// Never seen: the parts listed other annotators.
		if hist, err = readHistories(tx, o); err != nil {
			return in, err
		}
	}
	codec, err := loadCodec(tx)
	if err != nil {
		return in, err
	}
	lab = lab.with(hist)
	units.addSegments(groups)
	addVerdictValues(in.Units, placed, values)
	addConfidences(in.Units, placed, confidences)
	lab.apply(labels)
	if lab != nil {
		in.Labelling = lab.in
		hintUnits(in.Labelling.Decisions, units)
	}
	labelled := addStatsLabels(units, labels)
	if err := orderAdjudications(tx, labels, units); err != nil {
		return in, err
	}
	in.Dimensions = labelOnlyDimensions(runs, codec, labelled)
	if err := readStatsPlan(tx, s.path, &in, o.PlanID, placed); err != nil {
		return in, err
	}
	return in, nil
}

// readStatsJudged reads the runs as judges, the units and every verdict
// (without values) into in.
func readStatsJudged(tx *sql.Tx, in *stats.Input) ([]Run, *statsUnits, []verdictPlace, error) {
	runs, err := readStatsRuns(tx)
	if err != nil {
		return nil, nil, nil, err
	}
	names := RunNames(runs)
	perCriterion := false
	for _, r := range runs {
		in.Judges = append(in.Judges, stats.JudgeSpec{Key: names[r.ID], Dimensions: r.Info.Dimensions, PerCriterion: r.Info.PerCriterion})
		perCriterion = perCriterion || r.Info.PerCriterion
	}
	units, err := readStatsUnits(tx, perCriterion, in)
	if err != nil {
		return nil, nil, nil, err
	}
	placed, err := readStatsVerdicts(tx, names, units)
	return runs, units, placed, err
}

// labelOnlyDimensions lists, by name, the dimensions people labelled that
// no run rates (labelled holds the values labelled on each dimension, see
// addStatsLabels), each with its scale, so that a session with labels and no
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
func labelOnlyDimensions(runs []Run, codec *valueCodec, labelled map[string]map[float64]bool) []judge.Dimension {
	judged := map[string]bool{}
	for _, r := range runs {
		for _, d := range r.Info.Dimensions {
			judged[d.Name] = true
		}
	}
	values := map[string]map[float64]bool{}
	for dim, vs := range labelled {
		if !judged[dim] {
			values[dim] = vs
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
