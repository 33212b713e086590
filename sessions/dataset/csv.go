package dataset

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gavel-dev/gavel/judge"
)

// loadCSV reads CSV or TSV with a header line. Quoted fields may hold
// line breaks; TSV accepts bare quotes, as tab-separated files often do
// not quote.
func (l *loader) loadCSV(text []byte, format string) error {
	l.ds.Format, l.csv = format, true
	text, bad, first := repairUTF8(text)
	if bad > 0 {
		l.ds.InvalidUTF8Lines = bad
		l.ds.Warnings = append(l.ds.Warnings, utf8Warning(l.name, bad, first))
	}
	r := csv.NewReader(bytes.NewReader(text))
	r.FieldsPerRecord = -1
	sep := "comma"
	if format == "tsv" {
		r.Comma, r.LazyQuotes, sep = '\t', true, "tab"
	}
	header, err := r.Read()
	if err != nil {
		if line, msg, ok := csvErrorMsg(err); ok {
			return fmt.Errorf("%s:%d: the header cannot be read: %s", l.name, line, msg)
		}
		return fmt.Errorf("%s: the header cannot be read: %v", l.name, err)
	}
	if err := l.checkHeader(header); err != nil {
		return err
	}
	// The first rows decide the mapping; they are kept and mapped with
	// the rest.
	type pending struct {
		rec  []string
		line int
		err  error
	}
	var head []pending
	d := newDiscovery()
	for _, h := range header {
		d.addKey(h)
	}
	for len(head) < discoverRows {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		line := 0
		if err == nil {
			line, _ = r.FieldPos(0)
		}
		if err == nil && len(rec) == len(header) {
			d.rows++
			for i, v := range rec {
				d.addValue(header[i], isBoolText(v), v == "")
			}
		}
		head = append(head, pending{rec, line, err})
	}
	if len(head) == 0 {
		return fmt.Errorf("%s has a header but no rows: there are no rows to load", l.name)
	}
	if err := l.mapFields(d, header); err != nil {
		return err
	}
	m := newRowMapper(l)
	l.cols = make([][]string, len(l.plan.imported))
	rowNum := 0
	handle := func(rec []string, line int, err error) bool {
		rowNum++
		msg := ""
		if err != nil {
			var ok bool
			if line, msg, ok = csvErrorMsg(err); !ok {
				msg = err.Error()
			}
		} else if len(rec) != len(header) {
			msg = fmt.Sprintf("the row has %d fields but the header has %d (a %s inside a field that is not quoted?)", len(rec), len(header), sep)
		}
		if msg == "" {
			slot := l.addSlot()
			if msg = m.mapCSV(rec, header, slot, rowNum); msg == "" {
				l.locs[slot] = rowLoc{line: int32(line), elem: -1}
				return true
			}
			l.dropSlot()
		}
		l.bad.add(&RowError{File: l.name, Line: line, Element: -1, Msg: msg})
		return l.opts.SkipBad
	}
	for _, p := range head {
		if !handle(p.rec, p.line, p.err) {
			return nil
		}
	}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		line := 0
		if err == nil {
			line, _ = r.FieldPos(0)
		}
		if !handle(rec, line, err) {
			return nil
		}
	}
}

// checkHeader names unnamed columns and refuses repeated names.
func (l *loader) checkHeader(header []string) error {
	at := map[string]int{}
	for i := range header {
		header[i] = strings.TrimSpace(header[i])
		if header[i] == "" {
			header[i] = fmt.Sprintf("column_%d", i+1)
			l.ds.Warnings = append(l.ds.Warnings, fmt.Sprintf("%s: column %d has no name in the header; it is called %q", l.name, i+1, header[i]))
		}
		if j, dup := at[header[i]]; dup {
			return fmt.Errorf("%s:1: the header names the column %s twice (columns %d and %d): rename one of them", l.name, quoteName(header[i]), j+1, i+1)
		}
		at[header[i]] = i
	}
	return nil
}

// csvErrorMsg explains an encoding/csv parse error.
func csvErrorMsg(err error) (line int, msg string, ok bool) {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return 0, "", false
	}
	switch {
	case errors.Is(pe.Err, csv.ErrBareQuote):
		msg = fmt.Sprintf("a quote (\") inside a field that is not quoted, at column %d: put the whole field in quotes and double the quote inside it (\"\")", pe.Column)
	case errors.Is(pe.Err, csv.ErrQuote) && pe.Line != pe.StartLine:
		msg = fmt.Sprintf("a quoted field that starts on this line is not closed properly (the problem shows on line %d, column %d): a quote inside a quoted field must be doubled (\"\")", pe.Line, pe.Column)
	case errors.Is(pe.Err, csv.ErrQuote):
		msg = fmt.Sprintf("a quoted field is not closed properly at column %d: a quote inside a quoted field must be doubled (\"\")", pe.Column)
	default:
		msg = pe.Err.Error()
	}
	return pe.StartLine, msg, true
}

// addSlot appends an empty slot for a CSV row.
func (l *loader) addSlot() int {
	l.items = append(l.items, judge.Item{})
	l.locs = append(l.locs, rowLoc{})
	for i := range l.cols {
		l.cols[i] = append(l.cols[i], "")
	}
	return len(l.items) - 1
}

// dropSlot removes the last slot again.
func (l *loader) dropSlot() {
	n := len(l.items) - 1
	l.items, l.locs = l.items[:n], l.locs[:n]
	for i := range l.cols {
		l.cols[i] = l.cols[i][:n]
	}
}

// mapCSV maps one CSV record into slot.
func (m *rowMapper) mapCSV(rec, header []string, slot, rowNum int) string {
	p := &m.l.plan
	it := &m.l.items[slot]
	cell := func(ref *fieldRef) string {
		if ref == nil || ref.col < 0 {
			return ""
		}
		return rec[ref.col]
	}
	it.Gold, it.Prediction = cell(p.gold), cell(p.prediction)
	it.ResponseA, it.ResponseB = cell(p.responseA), cell(p.responseB)
	if len(p.question) == 1 {
		it.Question = cell(&p.question[0])
	} else if len(p.question) > 1 {
		var parts []string
		for k := range p.question {
			if t := cell(&p.question[k]); strings.TrimSpace(t) != "" {
				parts = append(parts, t)
			}
		}
		it.Question = joinQuestion(parts)
	}
	if p.id == nil {
		it.ID, _ = m.id(nil, rowNum)
	} else if it.ID = cell(p.id); strings.TrimSpace(it.ID) == "" {
		return fmt.Sprintf("the id field %s is empty; every row needs an id (or number the rows with --map id=)", quoteName(p.id.path))
	}
	it.Rubric = rubricText(cell(p.rubric))
	if len(p.segments) > 0 {
		vals := m.segVals[:0]
		for i := range p.segments {
			vals = append(vals, cell(&p.segments[i]))
		}
		m.segVals = vals
		it.Segments = m.segs.get(p.segments, vals, false)
	}
	for c := range p.imported {
		m.l.cols[c][slot] = cell(&p.imported[c])
	}
	it.Fields = m.csvFields(rec, header)
	return ""
}

// csvFields writes a record as a JSON object of strings.
func (m *rowMapper) csvFields(rec, header []string) []byte {
	n := 2
	for i := range rec {
		n += jsonStringLen(header[i]) + jsonStringLen(rec[i]) + 2
	}
	dst := m.arena.reserve(n)
	dst = append(dst, '{')
	for i := range rec {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, header[i])
		dst = append(dst, ':')
		dst = appendJSONString(dst, rec[i])
	}
	dst = append(dst, '}')
	m.arena.commit(dst)
	return dst[:len(dst):len(dst)]
}

// jsonEscape is how appendJSONString writes bytes that need escaping.
var jsonEscape = func() (t [256]string) {
	for c := 0; c < 0x20; c++ {
		t[c] = fmt.Sprintf(`\u%04x`, c)
	}
	t['\n'], t['\r'], t['\t'], t['"'], t['\\'] = `\n`, `\r`, `\t`, `\"`, `\\`
	return t
}()

func jsonStringLen(s string) int {
	n := 2
	for i := 0; i < len(s); i++ {
		if e := jsonEscape[s[i]]; e != "" {
			n += len(e)
		} else {
			n++
		}
	}
	return n
}

// appendJSONString appends s as a JSON string (s is valid UTF-8).
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		if e := jsonEscape[s[i]]; e != "" {
			dst = append(dst, s[start:i]...)
			dst = append(dst, e...)
			start = i + 1
		}
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
