package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/gavel-dev/gavel/judge"
)

// maxObjectStarts bounds how many '{' findJSONObject tries, so that text
// full of braces costs linear time.
const maxObjectStarts = 64

// jsonObject is a JSON object found in model output, with its byte span.
type jsonObject struct {
	fields     map[string]any
	start, end int
}

// findJSONObject finds the JSON object a model wrote, wherever it is:
// alone, inside ``` fences, or surrounded by prose. Of the top-level
// objects that hold every required key (matched case-insensitively), the
// last wins, since models that correct themselves do so later. Objects
// with trailing commas, Python's True/False/None or raw line breaks inside
// strings are repaired; anything else that is not JSON is not read.
func findJSONObject(text string, required ...string) (jsonObject, error) {
	var found, fallback *jsonObject
	tries := 0
	for i := 0; i < len(text) && tries < maxObjectStarts; {
		j := strings.IndexByte(text[i:], '{')
		if j < 0 {
			break
		}
		j += i
		tries++
		end := objectEnd(text[j:])
		if end < 0 {
			i = j + 1
			continue
		}
		fields, ok := decodeObject(text[j : j+end])
		if !ok {
			i = j + 1
			continue
		}
		obj := &jsonObject{fields: fields, start: j, end: j + end}
		if hasKeys(fields, required) {
			found = obj
		} else {
			fallback = obj
		}
		i = j + end
	}
	switch {
	case found != nil:
		return *found, nil
	case fallback != nil:
		return jsonObject{}, fmt.Errorf("the JSON object has no %s field", quoteList(missingKeys(fallback.fields, required)))
	}
	return jsonObject{}, errors.New("no JSON object found")
}

// objectEnd returns the length of the object that opens at s[0], counting
// braces outside JSON strings, or -1 if it is never closed.
func objectEnd(s string) int {
	depth, inString, escaped := 0, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

func decodeObject(s string) (map[string]any, bool) {
	if m, err := unmarshalObject(s); err == nil {
		return m, true
	}
	m, err := unmarshalObject(repairJSON(s))
	return m, err == nil
}

func unmarshalObject(s string) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("null")
	}
	return m, nil
}

// repairJSON mends the slips models make in JSON: a comma before a closing
// bracket, Python literals, and raw control characters inside strings.
func repairJSON(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	inString, escaped := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			case c == '\n':
				b.WriteString(`\n`)
				continue
			case c == '\r':
				b.WriteString(`\r`)
				continue
			case c == '\t':
				b.WriteString(`\t`)
				continue
			case c < 0x20:
				continue
			}
			b.WriteByte(c)
			continue
		}
		switch {
		case c == '"':
			inString = true
		case c == ',':
			rest := strings.TrimLeft(s[i+1:], " \t\r\n")
			if rest == "" || rest[0] == '}' || rest[0] == ']' {
				continue
			}
		case isWordStart(s, i):
			if from, to := pythonLiteral(s[i:]); from != "" {
				b.WriteString(to)
				i += len(from) - 1
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// pythonLiteral reports the Python literal (True, False, None) that s
// starts with as a whole word, and its JSON spelling.
func pythonLiteral(s string) (from, to string) {
	for _, lit := range [...][2]string{{"True", "true"}, {"False", "false"}, {"None", "null"}} {
		if strings.HasPrefix(s, lit[0]) && !isWordByte(s, len(lit[0])) {
			return lit[0], lit[1]
		}
	}
	return "", ""
}

func isWordStart(s string, i int) bool { return !isWordByte(s, i-1) && isWordByte(s, i) }

func isWordByte(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := s[i]
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// field returns the value of a key, matched exactly first and then
// case-insensitively, and whether the object has it.
func field(m map[string]any, key string) (any, bool) {
	if v, ok := m[key]; ok {
		return v, true
	}
	for k, v := range m {
		if strings.EqualFold(strings.TrimSpace(k), key) {
			return v, true
		}
	}
	return nil, false
}

func hasKeys(m map[string]any, keys []string) bool {
	return len(missingKeys(m, keys)) == 0
}

func missingKeys(m map[string]any, keys []string) []string {
	var out []string
	for _, k := range keys {
		if _, ok := field(m, k); !ok {
			out = append(out, k)
		}
	}
	return out
}

func quoteList(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = strconv.Quote(k)
	}
	return strings.Join(q, " or ")
}

// scaleValue reads a score written as a number or a string holding only a
// number ("1.0", 1, "0.5") and checks that it is on the scale.
func scaleValue(v any, s judge.Scale) (float64, error) {
	var text string
	switch x := v.(type) {
	case json.Number:
		text = x.String()
	case string:
		text = strings.TrimSpace(x)
	case nil:
		return 0, errors.New("is null, not a number")
	default:
		return 0, fmt.Errorf("is %s, not a number", clip(stringify(v), 40))
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return 0, fmt.Errorf("is %q, not a number", clip(text, 40))
	}
	if !s.Valid(f) {
		return 0, fmt.Errorf("is %s, not on the %s scale (%s)", text, s, scaleList(s))
	}
	return f, nil
}

// boolValue reads a JSON boolean, or a string or number that plainly
// means one: "true"/"false", "yes"/"no", 1/0.
func boolValue(v any) (bool, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case json.Number:
		switch x.String() {
		case "1":
			return true, nil
		case "0":
			return false, nil
		}
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "yes", "1":
			return true, nil
		case "false", "no", "0":
			return false, nil
		}
	}
	return false, fmt.Errorf("is %s, not true or false", clip(stringify(v), 40))
}

// textValue renders an optional text field; numbers and lists are kept
// readable rather than dropped.
func textValue(m map[string]any, key string) string {
	v, _ := field(m, key)
	return strings.TrimSpace(stringify(v))
}

// listValue reads a list of strings, as in quality's key_missing_info;
// a lone string becomes a list of one.
func listValue(m map[string]any, key string) []string {
	v, ok := field(m, key)
	if !ok || v == nil {
		return nil
	}
	items, isList := v.([]any)
	if !isList {
		items = []any{v}
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		if s := strings.TrimSpace(stringify(it)); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func scaleList(s judge.Scale) string {
	vals := s.Values()
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strings.Join(parts, ", ")
}

// valueSpan finds where an object's key has its scalar value in the
// object's text, for reading the value's logprobs; ok is false when the
// key is not found as written.
func valueSpan(objText, key string) (start, end int, ok bool) {
	re, err := regexp.Compile(`(?i)"` + regexp.QuoteMeta(key) + `"\s*:\s*"?\s*([^",}\s]+)`)
	if err != nil {
		return 0, 0, false
	}
	all := re.FindAllStringSubmatchIndex(objText, -1)
	if len(all) == 0 {
		return 0, 0, false
	}
	m := all[len(all)-1]
	return m[2], m[3], true
}
