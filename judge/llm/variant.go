package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/gavel-dev/gavel/judge"
)

// NewVariant builds a judge from a judge file's bytes, without a catalog:
// the review screen's edited judge, a tuning candidate. source names the
// file in errors and decides the syntax (.json is JSON, else YAML); the
// judge's Info.Definition is data.
func NewVariant(data []byte, source string, cl *Client) (*Judge, error) {
	if cl == nil {
		return nil, errors.New("llm.NewVariant: no client")
	}
	if len(data) > maxJudgeFileBytes {
		return nil, fmt.Errorf("judge file %s: larger than %d KB: is it a judge file?", source, maxJudgeFileBytes>>10)
	}
	_, d, err := parseCustom(data, source)
	if err != nil {
		return nil, err
	}
	return newJudge(d, cl), nil
}

// NeedsExamples returns how many few-shot examples the judge shows (the
// file's examples.count) when its templates use {examples}, else 0.
func (j *Judge) NeedsExamples() (k int) {
	if j.def.examples == nil {
		return 0
	}
	return j.def.examples.count
}

// WithExamples returns a copy of the judge whose {examples} shows ex:
// for each task, the first NeedsExamples() of them whose item is not the
// task's own (so pass one more than that). Info().Params["examples"]
// names the set (a hash of its ids, labels and notes), so that other
// examples make another run. A judge that needs examples and has none
// fails each task with an api_error saying how to get them (see
// ErrNoExamples). A judge that uses no {examples} is returned unchanged.
func (j *Judge) WithExamples(ex []judge.Example) *Judge {
	if j.def.examples == nil {
		return j
	}
	c := *j
	c.examples = slices.Clone(ex)
	c.info = j.Info()
	if len(ex) > 0 {
		c.info.Params["examples"] = examplesHash(ex)
	} else {
		delete(c.info.Params, "examples")
	}
	return &c
}

// Chat sends one plain chat request (no JSON mode, no logprobs) through
// the client, with its pacing, retries, fatal-error handling and cache,
// and returns the answer's text. Tuning asks its proposals so. An answer
// to a prompt the server cut to its context (see StatusTruncated) is an
// error saying so: the model never saw the whole request.
func (c *Client) Chat(ctx context.Context, msgs []Message) (string, error) {
	a, err := c.complete(ctx, call{messages: msgs})
	if err != nil {
		return "", err
	}
	if a.truncated() {
		return "", errors.New(truncatedError(a))
	}
	return a.content, nil
}

// ReplaceInstructions returns the judge file data (named source, whose
// extension decides JSON or YAML) with its instructions replaced by
// instructions. The rest of a YAML file is kept as written, comments
// included, and the new text is a literal block; a JSON file is written
// again, indented. It fails when the file has no instructions (its
// templates then have no {instructions} to rewrite) or does not load.
func ReplaceInstructions(data []byte, source, instructions string) ([]byte, error) {
	cf, err := ParseCustom(data, source)
	if err != nil {
		return nil, err
	}
	if cf.Instructions == "" {
		return nil, fmt.Errorf("judge file %s has no instructions: move the text to rewrite into \"instructions: |\" and write {instructions} where it was", source)
	}
	if strings.TrimSpace(instructions) == "" {
		return nil, fmt.Errorf("judge file %s: the new instructions are empty", source)
	}
	var out []byte
	if strings.EqualFold(filepath.Ext(source), ".json") {
		cf.Instructions = instructions
		if out, err = json.MarshalIndent(cf, "", "  "); err != nil {
			return nil, fmt.Errorf("judge file %s: %w", source, err)
		}
		out = append(out, '\n')
	} else if out, err = replaceYAMLInstructions(data, instructions); err != nil {
		return nil, fmt.Errorf("judge file %s: %w", source, err)
	}
	got, err := ParseCustom(out, source)
	if err != nil {
		return nil, fmt.Errorf("the new instructions make a file that does not load: %w", err)
	}
	if got.Instructions != instructions {
		return nil, fmt.Errorf("judge file %s: the instructions did not read back as written", source)
	}
	return out, nil
}

// replaceYAMLInstructions replaces the lines of the top-level
// instructions value, leaving every other line as it was; a file where
// that is not possible (a flow mapping) is written again by yaml.v3.
func replaceYAMLInstructions(data []byte, instructions string) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("not a mapping")
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		key := m.Content[i]
		if key.Value != instructionsName {
			continue
		}
		if out, ok := spliceValue(data, m, i, instructions); ok && instructionsOf(out) == instructions {
			return out, nil
		}
		v := m.Content[i+1]
		*v = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: instructions, Style: yaml.LiteralStyle}
		var b bytes.Buffer
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(&doc); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
	return nil, errors.New("no instructions key")
}

// instructionsOf reads a YAML judge file's instructions ("" when it
// cannot).
func instructionsOf(data []byte) string {
	var cf struct {
		Instructions string `yaml:"instructions"`
	}
	if yaml.Unmarshal(data, &cf) != nil {
		return ""
	}
	return cf.Instructions
}

// spliceValue writes the new value in place of the lines from the key
// at m.Content[i] up to the next key's (or the end), keeping the blank
// and comment lines just before the next key.
func spliceValue(data []byte, m *yaml.Node, i int, value string) ([]byte, bool) {
	key := m.Content[i]
	if m.Style&yaml.FlowStyle != 0 || key.Column != 1 || strings.Contains(string(data), "\r") {
		return nil, false
	}
	lines := strings.SplitAfter(string(data), "\n")
	start := key.Line - 1
	end := len(lines)
	if i+2 < len(m.Content) {
		end = m.Content[i+2].Line - 1
	}
	if start < 0 || end <= start || end > len(lines) {
		return nil, false
	}
	for end-1 > start {
		l := strings.TrimSpace(lines[end-1])
		if l != "" && !strings.HasPrefix(lines[end-1], "#") {
			break
		}
		end--
	}
	var b strings.Builder
	for _, l := range lines[:start] {
		b.WriteString(l)
	}
	b.WriteString(instructionsName + ": " + yamlString(value, true))
	for _, l := range lines[end:] {
		b.WriteString(l)
	}
	return []byte(b.String()), true
}
