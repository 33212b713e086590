package sessions

import (
	"database/sql"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// An import writes a verdict and a label for every row of a file, a
// million of each at times. Written one statement per row, as
// SaveVerdicts and Record write a judge's or a reviewer's few, they took
// most of a labelled import's time; these writers put insertBatch rows in
// each statement, and pass the values every row shares (the run, the
// time, the annotator) boxed once rather than once per row.

// writeUnchecked is s.write for the import's batch writers
// (verdictWriter, groupWriter): in a build (writeBuild) SQLite skips the
// CHECK constraints of the rows they write. Their lists of allowed words
// (actions.kind IN (…), reason IN (…)…) are looked up in a table SQLite
// makes for every statement, and with them the labels of a million rows
// took 9.7 s of CPU to write, against 5.3 s without (profiled). The
// writers check every row as the constraints do before it goes in
// (checkAction, a verdict's criterion; a swapped flag is a bool), as the
// build already leaves the foreign keys to the checks made before; an
// open store keeps SQLite's checks.
func (s *Store) writeUnchecked(what string, fn func(tx *sql.Tx) error) error {
	if !s.building {
		return s.write(what, fn)
	}
	return s.write(what, func(tx *sql.Tx) error {
		if _, err := tx.Exec(`PRAGMA ignore_check_constraints = ON`); err != nil {
			return err
		}
		err := fn(tx)
		if _, oerr := tx.Exec(`PRAGMA ignore_check_constraints = OFF`); err == nil {
			err = oerr
		}
		return err
	})
}

// verdictWriter appends imported verdicts to one run. The rows are those
// of the session's own items (the import plans no other), so unlike
// SaveVerdicts it does not look each item up.
type verdictWriter struct {
	codec  *valueCodec
	tx     *sql.Tx
	run    any
	at     any
	nextID int64
	// plain takes the verdicts of a value column: ok, no reason, error,
	// model, tokens or time of their own; every column but the id, item,
	// criterion, order and raw text is bound once per statement. rows
	// takes the others, every column bound per row.
	plain, rows *batchInserter
	// values holds the inserters of verdict_values, one per dimension.
	values map[string]*batchInserter
}

// newVerdictWriter starts writing verdicts of run runID in tx. The ids
// are given here, from the largest in the table on, as SQLite would give
// them, so that the values can name their verdict without a round trip
// per row.
func newVerdictWriter(tx *sql.Tx, runID int64) (*verdictWriter, error) {
	codec, err := loadCodec(tx)
	if err != nil {
		return nil, err
	}
	var last int64
	if err := tx.QueryRow(`SELECT coalesce(max(id), 0) FROM verdicts`).Scan(&last); err != nil {
		return nil, err
	}
	// The values reach the table in their own batches, at times before
	// their verdict's: the foreign keys are checked at the commit (the
	// pragma ends with the transaction).
	if _, err := tx.Exec(`PRAGMA defer_foreign_keys = ON`); err != nil {
		return nil, err
	}
	at := stamp(now())
	return &verdictWriter{
		codec:  codec,
		tx:     tx,
		run:    runID,
		at:     at,
		nextID: last + 1,
		plain: newSharedInserter(tx, "verdicts", []sharedColumn{
			{"run_id", runID}, {"status", string(judge.StatusOK)}, {"reason", ""}, {"error", ""}, {"model", ""},
			{"prompt_tokens", 0}, {"completion_tokens", 0}, {"latency_ms", 0.0}, {"confidence", nil}, {"extra", nil},
			{"created_at", at}}, []string{"id", "item_id", "criterion", "swapped", "raw"}),
		rows: newBatchInserter(tx, "verdicts", "id", "run_id", "item_id", "criterion", "swapped", "status", "reason", "error", "raw",
			"model", "prompt_tokens", "completion_tokens", "latency_ms", "confidence", "extra", "created_at"),
		values: map[string]*batchInserter{},
	}, nil
}

// plainVerdict reports whether v is what the plain inserter writes.
func plainVerdict(v judge.Verdict) bool {
	return v.Status == judge.StatusOK && v.Reason == "" && v.Error == "" && v.Model == "" &&
		v.PromptTokens == 0 && v.CompletionTokens == 0 && v.Latency == 0 &&
		(v.Confidence == nil || math.IsNaN(*v.Confidence)) && len(v.Extra) == 0 && v.At.IsZero()
}

// add queues one verdict as SaveVerdicts stores it: texts cut to their
// caps, a zero time taken as the import's.
func (w *verdictWriter) add(v judge.Verdict) error {
	if v.Criterion < 0 {
		return fmt.Errorf("verdict for item %q has criterion %d: criteria start at 1 (0 is the whole item)", v.ItemID, v.Criterion)
	}
	id := w.nextID
	w.nextID++
	var err error
	if plainVerdict(v) {
		err = w.plain.add(id, v.ItemID, v.Criterion, v.Swapped, judge.CutText(v.Raw, judge.RawHead, judge.RawTail))
	} else {
		at := w.at
		if !v.At.IsZero() {
			at = stamp(v.At)
		}
		var conf any
		if v.Confidence != nil && !math.IsNaN(*v.Confidence) {
			conf = *v.Confidence
		}
		err = w.rows.add(id, w.run, v.ItemID, v.Criterion, v.Swapped, string(v.Status),
			judge.CutText(v.Reason, judge.TextHead, judge.TextTail), judge.CutText(v.Error, judge.TextHead, judge.TextTail),
			judge.CutText(v.Raw, judge.RawHead, judge.RawTail), v.Model,
			v.PromptTokens, v.CompletionTokens, float64(v.Latency)/float64(time.Millisecond), conf,
			capJSON(extraJSON(v.Extra)), at)
	}
	if err != nil {
		return fmt.Errorf("verdicts up to item %q: %w", v.ItemID, err)
	}
	for dim, x := range v.Values {
		if math.IsNaN(x) {
			continue // NaN means no value
		}
		ins, ok := w.values[dim]
		if !ok {
			ins = newSharedInserter(w.tx, "verdict_values", []sharedColumn{{"dimension", dim}}, []string{"verdict_id", "value"})
			w.values[dim] = ins
		}
		if err := ins.add(id, w.codec.encode(dim, x)); err != nil {
			return fmt.Errorf("verdict values up to item %q: %w", v.ItemID, err)
		}
	}
	return nil
}

// flush writes what is still queued.
func (w *verdictWriter) flush() error {
	if err := w.plain.flush(); err != nil {
		return fmt.Errorf("the last verdicts: %w", err)
	}
	if err := w.rows.flush(); err != nil {
		return fmt.Errorf("the last verdicts: %w", err)
	}
	for _, ins := range w.values {
		if err := ins.flush(); err != nil {
			return fmt.Errorf("the last verdict values: %w", err)
		}
	}
	return nil
}

// groupWriter appends groups of imported actions as one annotator, each
// group numbered as one key press would be (see recordGroups, which
// writes a reviewer's). The ids are given here, as SQLite would give them,
// so that actions of several kinds may go through several inserters.
type groupWriter struct {
	tx        *sql.Tx
	path      string
	codec     *valueCodec
	group     int64
	firstID   int64
	nextID    int64
	annotator string
	at        string
	// labels holds an inserter per kind, dimension and provenance of the
	// labels: those columns, and the annotator and time, are bound once
	// per statement. others takes notes, every column bound per row.
	labels map[labelShape]*batchInserter
	others *batchInserter
	// labelling takes actions with a column of schema v8 set (a
	// can't-judge, a tag, a re-test, a visibility): every column per row.
	labelling *batchInserter
}

// labelShape is what a batch of labels shares.
type labelShape struct {
	kind           ActionKind
	dimension, via string
}

// newGroupWriter starts writing annotator's actions in tx, at one time.
func newGroupWriter(tx *sql.Tx, path, annotator string) (*groupWriter, error) {
	annotator = strings.TrimSpace(annotator)
	if annotator == "" {
		return nil, fmt.Errorf("session %s: actions need an annotator name", path)
	}
	codec, err := loadCodec(tx)
	if err != nil {
		return nil, err
	}
	group, err := nextGroup(tx)
	if err != nil {
		return nil, err
	}
	var last int64
	if err := tx.QueryRow(`SELECT coalesce(max(id), 0) FROM actions`).Scan(&last); err != nil {
		return nil, err
	}
	return &groupWriter{
		tx:        tx,
		path:      path,
		codec:     codec,
		group:     group,
		firstID:   last + 1,
		nextID:    last + 1,
		annotator: annotator,
		at:        stamp(now()),
		labels:    map[labelShape]*batchInserter{},
		others: newBatchInserter(tx, "actions", "id", "group_id", "kind", "item_id", "criterion", "dimension", "value", "note",
			"via", "annotator", "at"),
		labelling: newBatchInserter(tx, "actions", "id", "group_id", "kind", "item_id", "criterion", "dimension", "value", "note",
			"via", "annotator", "at", "reason", "tag", "guidelines_id", "shown", "retest", "appeared_at", "sitting"),
	}, nil
}

// add queues one group; an empty group is no key press and takes no
// number.
func (w *groupWriter) add(g []Action) error {
	if len(g) == 0 {
		return nil
	}
	// The group is numbered by its first action's id, as nextGroup numbers
	// a key press's, once past the numbers an older session used.
	w.group = max(w.group, w.nextID)
	for _, a := range g {
		if err := checkAction(a); err != nil {
			return fmt.Errorf("session %s: %w", w.path, err)
		}
		id := w.nextID
		w.nextID++
		var err error
		if !plainAction(a) {
			err = w.addLabelling(id, a)
		} else if a.Kind == KindLabel || a.Kind == KindAccept {
			k := labelShape{a.Kind, a.Dimension, a.Via}
			ins, ok := w.labels[k]
			if !ok {
				ins = newSharedInserter(w.tx, "actions", []sharedColumn{{"kind", string(a.Kind)}, {"dimension", a.Dimension},
					{"note", ""}, {"via", a.Via}, {"annotator", w.annotator}, {"at", w.at}},
					[]string{"id", "group_id", "item_id", "criterion", "value"})
				w.labels[k] = ins
			}
			err = ins.add(id, w.group, a.ItemID, a.Criterion, w.codec.encode(a.Dimension, a.Value))
		} else {
			err = w.others.add(id, w.group, string(a.Kind), a.ItemID, a.Criterion, a.Dimension, nil, a.Note, a.Via, w.annotator, w.at)
		}
		if err != nil {
			return fmt.Errorf("labels up to item %q: %w", a.ItemID, err)
		}
	}
	w.group++
	return nil
}

// flush writes what is still queued.
func (w *groupWriter) flush() error {
	for _, ins := range w.labels {
		if err := ins.flush(); err != nil {
			return fmt.Errorf("the last labels: %w", err)
		}
	}
	if err := w.others.flush(); err != nil {
		return fmt.Errorf("the last notes: %w", err)
	}
	if err := w.labelling.flush(); err != nil {
		return fmt.Errorf("the last can't-judges, tags and re-tests: %w", err)
	}
	if w.nextID > w.firstID {
		return keepCurrentLabels(w.tx, w.firstID)
	}
	return nil
}

// plainAction reports whether a is a label, accept or note with no
// column of schema v8 set: what the labels' and others' inserters write.
func plainAction(a Action) bool {
	return (a.Kind == KindLabel || a.Kind == KindAccept || a.Kind == KindNote) && !a.Retest && a.Shown == ShownUnknown &&
		a.Guidelines == 0 && a.Appeared.IsZero() && a.Sitting == "" && a.Reason == "" && a.Tag == ""
}

// addLabelling queues an action with every column; a tag joins the
// session's tag set, as Record has it join.
func (w *groupWriter) addLabelling(id int64, a Action) error {
	var value any
	switch a.Kind {
	case KindLabel, KindAccept:
		value = w.codec.encode(a.Dimension, a.Value)
	case KindTag:
		value = a.Value
		at, err := parseStamp(w.at)
		if err != nil {
			return err
		}
		if err := addSessionTag(w.tx, a.Tag, at); err != nil {
			return err
		}
	}
	return w.labelling.add(id, w.group, string(a.Kind), a.ItemID, a.Criterion, a.Dimension, value, a.Note, a.Via, w.annotator, w.at,
		nullText(a.Reason), nullText(a.Tag), nullID(a.Guidelines), shownColumn(a.Shown, a.ShownRun), a.Retest, nullStamp(a.Appeared), nullText(a.Sitting))
}
