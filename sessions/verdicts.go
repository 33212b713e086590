package sessions

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// SaveVerdicts appends verdicts to a run in one transaction: all or none.
// Earlier verdicts for the same (item, criterion) stay as history. A zero
// At is set to now; times are kept to the millisecond. An oversized raw
// output keeps its first judge.RawHead and last judge.RawTail bytes, with a marker
// saying how much was cut; reasons and errors keep judge.TextHead and judge.TextTail;
// extra fields over maxExtra are cut the same way in each of their
// strings (judge/llm cuts its verdicts so already).
func (s *Store) SaveVerdicts(runID int64, vs []judge.Verdict) error {
	if len(vs) == 0 {
		return nil
	}
	if s.upstream != nil {
		// A replica's verdicts are the team session's (upstream.go).
		return s.upstream.SaveVerdicts(runID, vs)
	}
	return s.write("saving verdicts", func(tx *sql.Tx) error {
		var one int
		if err := tx.QueryRow(`SELECT 1 FROM runs WHERE id = ?`, runID).Scan(&one); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("no judge run %d in this session", runID)
			}
			return err
		}
		known, err := tx.Prepare(`SELECT 1 FROM items WHERE item_id = ?`)
		if err != nil {
			return err
		}
		defer known.Close()
		codec, err := loadCodec(tx)
		if err != nil {
			return err
		}
		ins, err := tx.Prepare(`INSERT INTO verdicts (run_id, item_id, criterion, swapped, status, reason, error, raw, model,
			prompt_tokens, completion_tokens, latency_ms, confidence, extra, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		val, err := tx.Prepare(`INSERT INTO verdict_values (verdict_id, dimension, value) VALUES (?, ?, ?)`)
		if err != nil {
			return err
		}
		defer val.Close()

		for _, v := range vs {
			if err := known.QueryRow(v.ItemID).Scan(&one); err != nil {
				if errors.Is(err, sql.ErrNoRows) {
					return fmt.Errorf("verdict for unknown item %q", v.ItemID)
				}
				return err
			}
			if v.Criterion < 0 {
				return fmt.Errorf("verdict for item %q has criterion %d: criteria start at 1 (0 is the whole item)", v.ItemID, v.Criterion)
			}
			at := v.At
			if at.IsZero() {
				at = now()
			}
			var conf any
			if v.Confidence != nil && !math.IsNaN(*v.Confidence) {
				conf = *v.Confidence
			}
			res, err := ins.Exec(runID, v.ItemID, v.Criterion, v.Swapped, string(v.Status),
				judge.CutText(v.Reason, judge.TextHead, judge.TextTail), judge.CutText(v.Error, judge.TextHead, judge.TextTail),
				judge.CutText(v.Raw, judge.RawHead, judge.RawTail), v.Model,
				v.PromptTokens, v.CompletionTokens, float64(v.Latency)/float64(time.Millisecond), conf,
				capJSON(extraJSON(v.Extra)), stamp(at))
			if err != nil {
				return fmt.Errorf("verdict for item %q: %w", v.ItemID, err)
			}
			id, err := res.LastInsertId()
			if err != nil {
				return err
			}
			for dim, x := range v.Values {
				if math.IsNaN(x) {
					continue // NaN means no value
				}
				if _, err := val.Exec(id, dim, codec.encode(dim, x)); err != nil {
					return fmt.Errorf("verdict for item %q, dimension %q: %w", v.ItemID, dim, err)
				}
			}
		}
		return nil
	})
}

// extraJSON renders a verdict's extra fields, or nil (SQL NULL) when there
// are none. A value JSON cannot hold is kept as its printed form rather
// than losing the verdict.
func extraJSON(extra map[string]any) any {
	if len(extra) == 0 {
		return nil
	}
	b, err := json.Marshal(extra)
	if err != nil {
		safe := make(map[string]any, len(extra))
		for k, v := range extra {
			if _, err := json.Marshal(v); err != nil {
				v = fmt.Sprint(v)
			}
			safe[k] = v
		}
		if b, err = json.Marshal(safe); err != nil {
			return nil
		}
	}
	return string(b)
}

// verdictColumns is what scanVerdicts reads, one row per (verdict,
// dimension value), with a NULL dimension for a verdict without values.
const verdictColumns = `v.id, v.item_id, v.criterion, v.swapped, v.status, v.reason, v.error, v.raw, v.model,
	v.prompt_tokens, v.completion_tokens, v.latency_ms, v.confidence, v.extra, v.created_at,
	vv.dimension, vv.value`

// Verdicts returns the run's current verdicts — the latest per (item,
// criterion) — in item order, then criterion order. Verdicts made with a
// pair's responses swapped are not among them: SwappedVerdicts has those.
func (s *Store) Verdicts(runID int64) ([]judge.Verdict, error) {
	return s.currentVerdicts(runID, false, "v.raw", false)
}

// SwappedVerdicts returns the run's current swapped-order verdicts (the
// second order of the swap audit), like Verdicts.
func (s *Store) SwappedVerdicts(runID int64) ([]judge.Verdict, error) {
	return s.currentVerdicts(runID, true, "v.raw", false)
}

// ReviewVerdicts is Verdicts without the raw output of ok verdicts, which
// the review screen does not show (it shows the raw output of unreadable
// ones): reopening a session of long model answers then reads kilobytes
// rather than the whole of every answer.
func (s *Store) ReviewVerdicts(runID int64) ([]judge.Verdict, error) {
	return s.currentVerdicts(runID, false, okElided("v.raw", "''"), false)
}

// ReviewSwappedVerdicts is ReviewVerdicts for the swapped order.
func (s *Store) ReviewSwappedVerdicts(runID int64) ([]judge.Verdict, error) {
	return s.currentVerdicts(runID, true, okElided("v.raw", "''"), false)
}

// currentVerdicts reads the latest verdict per (item, criterion) of one
// order: the highest id of each group, found on the verdicts_by_item index
// alone. raw is the column read as the raw output. With screen set (the
// review screen's verdicts: screenVerdicts), the reason and extra fields
// of ok verdicts are left out too, the verdicts are counted first so that
// their slice is made once, and one-dimension Values maps are shared
// (scanScreenVerdicts).
func (s *Store) currentVerdicts(runID int64, swapped bool, raw string, screen bool) ([]judge.Verdict, error) {
	return s.currentVerdictsEach(runID, swapped, raw, screen, 0, nil)
}

// currentVerdictsEach is currentVerdicts handing the verdicts to each
// when it is set, about chunk at a time (scanVerdictsEach), without
// counting them first: it then returns none.
func (s *Store) currentVerdictsEach(runID int64, swapped bool, raw string, screen bool, chunk int, each func([]judge.Verdict) error) ([]judge.Verdict, error) {
	cols := strings.Replace(verdictColumns, "v.raw", raw, 1)
	if screen {
		cols = strings.NewReplacer("v.reason", okElided("v.reason", "''"), "v.extra", okElided("v.extra", "NULL")).Replace(cols)
	}
	var out []judge.Verdict
	err := s.read("reading verdicts", func(tx *sql.Tx) error {
		n := 0
		if each != nil {
			n = chunk + 64 // an item's criteria may end a chunk
		} else if screen {
			if err := tx.QueryRow(`SELECT count(*) FROM (SELECT 1 FROM verdicts WHERE run_id = ? AND swapped = ? GROUP BY item_id, criterion)`,
				runID, swapped).Scan(&n); err != nil {
				return err
			}
		}
		rows, err := tx.Query(`WITH cur AS (
				SELECT max(id) AS id FROM verdicts WHERE run_id = ? AND swapped = ? GROUP BY item_id, criterion)
			SELECT `+cols+`
			FROM cur
			JOIN verdicts v ON v.id = cur.id
			JOIN items i ON i.item_id = v.item_id
			LEFT JOIN verdict_values vv ON vv.verdict_id = v.id
			ORDER BY i.idx, v.criterion, v.id`, runID, swapped)
		if err != nil {
			return err
		}
		if screen {
			out, err = scanScreenVerdicts(tx, rows, n, chunk, each)
		} else if each != nil {
			out, err = scanVerdictsEach(tx, rows, n, nil, chunk, each)
		} else {
			out, err = scanVerdicts(tx, rows)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// okElided is col, read as elided for ok verdicts: what the review does
// not hold of them.
func okElided(col, elided string) string {
	return "CASE WHEN v.status = 'ok' THEN " + elided + " ELSE " + col + " END"
}

// VerdictHistory returns every verdict the run gave an item, all criteria
// and both orders (Swapped marks the second), oldest first.
func (s *Store) VerdictHistory(runID int64, itemID string) ([]judge.Verdict, error) {
	var out []judge.Verdict
	err := s.read("reading verdict history", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT `+verdictColumns+`
			FROM verdicts v
			LEFT JOIN verdict_values vv ON vv.verdict_id = v.id
			WHERE v.run_id = ? AND v.swapped IN (0, 1) AND v.item_id = ? -- both orders named: the look-up uses verdicts_by_item whole
			ORDER BY v.id`, runID, itemID)
		if err != nil {
			return err
		}
		out, err = scanVerdicts(tx, rows)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// scanVerdicts folds rows of verdictColumns, grouped by verdict id, into
// verdicts.
func scanVerdicts(tx *sql.Tx, rows *sql.Rows) ([]judge.Verdict, error) {
	return scanVerdictsWith(tx, rows, 0, nil)
}

// scanVerdictsWith is scanVerdicts with room made for hint verdicts and
// ended, when not nil, called with each verdict once its values are all
// read.
func scanVerdictsWith(tx *sql.Tx, rows *sql.Rows, hint int, ended func(*judge.Verdict)) ([]judge.Verdict, error) {
	return scanVerdictsEach(tx, rows, hint, ended, 0, nil)
}

// scanVerdictsEach is scanVerdictsWith that, with flush set, hands the
// verdicts to flush about chunk at a time, an item's verdicts never
// split (rows come grouped by item), in a slice that the next chunk
// reuses, and returns none.
func scanVerdictsEach(tx *sql.Tx, rows *sql.Rows, hint int, ended func(*judge.Verdict), chunk int, flush func([]judge.Verdict) error) ([]judge.Verdict, error) {
	defer rows.Close()
	codec, err := loadCodec(tx)
	if err != nil {
		return nil, err
	}
	var out []judge.Verdict // nil when there is none, as before hints
	if hint > 0 {
		out = make([]judge.Verdict, 0, hint)
	}
	end := func() {
		if ended != nil && len(out) > 0 {
			ended(&out[len(out)-1])
		}
	}
	lastID := int64(-1)
	for rows.Next() {
		var (
			id              int64
			v               judge.Verdict
			status, created string
			latencyMS       float64
			conf            sql.NullFloat64
			extra, dim      sql.NullString
			value           any
		)
		if err := rows.Scan(&id, &v.ItemID, &v.Criterion, &v.Swapped, &status, &v.Reason, &v.Error, &v.Raw, &v.Model,
			&v.PromptTokens, &v.CompletionTokens, &latencyMS, &conf, &extra, &created, &dim, &value); err != nil {
			return nil, err
		}
		if id != lastID {
			end()
			if flush != nil && len(out) > 0 && len(out) >= chunk && out[len(out)-1].ItemID != v.ItemID {
				if err := flush(out); err != nil {
					return nil, err
				}
				clear(out) // the next chunk holds no map of this one
				out = out[:0]
			}
			lastID = id
			v.Status = judge.Status(status)
			v.Latency = time.Duration(math.Round(latencyMS * float64(time.Millisecond)))
			if conf.Valid {
				c := conf.Float64
				v.Confidence = &c
			}
			if extra.Valid {
				if err := json.Unmarshal([]byte(extra.String), &v.Extra); err != nil {
					return nil, fmt.Errorf("verdict %d has unreadable extra fields: %w", id, err)
				}
			}
			var err error
			if v.At, err = parseStamp(created); err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		if x, ok := codec.decode(dim.String, value); dim.Valid && ok {
			last := &out[len(out)-1]
			if last.Values == nil {
				last.Values = map[string]float64{}
			}
			last.Values[dim.String] = x
		}
	}
	end()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if flush != nil {
		if len(out) > 0 {
			if err := flush(out); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	return out, nil
}

// maxExtra caps each string of a verdict's extra fields.
const maxExtra = 1 << 20

// capJSON cuts every string of an extra-fields document over maxExtra.
func capJSON(doc any) any {
	s, ok := doc.(string)
	if !ok || len(s) <= maxExtra {
		return doc
	}
	var x any
	if json.Unmarshal([]byte(s), &x) != nil {
		return judge.CutText(s, judge.TextHead, judge.TextTail)
	}
	b, err := json.Marshal(capStrings(x))
	if err != nil {
		return nil
	}
	return string(b)
}

func capStrings(x any) any {
	switch t := x.(type) {
	case string:
		return judge.CutText(t, judge.TextHead, judge.TextTail)
	case []any:
		for i := range t {
			t[i] = capStrings(t[i])
		}
	case map[string]any:
		for k, v := range t {
			t[k] = capStrings(v)
		}
	}
	return x
}
