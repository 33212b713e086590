package sessions

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gavel-dev/gavel/judge"
)

// Which items an export writes.
const (
	// OnlyReviewed writes the items someone labelled (the default).
	OnlyReviewed = "reviewed"
	// OnlyDisagreements writes the items where some judge's current
	// verdict differs from some person's label on the same criterion and
	// dimension (a label its annotator marked "can't judge" is left out,
	// as the statistics leave it out).
	OnlyDisagreements = "disagreements"
	// OnlyAll writes every item.
	OnlyAll = "all"
)

// ExportOptions say what Export writes.
type ExportOptions struct {
	// Format is "jsonl" or "csv".
	Format string
	// Only is OnlyReviewed (also for ""), OnlyDisagreements or OnlyAll.
	Only string
	// Runs, when not empty, names the runs (as RunNames names them)
	// whose verdict columns are written, in session order; the other
	// runs' columns are left out, and OnlyDisagreements compares only
	// these runs with the labels. Item and label columns stay the same.
	Runs []string
	// CantJudge keeps only the items some annotator marked as impossible
	// to judge (with Reason, when set: the gold-wrong items are the
	// dataset's fix list); Tag only the items some annotator tagged with
	// it. Both narrow Only.
	CantJudge bool
	Reason    string
	Tag       string
}

// ExportSummary says what Export wrote.
type ExportSummary struct {
	// Rows is the number of items written, out of Items.
	Rows, Items int
	// Columns are the column names, in order.
	Columns []string
}

// Export writes the session's items as a calibration set: one row per item
// with the item's fields, each judge run's current verdict and each
// annotator's current label, provenance and note. The columns, in order:
//
//	id, question, gold, prediction   the item's texts
//	response_a, response_b           a pair's two responses (only when the dataset has pairs)
//	rubric                           its criteria (a list; "" or [] when none)
//	segment:FIELD                    one per segment field (category, task…)
//	verdict:RUN:DIMENSION            per run (named as in `gavel stats`) and dimension:
//	                                 YES/NO for binary, the number on ordinal scales
//	                                 (0/0.5/1 ternary, 1–5 Likert, 1–10…), the
//	                                 category's name on nominal ones, A/B/tie on pairwise
//	verdict_status:RUN               ok, parse_error, api_error or truncated (the server
//	                                 read only part of the prompt: the values are the
//	                                 judge's, but it never saw the whole task)
//	verdict_reason:RUN               the judge's reason
//	verdict_error:RUN                why a verdict is not ok
//	verdict_confidence:RUN           the probability the model gave its answer (logprobs)
//	verdict_confidence_withheld:RUN  why there is none although the server sent logprobs
//	                                 (both only for runs that have any)
//	verdict_swapped:RUN:DIMENSION    a pairwise run's verdict with the responses swapped
//	verdict_swapped_status:RUN       (both only for runs judged in both orders)
//	label:ANNOTATOR:DIMENSION        per annotator and dimension, like verdicts
//	label_via:ANNOTATOR              how they reached the item (order, random, filter:NAME, script, imported)
//	note:ANNOTATOR                   their note
//	label_guidelines:ANNOTATOR …     the labelling record, for annotators who have one:
//	                                 guidelines version, visibility and run shown of the
//	                                 latest label, re-tests, can't judge with its reason, failure tags
//	                                 (see export_labelling.go)
//	fields                           the original row, every field it had
//
// Empty cells are null in JSONL and empty in CSV. For a judge that rates
// rubric criteria one by one, and for labels of criteria, a cell holds a
// list indexed by criterion — element 0 the whole item, element k criterion
// k — as a JSON array in JSONL and as JSON text in CSV. Every row has every
// column, so the file loads as one table. `gavel import` reads the file
// back into the same runs, verdicts, labels and notes.
func Export(s *Store, w io.Writer, opts ExportOptions) (ExportSummary, error) {
	var sum ExportSummary
	switch opts.Only {
	case "":
		opts.Only = OnlyReviewed
	case OnlyReviewed, OnlyDisagreements, OnlyAll:
	default:
		return sum, fmt.Errorf("unknown selection %q: use reviewed, disagreements or all", opts.Only)
	}
	var enc rowEncoder
	switch opts.Format {
	case "jsonl", "ndjson":
		enc = &jsonlEncoder{}
	case "csv":
		enc = &csvEncoder{}
	default:
		return sum, fmt.Errorf("unknown export format %q: use jsonl or csv", opts.Format)
	}
	t, err := s.exportTable()
	if err != nil {
		return sum, err
	}
	if len(opts.Runs) > 0 {
		if t.runs, err = pickRuns(t.runs, opts.Runs); err != nil {
			return sum, err
		}
	}
	if opts.Reason != "" && !slices.Contains(CantJudgeReasons, opts.Reason) {
		return sum, fmt.Errorf("unknown reason %q: the reasons an item cannot be judged are %s", opts.Reason, strings.Join(CantJudgeReasons, ", "))
	}
	sum.Items = len(t.items)
	sum.Columns = t.columnNames()
	bw := bufio.NewWriterSize(w, 1<<16)
	if err := enc.header(bw, sum.Columns); err != nil {
		return sum, err
	}
	for i := range t.items {
		if !t.selected(i, opts.Only) || !t.picked(t.items[i].ID, opts) {
			continue
		}
		if err := enc.row(bw, t.row(i)); err != nil {
			return sum, err
		}
		sum.Rows++
	}
	if err := enc.flush(bw); err != nil {
		return sum, err
	}
	return sum, bw.Flush()
}

// pickRuns keeps the runs named in names, in session order; a name no
// run has is an error.
func pickRuns(runs []exportRun, names []string) ([]exportRun, error) {
	for _, n := range names {
		if !slices.ContainsFunc(runs, func(r exportRun) bool { return r.name == n }) {
			return nil, fmt.Errorf("no judge run %q in the session", n)
		}
	}
	var out []exportRun
	for _, r := range runs {
		if slices.Contains(names, r.name) {
			out = append(out, r)
		}
	}
	return out, nil
}

// exportTable is a session read for export.
type exportTable struct {
	items    []judge.Item
	pairwise bool // some item is a pair: response_a and response_b are written
	segments []string
	runs     []exportRun
	anns     []exportAnnotator
	// scales gives a dimension's scale by name, from the first run that
	// rates it, so that labels are written the way verdicts are.
	scales map[string]judge.Scale
	// labelMeta is each current label's guidelines version and
	// visibility, by action id (only labels that record one).
	labelMeta map[int64]labelMeta
	// runNames names every run of the session (RunNames), for the run
	// shown, which --runs may have left out of the verdict columns.
	runNames map[int64]string
}

// exportRun is a run's current verdicts, by item.
type exportRun struct {
	name     string
	info     judge.Info
	verdicts map[string][]judge.Verdict
	// swapped holds the swapped-order verdicts, by item; nil when the run
	// has none.
	swapped map[string][]judge.Verdict
	// confidence is set when some verdict has a confidence or one
	// withheld: the confidence columns are written.
	confidence bool
}

// exportAnnotator is an annotator's current labels and notes, by item.
type exportAnnotator struct {
	name   string
	dims   []string
	labels map[string][]Label
	notes  map[string]string
	// labelling is the annotator's labelling record (nil: none).
	labelling *exportLabelling
}

func (s *Store) exportTable() (*exportTable, error) {
	t := &exportTable{scales: map[string]judge.Scale{}}
	var err error
	if t.items, err = s.Items(); err != nil {
		return nil, err
	}
	for _, it := range t.items {
		t.pairwise = t.pairwise || it.Pairwise()
	}
	segs := map[string]bool{}
	for _, it := range t.items {
		for k := range it.Segments {
			segs[k] = true
		}
	}
	t.segments = sortedKeys(segs)

	runs, err := s.Runs()
	if err != nil {
		return nil, err
	}
	names := RunNames(runs)
	t.runNames = names
	for _, r := range runs {
		vs, err := s.Verdicts(r.ID)
		if err != nil {
			return nil, err
		}
		er := exportRun{name: names[r.ID], info: r.Info, verdicts: map[string][]judge.Verdict{}}
		for _, v := range vs {
			er.verdicts[v.ItemID] = append(er.verdicts[v.ItemID], v)
			er.confidence = er.confidence || v.Confidence != nil || withheld(v) != ""
		}
		sw, err := s.SwappedVerdicts(r.ID)
		if err != nil {
			return nil, err
		}
		for _, v := range sw {
			if er.swapped == nil {
				er.swapped = map[string][]judge.Verdict{}
			}
			er.swapped[v.ItemID] = append(er.swapped[v.ItemID], v)
		}
		t.runs = append(t.runs, er)
		for _, d := range r.Info.Dimensions {
			if _, ok := t.scales[d.Name]; !ok {
				t.scales[d.Name] = d.Scale
			}
		}
	}
	declared, err := s.declaredScales()
	if err != nil {
		return nil, err
	}
	for _, d := range declared {
		if _, ok := t.scales[d.Name]; !ok {
			t.scales[d.Name] = d.Scale
		}
	}

	labels, err := s.Labels("")
	if err != nil {
		return nil, err
	}
	notes, err := s.Notes("")
	if err != nil {
		return nil, err
	}
	byName := map[string]*exportAnnotator{}
	ann := func(name string) *exportAnnotator {
		a := byName[name]
		if a == nil {
			a = &exportAnnotator{name: name, labels: map[string][]Label{}, notes: map[string]string{}}
			byName[name] = a
		}
		return a
	}
	for _, l := range labels {
		a := ann(l.Annotator)
		a.labels[l.ItemID] = append(a.labels[l.ItemID], l)
		if !slices.Contains(a.dims, l.Dimension) {
			a.dims = append(a.dims, l.Dimension)
		}
	}
	for _, n := range notes {
		ann(n.Annotator).notes[n.ItemID] = n.Text
	}
	labelling, meta, err := s.readLabelling()
	if err != nil {
		return nil, err
	}
	t.labelMeta = meta
	for name, l := range labelling {
		slices.Sort(l.retestDims)
		ann(name).labelling = l
	}
	for _, name := range sortedKeys(byName) {
		a := byName[name]
		slices.Sort(a.dims)
		t.anns = append(t.anns, *a)
	}
	return t, nil
}

// columnNames lists the export's columns in order.
func (t *exportTable) columnNames() []string {
	cols := []string{colID, colQuestion, colGold, colPrediction}
	if t.pairwise {
		cols = append(cols, colResponseA, colResponseB)
	}
	cols = append(cols, colRubric)
	for _, f := range t.segments {
		cols = append(cols, prefixSegment+f)
	}
	for _, r := range t.runs {
		for _, d := range r.info.Dimensions {
			cols = append(cols, prefixVerdict+r.name+":"+d.Name)
		}
		cols = append(cols, prefixStatus+r.name, prefixReason+r.name, prefixError+r.name)
		if r.confidence {
			cols = append(cols, prefixConfidence+r.name, prefixWithheld+r.name)
		}
		if r.swapped != nil {
			for _, d := range r.info.Dimensions {
				cols = append(cols, prefixSwapped+r.name+":"+d.Name)
			}
			cols = append(cols, prefixSwappedStatus+r.name)
		}
	}
	for _, a := range t.anns {
		for _, d := range a.dims {
			cols = append(cols, prefixLabel+a.name+":"+d)
		}
		cols = append(cols, prefixVia+a.name, prefixNote+a.name)
		cols = append(cols, a.labellingColumns()...)
	}
	return append(cols, colFields)
}

// cantJudged reports whether the annotator marked item id as impossible
// to judge: their label there, if any, is compared with no verdict.
func (a *exportAnnotator) cantJudged(id string) bool {
	if a.labelling == nil {
		return false
	}
	_, ok := a.labelling.cantJudge[id]
	return ok
}

// selected reports whether item i is written under the selection only.
func (t *exportTable) selected(i int, only string) bool {
	id := t.items[i].ID
	switch only {
	case OnlyAll:
		return true
	case OnlyReviewed:
		for _, a := range t.anns {
			if a.reviewedBy(id) {
				return true
			}
		}
		return false
	}
	for _, r := range t.runs {
		for _, v := range r.verdicts[id] {
			if !v.OK() {
				continue
			}
			for _, a := range t.anns {
				if a.cantJudged(id) {
					continue // set aside, as every agreement figure sets it aside
				}
				for _, l := range a.labels[id] {
					if x, ok := v.Values[l.Dimension]; ok && l.Criterion == v.Criterion && x != l.Value {
						return true
					}
				}
			}
		}
	}
	return false
}
