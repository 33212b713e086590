package dataset

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// jsonKind is the type of a JSON value found by the scanner.
type jsonKind uint8

const (
	kindNone jsonKind = iota
	kindString
	kindNumber
	kindTrue
	kindFalse
	kindNull
	kindArray
	kindObject
	// kindNonFinite is NaN, Infinity or -Infinity: not JSON, but written by
	// Python's json module for float('nan'), so accepted and kept as text.
	kindNonFinite
)

// kindName names a kind in error messages.
func kindName(k jsonKind) string {
	switch k {
	case kindString:
		return "a string"
	case kindNumber, kindNonFinite:
		return "a number"
	case kindTrue, kindFalse:
		return "a boolean"
	case kindNull:
		return "null"
	case kindArray:
		return "a list"
	case kindObject:
		return "an object"
	}
	return "nothing"
}

// maxDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxDepth = 1000

// syntaxError is a JSON syntax error at a byte offset of the scanned text.
type syntaxError struct {
	off int
	msg string
}

// member is one member of a scanned object: raw key bytes (without quotes)
// and the span of its value.
type member struct {
	key        []byte
	keyEscaped bool
	val        jval
}

// jval is a validated JSON value: its span in buf and what it is.
type jval struct {
	buf        []byte
	start, end int
	kind       jsonKind
	escaped    bool // a string holding backslash escapes
}

func (v jval) raw() []byte { return v.buf[v.start:v.end] }

// scanner validates JSON text. It is not safe for concurrent use; each
// worker has its own.
type scanner struct {
	b []byte
	// strict rejects NaN and Infinity (used to compare with encoding/json).
	strict bool
	// nonFinite counts the NaN/Infinity literals seen since the last reset.
	nonFinite int
	// eof names the end of the scanned text in messages ("the end of the
	// line" for JSONL).
	eof string
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// plainByte[c] is true for bytes that may appear unescaped in a string and
// need no further look: everything but the quote, the backslash and the
// control characters.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func (s *scanner) errAt(off int, format string, args ...any) *syntaxError {
	return &syntaxError{off: off, msg: fmt.Sprintf(format, args...)}
}

// found describes the byte at off for an error message.
func (s *scanner) found(off int) string {
	if off >= len(s.b) {
		if s.eof != "" {
			return s.eof
		}
		return "the end of the text"
	}
	c := s.b[off]
	switch {
	case c == '\'':
		return "a single quote (') — JSON needs double quotes (is this a Python dict printed with str()?)"
	case c == '\n':
		return "a line break"
	case c < 0x20 || c == 0x7f:
		return fmt.Sprintf("the control byte 0x%02x", c)
	case c < utf8.RuneSelf:
		return strconv.QuoteRune(rune(c))
	}
	r, _ := utf8.DecodeRune(s.b[off:])
	return strconv.QuoteRune(r)
}

// value scans the value starting at b[i] (no leading space) and returns it.
func (s *scanner) value(i, depth int) (jval, *syntaxError) {
	b := s.b
	if i >= len(b) {
		return jval{}, s.errAt(i, "expected a value, found %s", s.found(i))
	}
	v := jval{buf: b, start: i}
	var err *syntaxError
	switch c := b[i]; {
	case c == '"':
		v.end, v.escaped, err = s.str(i)
		v.kind = kindString
	case c == '{':
		v.end, err = s.object(i, depth+1, nil)
		v.kind = kindObject
	case c == '[':
		v.end, err = s.array(i, depth+1)
		v.kind = kindArray
	case c == '-' || (c >= '0' && c <= '9'):
		if c == '-' && !s.strict && hasWord(b, i+1, "Infinity") {
			v.end, v.kind = i+9, kindNonFinite
			s.nonFinite++
			break
		}
		v.end, err = s.number(i)
		v.kind = kindNumber
	case c == 't':
		v.end, err = s.word(i, "true")
		v.kind = kindTrue
	case c == 'f':
		v.end, err = s.word(i, "false")
		v.kind = kindFalse
	case c == 'n':
		v.end, err = s.word(i, "null")
		v.kind = kindNull
	case (c == 'N' || c == 'I') && !s.strict && (hasWord(b, i, "NaN") || hasWord(b, i, "Infinity")):
		v.end, v.kind = i+3, kindNonFinite
		if c == 'I' {
			v.end = i + 8
		}
		s.nonFinite++
	default:
		for _, py := range [...]string{"True", "False", "None"} {
			if hasWord(b, i, py) {
				return jval{}, s.errAt(i, "expected a value, found %s, which is Python, not JSON (JSON writes true, false and null)", py)
			}
		}
		return jval{}, s.errAt(i, "expected a value, found %s", s.found(i))
	}
	return v, err
}

func hasWord(b []byte, i int, w string) bool {
	return len(b)-i >= len(w) && string(b[i:i+len(w)]) == w
}

func (s *scanner) word(i int, w string) (int, *syntaxError) {
	if hasWord(s.b, i, w) {
		return i + len(w), nil
	}
	return 0, s.errAt(i, "expected a value, found %s", s.found(i))
}

// str scans the string starting at the quote b[i]; it returns the offset
// past the closing quote and whether the string holds escapes.
func (s *scanner) str(i int) (end int, escaped bool, err *syntaxError) {
	b := s.b
	start := i
	i++
	for {
		for i+8 <= len(b) && plainWord(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
		}
		for i < len(b) && plainByte[b[i]] {
			i++
		}
		if i >= len(b) {
			return 0, false, s.unclosed(start)
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, escaped, nil
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				return 0, false, s.unclosed(start)
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for k := i + 2; k < i+6; k++ {
					if k >= len(b) || !isHex(b[k]) {
						return 0, false, s.errAt(i, `a \u escape needs four hex digits`)
					}
				}
				i += 6
			default:
				return 0, false, s.errAt(i, `invalid escape \%s in a string (write \\ for a backslash)`, s.found(i+1))
			}
		case c == '\n':
			return 0, false, s.errAt(start, "a string that starts here runs into a line break (a line break inside a string must be written \\n)")
		default:
			return 0, false, s.errAt(i, "a string holds the control byte 0x%02x, which must be escaped (as \\u%04x)", c, c)
		}
	}
}

// plainWord reports whether none of the 8 bytes in x is a quote, a
// backslash or a control byte, testing them all at once (the classic
// "has a zero byte" bit trick, exact as a yes/no answer).
func plainWord(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	less32 := (x - ones*0x20) & ^x & highs
	return less32|zero(x^(ones*'"'))|zero(x^(ones*'\\')) == 0
}

// unclosed reports a string that runs to the end of the text.
func (s *scanner) unclosed(start int) *syntaxError {
	if s.eof == "the end of the line" {
		return s.errAt(start, "a string that starts here is not closed on this line (a line break inside a string must be written \\n)")
	}
	return s.errAt(start, "a string that starts here is never closed")
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// number scans a number by the JSON grammar.
func (s *scanner) number(i int) (int, *syntaxError) {
	b := s.b
	start := i
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return 0, s.errAt(start, "a number is malformed: expected a digit, found %s", s.found(i))
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return 0, s.errAt(start, "a number is malformed: expected a digit after the decimal point, found %s", s.found(i))
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return 0, s.errAt(start, "a number is malformed: expected a digit in the exponent, found %s", s.found(i))
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	return i, nil
}

// object scans the object starting at b[i] == '{'. When members is not nil
// it receives the object's members.
func (s *scanner) object(i, depth int, members *[]member) (int, *syntaxError) {
	if depth > maxDepth {
		return 0, s.errAt(i, "the JSON is nested more than %d levels deep", maxDepth)
	}
	b := s.b
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, s.errAt(i, "expected a double-quoted key, found %s", s.found(i))
		}
		kend, kesc, err := s.str(i)
		if err != nil {
			return 0, err
		}
		key, keyStart := b[i+1:kend-1], i
		i = skipSpace(b, kend)
		if i >= len(b) || b[i] != ':' {
			return 0, s.errAt(i, "expected ':' after the key %s, found %s", quoteKeyAt(b, keyStart, kend), s.found(i))
		}
		i = skipSpace(b, i+1)
		v, err := s.value(i, depth)
		if err != nil {
			return 0, err
		}
		if members != nil {
			*members = append(*members, member{key: key, keyEscaped: kesc, val: v})
		}
		i = skipSpace(b, v.end)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == '}' {
				return 0, s.errAt(i, "a trailing comma before '}' is not allowed in JSON")
			}
			continue
		}
		if i < len(b) && b[i] == '}' {
			return i + 1, nil
		}
		return 0, s.errAt(i, "expected ',' or '}' after an object member, found %s", s.found(i))
	}
}

// array scans the array starting at b[i] == '['.
func (s *scanner) array(i, depth int) (int, *syntaxError) {
	if depth > maxDepth {
		return 0, s.errAt(i, "the JSON is nested more than %d levels deep", maxDepth)
	}
	b := s.b
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for {
		v, err := s.value(i, depth)
		if err != nil {
			return 0, err
		}
		i = skipSpace(b, v.end)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == ']' {
				return 0, s.errAt(i, "a trailing comma before ']' is not allowed in JSON")
			}
			continue
		}
		if i < len(b) && b[i] == ']' {
			return i + 1, nil
		}
		return 0, s.errAt(i, "expected ',' or ']' after a list element, found %s", s.found(i))
	}
}

// quoteKeyAt quotes a key for a message, decoding escapes and cutting long
// keys.
func quoteKeyAt(b []byte, start, end int) string {
	return quoteName(decodeKey(b[start+1:end-1], true))
}

// document scans b as one complete JSON value with nothing but space around
// it. It is used to compare the scanner with encoding/json.
func (s *scanner) document(b []byte) *syntaxError {
	s.b = b
	i := skipSpace(b, 0)
	v, err := s.value(i, 0)
	if err != nil {
		return err
	}
	if i = skipSpace(b, v.end); i < len(b) {
		return s.errAt(i, "unexpected %s after the JSON value", s.found(i))
	}
	return nil
}
