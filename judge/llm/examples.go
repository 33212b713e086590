package llm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/gavel-dev/gavel/judge"
)

// exampleSpec is how a judge file's {examples} is written: up to count
// examples, each rendered with format, joined by a blank line.
type exampleSpec struct {
	count  int
	format template
	dims   []judge.Dimension
}

// UnmarshalYAML also takes a bare count: "examples: 3".
func (e *CustomExamples) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		c, err := strconv.Atoi(n.Value)
		if err != nil {
			return fmt.Errorf("line %d: examples is a count (examples: 3) or {count: 3, format: …}, not %q", n.Line, clip(n.Value, 40))
		}
		e.Count = c
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: examples is a count (examples: 3) or {count: 3, format: …}", n.Line)
	}
	// Decoding a node forgets KnownFields: the keys are checked here.
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Value != "count" && k.Value != "format" {
			return fmt.Errorf("line %d: unknown key %q (known here: count, format)", k.Line, clip(k.Value, 40))
		}
	}
	type plain CustomExamples
	return n.Decode((*plain)(e))
}

// UnmarshalJSON also takes a bare count: "examples": 3.
func (e *CustomExamples) UnmarshalJSON(b []byte) error {
	if c, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
		e.Count = c
		return nil
	}
	type plain CustomExamples
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode((*plain)(e))
}

// Placeholders only an example's format has.
const (
	labelName  = "label"
	reasonName = "reason"
	numberName = "n"
	// noNote is {reason} for an example whose human wrote no note.
	noNote = "(no note)"
)

// ErrNoExamples is the error of a task whose judge uses {examples} and
// was given none (see Judge.WithExamples).
var ErrNoExamples = errors.New("record a split (gavel split SESSION) and label calibration items: the examples are drawn from them")

// fieldTitles are the default format's names of the standard fields.
var fieldTitles = map[string]string{
	"id":         "ID",
	"question":   "Question",
	"gold":       "Gold answer",
	"prediction": "Prediction",
	"response_a": "Response A",
	"response_b": "Response B",
	"rubric":     "Rubric",
}

// defaultExampleFormat writes the item fields the judge's templates use,
// each left out when the example's item lacks it, then the human's
// verdict per dimension and the note:
//
//	Question: …
//	Gold answer: …
//	Prediction: …
//	Human verdict: correct = YES
//	Reason: …
func defaultExampleFormat(fields []string, dims []judge.Dimension) string {
	var b strings.Builder
	for _, f := range fields {
		if f == "criterion" {
			// An example is a whole item: it has no criterion of its own.
			continue
		}
		title := fieldTitles[f]
		if title == "" {
			title = strings.TrimPrefix(f, "fields.")
		}
		fmt.Fprintf(&b, "{#%s}%s: {%s}\n{/%s}", f, escapeBraces(title), f, f)
	}
	for _, d := range dims {
		fmt.Fprintf(&b, "Human verdict: %s = {%s.%s}\n", d.Name, labelName, d.Name)
	}
	b.WriteString("Reason: {" + reasonName + "}")
	return b.String()
}

// checkExamples checks examples.format against the judge's dimensions.
func (cf *CustomFile) checkExamples(inputs, optional []string, dims []judge.Dimension, bad func(string, ...any)) *exampleSpec {
	text := cf.Examples.Format
	if strings.TrimSpace(text) == "" {
		text = defaultExampleFormat(append(slices.Clone(inputs), optional...), dims)
	}
	t, err := parseTemplate(text)
	if err != nil {
		bad("examples.format: %v", err)
		return nil
	}
	for _, n := range t.names() {
		switch {
		case n == instructionsName || n == examplesName:
			bad("examples.format: {%s} is the judge's, not an example's: use it in system or user", n)
		case strings.HasPrefix(n, labelName+"."):
			dim := strings.TrimPrefix(n, labelName+".")
			if !slices.ContainsFunc(dims, func(d judge.Dimension) bool { return d.Name == dim }) {
				bad("examples.format: {%s}: the judge has no dimension %q (its dimensions: %s)", n, clip(dim, 40), dimNames(dims))
			}
		}
	}
	return &exampleSpec{count: cf.Examples.Count, format: t, dims: dims}
}

func dimNames(dims []judge.Dimension) string {
	names := make([]string, len(dims))
	for i, d := range dims {
		names[i] = d.Name
	}
	return strings.Join(names, ", ")
}

// renderExamples writes the task's {examples}: the first count examples
// whose item is not the task's own.
func (d *definition) renderExamples(t judge.Task, ex []judge.Example) (string, error) {
	if d.examples == nil {
		return "", errors.New("{examples} has no examples section")
	}
	var picked []judge.Example
	for _, e := range ex {
		if len(picked) == d.examples.count {
			break
		}
		if e.Item.ID != t.Item.ID {
			picked = append(picked, e)
		}
	}
	if len(picked) == 0 {
		return "", fmt.Errorf("judge %s uses {examples} and has none for this item: %w", d.name, ErrNoExamples)
	}
	parts := make([]string, len(picked))
	for i, e := range picked {
		s, err := d.examples.format.render(exampleLookup(e, i+1, d.examples.dims))
		if err != nil {
			return "", fmt.Errorf("example %d (item %s): %w", i+1, e.Item.ID, err)
		}
		parts[i] = strings.TrimRight(s, "\n")
	}
	return strings.Join(parts, "\n\n"), nil
}

// exampleLookup is the value of an example format's placeholders.
func exampleLookup(e judge.Example, n int, dims []judge.Dimension) func(string) (string, error) {
	item := itemLookup(judge.Task{Item: e.Item})
	label := func(d judge.Dimension) string {
		v, ok := e.Labels[d.Name]
		if !ok {
			return "(no label)"
		}
		return d.Scale.Format(v)
	}
	return func(name string) (string, error) {
		switch {
		case name == labelName:
			return label(dims[0]), nil
		case strings.HasPrefix(name, labelName+"."):
			for _, d := range dims {
				if labelName+"."+d.Name == name {
					return label(d), nil
				}
			}
		case name == reasonName:
			if strings.TrimSpace(e.Note) == "" {
				return noNote, nil
			}
			return e.Note, nil
		case name == numberName:
			return strconv.Itoa(n), nil
		}
		return item(name)
	}
}

// examplesHash names an example set in judge.Info.Params: the ids,
// labels and notes, in order, so that another set is another run.
func examplesHash(ex []judge.Example) string {
	h := sha256.New()
	for _, e := range ex {
		fmt.Fprintf(h, "%q\x00", e.Item.ID)
		for _, k := range slices.Sorted(maps.Keys(e.Labels)) {
			fmt.Fprintf(h, "%q=%s\x00", k, strconv.FormatFloat(e.Labels[k], 'g', -1, 64))
		}
		fmt.Fprintf(h, "%q\x01", e.Note)
	}
	return hex.EncodeToString(h.Sum(nil)[:6])
}

// escapeBraces writes text so that a template reads it back as it is.
func escapeBraces(s string) string {
	return strings.NewReplacer("{", "{{", "}", "}}").Replace(s)
}
