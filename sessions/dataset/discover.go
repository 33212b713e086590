package dataset

import (
	"strings"
)

// discoverRows is how many rows the automatic mapping looks at.
const discoverRows = 100

// discovery is what the first rows say about a dataset's fields.
type discovery struct {
	keys []string // every top-level key, in order of first appearance
	seen map[string]bool
	// boolish[k] is 1 while every value of k seen was true, false or
	// empty (and one was not empty), -1 once another value was seen.
	boolish map[string]int8
	rows    int

	// For lm-evaluation-harness samples.
	docKeys  []string
	docSeen  map[string]bool
	metrics  []string
	argsPath string
}

func newDiscovery() *discovery {
	return &discovery{seen: map[string]bool{}, boolish: map[string]int8{}, docSeen: map[string]bool{}}
}

func (d *discovery) addKey(k string) {
	if !d.seen[k] {
		d.seen[k] = true
		d.keys = append(d.keys, k)
	}
}

// addValue notes whether a field's value looks like a boolean verdict.
func (d *discovery) addValue(k string, isBool, empty bool) {
	switch {
	case d.boolish[k] < 0 || empty:
	case isBool:
		d.boolish[k] = 1
	default:
		d.boolish[k] = -1
	}
}

func isBoolText(s string) bool {
	return strings.EqualFold(s, "true") || strings.EqualFold(s, "false")
}

// addJSONRow notes the fields of one row; it returns false when the row is
// not a valid JSON object.
func (d *discovery) addJSONRow(raw []byte) bool {
	s := scanner{b: raw}
	var members []member
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	end, err := s.object(i, 1, &members)
	if err != nil || skipSpace(raw, end) != len(raw) {
		return false
	}
	d.rows++
	var a arena
	for _, mb := range members {
		k := decodeKey(mb.key, mb.keyEscaped)
		d.addKey(k)
		v := mb.val
		switch v.kind {
		case kindTrue, kindFalse:
			d.addValue(k, true, false)
		case kindNull:
			d.addValue(k, false, true)
		case kindString:
			// Only short strings can say true or false; long ones are
			// not decoded just to find that out.
			if v.end-v.start > len(`"false"`)+4 {
				d.addValue(k, false, false)
				break
			}
			t := textOf(&a, v)
			d.addValue(k, isBoolText(t), t == "")
		default:
			d.addValue(k, false, false)
		}
		d.harnessField(k, v)
	}
	return true
}

// harnessField notes what lm-evaluation-harness fields look like.
func (d *discovery) harnessField(k string, v jval) {
	switch k {
	case "doc":
		forEachMember(v, func(key []byte, esc bool, _ jval) bool {
			if dk := decodeKey(key, esc); !d.docSeen[dk] {
				d.docSeen[dk] = true
				d.docKeys = append(d.docKeys, dk)
			}
			return true
		})
	case "metrics":
		var a arena
		forEachElement(v, func(_ int, e jval) bool {
			if e.kind == kindString {
				name := strings.Clone(textOf(&a, e))
				for _, m := range d.metrics {
					if m == name {
						return true
					}
				}
				d.metrics = append(d.metrics, name)
			}
			return true
		})
	case "arguments":
		if d.argsPath != "" {
			return
		}
		switch v.kind {
		case kindArray:
			d.argsPath = "arguments.0.0"
		case kindObject:
			d.argsPath = "arguments.gen_args_0.arg_0"
		}
	}
}

// looksHarness reports whether the rows are lm-evaluation-harness samples.
func (d *discovery) looksHarness() bool {
	return d.seen["doc_id"] && d.seen["doc"] && (d.seen["resps"] || d.seen["filtered_resps"])
}

// has reports whether a field path can exist: a key, or a dotted path
// whose first part is a key.
func (d *discovery) has(path string, dotted bool) bool {
	if d.seen[path] {
		return true
	}
	if !dotted {
		return false
	}
	for k := strings.IndexByte(path, '.'); k > 0; k = nextDot(path, k) {
		if d.seen[path[:k]] {
			return true
		}
	}
	return false
}

func nextDot(s string, k int) int {
	if j := strings.IndexByte(s[k+1:], '.'); j >= 0 {
		return k + 1 + j
	}
	return -1
}
