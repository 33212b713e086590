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
// even where NAME is also a mapped field.
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
