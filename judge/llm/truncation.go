package llm

import (
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// A server may cut a prompt longer than its context without saying so:
// Ollama keeps the end of it (the judge's instructions go first) and
// answers 200 as if nothing happened (ollama/ollama#3839). What it read
// shows in the usage it reports: prompt_tokens, plus
// prompt_tokens_details.cached_tokens. For llama.cpp, vLLM and OpenAI,
// prompt_tokens is the whole prompt and cached_tokens a part of it, so the
// sum counts the cached part twice; it is kept because some servers count
// only the tokens they processed (Ollama's runner before
// ollama/ollama#16428), and a sum too high only makes the rule below more
// cautious. An answer is truncated when that count is below half of a
// deliberately low estimate of the prompt's tokens, and the estimate is
// above the largest count the server has reported for the model (a
// server that has read prompts that long whole does not cut this one: a
// small count is then its prefix cache, as Ollama versions that report
// only the newly processed tokens and no cached_tokens give,
// ollama/ollama#8008). A count of zero or none is unknown, never
// truncated: some Ollama versions report 0 prompt tokens for a prompt they
// had cached (ollama/ollama#5370).

// promptEstimate is a deliberately low estimate of a prompt's tokens:
// per message, its words (every tokenizer in use gives a word, with the
// space before it, at least one token) or a sixth of its bytes (English
// takes about four bytes a token, code and other scripts fewer), whichever
// is more. The bytes counted leave out white space (tokenizers merge runs
// of it: an indentation is a token or two) and count a run of one repeated
// character once (a line of "=" or "-" is a few tokens). Chat templates
// add tokens the estimate leaves out, so a server that read the whole
// prompt reports more.
func promptEstimate(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += max(len(strings.Fields(m.Content)), denseBytes(m.Content)/6)
	}
	return n
}

// denseBytes is the bytes of s outside white space, a run of one repeated
// character counted once.
func denseBytes(s string) int {
	n := 0
	prev := rune(-1)
	for _, r := range s {
		if r != prev && !unicode.IsSpace(r) {
			n += utf8.RuneLen(r)
		}
		prev = r
	}
	return n
}

// read is how many prompt tokens the server says it read: 0 when it did
// not say.
func (a answer) read() int {
	if a.promptTokens <= 0 && a.cachedTokens <= 0 {
		return 0
	}
	return max(a.promptTokens, 0) + max(a.cachedTokens, 0)
}

// surelyRead is the least the server certainly read whole: the larger of
// its two counts, not their sum — llama.cpp, vLLM and OpenAI count the
// cached part inside prompt_tokens, and a sum would let one fully cached
// prompt raise the length the server is trusted to read (answer.seen)
// to twice what it read, hiding a later cut.
func (a answer) surelyRead() int {
	return max(a.promptTokens, a.cachedTokens, 0)
}

// truncated reports whether the server read less than half of the
// prompt's estimate, for a prompt longer than any it has shown it reads
// whole (answer.seen).
func (a answer) truncated() bool {
	n := a.read()
	return n > 0 && 2*n < a.estimate && a.estimate > a.seen
}

// truncatedError says how much of the prompt the server read, and how to
// give it a larger context: one that holds the prompt and the answer.
func truncatedError(a answer) string {
	return fmt.Sprintf("the server read %d of about %d prompt tokens: it cut the prompt to its context, so the judge did not see the whole task. %s",
		a.read(), a.estimate, raiseContextFor(a.kind, a.estimate+max(a.room, answerRoom)))
}

// raiseContextFor is RaiseContext with a size that holds need tokens,
// for a server of kind ("" when unknown).
func raiseContextFor(kind string, need int) string {
	return "To give the judge the whole prompt, " + contextFix(kind, need) + "; then run again: truncated verdicts are asked again"
}

// seenTokens keeps, per model, the largest prompt-token count the server
// reported: the longest prompt it has shown it reads whole.
type seenTokens struct {
	mu sync.Mutex
	n  map[string]int
}

// add records a count for model and returns the largest so far.
func (s *seenTokens) add(model string, n int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n == nil {
		s.n = map[string]int{}
	}
	if n > s.n[model] {
		s.n[model] = n
	}
	return s.n[model]
}

// get is the largest count recorded for model.
func (s *seenTokens) get(model string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n[model]
}

// RaiseContext says how to give a local server a larger context, for a
// run that met truncated prompts.
const RaiseContext = "Raise the server's context (Ollama: PARAMETER num_ctx in a Modelfile, or OLLAMA_CONTEXT_LENGTH in ollama serve's environment, to hold the prompt and the answer; llama.cpp: --ctx-size; vLLM: --max-model-len) and run again: truncated verdicts are asked again"
