package llm

import (
	_ "embed"
	"strings"

	"github.com/gavel-dev/gavel/judge"
)

// The pairwise judge's prompt, written for Gavel (not a seed): the system
// message holds the instructions, the user message the item.
var (
	//go:embed prompts/pairwise.txt
	pairwisePrompt string
	//go:embed prompts/pairwise_user.txt
	pairwiseUserPrompt string
)

// referenceStart and referenceEnd delimit the user message's reference
// block, left out, with the blank line after it, for an item without a
// gold answer: the prompt then reads as if it never had one.
const (
	referenceStart = "[Reference answer]\n"
	referenceEnd   = "[End of reference answer]\n\n"
)

var (
	pairwiseUserTemplate  = mustTemplate(pairwiseUserPrompt)
	pairwiseNoRefTemplate = mustTemplate(withoutReference(pairwiseUserPrompt))
)

// withoutReference cuts the reference block out of the user message.
func withoutReference(s string) string {
	i := strings.Index(s, referenceStart)
	j := strings.Index(s, referenceEnd)
	if i < 0 || j < i {
		panic("llm: the pairwise prompt has no reference block")
	}
	return s[:i] + s[j+len(referenceEnd):]
}

// preferenceDim is what the pairwise judge rates.
var preferenceDim = judge.Dimension{
	Name:        "preference",
	Scale:       judge.Pairwise,
	Description: "which response follows the instruction better: A, B or tie",
}

func pairwiseJudge() *definition {
	return &definition{
		name:        "pairwise",
		description: "Pairwise preference: which of two responses follows the user's instruction better? Instruction-following first; neither length, order nor style decides. The gold answer, when there is one, is a reference. --swap judges each pair in both orders.",
		inputs:      []string{"question", "response_a", "response_b"},
		optional:    []string{"gold"},
		dims:        []judge.Dimension{preferenceDim},
		format:      "a short explanation, then [[A]], [[B]] or [[C]] (tie) on the last line",
		source:      builtinSource,
		prompt: "[system]\n" + strings.TrimRight(pairwisePrompt, "\n") + "\n\n[user]\n" + strings.TrimRight(pairwiseUserPrompt, "\n") +
			"\n\n(The reference block is sent only when the item has a gold answer.)",
		messages: func(t judge.Task, _ Config, _ []judge.Example) ([]Message, error) {
			tpl := pairwiseUserTemplate
			if strings.TrimSpace(t.Item.Gold) == "" {
				tpl = pairwiseNoRefTemplate
			}
			u, err := tpl.render(itemLookup(t))
			if err != nil {
				return nil, err
			}
			return []Message{
				{Role: "system", Content: strings.TrimRight(pairwisePrompt, "\n")},
				{Role: "user", Content: strings.TrimRight(u, "\n")},
			}, nil
		},
		parse: parsePairwise,
	}
}
