package llm

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// exported is a built-in judge written as a judge file's parts: the
// instructions (plain text) and the system and user templates.
type exported struct {
	instructions string
	system, user string
}

// splitInstructions cuts a prompt into the text before start, the
// instructions from start up to end (the prompt's end when end is ""),
// without the line breaks that close them, and the rest from there on.
func splitInstructions(prompt, start, end string) (head, instructions, tail string) {
	i := strings.Index(prompt, start)
	if i < 0 {
		panic("llm: export: no " + start + " in a built-in prompt")
	}
	j := len(prompt)
	if end != "" {
		j = strings.Index(prompt, end)
		if j < i {
			panic("llm: export: no " + end + " in a built-in prompt")
		}
	}
	instructions = strings.TrimRight(prompt[i:j], "\n")
	return prompt[:i], instructions, prompt[i+len(instructions):]
}

// templateText returns a template's literal text, for a part of an
// embedded template that holds no placeholder.
func templateText(s string) string {
	t := mustTemplate(s)
	text, ok := t.literal()
	if !ok {
		panic("llm: export: a placeholder in a built-in's instructions")
	}
	return text
}

// exports builds each built-in's judge file parts. Each keeps the
// built-in's messages byte for byte (TestExportBuiltinRoundTrip); the
// instructions are the rules of judging, without the output format, so
// that tuning them cannot break what the parser reads.
func exports(name string) (exported, bool) {
	switch name {
	case "docqa":
		_, instr, tail := splitInstructions(docqaPrompt, "You are", "## Output Format")
		return exported{
			instructions: instr,
			user:         "{instructions}" + escapeBraces(tail) + "\n\nQuestion: {question}\nAnswer: {gold}\nPrediction: {prediction}",
		}, true
	case "rubric":
		head, instr, tail := splitInstructions(rubricPrompt, "## EVALUATION RUBRIC", "## OUTPUT FORMAT")
		place := strings.NewReplacer("<question>", "{question}", "<rubic_item>", "{criterion}", "<llm_response>", "{prediction}")
		return exported{
			instructions: instr,
			user:         place.Replace(escapeBraces(head)) + "{instructions}" + place.Replace(escapeBraces(tail)),
		}, true
	case "same-event":
		_, instr, tail := splitInstructions(sameEventPrompt, "You are", "First snippet:")
		place := strings.NewReplacer("{first_paragraph}", "{gold}", "{second_paragraph}", "{prediction}")
		return exported{
			instructions: templateText(instr),
			user:         "{instructions}" + place.Replace(tail),
		}, true
	case "bbh":
		_, instr, tail := splitInstructions(bbhPrompt, "", "## Output Format")
		return exported{
			instructions: instr,
			system:       "{instructions}" + escapeBraces(tail),
			user:         "ID: {id}\nQUESTION: {question}\nMODEL_RESPONSE: {prediction}\nGROUND_TRUTH: {gold}",
		}, true
	case "quality":
		head, instr, tail := splitInstructions(qualityPrompt, "## EVALUATION RUBRIC", "[OUTPUT JSON]")
		place := strings.NewReplacer("{gold_answer}", "{gold}", "{model_answer}", "{prediction}")
		return exported{
			instructions: templateText(instr),
			user:         place.Replace(head) + "{instructions}" + tail,
		}, true
	case "pairwise":
		_, instr, tail := splitInstructions(strings.TrimRight(pairwisePrompt, "\n"), "", "First write a short explanation")
		user := strings.TrimRight(pairwiseUserPrompt, "\n")
		i, j := strings.Index(user, referenceStart), strings.Index(user, referenceEnd)+len(referenceEnd)
		return exported{
			instructions: instr,
			system:       "{instructions}" + escapeBraces(tail),
			user:         user[:i] + "{#gold}" + user[i:j] + "{/gold}" + user[j:],
		}, true
	}
	return exported{}, false
}

var exportCache sync.Map // name → []byte

// ExportBuiltin returns a built-in LLM judge as a YAML judge file (what
// `gavel judges NAME --save` writes): its instructions, its system and
// user templates, and output.parser naming the built-in, whose parser
// reads the answer. Loaded, the file is a variant of the built-in that
// sends the same messages for every task and reads outputs the same way;
// as written it is the built-in's run, and once edited a run of its own.
func ExportBuiltin(name string) ([]byte, error) {
	if b, ok := exportCache.Load(name); ok {
		return bytes.Clone(b.([]byte)), nil
	}
	d := builtinDef(name)
	ex, ok := exports(name)
	if d == nil || !ok {
		return nil, fmt.Errorf("%q is not a built-in LLM judge: choose one of %s", name, strings.Join(builtinNames(), ", "))
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# The built-in %s judge as a judge file (gavel judges %s --save FILE).\n", name, name)
	fmt.Fprintf(&b, "# Edit instructions, system or user, then use it with --judge FILE: it is a\n")
	fmt.Fprintf(&b, "# variant of %s, whose parser (output.parser) reads the answers.\n", name)
	fmt.Fprintf(&b, "# {instructions} stands for the instructions as written; in system and user,\n")
	fmt.Fprintf(&b, "# {{ and }} are literal braces.\n")
	for _, kv := range [][2]string{
		{"name", name},
		{"description", d.description},
		{"instructions", ex.instructions},
		{"system", ex.system},
		{"user", ex.user},
	} {
		if kv[1] == "" {
			continue
		}
		b.WriteString(kv[0] + ": " + yamlString(kv[1], false))
	}
	b.WriteString("output:\n  parser: " + name + "\n")
	exportCache.Store(name, bytes.Clone(b.Bytes()))
	return b.Bytes(), nil
}

// yamlString writes a string as a YAML value, ending with a line break:
// multi-line text (any text, with block) as a literal block, readable and
// exact (yaml.v3 would quote a text with a space at the end of a line),
// else as yaml.v3 writes it. Each form is read back before it is used.
func yamlString(s string, block bool) string {
	if block || strings.Contains(s, "\n") {
		if lit, ok := literalBlock(s); ok && readsBack(lit, s) {
			return lit
		}
	}
	out, err := yaml.Marshal(s)
	if err != nil {
		// yaml.v3 marshals every Go string.
		panic("llm: yaml: " + err.Error())
	}
	return string(out)
}

// literalBlock writes s as a YAML literal block scalar indented by two
// spaces, with the chomping indicator its final line breaks need and an
// indentation indicator when it starts with a space or a line break.
func literalBlock(s string) (string, bool) {
	for _, r := range s {
		if r != '\n' && r != '\t' && (r < 0x20 || r == 0x7f || r == 0xfeff || r >= 0x80 && r < 0xa0 || r == 0x2028 || r == 0x2029) {
			return "", false
		}
	}
	body := strings.TrimRight(s, "\n")
	header := "|"
	if strings.HasPrefix(s, " ") || strings.HasPrefix(s, "\n") {
		header += "2"
	}
	switch n := len(s) - len(body); {
	case n == 0:
		header += "-"
	case n > 1:
		header += "+"
	}
	var b strings.Builder
	b.WriteString(header + "\n")
	for _, l := range strings.Split(body, "\n") {
		if l != "" {
			b.WriteString("  " + l)
		}
		b.WriteByte('\n')
	}
	for range len(s) - len(body) - 1 {
		b.WriteByte('\n')
	}
	return b.String(), true
}

// readsBack reports whether value, written after a key, reads back as s.
func readsBack(value, s string) bool {
	var m map[string]string
	if err := yaml.Unmarshal([]byte("v: "+value+"next: x\n"), &m); err != nil {
		return false
	}
	return m["v"] == s && m["next"] == "x"
}
