package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/gavel-dev/gavel/judge"
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
// Version 2 added the logprob parameters to the key and the cached
// prompt tokens and top alternatives to the record; entries of version 1
// may hold answers to prompts a server had cut (truncated), so the next
// run asks again.
const cacheKeyVersion = 2

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
	// Logprobs and TopLogprobs are the logprob parameters: an answer
	// without logprobs cannot give a confidence.
	Logprobs    bool `json:"logprobs,omitempty"`
	TopLogprobs int  `json:"top_logprobs,omitempty"`
}

func (k cacheKey) String() string {
	b, _ := json.Marshal(k)
	sum := sha256.Sum256(b)
	return "llm" + strconv.Itoa(k.V) + ":" + hex.EncodeToString(sum[:])
}

// cachedAnswer is what the cache holds for one response: enough to build
// the same verdict again, confidence included.
type cachedAnswer struct {
	Content          string    `json:"content"`
	ContentAt        int       `json:"content_at,omitempty"`
	FinishReason     string    `json:"finish_reason,omitempty"`
	PromptTokens     int       `json:"prompt_tokens,omitempty"`
	CompletionTokens int       `json:"completion_tokens,omitempty"`
	CachedTokens     int       `json:"cached_tokens,omitempty"`
	Tokens           []string  `json:"tokens,omitempty"`
	Logprobs         []float64 `json:"logprobs,omitempty"`
	// TopTokens and TopLogprobs are each token's most likely alternative
	// (null where the server listed none).
	TopTokens   []string   `json:"top_tokens,omitempty"`
	TopLogprobs []*float64 `json:"top_logprobs,omitempty"`
}

// storable is the verdict as it is kept: the key redacted, the raw output
// cut to judge.RawHead+judge.RawTail and the other texts to judge.TextHead+judge.TextTail.
func storable(v judge.Verdict, key string) judge.Verdict {
	v = redactVerdict(v, key)
	v.Raw = judge.CutText(v.Raw, judge.RawHead, judge.RawTail)
	v.Reason = judge.CutText(v.Reason, judge.TextHead, judge.TextTail)
	v.Error = judge.CutText(v.Error, judge.TextHead, judge.TextTail)
	for k, x := range v.Extra {
		if k == ExtraSamples {
			v.Extra[k] = capSamples(x)
			continue
		}
		v.Extra[k] = capAny(x)
	}
	return v
}

// capSamples cuts the samples' records: their raw output as answers,
// the rest as texts.
func capSamples(x any) any {
	l, ok := x.([]any)
	if !ok {
		return capAny(x)
	}
	for _, r := range l {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		for k, y := range m {
			if s, ok := y.(string); ok && k == "raw" {
				m[k] = judge.CutText(s, judge.RawHead, judge.RawTail)
			} else {
				m[k] = capAny(y)
			}
		}
	}
	return l
}

func capAny(x any) any {
	switch t := x.(type) {
	case string:
		return judge.CutText(t, judge.TextHead, judge.TextTail)
	case []string:
		for i := range t {
			t[i] = judge.CutText(t[i], judge.TextHead, judge.TextTail)
		}
	case []any:
		for i := range t {
			t[i] = capAny(t[i])
		}
	case map[string]any:
		for k, v := range t {
			t[k] = capAny(v)
		}
	}
	return x
}

// emptyAnswer tells whether the server's answer holds no text: empty,
// null or only white space. Such an answer is retried, never cached.
func emptyAnswer(a answer) bool { return strings.TrimSpace(a.content) == "" }

// cachePut keeps an answer in the cache as it may be stored: never an
// empty one, the key redacted, the content cut to judge.RawHead+judge.RawTail.
// The logprob tokens are kept only while they still spell the content.
func (c *Client) cachePut(key string, a answer) {
	if v, ok := c.cacheValue(a); ok {
		c.cfg.Cache.Put(key, v)
	}
}

// cacheValue is what the cache keeps for an answer (see cachePut); false
// for an empty answer, which is never kept. A batch's answers are saved
// with it too (batchResults).
func (c *Client) cacheValue(a answer) (string, bool) {
	if emptyAnswer(a) {
		return "", false
	}
	k := c.cfg.APIKey
	content := judge.CutText(redactText(a.content, k), judge.RawHead, judge.RawTail)
	if content != a.content {
		a.tokens, a.logprobs, a.contentAt = nil, nil, 0
		a.topTokens, a.topLogprobs = nil, nil
		a.content = content
	}
	for _, t := range a.tokens {
		if redactText(t, k) != t {
			a.tokens, a.logprobs = nil, nil
			a.topTokens, a.topLogprobs = nil, nil
			break
		}
	}
	for i, t := range a.topTokens {
		if redactText(t, k) != t {
			a.topTokens[i] = ""
		}
	}
	return redactText(encodeCached(a), k), true
}

// cacheGet returns the cached answer for key; an empty answer cached by
// an earlier version is not served.
func (c *Client) cacheGet(key string) (answer, bool) {
	s, ok := c.cfg.Cache.Get(key)
	if !ok {
		return answer{}, false
	}
	a, ok := decodeCached(s)
	if !ok || emptyAnswer(a) {
		return answer{}, false
	}
	return a, true
}
