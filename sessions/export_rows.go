package sessions

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"strconv"

	"github.com/gavel-dev/gavel/judge"
)

// A row's cells are nil (nothing), string, float64, []any (a list by
// criterion, or the rubric) or json.RawMessage (the original fields).

// row builds item i's cells, parallel to columnNames.
func (t *exportTable) row(i int) []any {
	it := t.items[i]
	cells := []any{it.ID, it.Question, it.Gold, it.Prediction}
	if t.pairwise {
		cells = append(cells, it.ResponseA, it.ResponseB)
	}
	var rubric any
	if len(it.Rubric) > 0 {
		r := make([]any, len(it.Rubric))
		for k, c := range it.Rubric {
			r[k] = c
		}
		rubric = r
	}
	cells = append(cells, rubric)
	for _, f := range t.segments {
		if v, ok := it.Segments[f]; ok {
			cells = append(cells, v)
		} else {
			cells = append(cells, nil)
		}
	}
	for _, r := range t.runs {
		cells = append(cells, r.cells(it)...)
		if r.swapped != nil {
			cells = append(cells, r.swappedCells(it)...)
		}
	}
	for _, a := range t.anns {
		cells = append(cells, a.cells(t, it)...)
	}
	var fields any
	if len(it.Fields) > 0 && json.Valid(it.Fields) {
		fields = it.Fields
	}
	return append(cells, fields)
}

// formatValue writes a value the way a reviewer reads it: YES/NO on a
// binary scale, the category's name on nominal and pairwise ones (A, B,
// tie), the number otherwise.
func formatValue(x float64, scale judge.Scale) any {
	if scale == judge.Binary && (x == 0 || x == 1) {
		return judge.Binary.Format(x)
	}
	if scale.Categorical() && scale.Valid(x) {
		return scale.Format(x)
	}
	return x
}

// textOrNil is nil for an empty text.
func textOrNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// cells are a run's columns for one item: a value per dimension, then
// status, reason and error.
func (r exportRun) cells(it judge.Item) []any {
	vs := r.verdicts[it.ID]
	n := len(r.info.Dimensions) + 3
	if r.confidence {
		n += 2
	}
	out := make([]any, n)
	if len(vs) == 0 {
		return out
	}
	if !r.info.PerCriterion {
		for _, v := range vs {
			if v.Criterion == 0 {
				r.fill(v, func(col int, x any) { out[col] = x })
			}
		}
		return out
	}
	width := len(it.Rubric) + 1
	for _, v := range vs {
		width = max(width, v.Criterion+1)
	}
	lists := make([][]any, n)
	for c := range lists {
		lists[c] = make([]any, width)
	}
	for _, v := range vs {
		r.fill(v, func(col int, x any) { lists[col][v.Criterion] = x })
	}
	for c := range lists {
		out[c] = lists[c]
	}
	return out
}

// swappedCells are a pairwise run's swapped-order columns for one item: a
// value per dimension, then the status.
func (r exportRun) swappedCells(it judge.Item) []any {
	out := make([]any, len(r.info.Dimensions)+1)
	for _, v := range r.swapped[it.ID] {
		if v.Criterion != 0 {
			continue
		}
		for d, dim := range r.info.Dimensions {
			if x, ok := v.Values[dim.Name]; ok && hasValues(v) {
				out[d] = formatValue(x, dim.Scale)
			}
		}
		out[len(r.info.Dimensions)] = string(v.Status)
	}
	return out
}

// fill sets one verdict's cells through set.
func (r exportRun) fill(v judge.Verdict, set func(col int, x any)) {
	for d, dim := range r.info.Dimensions {
		if x, ok := v.Values[dim.Name]; ok && hasValues(v) {
			set(d, formatValue(x, dim.Scale))
		}
	}
	n := len(r.info.Dimensions)
	set(n, string(v.Status))
	set(n+1, textOrNil(v.Reason))
	set(n+2, textOrNil(v.Error))
	if r.confidence {
		if v.Confidence != nil && !math.IsNaN(*v.Confidence) {
			set(n+3, *v.Confidence)
		}
		set(n+4, textOrNil(withheld(v)))
	}
}

// withheld is why a verdict has no confidence although the server sent
// logprobs (judge/llm's ExtraConfidenceWithheld), or "".
func withheld(v judge.Verdict) string {
	s, _ := v.Extra[ExtraConfidenceWithheld].(string)
	return s
}

// cells are an annotator's columns for one item: a label per dimension,
// then how they reached it and their note, then the labelling columns
// (export_labelling.go).
func (a exportAnnotator) cells(t *exportTable, it judge.Item) []any {
	ls := a.labels[it.ID]
	out := make([]any, 0, len(a.dims)+2)
	via := ""
	for _, d := range a.dims {
		c, first := labelCell(ls, d, len(it.Rubric), t.scales[d])
		if via == "" && first != nil {
			via = first.Via
		}
		out = append(out, c)
	}
	out = append(out, textOrNil(via), textOrNil(a.notes[it.ID]))
	return append(out, a.labellingCells(t, it)...)
}

// labelCell is the cell of labels ls on dimension d of an item with
// rubric criteria: the value, or, when some label is on a criterion, a
// list indexed by criterion (0 the whole item). first is the first of ls
// on d, nil when none is.
func labelCell(ls []Label, d string, rubric int, scale judge.Scale) (cell any, first *Label) {
	perCriterion, width := false, rubric+1
	for _, l := range ls {
		if l.Dimension == d && l.Criterion > 0 {
			perCriterion = true
			width = max(width, l.Criterion+1)
		}
	}
	var list []any
	if perCriterion {
		list = make([]any, width)
		cell = list
	}
	for i, l := range ls {
		if l.Dimension != d {
			continue
		}
		if first == nil {
			first = &ls[i]
		}
		x := formatValue(l.Value, scale)
		if perCriterion {
			list[l.Criterion] = x
		} else {
			cell = x
		}
	}
	return cell, first
}

// rowEncoder writes rows in one format.
type rowEncoder interface {
	header(w io.Writer, cols []string) error
	row(w io.Writer, cells []any) error
	flush(w io.Writer) error
}

// jsonlEncoder writes one JSON object per line, keys in column order.
type jsonlEncoder struct {
	cols []string
	buf  bytes.Buffer
	enc  *json.Encoder
}

func (e *jsonlEncoder) header(_ io.Writer, cols []string) error {
	e.cols = cols
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false) // answers hold <, > and & often; keep them readable
	return nil
}

func (e *jsonlEncoder) row(w io.Writer, cells []any) error {
	e.buf.Reset()
	e.buf.WriteByte('{')
	for i, c := range cells {
		if i > 0 {
			e.buf.WriteByte(',')
		}
		if err := e.enc.Encode(e.cols[i]); err != nil {
			return err
		}
		e.trimNewline()
		e.buf.WriteByte(':')
		if err := e.enc.Encode(c); err != nil {
			return err
		}
		e.trimNewline()
	}
	e.buf.WriteString("}\n")
	_, err := w.Write(e.buf.Bytes())
	return err
}

// trimNewline drops the newline json.Encoder ends each value with.
func (e *jsonlEncoder) trimNewline() {
	if b := e.buf.Bytes(); len(b) > 0 && b[len(b)-1] == '\n' {
		e.buf.Truncate(len(b) - 1)
	}
}

func (e *jsonlEncoder) flush(io.Writer) error { return nil }

// csvEncoder writes a header line and one record per row; lists and the
// original fields are JSON text.
type csvEncoder struct {
	w   *csv.Writer
	rec []string
}

func (e *csvEncoder) header(w io.Writer, cols []string) error {
	e.w = csv.NewWriter(w)
	return e.w.Write(cols)
}

func (e *csvEncoder) row(_ io.Writer, cells []any) error {
	e.rec = e.rec[:0]
	for _, c := range cells {
		e.rec = append(e.rec, cellText(c))
	}
	return e.w.Write(e.rec)
}

func (e *csvEncoder) flush(io.Writer) error {
	e.w.Flush()
	return e.w.Error()
}

// cellText is a cell as CSV text.
func cellText(c any) string {
	switch x := c.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case json.RawMessage:
		return string(x)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return ""
	}
	return string(bytes.TrimRight(b.Bytes(), "\n"))
}

// hasValues reports whether a verdict's values are written: an ok one's,
// and a truncated one's (its status says the judge never saw the whole
// task).
func hasValues(v judge.Verdict) bool {
	return v.Status == judge.StatusOK || v.Status == judge.StatusTruncated
}
