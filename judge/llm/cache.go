package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Cache keeps model responses so that reopening or re-running a session
// costs nothing. The session store implements it. Keys are opaque strings
// derived from the model, the messages and the parameters that change the
// answer (never the API key or the server's address); values are opaque
// strings the client wrote. Get and Put must be safe for concurrent use; a
// Put that fails may be dropped.
type Cache interface {
	Get(key string) (response string, ok bool)
	Put(key, response string)
}

type freshKey struct{}

// Fresh returns a context under which judges ignore cached responses and
// ask the server again (a re-judge); the new response replaces the cached
// one.
func Fresh(ctx context.Context) context.Context {
	return context.WithValue(ctx, freshKey{}, true)
}

func isFresh(ctx context.Context) bool {
	v, _ := ctx.Value(freshKey{}).(bool)
	return v
}

// cacheKeyVersion changes when the key's recipe or the stored record's
// shape changes, so that old entries are missed rather than misread.
const cacheKeyVersion = 1

// cacheKey is the recipe of a key: everything that changes the answer.
type cacheKey struct {
	V           int       `json:"v"`
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Temperature float64   `json:"temperature"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
	JSON        bool      `json:"json,omitempty"`
	// Sample tells the samples of one task apart; sample 0 of a run with
	// samples shares its key with a run without.
	Sample int `json:"sample,omitempty"`
}

func (k cacheKey) String() string {
	b, _ := json.Marshal(k)
	sum := sha256.Sum256(b)
	return "llm1:" + hex.EncodeToString(sum[:])
}

// cachedAnswer is what the cache holds for one response: enough to build
// the same verdict again, confidence included.
type cachedAnswer struct {
	Content          string    `json:"content"`
	ContentAt        int       `json:"content_at,omitempty"`
	FinishReason     string    `json:"finish_reason,omitempty"`
	PromptTokens     int       `json:"prompt_tokens,omitempty"`
	CompletionTokens int       `json:"completion_tokens,omitempty"`
	Tokens           []string  `json:"tokens,omitempty"`
	Logprobs         []float64 `json:"logprobs,omitempty"`
}
