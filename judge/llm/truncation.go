package llm

import (
	"fmt"
	"strings"
)

// A server may cut a prompt longer than its context without saying so:
// Ollama keeps the end of it (the judge's instructions go first) and
// answers 200 as if nothing happened (ollama/ollama#3839). What it read
// shows in the usage it reports: prompt_tokens (plus
// prompt_tokens_details.cached_tokens, for servers that count the cached
// prefix apart). An answer is truncated when that count is below half of
// a deliberately low estimate of the prompt's tokens. A count of zero or
// none is unknown, never truncated: some Ollama versions report 0 prompt
// tokens for a prompt they had cached (ollama/ollama#5370).

// promptEstimate is a deliberately low estimate of a prompt's tokens:
// per message, its words (every tokenizer in use gives a word, with the
// space before it, at least one token) or a sixth of its bytes (English
// takes about four bytes a token, code and other scripts fewer), whichever
// is more. Chat templates add tokens the estimate leaves out, so a server
// that read the whole prompt reports more.
func promptEstimate(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += max(len(strings.Fields(m.Content)), len(m.Content)/6)
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

// truncated reports whether the server read less than half of the
// prompt's estimate.
func (a answer) truncated() bool {
	n := a.read()
	return n > 0 && 2*n < a.estimate
}

// truncatedError says how much of the prompt the server read, and how to
// give it a larger context.
func truncatedError(a answer) string {
	return fmt.Sprintf("the server read %d of about %d prompt tokens: it cut the prompt to its context, so the judge did not see the whole task. %s",
		a.read(), a.estimate, RaiseContext)
}

// RaiseContext says how to give a local server a larger context, for a
// run that met truncated prompts.
const RaiseContext = "Raise the server's context (Ollama: PARAMETER num_ctx 16384 in a Modelfile, or OLLAMA_CONTEXT_LENGTH=16384 in ollama serve's environment; llama.cpp: --ctx-size; vLLM: --max-model-len) and run again: truncated verdicts are asked again"
