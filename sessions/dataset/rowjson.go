package dataset

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/gavel-dev/gavel/judge"
)

// rowMapper turns rows into items. One per chunk of work: it keeps scratch
// space and is not safe for concurrent use.
type rowMapper struct {
	l       *loader
	sc      scanner
	members []member
	arena   arena
	segs    interner
	segVals []string
	// hints[ref.hint] is where the ref's key was in the last row: rows
	// mostly share one key order, so the first look usually hits.
	hints []int
	// fields, when set, gives the form of Fields kept instead of the row
	// (Stream.StoreFields); sameFields shares equal ones.
	fields     func(*judge.Item) string
	sameFields map[string]json.RawMessage
}

func newRowMapper(l *loader) *rowMapper {
	m := &rowMapper{l: l, hints: make([]int, l.plan.refs)}
	m.segs.init(len(l.plan.segments))
	return m
}

// mapJSON maps one JSON row (raw holds the row and nothing else but
// space) into slot; rowNum numbers the row when it has no id. It returns
// what is wrong with the row, or "".
func (m *rowMapper) mapJSON(raw []byte, slot, rowNum int) string {
	sc := &m.sc
	sc.b, sc.nonFinite = raw, 0
	m.members = m.members[:0]
	i := skipSpace(raw, 0)
	if i < len(raw) && raw[i] != '{' {
		if v, err := sc.value(i, 0); err == nil {
			return fmt.Sprintf("the row is %s, not a JSON object", kindName(v.kind))
		}
	}
	if i >= len(raw) || raw[i] != '{' {
		_, err := sc.value(i, 0)
		return fmt.Sprintf("invalid JSON at column %d: %s", err.off+1, err.msg)
	}
	end, err := sc.object(i, 1, &m.members)
	if err != nil {
		return fmt.Sprintf("invalid JSON at column %d: %s", err.off+1, err.msg)
	}
	if j := skipSpace(raw, end); j < len(raw) {
		return fmt.Sprintf("invalid JSON at column %d: unexpected %s after the object (two rows on one line?)", j+1, sc.found(j))
	}
	it := &m.l.items[slot]
	if msg := m.fill(it, slot, rowNum); msg != "" {
		return msg
	}
	it.Fields = raw[i:end:end]
	if sc.nonFinite > 0 {
		// NaN and Infinity are not JSON: keep Fields valid for whoever
		// decodes it later.
		it.Fields = m.nullNonFinite(raw[i:end], sc.nonFinite)
	}
	return ""
}

// storeFields replaces the item's Fields, a slice of the row just mapped,
// with the form m.fields gives, in the arena; items whose form is the same
// share it.
func (m *rowMapper) storeFields(it *judge.Item) {
	f := m.fields(it)
	if kept, ok := m.sameFields[f]; ok {
		it.Fields = kept
		return
	}
	it.Fields = m.arena.copyBytes(f)
	if m.sameFields == nil {
		m.sameFields = map[string]json.RawMessage{}
	}
	if len(m.sameFields) < maxInterned {
		m.sameFields[bytesString(it.Fields)] = it.Fields // the key in the arena too
	}
}

// fill sets the item's mapped fields from the scanned row.
func (m *rowMapper) fill(it *judge.Item, slot, rowNum int) string {
	p := &m.l.plan
	var msg string
	if it.Question, msg = m.question(p.question); msg != "" {
		return msg
	}
	if it.Gold, msg = m.text(p.gold, RoleGold); msg != "" {
		return msg
	}
	if it.Prediction, msg = m.prediction(p.prediction); msg != "" {
		return msg
	}
	if it.ResponseA, msg = m.text(p.responseA, RoleResponseA); msg != "" {
		return msg
	}
	if it.ResponseB, msg = m.text(p.responseB, RoleResponseB); msg != "" {
		return msg
	}
	if it.ID, msg = m.id(p.id, rowNum); msg != "" {
		return msg
	}
	if p.rubric != nil {
		if v, ok, _ := m.find(p.rubric); ok {
			it.Rubric = rubricOf(&m.arena, v)
		}
	}
	if len(p.segments) > 0 {
		// A handful of maps serve every row: the values are copied only
		// into a new one (interner.get), not for each row.
		own := m.arena.own
		m.arena.own = false
		vals := m.segVals[:0]
		for k := range p.segments {
			t := ""
			if v, ok, _ := m.find(&p.segments[k]); ok {
				t = textOf(&m.arena, v)
			}
			vals = append(vals, t)
		}
		m.arena.own = own
		m.segVals = vals
		it.Segments = m.segs.get(p.segments, vals, own)
	}
	for c := range p.imported {
		if v, ok, _ := m.find(&p.imported[c]); ok {
			m.l.cols[c][slot] = textOf(&m.arena, v)
		}
	}
	return ""
}

// text returns the text of a required single-field role.
func (m *rowMapper) text(ref *fieldRef, role string) (string, string) {
	if ref == nil {
		return "", ""
	}
	v, ok, why := m.find(ref)
	if !ok {
		return "", m.missing(ref.path, role, why)
	}
	return textOf(&m.arena, v), ""
}

// question is the text of the question's fields, joined with a blank
// line; a field a row lacks, or leaves empty, adds nothing, and only a row
// that has none of them is bad.
func (m *rowMapper) question(refs []fieldRef) (string, string) {
	switch len(refs) {
	case 0:
		return "", ""
	case 1:
		return m.text(&refs[0], RoleQuestion)
	}
	var parts []string
	found := false
	for k := range refs {
		if v, ok, _ := m.find(&refs[k]); ok {
			found = true
			if t := textOf(&m.arena, v); strings.TrimSpace(t) != "" {
				parts = append(parts, t)
			}
		}
	}
	if !found {
		return m.text(&refs[0], RoleQuestion)
	}
	return joinQuestion(parts), ""
}

// joinQuestion joins the texts of a question's fields.
func joinQuestion(parts []string) string {
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts, "\n\n")
}

// prediction is text for the prediction, but a harness multiple-choice
// row's filtered responses become the position of the chosen answer.
func (m *rowMapper) prediction(ref *fieldRef) (string, string) {
	if m.l.harness && ref != nil && ref.path == "filtered_resps" {
		if v, ok, _ := m.find(ref); ok {
			if choice, ok := harnessChoice(v); ok {
				return choice, ""
			}
		}
	}
	return m.text(ref, RolePrediction)
}

// id returns the row's id: its id field, or its row number.
func (m *rowMapper) id(ref *fieldRef, rowNum int) (string, string) {
	if ref == nil {
		return m.arena.commit(strconv.AppendInt(m.arena.reserve(20), int64(rowNum), 10)), ""
	}
	v, ok, why := m.find(ref)
	if !ok {
		return "", m.missing(ref.path, RoleID, why)
	}
	switch v.kind {
	case kindArray, kindObject:
		return "", fmt.Sprintf("the id field %s holds %s, not a string or a number", quoteName(ref.path), kindName(v.kind))
	case kindNull:
		return "", fmt.Sprintf("the id field %s is null; every row needs an id (or number the rows with --map id=)", quoteName(ref.path))
	}
	id := textOf(&m.arena, v)
	if strings.TrimSpace(id) == "" {
		return "", fmt.Sprintf("the id field %s is empty; every row needs an id (or number the rows with --map id=)", quoteName(ref.path))
	}
	return id, ""
}

// missing says that a row lacks a mapped field.
func (m *rowMapper) missing(path, role, why string) string {
	if why != "" {
		return fmt.Sprintf("no %s for %s: %s", quoteName(path), roleWhat[role], why)
	}
	keys := make([]string, 0, len(m.members))
	for _, mb := range m.members {
		keys = append(keys, decodeKey(mb.key, mb.keyEscaped))
	}
	return fmt.Sprintf("no %s field for %s: the row has %s", quoteName(path), roleWhat[role], describeKeys(keys))
}

// describeKeys lists keys for a row-level message.
func describeKeys(keys []string) string {
	if len(keys) == 0 {
		return "no keys"
	}
	const max = 20
	q := make([]string, 0, min(len(keys), max))
	for i, k := range keys {
		if i == max {
			break
		}
		q = append(q, quoteName(k))
	}
	s := "keys " + strings.Join(q, ", ")
	if len(keys) > max {
		s += fmt.Sprintf(" and %d more", len(keys)-max)
	}
	return s
}

// find resolves a field path in the scanned row: a key (the last one when
// a key repeats, as encoding/json does), or a dotted path into nested
// objects and lists, trying the longest key first so that keys holding
// dots still work. why explains a dotted path that does not resolve; it
// is "" when the first part is not there at all.
func (m *rowMapper) find(ref *fieldRef) (v jval, ok bool, why string) {
	return m.findPath(ref.path, &m.hints[ref.hint])
}

func (m *rowMapper) findPath(path string, hint *int) (v jval, ok bool, why string) {
	if v, ok := m.memberHint(path, hint); ok {
		return v, true, ""
	}
	for k := strings.LastIndexByte(path, '.'); k > 0; k = strings.LastIndexByte(path[:k], '.') {
		if v, ok := m.member(path[:k]); ok {
			return descend(v, path[:k], path[k+1:])
		}
	}
	return jval{}, false, ""
}

// memberHint is member, looking first where the key was last time.
func (m *rowMapper) memberHint(key string, hint *int) (jval, bool) {
	h := *hint
	if h >= len(m.members) || !keyIs(m.members[h].key, m.members[h].keyEscaped, key) {
		h = -1
		for k := len(m.members) - 1; k >= 0; k-- {
			if mb := &m.members[k]; keyIs(mb.key, mb.keyEscaped, key) {
				h = k
				break
			}
		}
		if h < 0 {
			return jval{}, false
		}
		*hint = h
	}
	// A key that repeats counts by its last occurrence.
	for k := len(m.members) - 1; k > h; k-- {
		if mb := &m.members[k]; (mb.keyEscaped || len(mb.key) == len(key)) && keyIs(mb.key, mb.keyEscaped, key) {
			return mb.val, true
		}
	}
	return m.members[h].val, true
}

func (m *rowMapper) member(key string) (jval, bool) {
	for k := len(m.members) - 1; k >= 0; k-- {
		if mb := &m.members[k]; keyIs(mb.key, mb.keyEscaped, key) {
			return mb.val, true
		}
	}
	return jval{}, false
}

// descend resolves rest inside v, the value found at path at.
func descend(v jval, at, rest string) (jval, bool, string) {
	switch v.kind {
	case kindObject:
		for k := len(rest); k > 0; k = strings.LastIndexByte(rest[:k], '.') {
			child, ok := memberOf(v, rest[:k])
			if !ok {
				continue
			}
			if k == len(rest) {
				return child, true, ""
			}
			return descend(child, at+"."+rest[:k], rest[k+1:])
		}
		seg, _, _ := strings.Cut(rest, ".")
		var keys []string
		forEachMember(v, func(key []byte, esc bool, _ jval) bool {
			keys = append(keys, decodeKey(key, esc))
			return true
		})
		return jval{}, false, fmt.Sprintf("%s has no key %s (it has %s)", quoteName(at), quoteName(seg), describeKeys(keys))
	case kindArray:
		seg, after, more := strings.Cut(rest, ".")
		n, err := strconv.Atoi(seg)
		if err != nil || n < 0 {
			return jval{}, false, fmt.Sprintf("%s is a list, so what follows it must be a position (0, 1, …), not %s", quoteName(at), quoteName(seg))
		}
		var elem jval
		count := 0
		forEachElement(v, func(i int, e jval) bool {
			count = i + 1
			if i == n {
				elem = e
				return false
			}
			return true
		})
		if elem.kind == kindNone {
			if count == 0 {
				return jval{}, false, fmt.Sprintf("%s is an empty list", quoteName(at))
			}
			return jval{}, false, fmt.Sprintf("%s has %d elements, so there is no element %d (positions start at 0)", quoteName(at), count, n)
		}
		if !more {
			return elem, true, ""
		}
		return descend(elem, at+"."+seg, after)
	}
	return jval{}, false, fmt.Sprintf("%s is %s, not an object or a list", quoteName(at), kindName(v.kind))
}

// memberOf finds key in the object v (the last one if it repeats).
func memberOf(v jval, key string) (jval, bool) {
	var found jval
	ok := false
	forEachMember(v, func(k []byte, esc bool, val jval) bool {
		if keyIs(k, esc, key) {
			found, ok = val, true
		}
		return true
	})
	return found, ok
}

// nullNonFinite copies a row with its NaN and Infinity literals written as
// null.
func (m *rowMapper) nullNonFinite(raw []byte, n int) []byte {
	dst := m.arena.reserve(len(raw) + n)
	inStr := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inStr:
			if c == '\\' && i+1 < len(raw) {
				dst = append(dst, c, raw[i+1])
				i++
				continue
			}
			inStr = c != '"'
		case c == '"':
			inStr = true
		case c == 'N' && hasWord(raw, i, "NaN"):
			dst, i = append(dst, "null"...), i+2
			continue
		case c == 'I' && hasWord(raw, i, "Infinity"):
			dst, i = append(dst, "null"...), i+7
			continue
		case c == '-' && hasWord(raw, i+1, "Infinity"):
			dst, i = append(dst, "null"...), i+8
			continue
		}
		dst = append(dst, c)
	}
	m.arena.commit(dst)
	return dst[:len(dst):len(dst)]
}
