package llm

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gavel-dev/gavel/judge"
)

// dimSpec says where a custom dimension's value is and how to read it.
type dimSpec struct {
	name   string
	scale  judge.Scale
	field  string
	values map[string]float64
}

// customOutput reads a custom judge's output in its declared format.
type customOutput struct {
	format string
	dims   []dimSpec
	reason string
	extra  []string
}

func (o customOutput) parse(text string) (parsed, error) {
	switch o.format {
	case formatJSON:
		return o.parseJSON(text)
	case formatLine:
		return o.parseLines(text)
	}
	return o.parseWord(text)
}

func (o customOutput) parseJSON(text string) (parsed, error) {
	required := make([]string, len(o.dims))
	for i, d := range o.dims {
		required[i], _, _ = strings.Cut(d.field, ".")
	}
	obj, err := findJSONObject(text, required...)
	if err != nil {
		return parsed{}, err
	}
	p := parsed{values: map[string]float64{}}
	for _, d := range o.dims {
		raw, ok := jsonField(obj.fields, d.field)
		if !ok {
			return parsed{}, fmt.Errorf("the JSON object has no %q field", d.field)
		}
		v, err := d.read(raw)
		if err != nil {
			return parsed{}, err
		}
		p.values[d.name] = v
		if d.scale == judge.Binary && len(o.dims) == 1 {
			last := d.field[strings.LastIndexByte(d.field, '.')+1:]
			if start, end, ok := valueSpan(text[obj.start:obj.end], last); ok {
				p.setSpan(obj.start+start, obj.start+end)
			}
		}
	}
	if o.reason != "" {
		if r, ok := jsonField(obj.fields, o.reason); ok {
			p.reason = strings.TrimSpace(stringify(r))
		}
	}
	for _, k := range o.extra {
		if v, ok := jsonField(obj.fields, k); ok {
			p.extra = setExtra(p.extra, k, plainJSON(v))
		}
	}
	return p, nil
}

// jsonField looks a field up by dotted path, its first key matched
// case-insensitively.
func jsonField(m map[string]any, path string) (any, bool) {
	if v, ok := field(m, path); ok {
		return v, true
	}
	head, rest, found := strings.Cut(path, ".")
	if !found {
		return nil, false
	}
	v, ok := field(m, head)
	if !ok {
		return nil, false
	}
	return lookupPath(v, rest)
}

// plainJSON turns decoded numbers into float64 so that Extra holds
// ordinary JSON values.
func plainJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return f
		}
		return x.String()
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plainJSON(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = plainJSON(e)
		}
		return out
	}
	return v
}

func (o customOutput) parseLines(text string) (parsed, error) {
	lines := splitOutputLines(text)
	p := parsed{values: map[string]float64{}}
	for _, d := range o.dims {
		i := lastKey(lines, d.field)
		if i < 0 {
			return parsed{}, fmt.Errorf("no %q line found", d.field+":")
		}
		l := lines[i]
		if d.scale.Categorical() && len(d.values) == 0 {
			// A category may be several words ("tie (bothbad)",
			// "Assistant A"): the whole value first.
			if v, ok := d.scale.Read(l.value); ok {
				p.values[d.name] = v
				continue
			}
		}
		t, ok := leadingToken(l.value)
		if !ok || t.ambiguous {
			return parsed{}, fmt.Errorf("the %q line says %q", d.field, clip(strings.TrimSpace(l.value), 60))
		}
		v, err := d.read(t.text)
		if err != nil {
			return parsed{}, err
		}
		p.values[d.name] = v
		if d.scale == judge.Binary && len(o.dims) == 1 {
			p.setSpan(l.valueAt+t.start, l.valueAt+t.end)
		}
	}
	if o.reason != "" {
		if k, ok := normalizeKey(o.reason); ok {
			p.reason = keyText(lines, k, len(lines))
		}
	}
	for _, e := range o.extra {
		if k, ok := normalizeKey(e); ok {
			if s := keyText(lines, k, len(lines)); s != "" {
				p.extra = setExtra(p.extra, e, s)
			}
		}
	}
	return p, nil
}

func (o customOutput) parseWord(text string) (parsed, error) {
	d := o.dims[0]
	if d.scale.Categorical() && len(d.values) == 0 {
		// An answer that is all category ("Assistant B", "tie (bothbad)").
		if v, ok := d.scale.Read(text); ok {
			return parsed{values: map[string]float64{d.name: v}}, nil
		}
	}
	v, start, end, err := parseWord(text, func(w string) (float64, bool) {
		x, err := d.read(w)
		return x, err == nil
	})
	if err != nil {
		return parsed{}, err
	}
	p := parsed{values: map[string]float64{d.name: v}}
	if d.scale == judge.Binary {
		p.setSpan(start, end)
	}
	return p, nil
}

// read maps what the model wrote to the dimension's value: through the
// values table when there is one, else as YES/NO (binary) or as the scale
// reads it (judge.Scale.Read: a number or label, a category, A/B/tie).
func (d dimSpec) read(v any) (float64, error) {
	if len(d.values) > 0 {
		s := strings.TrimSpace(stringify(v))
		for _, k := range slices.Sorted(maps.Keys(d.values)) {
			if strings.EqualFold(strings.TrimSpace(k), s) || sameNumber(k, s) {
				return d.values[k], nil
			}
		}
		return 0, fmt.Errorf("%q is %q, not one of %s", d.name, clip(s, 40), strings.Join(slices.Sorted(maps.Keys(d.values)), ", "))
	}
	if d.scale == judge.Binary {
		if s, ok := v.(string); ok {
			if x, ok := yesNo(s); ok {
				return x, nil
			}
		}
		b, err := boolValue(v)
		if err != nil {
			return 0, fmt.Errorf("%q %w (or YES/NO)", d.name, err)
		}
		return b2f(b), nil
	}
	x, err := readOnScale(v, d.scale)
	if err != nil {
		return 0, fmt.Errorf("%q %w", d.name, err)
	}
	return x, nil
}

// readOnScale reads a JSON value or a word on a scale, as the scale reads
// text (judge.Scale.Read). On an ordinal scale a value that is not on it
// gets scaleValue's message: not a number, or a number off the scale.
func readOnScale(v any, s judge.Scale) (float64, error) {
	switch v.(type) {
	case nil:
		return 0, fmt.Errorf("is null, not on the %s scale (%s)", s, s.Describe())
	case string, json.Number, bool:
	default:
		return 0, fmt.Errorf("is %s, not on the %s scale (%s)", clip(stringify(v), 40), s, s.Describe())
	}
	text := stringify(v)
	if x, ok := s.Read(text); ok {
		return x, nil
	}
	if s.Kind() == judge.KindOrdinal {
		return scaleValue(v, s)
	}
	return 0, fmt.Errorf("is %q, not on the %s scale (%s)", clip(strings.TrimSpace(text), 40), s, s.Describe())
}

func sameNumber(a, b string) bool {
	x, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
	y, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
	return err1 == nil && err2 == nil && x == y
}
