package llm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/gavel-dev/gavel/judge"
)

// maxJudgeFileBytes bounds a custom judge file; prompts are far smaller.
const maxJudgeFileBytes = 1 << 20

// CustomFile is the shape of a custom judge file, YAML or JSON:
//
//	name: helpful
//	description: Is the answer helpful to the user?
//	system: You are a strict grader.
//	user: |
//	  Question: {question}
//	  Reference: {gold}
//	  Answer: {prediction}
//	  Reply with JSON {{"helpful": "YES" or "NO", "why": "..."}}
//	output:
//	  format: json            # json, line (key: value lines) or word
//	  reason: why             # field or line key holding the reason
//	  extra: [topic]          # further fields kept in Verdict.Extra
//	dimensions:
//	  - name: helpful
//	    scale: binary          # any judge.Scale: binary, likert, ordinal:1-10,
//	                           # nominal:CORRECT,INCORRECT,NOT_ATTEMPTED, pairwise…
//	    field: helpful         # JSON field (dotted path) or line key
//	    values: {PASS: YES, FAIL: NO}
//
// Templates take {question}, {gold}, {prediction}, {response_a},
// {response_b}, {criterion}, {id}, {rubric}, or any field of the dataset
// row by name or dotted path ({doc.title}, {fields.question} for the row's
// own "question"); {{ and }} are literal braces. A judge whose templates
// use {criterion} rates each rubric criterion on its own; one whose
// templates use {response_a} and {response_b} compares the two responses
// of pairwise items, which --swap shows in the other order too (B in the
// A slot): give such a judge a pairwise scale, so that its answer can be
// mapped back to the original order.
type CustomFile struct {
	Name         string      `yaml:"name" json:"name"`
	Description  string      `yaml:"description" json:"description"`
	System       string      `yaml:"system" json:"system"`
	User         string      `yaml:"user" json:"user"`
	Output       CustomOut   `yaml:"output" json:"output"`
	Dimensions   []CustomDim `yaml:"dimensions" json:"dimensions"`
	PerCriterion *bool       `yaml:"per_criterion" json:"per_criterion"`
}

// CustomOut says how a custom judge's model writes its answer.
type CustomOut struct {
	// Format is json (a JSON object), line ("key: value" lines) or word
	// (a bare word such as YES or PASS).
	Format string `yaml:"format" json:"format"`
	// Reason names the JSON field or line key that holds the reason.
	Reason string `yaml:"reason" json:"reason"`
	// Extra names further JSON fields or line keys to keep in
	// Verdict.Extra.
	Extra []string `yaml:"extra" json:"extra"`
}

// CustomDim is one dimension of a custom judge.
type CustomDim struct {
	Name        string `yaml:"name" json:"name"`
	Scale       string `yaml:"scale" json:"scale"`
	Description string `yaml:"description" json:"description"`
	// Field is the JSON field (dotted path) or line key holding the
	// value; it defaults to the dimension's name. Unused for word.
	Field string `yaml:"field" json:"field"`
	// Values maps what the model writes (matched case-insensitively) to
	// the scale's values, each written as the scale reads it
	// (judge.Scale.Read): {PASS: YES, FAIL: NO} or {PASS: 1, FAIL: 0},
	// {"Output (a)": A, "Output (b)": B}. Without it the scale reads the
	// answer itself: YES/NO, true/false or 1/0 on a binary scale, the
	// number or its label on an ordinal one, the category's name on a
	// nominal one, A, B or tie on a pairwise one.
	Values map[string]ValueText `yaml:"values" json:"values"`
}

// ValueText is a scale value as a judge file writes it: a number (1,
// 0.5) or a name (YES, CORRECT, A, tie), read on the dimension's scale.
type ValueText string

// UnmarshalYAML takes any scalar (YAML would otherwise refuse a name
// where a number is expected, or read 1.0 as 1).
func (v *ValueText) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: a value is a number or a name, not a list or a map", n.Line)
	}
	*v = ValueText(n.Value)
	return nil
}

// UnmarshalJSON takes a string, a number or a boolean.
func (v *ValueText) UnmarshalJSON(b []byte) error {
	var x any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&x); err != nil {
		return err
	}
	switch x.(type) {
	case string, json.Number, bool:
		*v = ValueText(stringify(x))
		return nil
	}
	return fmt.Errorf("a value is a number or a name, not %s", clip(string(b), 40))
}

const (
	formatJSON = "json"
	formatLine = "line"
	formatWord = "word"
)

// reservedNames are judge names custom files may not take: the built-in
// LLM judges and the offline matcher.
func reservedNames() []string {
	names := []string{"match"}
	for _, d := range builtins() {
		names = append(names, d.name)
	}
	return names
}

var judgeNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// LoadCustom reads a custom judge file (.json is read as JSON, anything
// else as YAML) and checks it. Errors name the file and the problem.
func LoadCustom(path string) (*CustomFile, error) {
	data, err := readJudgeFile(path)
	if err != nil {
		return nil, err
	}
	return ParseCustom(data, path)
}

// ParseCustom reads and checks a custom judge definition; source names
// the file in errors and decides the syntax (.json is JSON, else YAML).
func ParseCustom(data []byte, source string) (*CustomFile, error) {
	cf, _, err := parseCustom(data, source)
	return cf, err
}

func readJudgeFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("judge file %s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxJudgeFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("judge file %s: %w", path, err)
	}
	if len(data) > maxJudgeFileBytes {
		return nil, fmt.Errorf("judge file %s: larger than %d KB: is it a judge file?", path, maxJudgeFileBytes>>10)
	}
	return data, nil
}

func parseCustom(data []byte, source string) (*CustomFile, *definition, error) {
	var cf CustomFile
	if err := decodeCustom(data, source, &cf); err != nil {
		return nil, nil, fmt.Errorf("judge file %s: %w", source, err)
	}
	d, err := cf.definition(source, data)
	if err != nil {
		if many, ok := err.(interface{ Unwrap() []error }); ok && len(many.Unwrap()) > 1 {
			return nil, nil, fmt.Errorf("judge file %s: %d problems:\n  %w", source, len(many.Unwrap()), joinIndented(many.Unwrap()))
		}
		return nil, nil, fmt.Errorf("judge file %s: %w", source, err)
	}
	return &cf, d, nil
}

func decodeCustom(data []byte, source string, cf *CustomFile) error {
	if strings.EqualFold(filepath.Ext(source), ".json") {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(cf); err != nil {
			return fmt.Errorf("not a valid judge definition: %w", err)
		}
		if dec.More() {
			return errors.New("not a valid judge definition: more than one JSON value")
		}
		return nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(cf); err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("the file is empty: a judge needs at least name, user, output and dimensions")
		}
		return fmt.Errorf("not a valid judge definition: %s", yamlMessage(err))
	}
	return nil
}

var unknownFieldRE = regexp.MustCompile(`field (\S+) not found in type llm\.(\w+)`)

// yamlMessage rewords yaml.v3's errors for people who write judge files.
func yamlMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n")
	msg = unknownFieldRE.ReplaceAllStringFunc(msg, func(m string) string {
		sub := unknownFieldRE.FindStringSubmatch(m)
		keys := map[string]string{
			"CustomFile": "name, description, system, user, output, dimensions, per_criterion",
			"CustomOut":  "format, reason, extra",
			"CustomDim":  "name, scale, description, field, values",
		}[sub[2]]
		return fmt.Sprintf("unknown key %q (known here: %s)", sub[1], keys)
	})
	msg = strings.ReplaceAll(msg, "llm.Custom", "")
	return strings.Join(strings.Fields(msg), " ")
}

// definition checks the file and builds the judge it describes.
func (cf *CustomFile) definition(source string, data []byte) (*definition, error) {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }

	switch {
	case cf.Name == "":
		bad("name is missing: give the judge a name such as my-judge")
	case !judgeNameRE.MatchString(cf.Name):
		bad("name %q: use lower-case letters, digits, '-' and '_' (at most 64)", clip(cf.Name, 70))
	case slices.Contains(reservedNames(), cf.Name):
		bad("name %q is a built-in judge's: choose another", cf.Name)
	}
	var system, user template
	var err error
	if cf.System != "" {
		if system, err = parseTemplate(cf.System); err != nil {
			bad("system template: %v", err)
		}
	}
	if strings.TrimSpace(cf.User) == "" {
		bad("user template is missing: write the message that shows the item, e.g. \"Answer: {prediction}\"")
	} else if user, err = parseTemplate(cf.User); err != nil {
		bad("user template: %v", err)
	}
	inputs := mergeNames(system.names(), user.names())
	if len(errs) == 0 && len(inputs) == 0 {
		bad("the templates use no item field: add placeholders such as {question}, {gold} and {prediction}")
	}

	format := strings.ToLower(strings.TrimSpace(cf.Output.Format))
	switch format {
	case formatJSON, formatLine, formatWord:
	case "":
		bad("output.format is missing: use json, line or word")
	default:
		bad("output.format %q: use json, line or word", clip(cf.Output.Format, 40))
	}
	if format == formatWord && (cf.Output.Reason != "" || len(cf.Output.Extra) > 0) {
		bad("output.reason and output.extra need format json or line: a bare word has no fields")
	}

	for _, f := range append([]string{cf.Output.Reason}, cf.Output.Extra...) {
		if f == "" {
			continue
		}
		switch _, isKey := normalizeKey(f); {
		case format == formatJSON && !validPlaceholder(f):
			bad("output: field %q: use a JSON field name or dotted path", clip(f, 40))
		case format == formatLine && !isKey:
			bad("output: key %q: a line key is letters, digits, spaces, '-' and '_', at most 40", clip(f, 40))
		}
	}
	dims, specs := cf.checkDims(format, bad)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}

	perCriterion := slices.Contains(inputs, "criterion")
	if cf.PerCriterion != nil {
		perCriterion = *cf.PerCriterion
	}
	sum := sha256.Sum256(data)
	d := &definition{
		name:         cf.Name,
		description:  strings.TrimSpace(cf.Description),
		inputs:       inputs,
		dims:         dims,
		perCriterion: perCriterion,
		json:         format == formatJSON,
		source:       source,
		prompt:       customPrompt(cf.System, cf.User),
		version:      hex.EncodeToString(sum[:6]),
	}
	d.format = outputDescription(format, specs)
	d.messages = func(t judge.Task, _ Config) ([]Message, error) {
		lookup := itemLookup(t)
		var msgs []Message
		if cf.System != "" {
			s, err := system.render(lookup)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, Message{Role: "system", Content: s})
		}
		u, err := user.render(lookup)
		if err != nil {
			return nil, err
		}
		return append(msgs, Message{Role: "user", Content: u}), nil
	}
	out := customOutput{format: format, dims: specs, reason: cf.Output.Reason, extra: cf.Output.Extra}
	d.parse = out.parse
	return d, nil
}

// checkDims validates the dimensions and returns them with their specs.
func (cf *CustomFile) checkDims(format string, bad func(string, ...any)) ([]judge.Dimension, []dimSpec) {
	if len(cf.Dimensions) == 0 {
		bad("dimensions are missing: list at least one, e.g. {name: correct, scale: binary}")
		return nil, nil
	}
	if format == formatWord && len(cf.Dimensions) > 1 {
		bad("format word allows one dimension, and %d are listed: use json or line for more", len(cf.Dimensions))
	}
	var dims []judge.Dimension
	var specs []dimSpec
	seenName, seenField := map[string]bool{}, map[string]bool{}
	for i, cd := range cf.Dimensions {
		where := fmt.Sprintf("dimensions[%d]", i)
		if cd.Name != "" {
			where += " (" + clip(cd.Name, 40) + ")"
		}
		switch {
		case cd.Name == "":
			bad("%s: name is missing", where)
		case !judgeNameRE.MatchString(cd.Name):
			bad("%s: name: use lower-case letters, digits, '-' and '_'", where)
		case seenName[cd.Name]:
			bad("%s: the name is used twice", where)
		}
		seenName[cd.Name] = true
		// Not lower-cased: category names keep the case they are
		// written in (ParseScale reads the kind in any case).
		scale, err := judge.ParseScale(cd.Scale)
		if err != nil {
			bad("%s: %v", where, err)
			continue
		}
		spec := dimSpec{name: cd.Name, scale: scale, field: strings.TrimSpace(cd.Field)}
		if spec.field == "" {
			spec.field = cd.Name
		}
		switch format {
		case formatJSON:
			if !validPlaceholder(spec.field) {
				bad("%s: field %q: use a JSON field name or dotted path", where, clip(spec.field, 40))
			}
		case formatLine:
			k, ok := normalizeKey(spec.field)
			if !ok {
				bad("%s: field %q: a line key is letters, digits, spaces, '-' and '_', at most 40", where, clip(spec.field, 40))
			}
			spec.field = k
		}
		if format != formatWord {
			if seenField[spec.field] {
				bad("%s: field %q is read by another dimension too", where, spec.field)
			}
			seenField[spec.field] = true
		}
		for _, word := range slices.Sorted(maps.Keys(cd.Values)) {
			text := cd.Values[word]
			if strings.TrimSpace(word) == "" {
				bad("%s: values: an empty word", where)
			}
			v, ok := scale.Read(string(text))
			if !ok {
				bad("%s: values: %q maps to %s, which is not on the %s scale (%s)", where, clip(word, 40), clip(string(text), 40), scale, scale.Describe())
				continue
			}
			if spec.values == nil {
				spec.values = map[string]float64{}
			}
			spec.values[word] = v
		}
		specs = append(specs, spec)
		dims = append(dims, judge.Dimension{Name: cd.Name, Scale: scale, Description: strings.TrimSpace(cd.Description)})
	}
	return dims, specs
}

func mergeNames(a, b []string) []string {
	out := slices.Clone(a)
	for _, n := range b {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func customPrompt(system, user string) string {
	if system == "" {
		return user
	}
	return "[system]\n" + system + "\n\n[user]\n" + user
}

func outputDescription(format string, specs []dimSpec) string {
	var fields []string
	for _, s := range specs {
		f := strconv.Quote(s.field)
		if len(s.values) > 0 {
			f += " (" + strings.Join(slices.Sorted(maps.Keys(s.values)), ", ") + ")"
		} else {
			f += " (" + s.scale.Describe() + ")"
		}
		fields = append(fields, f)
	}
	switch format {
	case formatJSON:
		return "a JSON object with " + strings.Join(fields, " and ")
	case formatLine:
		return "lines \"key: value\" for " + strings.Join(fields, " and ")
	}
	if len(specs) == 1 && len(specs[0].values) > 0 {
		return "a bare word: " + strings.Join(slices.Sorted(maps.Keys(specs[0].values)), ", ")
	}
	if len(specs) == 1 && specs[0].scale == judge.Binary {
		return "the bare word YES or NO"
	}
	if len(specs) == 1 {
		return "a bare answer: " + specs[0].scale.Describe()
	}
	return "a bare answer"
}

// joinIndented joins errors one per indented line, under a heading line.
func joinIndented(errs []error) error {
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return errors.New(strings.Join(msgs, "\n  "))
}
