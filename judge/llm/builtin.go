package llm

import (
	"errors"
	"strings"

	"github.com/gavel-dev/gavel/judge"
)

// definition is what makes an LLM judge: its prompt, how its output is
// read, and what it rates.
type definition struct {
	name        string
	description string
	// inputs names the item fields the prompt needs: an item lacking one
	// of neededInputs among them is skipped (see missingInput).
	inputs []string
	// optional names the fields the prompt uses when the item has them
	// (the pairwise judge's gold answer, its reference).
	optional     []string
	dims         []judge.Dimension
	perCriterion bool
	// json judges write JSON and are asked for response_format.
	json bool
	// format describes the expected output, for the catalog and for
	// parse errors ("expected …").
	format string
	// source is "built-in" or the custom judge's file.
	source string
	// prompt is the prompt as `gavel judges NAME` prints it, placeholders
	// shown.
	prompt string
	// messages builds a task's prompt; ex are the few-shot examples a
	// template's {examples} shows (Judge.WithExamples).
	messages func(t judge.Task, cfg Config, ex []judge.Example) ([]Message, error)
	parse    func(final string) (parsed, error)
	// version, when set, changes when the definition's text changes, so
	// that an edited custom judge is a new run (judge.Info.Params).
	version string

	// text is the judge file as read (judge.Info.Definition); a
	// built-in's is its ExportBuiltin text, made when a judge is built.
	text string
	// instructions is what {instructions} stands for.
	instructions string
	// examples, when set, is how {examples} is written.
	examples *exampleSpec
	// parser names the built-in whose parser reads the answer
	// (output.parser), or "".
	parser string
	// model, temperature and maxTokens replace the Config's when set.
	model       string
	temperature *float64
	maxTokens   *int
	// key is what the catalog finds the judge by: its name, or the path
	// of a file named like a built-in (a variant of it).
	key string
}

// binary reports whether the judge's answer is one YES/NO dimension, the
// case where logprobs give a confidence.
func (d *definition) binary() bool {
	return len(d.dims) == 1 && d.dims[0].Scale == judge.Binary
}

const builtinSource = "built-in"

var correctDim = judge.Dimension{Name: "correct", Scale: judge.Binary}

var (
	qualityTemplate   = mustTemplate(qualityPrompt)
	sameEventTemplate = mustTemplate(sameEventPrompt)
)

// mustTemplate parses an embedded prompt; the tests prove they parse.
func mustTemplate(s string) template {
	t, err := parseTemplate(s)
	if err != nil {
		panic("llm: embedded prompt: " + err.Error())
	}
	return t
}

// builtins returns the built-in LLM judges, in the order they are listed.
func builtins() []*definition {
	return []*definition{docqaJudge(), rubricJudge(), sameEventJudge(), bbhJudge(), qualityJudge(), pairwiseJudge()}
}

func docqaJudge() *definition {
	item := func(q, gold, pred string) string {
		return "\n\nQuestion: " + q + "\nAnswer: " + gold + "\nPrediction: " + pred
	}
	d := correctDim
	d.Description = "YES when the prediction's final answer, or its citations, answer the question as the standard answer does"
	return &definition{
		name:        "docqa",
		description: `Document QA: is the prediction's final answer (or the passage it cites) correct by the standard answer? Rules for "Not answerable" gold answers, lists and paraphrase.`,
		inputs:      []string{"question", "gold", "prediction"},
		dims:        []judge.Dimension{d},
		format:      `a line "result: YES" or "result: NO" (with a "reason:" line)`,
		source:      builtinSource,
		prompt:      docqaPrompt + item("{question}", "{gold}", "{prediction}"),
		messages: func(t judge.Task, _ Config, _ []judge.Example) ([]Message, error) {
			return []Message{{Role: "user", Content: docqaPrompt + item(t.Item.Question, t.Item.Gold, t.Item.Prediction)}}, nil
		},
		parse: parseDocQA,
	}
}

func rubricJudge() *definition {
	return &definition{
		name:         "rubric",
		description:  "Rubric compliance: does the response satisfy one rubric criterion? 1.0 full, 0.5 partial, 0.0 none; one verdict per criterion, the item's score is their mean.",
		inputs:       []string{"question", "criterion", "prediction"},
		dims:         []judge.Dimension{{Name: "score", Scale: judge.Ternary, Description: "compliance with the criterion: 1 full, 0.5 partial, 0 none"}},
		perCriterion: true,
		json:         true,
		format:       `a JSON object {"score": 1.0, 0.5 or 0.0, "reason": "…"}`,
		source:       builtinSource,
		prompt:       rubricPrompt,
		messages: func(t judge.Task, _ Config, _ []judge.Example) ([]Message, error) {
			c := t.CriterionText()
			if c == "" {
				return nil, errors.New("the rubric judge rates one rubric criterion at a time, and this task has none")
			}
			r := strings.NewReplacer("<question>", t.Item.Question, "<rubic_item>", c, "<llm_response>", t.Item.Prediction)
			return []Message{{Role: "user", Content: r.Replace(rubricPrompt)}}, nil
		},
		parse: parseRubric,
	}
}

func sameEventJudge() *definition {
	d := correctDim
	d.Description = "YES when the two snippets describe the same event or fact"
	return &definition{
		name:        "same-event",
		description: "Same event: do the gold answer (first snippet) and the prediction (second) describe the same event or fact? The model answers the bare word YES or NO.",
		inputs:      []string{"gold", "prediction"},
		dims:        []judge.Dimension{d},
		format:      "the bare word YES or NO",
		source:      builtinSource,
		prompt:      sameEventPrompt,
		messages: func(t judge.Task, cfg Config, _ []judge.Example) ([]Message, error) {
			first, second := t.Item.Gold, t.Item.Prediction
			if cfg.SwapSnippets {
				first, second = second, first
			}
			s, err := sameEventTemplate.render(func(name string) (string, error) {
				if name == "first_paragraph" {
					return first, nil
				}
				return second, nil
			})
			return []Message{{Role: "user", Content: s}}, err
		},
		parse: parseSameEvent,
	}
}

func bbhJudge() *definition {
	item := func(id, q, pred, gold string) string {
		return "ID: " + id + "\nQUESTION: " + q + "\nMODEL_RESPONSE: " + pred + "\nGROUND_TRUTH: " + gold
	}
	d := correctDim
	d.Description = "YES when the response's final answer semantically matches the ground truth"
	return &definition{
		name:        "bbh",
		description: "BIG-Bench Hard answer matching: does the final answer of a response (<think> trace ignored) match the ground truth? Also gives the extracted answer, a reasoning score 1-5 and an error type.",
		inputs:      []string{"id", "question", "prediction", "gold"},
		dims:        []judge.Dimension{d},
		json:        true,
		format:      `a JSON object with "is_correct": true or false`,
		source:      builtinSource,
		prompt:      "[system]\n" + bbhPrompt + "\n\n[user]\n" + item("{id}", "{question}", "{prediction}", "{gold}"),
		messages: func(t judge.Task, _ Config, _ []judge.Example) ([]Message, error) {
			return []Message{
				{Role: "system", Content: bbhPrompt},
				{Role: "user", Content: item(t.Item.ID, t.Item.Question, t.Item.Prediction, t.Item.Gold)},
			}, nil
		},
		parse: parseBBH,
	}
}

func qualityJudge() *definition {
	return &definition{
		name:        "quality",
		description: "Answer quality against the gold answer: completeness and correctness, each 1-5, with the missing points and factual errors listed.",
		inputs:      []string{"question", "gold", "prediction"},
		dims: []judge.Dimension{
			{Name: "completeness", Scale: judge.Likert, Description: "how much of the gold answer is covered, 1-5"},
			{Name: "correctness", Scale: judge.Likert, Description: "how accurate the information is, 1-5"},
		},
		json:   true,
		format: `a JSON object with "completeness_score" and "correctness_score", integers from 1 to 5`,
		source: builtinSource,
		prompt: qualityPrompt,
		messages: func(t judge.Task, _ Config, _ []judge.Example) ([]Message, error) {
			s, err := qualityTemplate.render(func(name string) (string, error) {
				switch name {
				case "question":
					return t.Item.Question, nil
				case "gold_answer":
					return t.Item.Gold, nil
				}
				return t.Item.Prediction, nil
			})
			return []Message{{Role: "user", Content: s}}, err
		},
		parse: parseQuality,
	}
}
