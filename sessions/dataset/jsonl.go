package dataset

import (
	"bytes"
	"fmt"
	"runtime"
	"unicode/utf8"

	"github.com/gavel-dev/gavel/judge"
)

// nextLine splits the first line (without its newline) off text.
func nextLine(text []byte) (line, rest []byte) {
	if i := bytes.IndexByte(text, '\n'); i >= 0 {
		return text[:i], text[i+1:]
	}
	return text, nil
}

// dropBOM removes a byte-order mark that starts a line: files joined with
// cat keep the marks of all but the first.
func dropBOM(row []byte) []byte {
	return bytes.TrimPrefix(row, []byte("\xef\xbb\xbf"))
}

// trimRow drops the space around a row, including a CR of CRLF endings.
func trimRow(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && isSpace(b[i]) {
		i++
	}
	for j > i && isSpace(b[j-1]) {
		j--
	}
	return b[i:j:j]
}

// loadJSONL reads one JSON object per line, in parallel chunks.
func (l *loader) loadJSONL(text []byte, format string) error {
	if err := l.mapJSONL(text, format); err != nil {
		return err
	}
	return l.parseLines(text)
}

// mapJSONL decides the mapping from the first rows (discoverRows) and
// whether the file holds lm-evaluation-harness samples.
func (l *loader) mapJSONL(text []byte, format string) error {
	d := newDiscovery()
	var firstBad *RowError
	nonBlank := 0
	for line, rest := 1, text; len(rest) > 0 && d.rows < discoverRows; line++ {
		var row []byte
		row, rest = nextLine(rest)
		if row = dropBOM(row); len(trimRow(row)) == 0 {
			continue
		}
		nonBlank++
		if !utf8.Valid(row) {
			row = bytes.ToValidUTF8(row, []byte("\uFFFD"))
		}
		if !d.addJSONRow(row) && firstBad == nil {
			firstBad = l.probe(row, line)
		}
	}
	l.discovered = d.rows
	if d.rows == 0 {
		if !l.opts.SkipBad || firstBad == nil {
			return fmt.Errorf("%w%s", firstBad, skipHint)
		}
		return allBad(l.name, nonBlank, firstBad)
	}
	l.harness = format == "lm-eval" || d.looksHarness()
	l.ds.Format = "jsonl"
	if l.harness {
		l.ds.Format = "lm-eval"
	}
	return l.mapFields(d, nil)
}

// probe returns what is wrong with a row that discovery could not read.
func (l *loader) probe(row []byte, line int) *RowError {
	m := &rowMapper{l: &loader{items: make([]judge.Item, 1)}}
	m.sc.eof = "the end of the line"
	msg := m.mapJSON(row, 0, line)
	if msg == "" {
		msg = "the row cannot be read"
	}
	return &RowError{File: l.name, Line: line, Element: -1, Msg: msg}
}

// parseLines maps every line of text, one slot per line.
func (l *loader) parseLines(text []byte) error {
	n := max(1, min(len(text)>>20, runtime.GOMAXPROCS(0)*8))
	bounds := make([]int, n+1)
	for k := 1; k < n; k++ {
		bounds[k] = nextLineStart(text, max(bounds[k-1], k*len(text)/n))
	}
	bounds[n] = len(text)
	return l.parseChunks(text, bounds)
}

// nextLineStart is the start of the line after the one holding pos
// (len(text) when there is none).
func nextLineStart(text []byte, pos int) int {
	if i := bytes.IndexByte(text[pos:], '\n'); i >= 0 {
		return pos + i + 1
	}
	return len(text)
}

// parseChunks maps every line of text, one slot per line, in the chunks
// that bounds delimit (each bound the start of a line, the last
// len(text)) on every core.
func (l *loader) parseChunks(text []byte, bounds []int) error {
	l.slotLines(text, bounds)
	return l.parseSlots(text, bounds)
}

// slotLines makes one slot per line of text and notes where each chunk's
// slots start (l.chunkSlots).
func (l *loader) slotLines(text []byte, bounds []int) {
	n := len(bounds) - 1
	base := make([]int, n+1)
	for k := 0; k < n; k++ {
		chunk := text[bounds[k]:bounds[k+1]]
		lines := bytes.Count(chunk, []byte{'\n'})
		if len(chunk) > 0 && chunk[len(chunk)-1] != '\n' {
			lines++
		}
		base[k+1] = base[k] + lines
	}
	l.allocSlots(base[n])
	l.chunkSlots = base
}

// parseSlots maps the lines of each chunk into the slots slotLines made.
func (l *loader) parseSlots(text []byte, bounds []int) error {
	n := len(bounds) - 1
	base := l.chunkSlots
	bad8 := make([]badUTF8, n)
	l.parallel(n, func(c int, bad *badRows, stop func(int) bool) {
		m := newRowMapper(l)
		l.parseChunk(m, text[bounds[c]:bounds[c+1]], base[c], bad, &bad8[c], func() bool { return stop(c) })
	})
	l.warnUTF8(bad8)
	return nil
}

// badUTF8 counts the lines of a chunk that held invalid UTF-8 and notes the
// first.
type badUTF8 struct{ lines, first int }

// warnUTF8 counts the lines with invalid UTF-8 of every chunk (in file
// order) into the dataset, and warns of them.
func (l *loader) warnUTF8(chunks []badUTF8) {
	first := 0
	for _, c := range chunks {
		if c.lines > 0 && l.ds.InvalidUTF8Lines == 0 {
			first = c.first
		}
		l.ds.InvalidUTF8Lines += c.lines
	}
	if l.ds.InvalidUTF8Lines > 0 {
		l.ds.Warnings = append(l.ds.Warnings, utf8Warning(l.name, l.ds.InvalidUTF8Lines, first))
	}
}

// parseChunk maps the lines of chunk, a run of whole lines, into the slots
// from base on (slot k holds line k+1). It stops at the first bad row
// unless bad rows are skipped, and early when stop says an earlier chunk
// failed. With m.fields set, each item's Fields becomes the form it gives.
func (l *loader) parseChunk(m *rowMapper, chunk []byte, base int, bad *badRows, bad8 *badUTF8, stop func() bool) {
	m.sc.eof = "the end of the line"
	valid := utf8.Valid(chunk)
	for slot, rest := base, chunk; len(rest) > 0; slot++ {
		var row []byte
		row, rest = nextLine(rest)
		line := slot + 1
		if line&4095 == 0 && stop() {
			return
		}
		if row = dropBOM(row); len(trimRow(row)) == 0 {
			continue
		}
		if !valid && !utf8.Valid(row) {
			if bad8.lines == 0 {
				bad8.first = line
			}
			bad8.lines++
			row = bytes.ToValidUTF8(row, []byte("\uFFFD"))
		}
		if msg := m.mapJSON(row, slot, line); msg != "" {
			l.clearSlot(slot)
			bad.add(&RowError{File: l.name, Line: line, Element: -1, Msg: msg})
			if !l.opts.SkipBad {
				return
			}
			continue
		}
		if m.fields != nil {
			m.storeFields(&l.items[slot])
		}
		l.locs[slot] = rowLoc{line: int32(line), elem: -1}
	}
}
