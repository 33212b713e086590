package llm

import (
	_ "embed"
	"strings"
)

// The seed prompts, byte for byte (prompts/ holds copies of
// shared/seeds/000…003; a test compares them).
var (
	//go:embed prompts/docqa.txt
	docqaPrompt string
	//go:embed prompts/rubric_same_event.txt
	rubricSameEventPrompts string
	//go:embed prompts/bbh.txt
	bbhPrompt string
	//go:embed prompts/quality.txt
	qualityPrompt string
)

// rubricPrompt and sameEventPrompt are the two prompts of seed 001, cut
// out of their ``` fences (the caption between them, "Listing 20: …",
// belongs to neither).
var rubricPrompt, sameEventPrompt = splitSeed001(rubricSameEventPrompts)

// secondSnippetLine is the line seed 001's same-event prompt lacks: its
// text stops after "First snippet: {first_paragraph}".
const secondSnippetLine = "Second snippet: {second_paragraph}"

// splitSeed001 returns the text of the first and second fenced blocks of
// seed 001, trimmed of the blank lines around them, and completes the
// second with the missing snippet line.
func splitSeed001(s string) (rubric, sameEvent string) {
	parts := strings.Split(s, "```")
	if len(parts) < 4 {
		return "", ""
	}
	rubric = strings.TrimSpace(parts[1])
	sameEvent = strings.TrimSpace(parts[3]) + "\n\n" + secondSnippetLine
	return rubric, sameEvent
}
