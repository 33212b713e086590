package dataset

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// unescape appends the decoded form of the inside of a JSON string (the
// bytes between the quotes, already validated) to dst. Lone surrogates
// become U+FFFD, as encoding/json does. The result is never longer than
// the input.
func unescape(dst, in []byte) []byte {
	for i := 0; i < len(in); {
		c := in[i]
		if c != '\\' {
			j := i + 1
			for j < len(in) && in[j] != '\\' {
				j++
			}
			dst = append(dst, in[i:j]...)
			i = j
			continue
		}
		if i+1 >= len(in) {
			return dst
		}
		switch in[i+1] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, n := decodeU(in[i:])
			dst = utf8.AppendRune(dst, r)
			i += n
			continue
		default: // '"', '\\', '/'
			dst = append(dst, in[i+1])
		}
		i += 2
	}
	return dst
}

// decodeU decodes a \uXXXX escape (and the low half of a surrogate pair
// after it) at the start of in, returning the rune and the bytes used.
func decodeU(in []byte) (rune, int) {
	r := hex4(in[2:])
	if r < 0 {
		return utf8.RuneError, 2
	}
	if !utf16.IsSurrogate(r) {
		return r, 6
	}
	if len(in) >= 12 && in[6] == '\\' && in[7] == 'u' {
		if lo := hex4(in[8:]); lo >= 0 {
			if dec := utf16.DecodeRune(r, lo); dec != utf8.RuneError {
				return dec, 12
			}
		}
	}
	return utf8.RuneError, 6
}

func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return -1
		}
	}
	return r
}

// compactJSON appends v without the spaces between tokens.
func compactJSON(dst, v []byte) []byte {
	inStr := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		if inStr {
			dst = append(dst, c)
			switch c {
			case '\\':
				if i+1 < len(v) {
					i++
					dst = append(dst, v[i])
				}
			case '"':
				inStr = false
			}
			continue
		}
		if isSpace(c) {
			continue
		}
		if c == '"' {
			inStr = true
		}
		dst = append(dst, c)
	}
	return dst
}

// decodeKey returns a member key as a Go string.
func decodeKey(raw []byte, escaped bool) string {
	if !escaped {
		return string(raw)
	}
	return string(unescape(nil, raw))
}

// keyIs reports whether a raw member key equals name.
func keyIs(raw []byte, escaped bool, name string) bool {
	if !escaped {
		return string(raw) == name
	}
	return decodeKey(raw, true) == name
}

// forEachMember calls fn for each member of the object v (already
// validated) until fn returns false.
func forEachMember(v jval, fn func(key []byte, escaped bool, val jval) bool) {
	if v.kind != kindObject {
		return
	}
	s := scanner{b: v.buf}
	b := v.buf
	i := skipSpace(b, v.start+1)
	for i < v.end && b[i] == '"' {
		kend, kesc, err := s.str(i)
		if err != nil {
			return
		}
		j := skipSpace(b, kend)
		if j >= len(b) || b[j] != ':' {
			return
		}
		val, err := s.value(skipSpace(b, j+1), 0)
		if err != nil {
			return
		}
		if !fn(b[i+1:kend-1], kesc, val) {
			return
		}
		i = skipSpace(b, val.end)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
}

// forEachElement calls fn for each element of the list v (already
// validated) until fn returns false.
func forEachElement(v jval, fn func(i int, val jval) bool) {
	if v.kind != kindArray {
		return
	}
	s := scanner{b: v.buf}
	b := v.buf
	i := skipSpace(b, v.start+1)
	for n := 0; i < v.end && b[i] != ']'; n++ {
		val, err := s.value(i, 0)
		if err != nil || !fn(n, val) {
			return
		}
		i = skipSpace(b, val.end)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
}

// isScalar reports whether a kind is text-like (not a list or object).
func isScalar(k jsonKind) bool { return k != kindArray && k != kindObject && k != kindNone }

// textOf turns any JSON value into the text an item shows: strings
// decoded, numbers as written, booleans as true/false, null as "", a list
// of one scalar as that scalar, other lists and objects as compact JSON.
// Unescaped strings and numbers share the buffer's memory, unless the
// arena owns its texts.
func textOf(a *arena, v jval) string {
	switch v.kind {
	case kindString:
		in := v.buf[v.start+1 : v.end-1]
		if !v.escaped {
			return a.keep(in)
		}
		return a.commit(unescape(a.reserve(len(in)), in))
	case kindNumber, kindNonFinite:
		return a.keep(v.raw())
	case kindTrue:
		return "true"
	case kindFalse:
		return "false"
	case kindNull, kindNone:
		return ""
	case kindArray:
		var only jval
		n := 0
		forEachElement(v, func(i int, e jval) bool {
			only, n = e, i+1
			return n < 2
		})
		if n == 1 && isScalar(only.kind) {
			return textOf(a, only)
		}
	}
	raw := v.raw()
	return a.commit(compactJSON(a.reserve(len(raw)), raw))
}

// quoteName quotes a field name for a message, cutting very long ones.
func quoteName(s string) string {
	const max = 60
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return strconv.Quote(s[:cut] + "…")
	}
	return strconv.Quote(s)
}
