package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Message is one chat message of a judge's prompt.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Client calls one model on one OpenAI-compatible server with one set of
// parameters. It is safe for concurrent use; judges built from the same
// Client share its connections, its pacer and its fatal state.
type Client struct {
	cfg Config
	api *openai.Client
	// reasoning models (o1, o3, o4, gpt-5…) take max_completion_tokens,
	// no logprobs and only their own temperature.
	reasoning bool
	pace      *pacer
	fatal     atomic.Pointer[FatalError]
	// reached is set once the server has answered, or a request (or
	// Probe) had a connection to it; until then a refused connection means
	// a wrong URL or a server that is not running, after it a server that
	// went down (the run waits for it).
	reached atomic.Bool
	// health pauses the run while the server does not answer.
	health *health
	// server is what Probe learned of the server: its kind and context.
	server serverState
	// seen is the largest prompt-token count reported per model
	// (answer.truncated).
	seen seenTokens
	// worked holds the request shapes (model and settings, shapeOf) the
	// server has answered: a 400 it then gives is about the item, not the
	// settings.
	worked sync.Map
	// rejected counts the requests refused in a row as about their item
	// (a 400 after the shape worked): a server that refuses every item —
	// a proxy's spent budget, a policy — stops the run instead of failing
	// each remaining item with a request of its own. A success resets it.
	rejected atomic.Int64
	// answered is set once any request got an HTTP status: until then a
	// TLS or protocol error is a wrong URL, not a passing fault.
	answered atomic.Bool
	// inflight holds, by cache key, a channel closed when the request
	// now asking that key ends: a second task with the very same prompt
	// waits for it and takes its answer from the cache instead of paying
	// for the same request twice (the Batch API path sends each key once
	// too, so a count says what either sends).
	inflight sync.Map
	// counted, on a counting client (Counting), holds the keys already
	// counted: a repeat is what the real run answers from the cache once
	// the first came back (inflight), so it is not counted again.
	counted *sync.Map
	// repeats and paidHits count the requests a counting client did not
	// count: a key counted already, or paid for already (CountPaid).
	repeats, paidHits atomic.Int64
}

// NewClient checks cfg, fills its defaults and returns a client for it.
// The error says which flag to fix.
func NewClient(cfg Config) (*Client, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, reasoning: isReasoningModel(cfg.Model), pace: newPacer(cfg.RPM, cfg.Clock), health: newHealth(cfg)}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = cfg.BaseURL
	oc.HTTPClient = newDoer(cfg.Transport, cfg.Concurrency, cfg.Temperature == 0 && !c.reasoning)
	c.api = openai.NewClientWithConfig(oc)
	return c, nil
}

// Fatal returns the failure that stopped this client, or nil. Once set it
// stays: every later call fails at once with it. Build a new Client after
// fixing the configuration.
func (c *Client) Fatal() error {
	if f := c.fatal.Load(); f != nil {
		return f
	}
	return nil
}

// Health says whether the server is answering: poll it to show "the
// server at … has not answered for 1m30s; waiting up to 10m0s (--wait)"
// (Health.String) while a run is paused, or use Config.OnHealth.
func (c *Client) Health() Health { return c.health.state() }

// ResetHealth lets a new run try a server this client had given up on
// (Health.GaveUp): its first request goes out again.
func (c *Client) ResetHealth() { c.health.reset() }

func isReasoningModel(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}

// call is one prompt to send.
type call struct {
	messages []Message
	// json asks for response_format json_object where allowed.
	json bool
	// logprobs asks for the tokens' log probabilities (binary judges).
	logprobs bool
	// sample numbers the samples of one task (0-based).
	sample int
	// over, when set, replaces the Config's model, temperature and max
	// tokens (a judge file's own).
	over *override
}

// override is a judge file's model, temperature and max tokens, each the
// Config's when the file leaves it out.
type override struct {
	model       string
	temperature float64
	maxTokens   int
}

// settings returns the model, temperature and max tokens of a call.
func (c *Client) settings(k call) (model string, temperature float64, maxTokens int) {
	if k.over != nil {
		return k.over.model, k.over.temperature, k.over.maxTokens
	}
	return c.cfg.Model, c.cfg.Temperature, c.cfg.MaxTokens
}

// answer is what the model wrote, and what it cost.
type answer struct {
	// content is the model's output; a reasoning trace the server sent
	// apart (reasoning_content) is put back in front inside <think> tags.
	content string
	// contentAt is where the text the logprob tokens cover starts.
	contentAt        int
	finish           string
	promptTokens     int
	completionTokens int
	// cachedTokens is usage.prompt_tokens_details.cached_tokens: the
	// prompt tokens a server took from its cache, which some count apart
	// from prompt_tokens (see answer.read).
	cachedTokens int
	// estimate is a low estimate of the prompt's tokens (promptEstimate),
	// to tell a prompt the server cut (answer.truncated); seen is the
	// largest prompt-token count the server reported for the model, room
	// the answer's (max tokens) and kind the server's, for the advice.
	estimate int
	seen     int
	room     int
	kind     string
	tokens   []string
	logprobs []float64
	// topTokens and topLogprobs are, per token, the most likely
	// alternative the server listed (top_logprobs) and its logprob; "" and
	// NaN where it listed none. Nil when it listed none at all.
	topTokens   []string
	topLogprobs []float64
	cached      bool
	tries       int
}

// complete sends a prompt, retrying what can be retried, and returns the
// answer; the error is a *FatalError, ctx's error, or a failure described
// for the user.
func (c *Client) complete(ctx context.Context, k call) (answer, error) {
	if f := c.fatal.Load(); f != nil {
		stopRun(ctx, f)
		return answer{}, f
	}
	req := c.request(k)
	estimate := promptEstimate(k.messages)
	key := ""
	if c.cfg.Cache != nil {
		key = c.cacheKey(k, req).String()
		for !isFresh(ctx) {
			// A truncated answer is never served: the server is asked
			// again (its context may have been raised since).
			if a, ok := c.cacheGet(key); ok {
				if a.estimate, a.seen = estimate, c.seen.get(req.Model); !a.truncated() {
					return a, nil
				}
			}
			if c.counted != nil {
				if v, dup := c.counted.LoadOrStore(key, countedHere); dup {
					if v == countedPaid {
						c.paidHits.Add(1)
					} else {
						c.repeats.Add(1)
					}
					return answer{}, errCountedAlready
				}
				break
			}
			// The same prompt already asked by another task: wait for
			// its answer, then look in the cache again (a failure, or a
			// truncated answer, leaves this task to ask on its own).
			done := make(chan struct{})
			prev, busy := c.inflight.LoadOrStore(key, done)
			if !busy {
				defer func() {
					c.inflight.Delete(key)
					close(done)
				}()
				// Another task may have put its answer and left between
				// this task's look in the cache and its claim: look again
				// before asking.
				if a, ok := c.cacheGet(key); ok {
					if a.estimate, a.seen = estimate, c.seen.get(req.Model); !a.truncated() {
						return a, nil
					}
				}
				break
			}
			select {
			case <-prev.(chan struct{}):
			case <-ctx.Done():
				return answer{}, ctx.Err()
			}
		}
	}
	// A prompt the server's context cannot hold is not sent (Probe).
	if err := c.fits(k, req); err != nil {
		var f *FatalError
		if errors.As(err, &f) {
			// No prompt fits (the answer's room alone fills the context).
			c.fatal.CompareAndSwap(nil, f)
			f = c.fatal.Load()
			stopRun(ctx, f)
			return answer{}, f
		}
		return answer{}, err
	}
	clk := c.cfg.Clock
	// The item's budget across its retries; time paused for a server that
	// does not answer is added back (--wait bounds that).
	deadline := clk.Now().Add(c.cfg.ItemTimeout)
	outOfTime := func(try int, msg string) error {
		return fmt.Errorf("%s (gave up after %d tries, at the %s limit of one item's tries: --item-timeout)", c.redact(msg), try, c.cfg.ItemTimeout)
	}
	lastMsg := ""
	counted := 0 // tries that count against Retry.Attempts
	self := new(int)
	defer c.health.end(self)
	for try := 1; ; try++ {
		probe, paused, err := c.health.admit(ctx)
		if err != nil {
			return answer{tries: try - 1}, err
		}
		deadline = deadline.Add(paused)
		if err := c.pace.wait(ctx); err != nil {
			c.reportIf(self, probe, clk.Now(), nil, false)
			return answer{tries: try - 1}, err
		}
		sent := clk.Now()
		timeout := min(c.cfg.Timeout, deadline.Sub(sent))
		if timeout <= 0 && try > 1 {
			c.reportIf(self, probe, sent, nil, false)
			return answer{tries: try - 1}, outOfTime(try-1, lastMsg)
		}
		a, fail := c.once(ctx, req, timeout)
		// A probe of a server that is not answering spends the run's
		// --wait, not the item's tries or budget; the pause spaces probes.
		if c.reportIf(self, probe, sent, fail, true) {
			deadline = deadline.Add(clk.Now().Sub(sent))
			lastMsg = fail.msg
			continue
		}
		counted++
		if fail == nil {
			c.reached.Store(true)
			a.tries, a.estimate = try, estimate
			a.seen = c.seen.add(req.Model, a.surelyRead())
			a.room, a.kind = max(req.MaxTokens, req.MaxCompletionTokens), c.serverKind()
			if key != "" && !a.truncated() {
				c.cachePut(key, a)
			}
			return a, nil
		}
		switch {
		case fail.cancelled:
			return answer{tries: try}, ctx.Err()
		case fail.fatal != nil:
			fail.fatal.Problem = c.redact(fail.fatal.Problem)
			fail.fatal.Fix = c.redact(fail.fatal.Fix)
			c.fatal.CompareAndSwap(nil, fail.fatal)
			f := c.fatal.Load()
			stopRun(ctx, f)
			return answer{tries: try}, f
		case !fail.retry:
			return answer{tries: try}, errors.New(c.redact(fail.msg))
		case counted >= c.cfg.Retry.Attempts:
			return answer{tries: try}, fmt.Errorf("%s (gave up after %d tries)", c.redact(fail.msg), try)
		}
		lastMsg = fail.msg
		wait := backoff(c.cfg.Retry, counted)
		if fail.hasRetry {
			if fail.retryAfter > c.cfg.Retry.MaxDelay {
				return answer{tries: try}, fmt.Errorf("%s; the server asks to wait %s before retrying (Retry-After), longer than the %s limit: try again later, or lower --concurrency or --rpm",
					c.redact(fail.msg), fail.retryAfter.Round(time.Second), c.cfg.Retry.MaxDelay)
			}
			wait = retryWait(fail.retryAfter)
		}
		// A retry needs time for its wait and some for its request.
		if left := deadline.Sub(clk.Now()); left <= wait {
			return answer{tries: try}, outOfTime(try, fail.msg)
		}
		if err := sleep(ctx, clk, wait); err != nil {
			return answer{tries: try}, err
		}
	}
}

// reportIf tells the server's health how a request ended, and whether
// the failure is free (health.report); a probe that was not sent (done
// false) only frees the probe's place.
func (c *Client) reportIf(call *int, probe bool, sent time.Time, fail *failure, done bool) bool {
	switch {
	case done && fail != nil && fail.cancelled:
		// The caller gave up: says nothing of the server.
		return c.health.report(call, probe, sent, &failure{})
	case done:
		return c.health.report(call, probe, sent, fail)
	case probe:
		return c.health.report(call, true, sent, &failure{})
	}
	return false
}

// request builds the go-openai request for a prompt.
func (c *Client) request(k call) openai.ChatCompletionRequest {
	msgs := make([]openai.ChatCompletionMessage, len(k.messages))
	for i, m := range k.messages {
		msgs[i] = openai.ChatCompletionMessage{Role: m.Role, Content: m.Content}
	}
	model, temperature, maxTokens := c.settings(k)
	req := openai.ChatCompletionRequest{
		Model:       model,
		Messages:    msgs,
		Temperature: float32(temperature),
	}
	reasoning := c.reasoning
	if k.over != nil {
		reasoning = isReasoningModel(model)
	}
	if reasoning {
		req.MaxCompletionTokens = maxTokens
	} else {
		req.MaxTokens = maxTokens
		req.LogProbs = k.logprobs && !c.cfg.NoLogprobs
		if req.LogProbs {
			// A few alternatives tell whether the logprobs describe the
			// answer (confidence); without a bound llama.cpp sends 20 per
			// token.
			req.TopLogProbs = topLogprobs
		}
	}
	// OpenAI refuses json_object unless the messages mention JSON.
	if k.json && !c.cfg.NoResponseFormat && mentionsJSON(k.messages) {
		req.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}
	return req
}

func mentionsJSON(msgs []Message) bool {
	for _, m := range msgs {
		if strings.Contains(strings.ToLower(m.Content), "json") {
			return true
		}
	}
	return false
}

func (c *Client) cacheKey(k call, req openai.ChatCompletionRequest) cacheKey {
	model, temperature, maxTokens := c.settings(k)
	return cacheKey{
		V:           cacheKeyVersion,
		Model:       model,
		Messages:    k.messages,
		Temperature: temperature,
		MaxTokens:   maxTokens,
		JSON:        req.ResponseFormat != nil,
		Sample:      k.sample,
		Logprobs:    req.LogProbs,
		TopLogprobs: req.TopLogProbs,
	}
}

// once makes one HTTP request within timeout.
func (c *Client) once(ctx context.Context, req openai.ChatCompletionRequest, timeout time.Duration) (answer, *failure) {
	actx, cancel := withTimeout(ctx, c.cfg.Clock, timeout)
	defer cancel()
	// go-openai leaves a zero temperature out: the doer puts it back,
	// unless the model is a reasoning one, which takes only its own.
	x := &exchange{zeroTemperature: req.Temperature == 0 && !isReasoningModel(req.Model), decided: true, model: req.Model, shape: shapeOf(req), maxTokens: max(req.MaxTokens, req.MaxCompletionTokens)}
	resp, err := c.api.CreateChatCompletion(withExchange(actx, x), req)
	if x.status != 0 {
		c.answered.Store(true)
	}
	if err != nil {
		return answer{}, c.classify(ctx, actx, err, x, timeout)
	}
	// The server takes requests of this model and these settings: a 400
	// it gives one later is about that item.
	c.worked.Store(x.shape, true)
	c.rejected.Store(0)
	return answerOf(resp)
}

// answerOf reads a chat completion: what the model wrote, the logprobs
// and what it cost. It reads both an online response and a Batch API
// result's body (batchResults), so that a batch answer is the very answer
// the online path would have made of the same body.
func answerOf(resp openai.ChatCompletionResponse) (answer, *failure) {
	if len(resp.Choices) == 0 {
		return answer{}, &failure{msg: "the server's response held no answer (empty choices)", retry: true}
	}
	ch := resp.Choices[0]
	a := answer{
		content:          ch.Message.Content,
		finish:           string(ch.FinishReason),
		promptTokens:     resp.Usage.PromptTokens,
		completionTokens: resp.Usage.CompletionTokens,
	}
	if d := resp.Usage.PromptTokensDetails; d != nil {
		a.cachedTokens = d.CachedTokens
	}
	if a.content == "" && ch.Message.Refusal != "" {
		a.content = ch.Message.Refusal
	}
	if rc := ch.Message.ReasoningContent; rc != "" {
		prefix := "<think>" + rc + "</think>\n"
		a.content = prefix + a.content
		a.contentAt = len(prefix)
	}
	if ch.LogProbs != nil && len(ch.LogProbs.Content) > 0 {
		a.tokens = make([]string, len(ch.LogProbs.Content))
		a.logprobs = make([]float64, len(ch.LogProbs.Content))
		for i, t := range ch.LogProbs.Content {
			a.tokens[i] = t.Token
			a.logprobs[i] = t.LogProb
		}
		a.topTokens, a.topLogprobs = topAlternatives(ch.LogProbs.Content)
	}
	return a, nil
}

// shapeOf is what a request asks besides its messages: the model and the
// settings a server may refuse (temperature, max tokens, response_format,
// logprobs).
func shapeOf(req openai.ChatCompletionRequest) string {
	return fmt.Sprintf("%s|%g|%d|%d|%t|%t|%d", req.Model, req.Temperature, req.MaxTokens, req.MaxCompletionTokens, req.ResponseFormat != nil, req.LogProbs, req.TopLogProbs)
}

// redact removes the API key from text that may reach the user: a server
// may echo the key in an error message.
func (c *Client) redact(s string) string {
	return redactKey(s, c.cfg.APIKey)
}

func redactKey(s, key string) string {
	if len(key) < minRedactLen || !strings.Contains(s, key) {
		return s
	}
	return strings.ReplaceAll(s, key, "[api key]")
}

func encodeCached(a answer) string {
	b, _ := json.Marshal(cachedAnswer{
		Content:          a.content,
		ContentAt:        a.contentAt,
		FinishReason:     a.finish,
		PromptTokens:     a.promptTokens,
		CompletionTokens: a.completionTokens,
		CachedTokens:     a.cachedTokens,
		Tokens:           a.tokens,
		Logprobs:         a.logprobs,
		TopTokens:        a.topTokens,
		TopLogprobs:      nullNaN(a.topLogprobs),
	})
	return string(b)
}

func decodeCached(s string) (answer, bool) {
	var r cachedAnswer
	if json.Unmarshal([]byte(s), &r) != nil || len(r.Tokens) != len(r.Logprobs) || r.ContentAt < 0 || r.ContentAt > len(r.Content) ||
		len(r.TopTokens) != len(r.TopLogprobs) || len(r.TopTokens) > 0 && len(r.TopTokens) != len(r.Tokens) {
		return answer{}, false
	}
	return answer{
		content:          r.Content,
		contentAt:        r.ContentAt,
		finish:           r.FinishReason,
		promptTokens:     r.PromptTokens,
		completionTokens: r.CompletionTokens,
		cachedTokens:     r.CachedTokens,
		tokens:           r.Tokens,
		logprobs:         r.Logprobs,
		topTokens:        r.TopTokens,
		topLogprobs:      nanNull(r.TopLogprobs),
		cached:           true,
	}, true
}
