package llm

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// Environment variables the CLI reads when the flags are not given.
const (
	EnvBaseURL = "OPENAI_BASE_URL"
	EnvAPIKey  = "OPENAI_API_KEY"
)

// DefaultBaseURL is OpenAI's own endpoint, used when no base URL is given.
const DefaultBaseURL = "https://api.openai.com/v1"

// Defaults applied by NewClient to zero fields of Config.
const (
	DefaultConcurrency = 4
	DefaultTimeout     = 2 * time.Minute
	// DefaultWait is how long a run pauses for a server that stopped
	// answering before its remaining tasks end api_error (--wait).
	DefaultWait = 10 * time.Minute
	// MinItemTimeout is the least an item's budget across its retries
	// defaults to; the default is the larger of this and 2 × Timeout.
	MinItemTimeout = 5 * time.Minute
)

// Config says which server and model an LLM judge calls and how. The CLI
// fills it from flags, then WithEnv fills what the flags left empty.
type Config struct {
	// BaseURL is the server's OpenAI-compatible root, ending in /v1
	// (https://api.openai.com/v1, http://localhost:8000/v1 for vLLM…).
	BaseURL string
	// APIKey is sent as a bearer token; empty sends none (local servers).
	// It never leaves the client: not in Info, verdicts, errors or the cache.
	APIKey string
	// Model is the model name the server knows; required.
	Model string
	// Temperature is sent as is, 0 included (the default: judges should be
	// deterministic), except to reasoning models that accept only their own.
	Temperature float64
	// MaxTokens caps the answer's length; 0 leaves it to the server.
	MaxTokens int
	// Concurrency is how many tasks are judged at once (PoolOptions).
	Concurrency int
	// RPM caps HTTP requests per minute, retries and samples included;
	// cached answers are not counted. 0 means no cap.
	RPM float64
	// Timeout bounds each HTTP request, body included; 0 means 2 minutes.
	Timeout time.Duration
	// ItemTimeout bounds the time one task's call spends on requests and
	// backoff across all its retries (--item-timeout); time the run spends
	// paused for a server that is not answering is not counted (Wait
	// bounds that). 0 means the larger of 2 × Timeout and 5 minutes.
	ItemTimeout time.Duration
	// Wait is how long the run pauses when the server stops answering
	// (requests time out or cannot connect, or it answers 502/503/504,
	// with no success since): no new request is sent but one probe at a
	// time, and once no request has succeeded for Wait every remaining
	// task ends api_error at once. Any success resumes the run. 0 means
	// DefaultWait (--wait).
	Wait time.Duration
	// OnHealth, when set, is called (from a worker goroutine; it must not
	// block) each time the server stops answering, answers again, or is
	// given up on. Client.Health tells the same at any time.
	OnHealth func(Health)
	// Clock, when set, replaces the real clock for every timeout, backoff
	// and wait of the client (tests).
	Clock Clock
	// Samples is how many times each task is judged; the verdict is the
	// majority, ties going to the lower value, and every sample is kept in
	// Verdict.Extra (ExtraSamples, ExtraAgreement). 0 means 1.
	Samples int
	// NoResponseFormat stops the client asking JSON judges for
	// response_format json_object, for servers that reject it.
	NoResponseFormat bool
	// NoLogprobs stops the client asking binary judges for logprobs, for
	// servers that reject them; verdicts then carry no confidence.
	NoLogprobs bool
	// SwapSnippets makes same-event send the prediction as the first
	// snippet and the gold answer as the second (a position-bias check).
	SwapSnippets bool
	// Retry tunes retries; zero fields take DefaultRetry's values.
	Retry RetryPolicy
	// Cache, when set, answers repeated requests without calling the
	// server; see Cache and Fresh.
	Cache Cache
	// Transport, when set, replaces the HTTP transport (proxies, tests).
	Transport http.RoundTripper
}

// RetryPolicy tunes how failed requests are retried: 429, 5xx, timeouts,
// dropped connections, malformed bodies and empty answers.
type RetryPolicy struct {
	// Attempts is the number of tries in all, the first included.
	Attempts int
	// BaseDelay is the wait before the first retry; it doubles on each
	// retry, with jitter, up to MaxDelay.
	BaseDelay time.Duration
	// MaxDelay caps the backoff. A Retry-After longer than MaxDelay makes
	// the request fail at once rather than retry before the server allows.
	MaxDelay time.Duration
}

// DefaultRetry is used for the zero fields of Config.Retry.
var DefaultRetry = RetryPolicy{Attempts: 6, BaseDelay: time.Second, MaxDelay: 2 * time.Minute}

// WithEnv returns c with BaseURL and APIKey taken from OPENAI_BASE_URL and
// OPENAI_API_KEY (through getenv, usually os.Getenv) where c leaves them
// empty: flags win over the environment.
func (c Config) WithEnv(getenv func(string) string) Config {
	if c.BaseURL == "" {
		c.BaseURL = getenv(EnvBaseURL)
	}
	if c.APIKey == "" {
		c.APIKey = getenv(EnvAPIKey)
	}
	return c
}

// PoolOptions returns the judge.PoolOptions for a run with this Config.
// RPM is left to the client, which paces the HTTP requests themselves, so
// that cached answers cost no wait and retries and samples are counted.
func (c Config) PoolOptions() judge.PoolOptions {
	n := c.Concurrency
	if n <= 0 {
		n = DefaultConcurrency
	}
	return judge.PoolOptions{Concurrency: n}
}

// String describes the Config without its API key, so that printing a
// Config with %v or %+v cannot leak the key.
func (c Config) String() string {
	key := "none"
	if c.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("llm.Config{BaseURL: %s, Model: %q, Temperature: %g, MaxTokens: %d, Concurrency: %d, RPM: %g, Timeout: %s, ItemTimeout: %s, Wait: %s, Samples: %d, NoResponseFormat: %t, NoLogprobs: %t, APIKey: %s}",
		displayURL(c.BaseURL), c.Model, c.Temperature, c.MaxTokens, c.Concurrency, c.RPM, c.Timeout, c.ItemTimeout, c.Wait, c.Samples, c.NoResponseFormat, c.NoLogprobs, key)
}

// GoString keeps %#v from printing the API key too.
func (c Config) GoString() string { return c.String() }

// normalized fills defaults and checks the values, with errors that name
// the flag to fix.
func (c Config) normalized() (Config, error) {
	var errs []error
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("base URL %q is not an http(s) URL: pass --base-url like http://localhost:8000/v1", displayURL(c.BaseURL)))
	}
	if strings.TrimSpace(c.Model) == "" {
		errs = append(errs, errors.New("no model given: pass --model (the name the server knows, e.g. gpt-4o-mini)"))
	}
	if c.Temperature < 0 || c.Temperature > 2 {
		errs = append(errs, fmt.Errorf("temperature %g is out of range: --temperature takes 0 to 2", c.Temperature))
	}
	if c.MaxTokens < 0 {
		errs = append(errs, fmt.Errorf("max tokens %d is negative: --max-tokens takes 0 (server default) or more", c.MaxTokens))
	}
	if c.Concurrency < 0 {
		errs = append(errs, fmt.Errorf("concurrency %d is negative: --concurrency takes 1 or more", c.Concurrency))
	}
	if c.RPM < 0 {
		errs = append(errs, fmt.Errorf("rpm %g is negative: --rpm takes 0 (no cap) or more", c.RPM))
	}
	if c.Timeout < 0 {
		errs = append(errs, fmt.Errorf("timeout %s is negative: --timeout takes a duration such as 60s", c.Timeout))
	}
	if c.ItemTimeout < 0 {
		errs = append(errs, fmt.Errorf("item timeout %s is negative: --item-timeout takes a duration such as 5m", c.ItemTimeout))
	}
	if c.Wait < 0 {
		errs = append(errs, fmt.Errorf("wait %s is negative: --wait takes a duration such as 10m", c.Wait))
	}
	if c.Samples < 0 {
		errs = append(errs, fmt.Errorf("samples %d is negative: --samples takes 1 or more", c.Samples))
	}
	if c.Concurrency == 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.ItemTimeout == 0 {
		c.ItemTimeout = max(2*c.Timeout, MinItemTimeout)
	}
	if c.Wait == 0 {
		c.Wait = DefaultWait
	}
	if c.Clock == nil {
		c.Clock = realClock{}
	}
	c.Samples = max(c.Samples, 1)
	if c.Retry.Attempts <= 0 {
		c.Retry.Attempts = DefaultRetry.Attempts
	}
	if c.Retry.BaseDelay <= 0 {
		c.Retry.BaseDelay = DefaultRetry.BaseDelay
	}
	if c.Retry.MaxDelay <= 0 {
		c.Retry.MaxDelay = DefaultRetry.MaxDelay
	}
	return c, errors.Join(errs...)
}

// params are the settings that change what a judge answers, for
// judge.Info.Params and so for telling runs apart. Never credentials.
func (c Config) params() map[string]any {
	p := map[string]any{"temperature": c.Temperature}
	if c.MaxTokens > 0 {
		p["max_tokens"] = c.MaxTokens
	}
	if c.Samples > 1 {
		p["samples"] = c.Samples
	}
	return p
}

// displayURL drops any user:password part of a URL before it is shown.
func displayURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = nil
	return u.String()
}
