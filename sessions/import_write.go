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

// verdictWriter appends imported verdicts to one run. The rows are those
// of the session's own items (the import plans no other), so unlike
// SaveVerdicts it does not look each item up.
type verdictWriter struct {
	codec  *valueCodec
	run    any
	at     any
	nextID int64
	rows   *batchInserter
	values *batchInserter
	// boxed holds the statuses and dimension names already boxed.
	boxed map[string]any
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
	return &verdictWriter{
		codec:  codec,
		run:    runID,
		at:     stamp(now()),
		nextID: last + 1,
		rows: newBatchInserter(tx, "verdicts", "id", "run_id", "item_id", "criterion", "swapped", "status", "reason", "error", "raw",
			"model", "prompt_tokens", "completion_tokens", "latency_ms", "confidence", "extra", "created_at"),
		values: newBatchInserter(tx, "verdict_values", "verdict_id", "dimension", "value"),
		boxed:  map[string]any{},
	}, nil
}

// box returns s as an interface value, the same one for the same text.
func (w *verdictWriter) box(s string) any {
	if b, ok := w.boxed[s]; ok {
		return b
	}
	var b any = s
	if len(w.boxed) < 1024 {
		w.boxed[s] = b
	}
	return b
}

// add queues one verdict as SaveVerdicts stores it: texts cut to their
// caps, a zero time taken as the import's.
func (w *verdictWriter) add(v judge.Verdict) error {
	if v.Criterion < 0 {
		return fmt.Errorf("verdict for item %q has criterion %d: criteria start at 1 (0 is the whole item)", v.ItemID, v.Criterion)
	}
	at := w.at
	if !v.At.IsZero() {
		at = stamp(v.At)
	}
	var conf any
	if v.Confidence != nil && !math.IsNaN(*v.Confidence) {
		conf = *v.Confidence
	}
	id := w.nextID
	w.nextID++
	err := w.rows.add(id, w.run, v.ItemID, v.Criterion, v.Swapped, w.box(string(v.Status)),
		judge.CutText(v.Reason, judge.TextHead, judge.TextTail), judge.CutText(v.Error, judge.TextHead, judge.TextTail),
		judge.CutText(v.Raw, judge.RawHead, judge.RawTail), v.Model,
		v.PromptTokens, v.CompletionTokens, float64(v.Latency)/float64(time.Millisecond), conf,
		capJSON(extraJSON(v.Extra)), at)
	if err != nil {
		return fmt.Errorf("verdicts up to item %q: %w", v.ItemID, err)
	}
	for dim, x := range v.Values {
		if math.IsNaN(x) {
			continue // NaN means no value
		}
		if err := w.values.add(id, w.box(dim), w.codec.encode(dim, x)); err != nil {
			return fmt.Errorf("verdict values up to item %q: %w", v.ItemID, err)
		}
	}
	return nil
}

// flush writes what is still queued.
func (w *verdictWriter) flush() error {
	if err := w.rows.flush(); err != nil {
		return fmt.Errorf("the last verdicts: %w", err)
	}
	if err := w.values.flush(); err != nil {
		return fmt.Errorf("the last verdict values: %w", err)
	}
	return nil
}

// groupWriter appends groups of imported actions as one annotator, each
// group numbered as one key press would be (see recordGroups, which
// writes a reviewer's).
type groupWriter struct {
	path      string
	codec     *valueCodec
	group     int64
	annotator any
	at        any
	ins       *batchInserter
	boxed     map[string]any
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
	return &groupWriter{
		path:      path,
		codec:     codec,
		group:     group,
		annotator: annotator,
		at:        stamp(now()),
		ins:       newBatchInserter(tx, "actions", "group_id", "kind", "item_id", "criterion", "dimension", "value", "note", "via", "annotator", "at"),
		boxed:     map[string]any{},
	}, nil
}

func (w *groupWriter) box(s string) any {
	if b, ok := w.boxed[s]; ok {
		return b
	}
	var b any = s
	if len(w.boxed) < 1024 {
		w.boxed[s] = b
	}
	return b
}

// add queues one group; an empty group is no key press and takes no
// number.
func (w *groupWriter) add(g []Action) error {
	if len(g) == 0 {
		return nil
	}
	for _, a := range g {
		if err := checkAction(a); err != nil {
			return fmt.Errorf("session %s: %w", w.path, err)
		}
		var value any
		if a.Kind == KindLabel || a.Kind == KindAccept {
			value = w.codec.encode(a.Dimension, a.Value)
		}
		if err := w.ins.add(w.group, w.box(string(a.Kind)), a.ItemID, a.Criterion, w.box(a.Dimension), value, a.Note,
			w.box(a.Via), w.annotator, w.at); err != nil {
			return fmt.Errorf("labels up to item %q: %w", a.ItemID, err)
		}
	}
	w.group++
	return nil
}

// flush writes what is still queued.
func (w *groupWriter) flush() error {
	if err := w.ins.flush(); err != nil {
		return fmt.Errorf("the last labels: %w", err)
	}
	return nil
}
