package sessions

import (
	"database/sql"
	"iter"
	"math"
	"path/filepath"
	"slices"
	"sort"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// ImportedJudge is the judge name of every run made from a dataset's
// verdict column. The column's name is the run's Model, so each column is
// its own run: "imported · GPT-4", "imported · EM".
const ImportedJudge = "imported"

// ViaImported is the provenance of labels imported from a dataset. The
// statistics count it as neither in order nor filtered: how the people
// chose what to label elsewhere is not known.
const ViaImported = "imported"

// OutputParser reads a judge's raw output, for datasets that keep what a
// judge wrote (a "judge_output" column) rather than its verdict.
type OutputParser struct {
	// Judge names the judge whose parser this is; it is saved in the
	// run's params as "parser".
	Judge string
	// Dimensions are what the judge rates.
	Dimensions []judge.Dimension
	// Parse reads one raw output. An error, or a verdict that is not ok,
	// becomes a parse_error verdict that keeps the raw text.
	Parse func(raw string) (judge.Verdict, error)
}

// ImportOptions say how ImportDatasetWith reads a dataset's columns.
type ImportOptions struct {
	// Parser reads a column of a judge's raw output; nil leaves such a
	// column out.
	Parser *OutputParser
	// Scales say which scale value columns are on (--scale).
	Scales ImportScales
}

// ImportSummary says what ImportDataset did.
type ImportSummary struct {
	// Rows is the number of dataset rows read; Unknown counts those
	// whose id the session does not hold (they are left out), and
	// Missing the session's items that no row has (what a file joined to
	// a session by id does not cover).
	Rows, Unknown, Missing int
	// Runs and Annotators are in the dataset's column order.
	Runs       []ImportedRun
	Annotators []ImportedAnnotator
	// Skipped lists the columns left out, one sentence each.
	Skipped []string
}

// ImportedRun is one judge run filled by an import.
type ImportedRun struct {
	// Name is the run's name as the statistics show it (RunLabel).
	Name string
	// Column is the dataset column the verdicts came from.
	Column string
	// SwappedColumn, ReasonColumn and ConfidenceColumn are the columns
	// that gave its verdicts in the swapped order, their reasons and
	// their confidences, "" for none.
	SwappedColumn, ReasonColumn, ConfidenceColumn string
	// Scale is the scale its values were read on ("" for a parser's
	// dimensions or an exported run's).
	Scale judge.Scale
	// Created is true when the run was new to the session.
	Created bool
	// Verdicts counts the verdicts added, in both orders; Swapped those
	// of them in the swapped order; ParseErrors those that could not be
	// read (SwappedParseErrors in the swapped order); Unchanged the
	// verdicts the session already had.
	Verdicts, Swapped, ParseErrors, SwappedParseErrors, Unchanged int
	// Confidences counts the verdicts added with a confidence.
	Confidences int
}

// ImportedAnnotator is one annotator whose labels an import added.
type ImportedAnnotator struct {
	Name, Column string
	// Dimension and Scale are what the labels rate ("" for an exported
	// annotator, whose labels keep their own dimensions).
	Dimension string
	Scale     judge.Scale
	// Labels and Notes count what was added; Unreadable the values that
	// are no label (FirstUnreadable is the first of them); Unchanged the
	// labels the session already had.
	Labels, Notes, Unreadable, Unchanged int
	FirstUnreadable                      string
	// CantJudges, Tags and Retests count the can't-judges, tags put on
	// and re-test labels added (an export's labelling columns).
	CantJudges, Tags, Retests int
}

// VerdictCount is the number of verdicts the import added.
func (s ImportSummary) VerdictCount() (n int) {
	for _, r := range s.Runs {
		n += r.Verdicts
	}
	return n
}

// LabelCount is the number of labels the import added.
func (s ImportSummary) LabelCount() (n int) {
	for _, a := range s.Annotators {
		n += a.Labels
	}
	return n
}

// CreatedRuns is the number of runs the import created.
func (s ImportSummary) CreatedRuns() (n int) {
	for _, r := range s.Runs {
		if r.Created {
			n++
		}
	}
	return n
}

// ImportDataset turns the judgments a dataset already carries into the
// session's verdicts and labels, without calling any model:
//
//   - each verdict column (ds.Imported, Role "verdict") becomes a run of
//     the judge ImportedJudge with the column's name as its model; its
//     values are read on the column's scale (see ImportDatasetWith), into
//     the dimension the scale names: "correct" (binary, ternary), "score"
//     (Likert and other ordinal ranges), "preference" (pairwise) or
//     "category" (nominal). A blank cell is no verdict, a value that
//     cannot be read is a parse_error verdict that keeps the text. The
//     column's swapped order (Role "swapped") goes into the same run as
//     Verdict.Swapped verdicts, and its reason column (Role "reason") gives
//     the verdicts' reasons. A column of raw judge text is read with
//     parser when one is given (the run's params then say {"parser":
//     NAME}), and left out with a message otherwise;
//   - each human column (Role "human") becomes the labels of an annotator
//     named after the column, with provenance ViaImported; a value off the
//     column's scale is counted (ImportedAnnotator.Unreadable), not
//     dropped silently;
//   - a file written by `gavel export` gives back its runs, labels, notes
//     and provenance.
//
// Rows are matched to the session's items by id, so a file that holds
// only ids and judgments (a judge's results file) adds to the items an
// earlier import made; rows the session does not hold are counted
// (Unknown) and left out. ImportDataset is idempotent: a verdict or label
// the session already has, with the same value, is not added again, so
// calling it on every opening is cheap and safe; a value that changed in
// the file is added as the newer one, with the old kept as history.
func ImportDataset(s *Store, ds *dataset.Dataset, parser *OutputParser) (ImportSummary, error) {
	return ImportDatasetWith(s, ds, ImportOptions{Parser: parser})
}

// ImportDatasetWith is ImportDataset with the scales of the value columns
// given (gavel import --scale). A column without a scale given is read on
// the scale its values leave no doubt about (true/false is binary, 0, 0.5
// and 1 ternary, 1 to 5 with a value above 2 Likert, "tie" or model_a
// pairwise…); a column whose values fit several scales (1 and 2 only,
// 0/1/2…) is not read but listed in ImportSummary.Skipped with the scales
// it could be on and the --scale that picks one.
func ImportDatasetWith(s *Store, ds *dataset.Dataset, o ImportOptions) (ImportSummary, error) {
	var sum ImportSummary
	if ds == nil {
		return sum, nil
	}
	if err := CheckImportScales(ds, o.Scales); err != nil {
		return sum, err
	}
	rows := make([]bool, len(ds.Items)) // rows the session holds
	held, same, err := s.sameItemOrder(ds.Items)
	if err != nil {
		return sum, err
	}
	covered := 0
	if same {
		// The session holds exactly the file's items (a session just
		// built from it): no map of a million ids needed.
		for i := range rows {
			rows[i] = true
		}
		covered = len(rows)
	} else {
		known, err := s.itemIDs()
		if err != nil {
			return sum, err
		}
		held = len(known)
		for i, it := range ds.Items {
			rows[i] = known[it.ID]
			if rows[i] {
				covered++
			} else {
				sum.Unknown++
			}
		}
	}
	sum.Rows = len(ds.Items)
	sum.Missing = held - covered // ids are unique in a dataset

	file := filepath.Base(ds.Name)
	if err := checkConfidences(ds, rows, file); err != nil {
		return sum, err
	}
	var plan importPlan
	sum.Skipped = plan.addColumns(ds.Items, rows, ds.Imported, file, o)
	plan.addExported(ds.Items, rows, file, o.Scales, &sum.Skipped)

	for _, r := range plan.runs {
		ir, err := s.importRun(r)
		if err != nil {
			return sum, err
		}
		sum.Runs = append(sum.Runs, ir)
	}
	if plan.exported {
		if err := plan.nameRuns(s); err != nil {
			return sum, err
		}
	}
	for _, a := range plan.annotators {
		ia, err := s.importAnnotator(a)
		if err != nil {
			return sum, err
		}
		sum.Annotators = append(sum.Annotators, ia)
	}
	return sum, nil
}

// importPlan is what an import will write.
type importPlan struct {
	runs       []*plannedRun
	annotators []*plannedAnnotator
	// exported is set when the file is an export, whose labels may name
	// the run shown (label_shown_run); runIDs then gives the session id
	// of a run by the name the export gives it, once the runs are written
	// (nameRuns).
	exported bool
	runIDs   map[string]int64
}

// nameRuns maps the names an export gives runs to the session's ids: the
// file's runs as importRun wrote them, then the session's other runs by
// RunNames (a run an export left out of its verdict columns).
func (p *importPlan) nameRuns(s *Store) error {
	runs, err := s.Runs()
	if err != nil {
		return err
	}
	p.runIDs = map[string]int64{}
	for id, name := range RunNames(runs) {
		p.runIDs[name] = id
	}
	for _, r := range p.runs {
		if r.id != 0 {
			p.runIDs[r.column] = r.id
		}
	}
	return nil
}

// runID is the session id of the run an export names, 0 when none.
func (p *importPlan) runID(name string) int64 {
	return p.runIDs[name]
}

// plannedRun is a run and the verdicts an import brings for it, in both
// orders.
type plannedRun struct {
	info                                          judge.Info
	column                                        string
	swappedColumn, reasonColumn, confidenceColumn string
	scale                                         judge.Scale
	// verdicts yields the verdicts in dataset order, made from the
	// dataset's cells as they are written rather than held for the whole
	// file (a million verdicts held at once cost hundreds of megabytes). A
	// verdict's Values map may be shared with other verdicts: it is read,
	// never changed. swapped says whether any of them is in the swapped
	// order.
	verdicts iter.Seq[judge.Verdict]
	swapped  bool
	// id is the run's id in the session, once importRun has written it.
	id int64
}

// plannedAnnotator is an annotator and the labels and notes an import
// brings for them, one group per item.
type plannedAnnotator struct {
	name, column string
	dimension    string
	scale        judge.Scale
	// scales are the dimensions an exported annotator's labels use.
	scales []judge.Dimension
	// groups yields one item's labels and notes at a time, in dataset
	// order; the slice is the annotator's until the next one is asked
	// for. Reading them counts the values that are no label in unreadable
	// (firstUnreadable is the first of them), so the counts are whole
	// once groups has been read through.
	groups          iter.Seq[[]Action]
	unreadable      int
	firstUnreadable string
}

// countUnreadable counts a value that is no label.
func (a *plannedAnnotator) countUnreadable(text string) {
	if a.unreadable == 0 {
		a.firstUnreadable = text
	}
	a.unreadable++
}

// sameItemOrder reports whether the session's items, in index order, have
// exactly the ids of items in their order, reading the ids one at a time;
// held is how many items the session has when they are the same.
func (s *Store) sameItemOrder(items []judge.Item) (held int, same bool, err error) {
	if len(items) > 0 && consecutive(items) {
		// The usual answer (a session just built from the file) found
		// quickly; any other is checked by the walk below.
		if held, same, err := s.sameItemsByIndex(items); err != nil || same {
			return held, same, err
		}
	}
	err = s.read("reading the items", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT item_id FROM items ORDER BY idx`)
		if err != nil {
			return err
		}
		defer rows.Close()
		same = true
		var id sql.RawBytes
		for rows.Next() {
			if held >= len(items) {
				same = false
				return nil
			}
			if err := rows.Scan(&id); err != nil {
				return err
			}
			if string(id) != items[held].ID {
				same = false
				return nil
			}
			held++
		}
		if held != len(items) {
			same = false
		}
		return rows.Err()
	})
	return held, same, err
}

// consecutive reports whether the items' indexes follow each other from
// the first one's (a loaded dataset's do).
func consecutive(items []judge.Item) bool {
	for i := range items {
		if items[i].Index != items[0].Index+i {
			return false
		}
	}
	return true
}

// sameItemsByIndex reports whether the session holds items, of
// consecutive indexes, under their own indexes: it reads each session
// item's index and id from the small index on the ids (in id order)
// instead of walking the items table with its texts (a million rows: 0.6 s
// against a fifth of that), and finds the item of that index by
// arithmetic. Indexes are unique, so when every one of the session's items
// lands on an item of the same id and there are as many, the two lists
// are the same, in the same order. false says only that this quick check
// did not show it.
func (s *Store) sameItemsByIndex(items []judge.Item) (held int, same bool, err error) {
	base := items[0].Index
	err = s.read("reading the items", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT idx, item_id FROM items`)
		if err != nil {
			return err
		}
		defer rows.Close()
		same = true
		var idx int64
		var id sql.RawBytes
		for rows.Next() {
			if err := rows.Scan(&idx, &id); err != nil {
				return err
			}
			held++
			k := idx - int64(base)
			if k < 0 || k >= int64(len(items)) || string(id) != items[k].ID {
				same = false
				return nil
			}
		}
		if held != len(items) {
			same = false
		}
		return rows.Err()
	})
	return held, same, err
}

// itemIDs returns the ids of the session's items.
func (s *Store) itemIDs() (map[string]bool, error) {
	ids := map[string]bool{}
	err := s.read("reading the items", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT item_id FROM items`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids[id] = true
		}
		return rows.Err()
	})
	return ids, err
}

// importRun writes a planned run's verdicts that the session does not have
// yet, in either order, many rows per statement.
func (s *Store) importRun(p *plannedRun) (ImportedRun, error) {
	out := ImportedRun{Column: p.column, SwappedColumn: p.swappedColumn, ReasonColumn: p.reasonColumn, ConfidenceColumn: p.confidenceColumn, Scale: p.scale}
	key, err := RunKey(p.info)
	if err != nil {
		return out, err
	}
	runs, err := s.Runs()
	if err != nil {
		return out, err
	}
	out.Created = !slices.ContainsFunc(runs, func(r Run) bool { return r.Key == key })
	run, err := s.EnsureRun(p.info)
	if err != nil {
		return out, err
	}
	p.id = run.ID
	out.Name = RunLabel(run)
	current, err := s.Verdicts(run.ID)
	if err != nil {
		return out, err
	}
	if p.swapped {
		swapped, err := s.SwappedVerdicts(run.ID)
		if err != nil {
			return out, err
		}
		current = append(current, swapped...)
	}
	type vkey struct {
		item    string
		crit    int
		swapped bool
	}
	have := make(map[vkey]judge.Verdict, len(current))
	for _, v := range current {
		have[vkey{v.ItemID, v.Criterion, v.Swapped}] = v
	}
	current = nil
	unchanged := func(v judge.Verdict) bool {
		old, ok := have[vkey{v.ItemID, v.Criterion, v.Swapped}]
		return ok && sameVerdict(old, v)
	}
	if len(have) > 0 {
		changed := false
		for v := range p.verdicts {
			if !unchanged(v) {
				changed = true
				break
			}
		}
		if !changed {
			// Imported again with nothing new: no write at all.
			for range p.verdicts {
				out.Unchanged++
			}
			return out, nil
		}
	}
	err = s.writeUnchecked("saving verdicts", func(tx *sql.Tx) error {
		w, err := newVerdictWriter(tx, run.ID)
		if err != nil {
			return err
		}
		for v := range p.verdicts {
			if unchanged(v) {
				out.Unchanged++
				continue
			}
			if err := w.add(v); err != nil {
				return err
			}
			out.Verdicts++
			if v.Swapped {
				out.Swapped++
			}
			if v.Confidence != nil {
				out.Confidences++
			}
			if v.Status != judge.StatusOK {
				out.ParseErrors++
				if v.Swapped {
					out.SwappedParseErrors++
				}
			}
		}
		return w.flush()
	})
	if err != nil {
		return out, err
	}
	return out, nil
}

// sameVerdict reports whether an import would add nothing new: same
// status, values, reason, error and confidence.
func sameVerdict(a, b judge.Verdict) bool {
	if a.Status != b.Status || a.Reason != b.Reason || a.Error != b.Error || len(a.Values) != len(b.Values) {
		return false
	}
	if (a.Confidence == nil) != (b.Confidence == nil) || a.Confidence != nil && *a.Confidence != *b.Confidence {
		return false
	}
	for k, x := range a.Values {
		y, ok := b.Values[k]
		if !ok || !(x == y || math.IsNaN(x) && math.IsNaN(y)) {
			return false
		}
	}
	return true
}

// importAnnotator writes a planned annotator's labels and notes that
// differ from their current ones, many rows per statement.
func (s *Store) importAnnotator(p *plannedAnnotator) (ImportedAnnotator, error) {
	out := ImportedAnnotator{Name: p.name, Column: p.column, Dimension: p.dimension, Scale: p.scale}
	dims := p.scales
	if p.scale != "" {
		dims = append(dims, judge.Dimension{Name: p.dimension, Scale: p.scale})
	}
	if len(dims) > 0 {
		// Labels carry only a dimension name: the session records its
		// scale, so that labels with no judge run beside them (a file of
		// annotators alone) are read back on it.
		if err := s.DeclareScales(dims); err != nil {
			return out, err
		}
	}
	labels, err := s.Labels(p.name)
	if err != nil {
		return out, err
	}
	notes, err := s.Notes(p.name)
	if err != nil {
		return out, err
	}
	type lkey struct {
		item string
		crit int
		dim  string
	}
	have := make(map[lkey]float64, len(labels))
	for _, l := range labels {
		have[lkey{l.ItemID, l.Criterion, l.Dimension}] = l.Value
	}
	noted := make(map[string]string, len(notes))
	for _, n := range notes {
		noted[n.ItemID] = n.Text
	}
	labels, notes = nil, nil
	cur, err := s.currentLabelling(p.name)
	if err != nil {
		return out, err
	}
	// fresh keeps the actions of a group that change something, and
	// counts them (and the labels already there) when count is set.
	var buf []Action
	fresh := func(g []Action, count bool) []Action {
		buf = buf[:0]
		relabelled := false // a label of the group is written: it takes a can't-judge back
		for _, a := range g {
			switch {
			case a.Kind == KindNote:
				if noted[a.ItemID] == a.Note {
					continue
				}
				if count {
					out.Notes++
				}
			case a.Retest:
				if v, ok := cur.retests[LabelKey{a.ItemID, a.Criterion, a.Dimension}]; ok && v == a.Value {
					continue
				}
				if count {
					out.Retests++
				}
			case a.Kind == KindCantJudge:
				// After the group's labels (sortActions): written again
				// when a label was, so that it stays the latest decision.
				if cur.cantJudge[a.ItemID] == [2]string{a.Reason, a.Note} && !relabelled {
					continue
				}
				if count {
					out.CantJudges++
				}
			case a.Kind == KindTag:
				if cur.tags[[2]string{a.ItemID, a.Tag}] {
					continue
				}
				if count {
					out.Tags++
				}
			default:
				if v, ok := have[lkey{a.ItemID, a.Criterion, a.Dimension}]; ok && v == a.Value {
					if count {
						out.Unchanged++
					}
					continue
				}
				if count {
					out.Labels++
				}
				relabelled = true
			}
			buf = append(buf, a)
		}
		return buf
	}
	write := true
	if len(have) > 0 || len(noted) > 0 || len(cur.cantJudge) > 0 || len(cur.tags) > 0 || len(cur.retests) > 0 {
		// Imported again: write only when something is new.
		write = false
		for g := range p.groups {
			if len(fresh(g, false)) > 0 {
				write = true
				break
			}
		}
	}
	if !write {
		for g := range p.groups {
			fresh(g, true)
		}
	} else {
		err = s.writeUnchecked("saving labels", func(tx *sql.Tx) error {
			w, err := newGroupWriter(tx, s.path, p.name)
			if err != nil {
				return err
			}
			for g := range p.groups {
				if err := w.add(fresh(g, true)); err != nil {
					return err
				}
			}
			return w.flush()
		})
		if err != nil {
			return out, err
		}
	}
	out.Unreadable, out.FirstUnreadable = p.unreadable, p.firstUnreadable
	return out, nil
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
