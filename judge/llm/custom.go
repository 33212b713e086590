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
	"math"
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
//	instructions: |            # optional: the text {instructions} stands for,
//	  Be strict about facts.   # inserted as written (braces need no escaping);
//	                           # gavel tune rewrites only this field
//	system: "You are a strict grader. {instructions}"
//	user: |
//	  {examples}
//
//	  Question: {question}
//	  Reference: {gold}
//	  Answer: {prediction}
//	  Reply with JSON {{"helpful": "YES" or "NO", "why": "..."}}
//	examples:                  # optional, with {examples}: K few-shot examples
//	  count: 3                 # from the session's calibration items (1-50;
//	                           # "examples: 3" is short for this)
//	  format: |                # one example; default: the item's fields, then
//	    Q: {question}          # "Human verdict: DIM = VALUE" and "Reason: …"
//	    Verdict: {label}       # {label} first dimension, {label.DIM}, {reason},
//	                           # {n}, and the item's fields
//	output:
//	  format: json            # json, line (key: value lines) or word
//	  reason: why             # field or line key holding the reason
//	  extra: [topic]          # further fields kept in Verdict.Extra
//	  # parser: docqa         # or read the answer as a built-in judge does
//	                          # (docqa, rubric, same-event, bbh, quality,
//	                          # pairwise): format and dimensions then come
//	                          # from it, and the file may take its name
//	dimensions:
//	  - name: helpful
//	    scale: binary          # any judge.Scale: binary, likert, ordinal:1-10,
//	                           # nominal:CORRECT,INCORRECT,NOT_ATTEMPTED, pairwise…
//	    field: helpful         # JSON field (dotted path) or line key
//	    values: {PASS: YES, FAIL: NO}
//	model: gpt-4o-mini        # optional: this judge's model, temperature and
//	temperature: 0            # max_tokens instead of --model, --temperature
//	max_tokens: 512           # and --max-tokens
//
// Templates take {question}, {gold}, {prediction}, {response_a},
// {response_b}, {criterion}, {id}, {rubric}, {instructions}, {examples},
// or any field of the dataset row by name or dotted path ({doc.title},
// {fields.question} for the row's own "question"); {{ and }} are literal
// braces; {#gold}…{/gold} is left out for an item whose gold is empty.
// A judge whose templates use {criterion} rates each rubric criterion on
// its own; one whose templates use {response_a} and {response_b}
// compares the two responses of pairwise items, which --swap shows in the
// other order too (B in the A slot): give such a judge a pairwise scale,
// so that its answer can be mapped back to the original order.
type CustomFile struct {
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description" json:"description,omitempty"`
	// Instructions is the text {instructions} stands for, inserted as it
	// is written: the part of the prompt gavel tune rewrites.
	Instructions string          `yaml:"instructions" json:"instructions,omitempty"`
	System       string          `yaml:"system" json:"system,omitempty"`
	User         string          `yaml:"user" json:"user"`
	Examples     *CustomExamples `yaml:"examples" json:"examples,omitempty"`
	Output       CustomOut       `yaml:"output" json:"output"`
	Dimensions   []CustomDim     `yaml:"dimensions" json:"dimensions,omitempty"`
	PerCriterion *bool           `yaml:"per_criterion" json:"per_criterion,omitempty"`
	// Model, Temperature and MaxTokens, when set, replace the run's
	// --model, --temperature and --max-tokens for this judge.
	Model       string   `yaml:"model" json:"model,omitempty"`
	Temperature *float64 `yaml:"temperature" json:"temperature,omitempty"`
	MaxTokens   *int     `yaml:"max_tokens" json:"max_tokens,omitempty"`
}

// CustomExamples asks for few-shot examples where a template says
// {examples}: Count labelled calibration items, each written with Format.
type CustomExamples struct {
	Count int `yaml:"count" json:"count"`
	// Format is the template of one example: the example item's fields,
	// {label} (the first dimension's human value), {label.DIM}, {reason}
	// (the human's note) and {n} (1-based). Empty: defaultExampleFormat.
	Format string `yaml:"format" json:"format,omitempty"`
}

// CustomOut says how a custom judge's model writes its answer.
type CustomOut struct {
	// Format is json (a JSON object), line ("key: value" lines) or word
	// (a bare word such as YES or PASS).
	Format string `yaml:"format" json:"format,omitempty"`
	// Reason names the JSON field or line key that holds the reason.
	Reason string `yaml:"reason" json:"reason,omitempty"`
	// Extra names further JSON fields or line keys to keep in
	// Verdict.Extra.
	Extra []string `yaml:"extra" json:"extra,omitempty"`
	// Parser names a built-in judge whose parser reads the answer (docqa,
	// rubric, same-event, bbh, quality, pairwise); the format, dimensions
	// and per_criterion are then the built-in's.
	Parser string `yaml:"parser" json:"parser,omitempty"`
}

// CustomDim is one dimension of a custom judge.
type CustomDim struct {
	Name        string `yaml:"name" json:"name"`
	Scale       string `yaml:"scale" json:"scale"`
	Description string `yaml:"description" json:"description,omitempty"`
	// Field is the JSON field (dotted path) or line key holding the
	// value; it defaults to the dimension's name. Unused for word.
	Field string `yaml:"field" json:"field,omitempty"`
	// Values maps what the model writes (matched case-insensitively) to
	// the scale's values, each written as the scale reads it
	// (judge.Scale.Read): {PASS: YES, FAIL: NO} or {PASS: 1, FAIL: 0},
	// {"Output (a)": A, "Output (b)": B}. Without it the scale reads the
	// answer itself: YES/NO, true/false or 1/0 on a binary scale, the
	// number or its label on an ordinal one, the category's name on a
	// nominal one, A, B or tie on a pairwise one.
	Values map[string]ValueText `yaml:"values" json:"values,omitempty"`
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
			"CustomFile":     "name, description, instructions, system, user, examples, output, dimensions, per_criterion, model, temperature, max_tokens",
			"CustomOut":      "format, reason, extra, parser",
			"CustomDim":      "name, scale, description, field, values",
			"CustomExamples": "count, format",
		}[sub[2]]
		return fmt.Sprintf("unknown key %q (known here: %s)", sub[1], keys)
	})
	msg = strings.ReplaceAll(msg, "llm.Custom", "")
	return strings.Join(strings.Fields(msg), " ")
}

// Placeholders a judge file's templates give a meaning of their own: the
// file's instructions and its few-shot examples. A dataset field of that
// name is {fields.instructions}.
const (
	instructionsName = "instructions"
	examplesName     = "examples"
)

// maxExamples bounds examples.count: each example lengthens every prompt.
const maxExamples = 50

// definition checks the file and builds the judge it describes.
func (cf *CustomFile) definition(source string, data []byte) (*definition, error) {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }

	parser := strings.TrimSpace(cf.Output.Parser)
	var base *definition
	if parser != "" {
		if base = builtinDef(parser); base == nil {
			bad("output.parser %q: use a built-in judge's parser: %s", clip(parser, 40), strings.Join(builtinNames(), ", "))
		}
	}
	switch {
	case cf.Name == "":
		bad("name is missing: give the judge a name such as my-judge")
	case !judgeNameRE.MatchString(cf.Name):
		bad("name %q: use lower-case letters, digits, '-' and '_' (at most 64)", clip(cf.Name, 70))
	case cf.Name == parser && base != nil:
		// A variant of the built-in: it keeps the built-in's name.
	case slices.Contains(reservedNames(), cf.Name):
		bad("name %q is a built-in judge's: choose another (or set output.parser: %s to make a variant of it)", cf.Name, cf.Name)
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
	names := mergeNames(system.names(), user.names())
	inputs, optional := templateInputs(system, user)
	if len(errs) == 0 && len(inputs)+len(optional) == 0 {
		bad("the templates use no item field: add placeholders such as {question}, {gold} and {prediction}")
	}
	usesInstructions := slices.Contains(names, instructionsName)
	switch {
	case usesInstructions && strings.TrimSpace(cf.Instructions) == "":
		bad("the templates use {instructions}, but instructions is missing or empty: add \"instructions: |\" with the text (a dataset field of that name is {fields.instructions})")
	case !usesInstructions && cf.Instructions != "":
		bad("instructions is set, but no template uses {instructions}: put {instructions} in system or user where the text goes")
	}
	usesExamples := slices.Contains(names, examplesName)
	switch {
	case usesExamples && cf.Examples == nil:
		bad("the templates use {examples}, but examples is missing: add \"examples: {count: 3}\" (a dataset field of that name is {fields.examples})")
	case !usesExamples && cf.Examples != nil:
		bad("examples is set, but no template uses {examples}: put {examples} in system or user where the examples go")
	case cf.Examples != nil && (cf.Examples.Count < 1 || cf.Examples.Count > maxExamples):
		bad("examples.count %d: give 1 to %d examples", cf.Examples.Count, maxExamples)
	}

	var (
		format string
		dims   []judge.Dimension
		specs  []dimSpec
	)
	if base != nil {
		format, dims = cf.checkParser(base, bad)
	} else if parser == "" {
		format = strings.ToLower(strings.TrimSpace(cf.Output.Format))
		switch format {
		case formatJSON, formatLine, formatWord:
		case "":
			bad("output.format is missing: use json, line or word (or output.parser to read the answer as a built-in judge does)")
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
		dims, specs = cf.checkDims(format, bad)
	}
	var examples *exampleSpec
	if cf.Examples != nil && usesExamples && len(dims) > 0 {
		examples = cf.checkExamples(inputs, optional, dims, bad)
	}
	model := strings.TrimSpace(cf.Model)
	if cf.Model != "" && model == "" {
		bad("model is empty: name a model, or leave the key out to use --model")
	}
	if t := cf.Temperature; t != nil && (*t < 0 || *t > 2 || math.IsNaN(*t)) {
		bad("temperature %g: use 0 to 2", *t)
	}
	if m := cf.MaxTokens; m != nil && *m < 0 {
		bad("max_tokens %d: use 0 (the server's default) or more", *m)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}

	canon := canonicalJudgeText(data, source)
	sum := sha256.Sum256(canon)
	d := &definition{
		name:         cf.Name,
		description:  strings.TrimSpace(cf.Description),
		inputs:       inputs,
		optional:     optional,
		dims:         dims,
		source:       source,
		prompt:       customPrompt(cf.Instructions, cf.System, cf.User),
		version:      hex.EncodeToString(sum[:6]),
		text:         string(data),
		instructions: cf.Instructions,
		examples:     examples,
		parser:       parser,
		model:        model,
		temperature:  cf.Temperature,
		maxTokens:    cf.MaxTokens,
	}
	if base != nil {
		d.perCriterion, d.json, d.format, d.parse = base.perCriterion, base.json, base.format, base.parse
		if d.description == "" {
			d.description = base.description
		}
		if exported, err := ExportBuiltin(parser); err == nil && cf.Name == parser && bytes.Equal(canonicalJudgeText(exported, ".yaml"), canon) {
			// The built-in as exported: the built-in's run, not a new one.
			d.version = ""
		}
	} else {
		d.perCriterion = slices.Contains(names, "criterion")
		if cf.PerCriterion != nil {
			d.perCriterion = *cf.PerCriterion
		}
		d.json = format == formatJSON
		d.format = outputDescription(format, specs)
		out := customOutput{format: format, dims: specs, reason: cf.Output.Reason, extra: cf.Output.Extra}
		d.parse = out.parse
	}
	hasSystem := cf.System != ""
	oneCriterion := d.perCriterion && slices.Contains(inputs, "criterion")
	d.messages = func(t judge.Task, cfg Config, ex []judge.Example) ([]Message, error) {
		if oneCriterion && t.CriterionText() == "" {
			return nil, fmt.Errorf("the %s judge rates one rubric criterion at a time, and this task has none", d.name)
		}
		lookup := d.lookup(t, cfg, ex)
		var msgs []Message
		if hasSystem {
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
	return d, nil
}

// templateInputs lists the item fields the templates use: inputs, which
// every item needs, and optional, used only inside {#…} sections.
// {instructions} and {examples} are the file's, not the item's.
func templateInputs(system, user template) (inputs, optional []string) {
	opt := mergeNames(system.optionalNames(), user.optionalNames())
	for _, n := range mergeNames(system.names(), user.names()) {
		switch {
		case n == instructionsName || n == examplesName:
		case slices.Contains(opt, n) && (!slices.Contains(system.names(), n) || slices.Contains(system.optionalNames(), n)) &&
			(!slices.Contains(user.names(), n) || slices.Contains(user.optionalNames(), n)):
			optional = append(optional, n)
		default:
			inputs = append(inputs, n)
		}
	}
	return inputs, optional
}

// lookup is the value of each placeholder for a task: the item's fields,
// the file's instructions, the examples.
func (d *definition) lookup(t judge.Task, cfg Config, ex []judge.Example) func(string) (string, error) {
	item := itemLookup(t)
	swap := d.parser == "same-event" && cfg.SwapSnippets
	return func(name string) (string, error) {
		switch name {
		case instructionsName:
			return d.instructions, nil
		case examplesName:
			return d.renderExamples(t, ex)
		case "gold":
			if swap {
				return t.Item.Prediction, nil
			}
		case "prediction":
			if swap {
				return t.Item.Gold, nil
			}
		}
		return item(name)
	}
}

// checkParser checks a file whose output.parser names a built-in: what
// it says of the output must agree with the built-in, which reads it.
func (cf *CustomFile) checkParser(base *definition, bad func(string, ...any)) (string, []judge.Dimension) {
	p := base.name
	want := builtinFormat(p)
	if f := strings.ToLower(strings.TrimSpace(cf.Output.Format)); f != "" && f != want {
		if want == "" {
			bad("output.format %q: the %s parser reads its own format (%s): leave output.format out", clip(cf.Output.Format, 40), p, base.format)
		} else {
			bad("output.format %q: the %s parser reads %s (%s): leave output.format out or write %s", clip(cf.Output.Format, 40), p, want, base.format, want)
		}
	}
	if cf.Output.Reason != "" || len(cf.Output.Extra) > 0 {
		bad("output.reason and output.extra: the %s parser reads the reason and extra fields itself: leave them out", p)
	}
	if cf.PerCriterion != nil && *cf.PerCriterion != base.perCriterion {
		bad("per_criterion %t: the %s parser's judge rates %s: leave per_criterion out", *cf.PerCriterion, p, map[bool]string{true: "one rubric criterion at a time", false: "whole items"}[base.perCriterion])
	}
	dims := slices.Clone(base.dims)
	if len(cf.Dimensions) == 0 {
		return want, dims
	}
	var names []string
	for _, d := range base.dims {
		names = append(names, d.Name+" ("+string(d.Scale)+")")
	}
	if len(cf.Dimensions) != len(base.dims) {
		bad("dimensions: the %s parser gives %s: list them so, or leave dimensions out", p, strings.Join(names, ", "))
		return want, dims
	}
	for i, cd := range cf.Dimensions {
		s, err := judge.ParseScale(cd.Scale)
		switch {
		case cd.Name != base.dims[i].Name || err != nil || s != base.dims[i].Scale:
			bad("dimensions[%d]: the %s parser gives %s: list them so, or leave dimensions out", i, p, strings.Join(names, ", "))
			return want, dims
		case cd.Field != "" || len(cd.Values) > 0:
			bad("dimensions[%d] (%s): field and values: the %s parser reads the answer itself: leave them out", i, cd.Name, p)
		}
		if desc := strings.TrimSpace(cd.Description); desc != "" {
			dims[i].Description = desc
		}
	}
	return want, dims
}

// builtinFormat is the output.format a built-in's answer is in, or ""
// when it is none of json, line and word (pairwise's [[A]]).
func builtinFormat(name string) string {
	switch name {
	case "docqa":
		return formatLine
	case "same-event":
		return formatWord
	case "rubric", "bbh", "quality":
		return formatJSON
	}
	return ""
}

func builtinDef(name string) *definition {
	for _, d := range builtins() {
		if d.name == name {
			return d
		}
	}
	return nil
}

func builtinNames() []string {
	var out []string
	for _, d := range builtins() {
		out = append(out, d.name)
	}
	return out
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

// customPrompt is the prompt as `gavel judges FILE` shows it: the
// templates, after the instructions they take in when there are some.
func customPrompt(instructions, system, user string) string {
	var b strings.Builder
	if instructions != "" {
		b.WriteString("[instructions]\n" + strings.TrimRight(instructions, "\n") + "\n\n")
	}
	if system != "" {
		b.WriteString("[system]\n" + system + "\n\n")
	}
	if b.Len() > 0 {
		b.WriteString("[user]\n")
	}
	return b.String() + user
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

// canonicalJudgeText is what a judge file says without its comments and
// layout: a YAML file re-encoded from its node tree with every comment
// cleared, a JSON file compacted. The run key's definition version hashes
// it, so that a file differing only in comments — the header of scores
// gavel tune writes above a candidate, a comment added under E — is the
// same judge, the same run. A file that does not re-encode (it was
// checked before, so this is a bug's fallback) is hashed as it is.
func canonicalJudgeText(data []byte, source string) []byte {
	if strings.EqualFold(filepath.Ext(source), ".json") {
		var b bytes.Buffer
		if json.Compact(&b, data) == nil {
			return b.Bytes()
		}
		return data
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return data
	}
	var clear func(n *yaml.Node)
	clear = func(n *yaml.Node) {
		n.HeadComment, n.LineComment, n.FootComment = "", "", ""
		for _, c := range n.Content {
			clear(c)
		}
	}
	clear(&doc)
	out, err := yaml.Marshal(&doc)
	if err != nil {
		return data
	}
	return out
}
