package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gavel-dev/gavel/judge"
)

// itemLookup resolves a template's placeholders for one task: the mapped
// item fields first, then the original row (Item.Fields) by name or dotted
// path ("doc.question", "resps.0.0"); "fields.NAME" reaches the original row
// even where NAME is also a mapped field. {response_a} and {response_b}
// are the pair as the judge is shown it (judge.Task.Shown): a swapped task
// puts response B in the A slot and response A in the B slot.
func itemLookup(t judge.Task) func(string) (string, error) {
	var row any
	decoded := false
	return func(name string) (string, error) {
		switch name {
		case "id":
			return t.Item.ID, nil
		case "question":
			return t.Item.Question, nil
		case "gold":
			return t.Item.Gold, nil
		case "prediction":
			return t.Item.Prediction, nil
		case "response_a":
			a, _ := t.Shown()
			return a, nil
		case "response_b":
			_, b := t.Shown()
			return b, nil
		case "criterion":
			return t.CriterionText(), nil
		case "rubric":
			var b strings.Builder
			for k, c := range t.Item.Rubric {
				fmt.Fprintf(&b, "%d. %s\n", k+1, c)
			}
			return strings.TrimSuffix(b.String(), "\n"), nil
		}
		if !decoded {
			decoded = true
			row = decodeRow(t.Item.Fields)
		}
		path := strings.TrimPrefix(name, "fields.")
		v, ok := lookupPath(row, path)
		if !ok {
			return "", fmt.Errorf("item %s has no field %q (its fields: %s); fix the template or the dataset's field mapping", t.Item.ID, name, fieldNames(row))
		}
		return stringify(v), nil
	}
}

func decodeRow(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	return v
}

// lookupPath walks a dotted path through decoded JSON. A key that itself
// holds dots ("a.b") is tried whole before the path is split.
func lookupPath(v any, path string) (any, bool) {
	if path == "" {
		return v, true
	}
	switch x := v.(type) {
	case map[string]any:
		if val, ok := x[path]; ok {
			return val, true
		}
		for i := len(path) - 1; i > 0; i-- {
			if path[i] != '.' {
				continue
			}
			if val, ok := x[path[:i]]; ok {
				if out, ok := lookupPath(val, path[i+1:]); ok {
					return out, true
				}
			}
		}
	case []any:
		head, rest, _ := strings.Cut(path, ".")
		k, err := strconv.Atoi(head)
		if err != nil || k < 0 || k >= len(x) {
			return nil, false
		}
		return lookupPath(x[k], rest)
	}
	return nil, false
}

func fieldNames(row any) string {
	m, ok := row.(map[string]any)
	if !ok || len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) > 20 {
		keys = append(keys[:20], "…")
	}
	return strings.Join(keys, ", ")
}

// stringify renders a JSON value as template text: strings as they are,
// null as nothing, objects and arrays as compact JSON.
func stringify(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// standardFields are the placeholders every item fills from its mapped
// fields, whatever the dataset's rows hold.
var standardFields = []string{"id", "question", "gold", "prediction", "response_a", "response_b", "criterion", "rubric"}

// StandardFields returns the placeholders every item fills: id, question,
// gold, prediction, response_a, response_b, criterion and rubric. Any
// other placeholder names a field of the dataset's rows.
func StandardFields() []string { return slices.Clone(standardFields) }

// IsStandardField reports whether a placeholder is filled from the item's
// mapped fields rather than from its row.
func IsStandardField(name string) bool { return slices.Contains(standardFields, name) }

// RowPlaceholders returns the placeholders among inputs that name fields
// of the dataset's rows (all but the standard ones), in order.
func RowPlaceholders(inputs []string) []string {
	var out []string
	for _, n := range inputs {
		if !IsStandardField(n) {
			out = append(out, n)
		}
	}
	return out
}

// FieldCheck says how many items of a dataset lack a field a template
// names.
type FieldCheck struct {
	// Field is the placeholder as the template writes it.
	Field string
	// Missing counts the items whose row has no such field, out of Items.
	Missing, Items int
	// FirstMissing is the ID of the first item that lacks it.
	FirstMissing string
}

// CheckFields checks every row placeholder among inputs (see
// RowPlaceholders) against the items' rows, as rendering the template
// would look them up, and returns one FieldCheck per field that some item
// lacks, in inputs' order. It reads each row once, and only when inputs
// name a row field.
func CheckFields(inputs []string, items []judge.Item) []FieldCheck {
	fields := RowPlaceholders(inputs)
	if len(fields) == 0 {
		return nil
	}
	checks := make([]FieldCheck, len(fields))
	for i, f := range fields {
		checks[i] = FieldCheck{Field: f, Items: len(items)}
	}
	for _, it := range items {
		row := decodeRow(it.Fields)
		for i, f := range fields {
			if _, ok := lookupPath(row, strings.TrimPrefix(f, "fields.")); !ok {
				if checks[i].Missing == 0 {
					checks[i].FirstMissing = it.ID
				}
				checks[i].Missing++
			}
		}
	}
	out := checks[:0]
	for _, c := range checks {
		if c.Missing > 0 {
			out = append(out, c)
		}
	}
	return out
}

// maxRowsForNames bounds how many rows RowFields reads: enough to see
// every field of a dataset whose rows share a shape.
const maxRowsForNames = 1000

// RowFields returns, sorted, the fields the items' rows have (of the first
// thousand): their top-level keys, and in nested, also the dotted paths
// one level into object fields ("doc.title").
func RowFields(items []judge.Item, nested bool) []string {
	seen := map[string]bool{}
	for k, it := range items {
		if k == maxRowsForNames {
			break
		}
		m, ok := decodeRow(it.Fields).(map[string]any)
		if !ok {
			continue
		}
		for key, v := range m {
			seen[key] = true
			if sub, ok := v.(map[string]any); ok && nested {
				for s := range sub {
					seen[key+"."+s] = true
				}
			}
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// SuggestField returns the candidate a mistyped field name most likely
// meant: the same name but for case, '-' and '_', or else the nearest
// within a small edit distance (one edit for short names, up to three for
// long ones). It returns "" when nothing is close.
func SuggestField(name string, candidates []string) string {
	fold := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "-", "_") }
	for _, c := range candidates {
		if c != name && fold(c) == fold(name) {
			return c
		}
	}
	best, bestD := "", min(3, max(1, len(name)/4))+1
	for _, c := range candidates {
		if c == name {
			continue
		}
		if d := editDistance(fold(name), fold(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
