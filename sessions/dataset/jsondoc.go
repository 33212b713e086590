package dataset

import (
	"bytes"
	"fmt"
	"strings"
)

// docRow is one row of a JSON document: its span and where it starts.
type docRow struct {
	start, end int
	line       int
}

// loadJSON reads a JSON document: a list of objects, an object holding
// one such list, a single object, or a stream of objects one after
// another.
func (l *loader) loadJSON(text []byte) error {
	l.ds.Format = "json"
	text, bad, first := repairUTF8(text)
	if bad > 0 {
		l.ds.InvalidUTF8Lines = bad
		l.ds.Warnings = append(l.ds.Warnings, utf8Warning(l.name, bad, first))
	}
	lines := lineCounter{text: text, line: 1}
	s := scanner{b: text, eof: "the end of the file"}
	i := skipSpace(text, 0)
	var rows []docRow
	var err error
	switch text[i] {
	case '[':
		rows, err = l.listRows(&s, &lines, i)
	case '{':
		v, serr := s.value(i, 0)
		if serr != nil {
			return l.docError(&lines, serr, -1)
		}
		if skipSpace(text, v.end) < len(text) {
			rows, err = l.streamRows(&s, &lines, i)
			break
		}
		key, list, lerr := l.rowsList(v)
		switch {
		case lerr != nil:
			return lerr
		case key == "":
			rows = []docRow{{start: v.start, end: v.end, line: lines.at(v.start)}}
		default:
			l.ds.RowsKey = key
			rows, err = l.listRows(&s, &lines, list.start)
		}
	default:
		v, serr := s.value(i, 0)
		if serr != nil {
			return l.docError(&lines, serr, -1)
		}
		return fmt.Errorf("%s holds %s, not rows: a JSON dataset is a list of objects (or an object holding one)", l.name, kindName(v.kind))
	}
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return fmt.Errorf("%s holds an empty list: there are no rows to load", l.name)
	}
	d := newDiscovery()
	var firstBad *RowError
	for k, r := range rows {
		if d.rows >= discoverRows {
			break
		}
		if !d.addJSONRow(text[r.start:r.end]) && firstBad == nil {
			firstBad = l.probe(text[r.start:r.end], r.line)
			firstBad.Element = k
		}
	}
	if d.rows == 0 {
		if !l.opts.SkipBad {
			return fmt.Errorf("%w%s", firstBad, skipHint)
		}
		return allBad(l.name, len(rows), firstBad)
	}
	l.harness = d.looksHarness()
	if err := l.mapFields(d, nil); err != nil {
		return err
	}
	return l.mapDocRows(text, rows)
}

// listRows scans the list starting at text[i] == '[' and returns its
// elements.
func (l *loader) listRows(s *scanner, lines *lineCounter, i int) ([]docRow, error) {
	text := s.b
	var rows []docRow
	i = skipSpace(text, i+1)
	if i < len(text) && text[i] == ']' {
		return nil, nil
	}
	for {
		v, err := s.value(i, 1)
		if err != nil {
			return nil, l.docError(lines, err, len(rows))
		}
		rows = append(rows, docRow{start: v.start, end: v.end, line: lines.at(v.start)})
		i = skipSpace(text, v.end)
		switch {
		case i < len(text) && text[i] == ',':
			i = skipSpace(text, i+1)
			if i < len(text) && text[i] == ']' {
				return nil, l.docError(lines, s.errAt(i, "a trailing comma before ']' is not allowed in JSON"), -1)
			}
			continue
		case i < len(text) && text[i] == ']':
			return rows, nil
		}
		return nil, l.docError(lines, s.errAt(i, "expected ',' or ']' after a list element, found %s", s.found(i)), -1)
	}
}

// streamRows scans objects written one after another.
func (l *loader) streamRows(s *scanner, lines *lineCounter, i int) ([]docRow, error) {
	text := s.b
	var rows []docRow
	for i < len(text) {
		v, err := s.value(i, 0)
		if err != nil {
			return nil, l.docError(lines, err, len(rows))
		}
		rows = append(rows, docRow{start: v.start, end: v.end, line: lines.at(v.start)})
		i = skipSpace(text, v.end)
	}
	return rows, nil
}

// rowsList finds the list of rows in an object: the one member holding a
// list of objects. key is "" when there is none, or when the object has
// the fields of a row itself: the object is then the only row.
func (l *loader) rowsList(obj jval) (key string, list jval, err error) {
	var names, lists []string
	vals := map[string]jval{}
	isRow := false
	forEachMember(obj, func(k []byte, esc bool, v jval) bool {
		name := decodeKey(k, esc)
		for _, role := range []string{RoleQuestion, RoleGold, RolePrediction} {
			if rolePreference(role, name) >= 0 || hasField(l.userMap[role], name) {
				isRow = true
			}
		}
		if v.kind != kindArray {
			return true
		}
		lists = append(lists, name)
		vals[name] = v
		forEachElement(v, func(_ int, e jval) bool {
			if e.kind == kindObject {
				names = append(names, name)
			}
			return false
		})
		return true
	})
	switch {
	case isRow:
		return "", jval{}, nil
	case len(names) == 1:
		return names[0], vals[names[0]], nil
	case len(names) == 0 && len(lists) == 1:
		// An empty list, or one of something else: reading it says what
		// is wrong.
		return lists[0], vals[lists[0]], nil
	case len(names) == 0:
		return "", jval{}, nil
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quoteName(n)
	}
	return "", jval{}, fmt.Errorf("%s holds several lists of rows (%s), and Gavel cannot tell which to load: extract one, e.g. jq -c '.%s[]' %s > rows.jsonl",
		l.name, strings.Join(q, ", "), names[0], l.name)
}

// docError reports a syntax error in a JSON document. elem is the list
// element being read, or -1.
func (l *loader) docError(lines *lineCounter, err *syntaxError, elem int) error {
	line, col := lines.position(err.off)
	return &RowError{File: l.name, Line: line, Element: elem,
		Msg: fmt.Sprintf("invalid JSON at column %d: %s", col, err.msg)}
}

// mapDocRows maps the rows of a JSON document in parallel.
func (l *loader) mapDocRows(text []byte, rows []docRow) error {
	const per = 4096
	n := (len(rows) + per - 1) / per
	l.allocSlots(len(rows))
	l.parallel(n, func(c int, bad *badRows, _ func(int) bool) {
		m := newRowMapper(l)
		for slot := c * per; slot < min(len(rows), (c+1)*per); slot++ {
			r := rows[slot]
			if msg := m.mapJSON(text[r.start:r.end], slot, slot+1); msg != "" {
				l.clearSlot(slot)
				bad.add(&RowError{File: l.name, Line: r.line, Element: slot, Msg: msg})
				if !l.opts.SkipBad {
					return
				}
				continue
			}
			l.locs[slot] = rowLoc{line: int32(r.line), elem: int32(slot)}
		}
	})
	return nil
}

// lineCounter turns byte offsets into line numbers, for offsets that
// mostly increase.
type lineCounter struct {
	text []byte
	off  int
	line int
}

// at returns the line of offset off.
func (c *lineCounter) at(off int) int {
	if off < c.off {
		c.off, c.line = 0, 1
	}
	c.line += bytes.Count(c.text[c.off:off], []byte{'\n'})
	c.off = off
	return c.line
}

// position returns the line and the 1-based column (in bytes) of off.
func (c *lineCounter) position(off int) (int, int) {
	off = min(off, len(c.text))
	line := c.at(off)
	start := bytes.LastIndexByte(c.text[:off], '\n') + 1
	return line, off - start + 1
}
