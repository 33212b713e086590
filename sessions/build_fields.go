package sessions

import (
	"bytes"
	"errors"
	"unicode/utf16"

	"github.com/gavel-dev/gavel/judge"
)

// items.fields holds an item's original row. The row's question, answer
// and prediction are most of it, and the item's own columns hold them
// already: stored whole, every item would take twice its size. So a
// top-level string member whose JSON text is exactly what the item's
// column text encodes to is stored as "" ("elided"), and put back when
// the row is read. To know, without the dataset's mapping (which a later
// file may change), which "" members were elided and from which column,
// the stored row starts with a prefix of JSON whitespace (still valid JSON
// for SQLite and any reader): two characters per "" member of the row, in
// row order, spelling in base 4 over " \t\n\r" the column it came from or
// 0 for a member that was "" in the file. A row with no elided member is
// stored as it was, with no prefix; so are rows from older sessions.
//
// A member whose text is the item's segment of the same name (items.segments
// holds it) is code 7. Columns 1-6 written as elideEncode writes them are
// codes 1-6; written as
// Python writes them by default (elideEncodeASCII, \uXXXX past ASCII),
// codes 9-14. The member is put back in the encoding its code names, and
// it is elided only when that is byte for byte what the file had: the row
// read back is the original bytes, so DiffItems' byte comparison and every
// reader of Fields see what they saw before.

// fieldCodes are the whitespace digits of the prefix.
const fieldCodes = " \t\n\r"

// The codes of a "" member: 0 when it was "" in the file, else the column
// it was elided from (itemColumn).
const (
	codeKept = iota
	codeQuestion
	codeGold
	codePrediction
	codeResponseA
	codeResponseB
	codeID
	codeCount
	// codeSegment is a member whose text is the item's segment of the
	// same name (the segments column holds it).
	codeSegment = codeCount
	// codeASCII is added to a column's code when the file wrote its text
	// as Python's json.dumps does by default (ensure_ascii): every
	// character past ASCII as a \uXXXX escape.
	codeASCII = 8
)

// validCode reports whether c names a kept member or a column in either
// encoding.
func validCode(c int) bool {
	return c <= codeSegment || (c > codeASCII && c < codeASCII+codeCount)
}

// itemColumn returns the item's column text for a code.
func itemColumn(it *judge.Item, code int) string {
	if code > codeASCII {
		code -= codeASCII
	}
	switch code {
	case codeQuestion:
		return it.Question
	case codeGold:
		return it.Gold
	case codePrediction:
		return it.Prediction
	case codeResponseA:
		return it.ResponseA
	case codeResponseB:
		return it.ResponseB
	case codeID:
		return it.ID
	}
	return ""
}

// elider writes items.fields; it keeps scratch space between rows and is
// not safe for concurrent use.
type elider struct {
	spans   []memberSpan
	codes   []byte
	out     []byte
	scratch []byte
}

// memberSpan is where a top-level member's value lies in a row, and its
// name's (quotes included).
type memberSpan struct{ start, end, keyStart, keyEnd int }

// plainKey returns a member's name when it holds no escape; ok is false
// otherwise (such members are never elided as segments).
func plainKey(row []byte, sp memberSpan) (string, bool) {
	k := row[sp.keyStart+1 : sp.keyEnd-1]
	if bytes.IndexByte(k, '\\') >= 0 {
		return "", false
	}
	return string(k), true
}

// newElider returns an elider. mapping is not needed (elision reads only
// the row and the item's columns) and is accepted for the callers' sake.
func newElider(map[string]string) *elider { return &elider{} }

// fields returns the text items.fields stores for it.
func (e *elider) fields(it *judge.Item) string {
	return string(e.stored(it))
}

// stored returns the text items.fields stores for it, as bytes that are
// it.Fields itself or the elider's scratch space: valid until the next
// call, and not to be changed.
func (e *elider) stored(it *judge.Item) []byte {
	row := it.Fields
	if len(row) == 0 || row[0] != '{' {
		return row
	}
	e.spans = e.spans[:0]
	if err := topMembers(row, func(sp memberSpan) { e.spans = append(e.spans, sp) }); err != nil {
		return row
	}
	// codes[k] is the code of the k-th member: -1 for a member that stays
	// as it is and has no "" (so no prefix digits).
	e.codes = e.codes[:0]
	elided := false
	for _, sp := range e.spans {
		v := row[sp.start:sp.end]
		code := -1
		switch {
		case len(v) == 2 && v[0] == '"':
			code = codeKept
		case len(v) > 2 && v[0] == '"':
			escapes := bytes.Contains(v, []byte(`\u`)) // the same for every column
			for c := codeQuestion; c < codeCount; c++ {
				col := itemColumn(it, c)
				if col == "" {
					continue
				}
				if encodesTo(col, v) {
					code, elided = c, true
					break
				}
				if escapes {
					e.scratch = elideEncodeASCII(e.scratch[:0], col)
					if bytes.Equal(e.scratch, v) {
						code, elided = c+codeASCII, true
						break
					}
				}
			}
			if code < 0 && len(it.Segments) > 0 {
				if name, ok := plainKey(row, sp); ok {
					if seg, ok := it.Segments[name]; ok && seg != "" && encodesTo(seg, v) {
						code, elided = codeSegment, true
					}
				}
			}
		}
		e.codes = append(e.codes, byte(code+1))
	}
	if !elided {
		return row
	}
	out := e.out[:0]
	for _, c := range e.codes {
		if c > 0 {
			out = append(out, fieldCodes[(c-1)/4], fieldCodes[(c-1)%4])
		}
	}
	last := 0
	for k, sp := range e.spans {
		if c := int(e.codes[k]) - 1; c > codeKept {
			out = append(out, row[last:sp.start]...)
			out = append(out, '"', '"')
			last = sp.end
		}
	}
	out = append(out, row[last:]...)
	e.out = out
	return out
}

// fieldCode reads the code of one prefix digit pair; ok is false for
// characters outside fieldCodes.
func fieldCode(a, b byte) (int, bool) {
	da, db := codeDigit(a), codeDigit(b)
	if da < 0 || db < 0 {
		return 0, false
	}
	return da*4 + db, true
}

func codeDigit(c byte) int {
	for i := 0; i < len(fieldCodes); i++ {
		if fieldCodes[i] == c {
			return i
		}
	}
	return -1
}

// restoreFields gives back the original row of a stored items.fields text
// for the item whose columns are already read.
func restoreFields(stored string, it *judge.Item) []byte {
	n := 0
	for n < len(stored) && stored[n] != '{' {
		n++
	}
	if n == 0 || n%2 != 0 || n == len(stored) {
		return []byte(stored)
	}
	prefix, row := stored[:n], []byte(stored[n:])
	codes := make([]int, 0, n/2)
	for i := 0; i < n; i += 2 {
		c, ok := fieldCode(prefix[i], prefix[i+1])
		if !ok || !validCode(c) {
			return []byte(stored)
		}
		codes = append(codes, c)
	}
	var spans []memberSpan
	if err := topMembers(row, func(sp memberSpan) {
		if sp.end-sp.start == 2 && row[sp.start] == '"' {
			spans = append(spans, sp)
		}
	}); err != nil || len(spans) != len(codes) {
		return []byte(stored)
	}
	texts := make([]string, len(codes))
	size := len(row)
	for k, c := range codes {
		switch {
		case c == codeKept:
			continue
		case c == codeSegment:
			name, ok := plainKey(row, spans[k])
			if !ok {
				return []byte(stored)
			}
			texts[k] = it.Segments[name]
		default:
			texts[k] = itemColumn(it, c)
		}
		size += elideEncodedLen(texts[k]) - 2 // at least
	}
	out := make([]byte, 0, size)
	last := 0
	for k, sp := range spans {
		if codes[k] == codeKept {
			continue
		}
		out = append(out, row[last:sp.start]...)
		if codes[k] > codeASCII {
			out = elideEncodeASCII(out, texts[k])
		} else {
			out = elideEncode(out, texts[k])
		}
		last = sp.end
	}
	return append(out, row[last:]...)
}

// topMembers calls fn with the spans of each top-level member of the JSON
// object row (row must start with '{').
func topMembers(row []byte, fn func(memberSpan)) error {
	i := skipWS(row, 1)
	if i < len(row) && row[i] == '}' {
		return nil
	}
	for i < len(row) {
		if row[i] != '"' {
			return errBadRow
		}
		ks := i
		end, err := skipString(row, i)
		if err != nil {
			return err
		}
		i = skipWS(row, end)
		if i >= len(row) || row[i] != ':' {
			return errBadRow
		}
		i = skipWS(row, i+1)
		ve, err := skipValue(row, i)
		if err != nil {
			return err
		}
		fn(memberSpan{start: i, end: ve, keyStart: ks, keyEnd: end})
		i = skipWS(row, ve)
		if i >= len(row) {
			return errBadRow
		}
		switch row[i] {
		case ',':
			i = skipWS(row, i+1)
		case '}':
			return nil
		default:
			return errBadRow
		}
	}
	return errBadRow
}

var errBadRow = errors.New("not a JSON object")

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] == '"'.
func skipString(b []byte, i int) (int, error) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, errBadRow
}

// skipValue returns the index after the JSON value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errBadRow
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, err := skipString(b, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errBadRow
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	if j == i {
		return 0, errBadRow
	}
	return j, nil
}

// elideEscape is how elideEncode writes each byte below 0x20 and the two
// that must be escaped; 0 means as it is. Other control characters are
// written \u00XX, as Go's and Python's encoders write them.
var elideEscape = [256]byte{'"': '"', '\\': '\\', '\n': 'n', '\r': 'r', '\t': 't', '\b': 'b', '\f': 'f'}

const hexDigits = "0123456789abcdef"

// elideEncode appends s as a JSON string the way the common writers do
// (Go without HTML escaping, Python with ensure_ascii off, jq): UTF-8 as
// it is, only quotes, backslashes and control characters escaped.
func elideEncode(out []byte, s string) []byte {
	out = append(out, '"')
	last := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		out = append(out, s[last:i]...)
		if e := elideEscape[c]; e != 0 {
			out = append(out, '\\', e)
		} else {
			out = append(out, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
		}
		last = i + 1
	}
	out = append(out, s[last:]...)
	return append(out, '"')
}

// elideEncodeASCII appends s as a JSON string the way Python's json.dumps
// writes it by default: as elideEncode, but every character past ASCII as
// a \uXXXX escape (lower-case hex, a surrogate pair past U+FFFF).
func elideEncodeASCII(out []byte, s string) []byte {
	out = append(out, '"')
	for _, r := range s {
		switch {
		case r < 0x80:
			c := byte(r)
			if e := elideEscape[c]; e != 0 {
				out = append(out, '\\', e)
			} else if c < 0x20 {
				out = append(out, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
			} else {
				out = append(out, c)
			}
		case r > 0xFFFF:
			r1, r2 := utf16.EncodeRune(r)
			out = appendU4(appendU4(out, r1), r2)
		default:
			out = appendU4(out, r)
		}
	}
	return append(out, '"')
}

// appendU4 appends \uXXXX for r (at most 0xFFFF).
func appendU4(out []byte, r rune) []byte {
	return append(out, '\\', 'u', hexDigits[r>>12&15], hexDigits[r>>8&15], hexDigits[r>>4&15], hexDigits[r&15])
}

// elideEncodedLen is len(elideEncode(nil, s)).
func elideEncodedLen(s string) int {
	n := 2 + len(s)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case elideEscape[c] != 0:
			n++
		case c < 0x20:
			n += 5
		}
	}
	return n
}

// encodesTo reports whether elideEncode(nil, s) is exactly raw, without
// writing it.
func encodesTo(s string, raw []byte) bool {
	if len(raw) < len(s)+2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false
	}
	r := raw[1 : len(raw)-1]
	j := 0
	for i := 0; i < len(s); i++ {
		// Eight bytes at a time while they are the same and none needs an
		// escape (most of a text): the byte loop below was a third of the
		// elision's time.
		for i+8 <= len(s) && j+8 <= len(r) {
			w := load64(s[i:])
			if w != load64b(r[j:]) || needsEscape8(w) {
				break
			}
			i, j = i+8, j+8
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			if j >= len(r) || r[j] != c {
				return false
			}
			j++
			continue
		}
		if e := elideEscape[c]; e != 0 {
			if j+1 >= len(r) || r[j] != '\\' || r[j+1] != e {
				return false
			}
			j += 2
			continue
		}
		if j+5 >= len(r) || r[j] != '\\' || r[j+1] != 'u' || r[j+2] != '0' || r[j+3] != '0' ||
			r[j+4] != hexDigits[c>>4] || r[j+5] != hexDigits[c&15] {
			return false
		}
		j += 6
	}
	return j == len(r)
}

// load64 reads the first eight bytes of s as one little-endian word.
func load64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// load64b is load64 of a byte slice.
func load64b(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// Eight bytes in one word, for needsEscape8.
const (
	byteOnes  = 0x0101010101010101
	byteHighs = 0x8080808080808080
)

// needsEscape8 reports whether any of the eight bytes of w is one that
// elideEncode escapes: below 0x20, '"' or '\\'. These are the tests of
// "Bit Twiddling Hacks" (hasless, haszero of w xor the byte), exact for a
// word: a borrow may mark a byte above a matching one, never a word with
// no match.
func needsEscape8(w uint64) bool {
	return hasByteBelow(w, 0x20) || hasZeroByte(w^(byteOnes*'"')) || hasZeroByte(w^(byteOnes*'\\'))
}

func hasZeroByte(v uint64) bool { return (v-byteOnes)&^v&byteHighs != 0 }

func hasByteBelow(v uint64, n uint64) bool { return (v-byteOnes*n)&^v&byteHighs != 0 }

// restoreStoredFields is restoreFields for a stored text already in bytes:
// a row stored whole (it starts with '{') is returned as it is, with no
// copy, so readers that pack rows into one buffer keep doing so.
func restoreStoredFields(stored []byte, it *judge.Item) []byte {
	if len(stored) == 0 || stored[0] == '{' {
		return stored
	}
	return restoreFields(string(stored), it)
}
