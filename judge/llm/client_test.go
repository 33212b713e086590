package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

func TestRequestBody(t *testing.T) {
	tests := []struct {
		name        string
		judge       string
		change      func(*Config)
		temperature string // the "temperature" as it stands in the body
		respFormat  bool
		logprobs    bool
		maxTokens   int
	}{
		{name: "zero temperature is sent", judge: "docqa", temperature: `"temperature":0`, logprobs: true},
		{name: "other temperatures too", judge: "docqa", change: func(c *Config) { c.Temperature = 0.7 }, temperature: `"temperature":0.7`, logprobs: true},
		{name: "json judge asks for JSON", judge: "rubric", temperature: `"temperature":0`, respFormat: true},
		{name: "response format off", judge: "quality", change: func(c *Config) { c.NoResponseFormat = true }, temperature: `"temperature":0`},
		{name: "bbh: JSON and logprobs", judge: "bbh", temperature: `"temperature":0`, respFormat: true, logprobs: true},
		{name: "logprobs off", judge: "same-event", change: func(c *Config) { c.NoLogprobs = true; c.MaxTokens = 5 }, temperature: `"temperature":0`, maxTokens: 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := newFakeServer(t, answerWith(completion{content: `{"score": 1, "is_correct": true, "completeness_score": 1, "correctness_score": 1}`}))
			cfg := testConfig(fs)
			if tc.change != nil {
				tc.change(&cfg)
			}
			j := mustJudge(t, tc.judge, cfg)
			j.Judge(context.Background(), judge.Task{Item: testItem("1"), Criterion: 1})
			body := fs.lastBody()
			if !strings.Contains(body, tc.temperature) {
				t.Errorf("body lacks %s: %s", tc.temperature, clip(body, 300))
			}
			if n := strings.Count(body, `"temperature"`); n != 1 {
				t.Errorf("temperature appears %d times", n)
			}
			req := fs.reqs[0]
			if req.Temperature == nil || *req.Temperature != cfg.Temperature {
				t.Errorf("decoded temperature %v, want %v", req.Temperature, cfg.Temperature)
			}
			if got := req.ResponseFormat != nil && strings.Contains(string(*req.ResponseFormat), "json_object"); got != tc.respFormat {
				t.Errorf("response_format json_object = %v, want %v", got, tc.respFormat)
			}
			if req.Logprobs != tc.logprobs {
				t.Errorf("logprobs = %v, want %v", req.Logprobs, tc.logprobs)
			}
			if req.MaxTokens != tc.maxTokens {
				t.Errorf("max_tokens = %d, want %d", req.MaxTokens, tc.maxTokens)
			}
			if req.Model != "judge-model" || fs.auth[0] != "Bearer "+testKey {
				t.Errorf("model %q, auth %q", req.Model, fs.auth[0])
			}
		})
	}
}

func TestReasoningModelsKeepTheirTemperature(t *testing.T) {
	fs := newFakeServer(t, answerWith(completion{content: "result: YES"}))
	cfg := testConfig(fs)
	cfg.Model = "o3-mini"
	cfg.MaxTokens = 100
	v := mustJudge(t, "docqa", cfg).Judge(context.Background(), judge.Task{Item: testItem("1")})
	if !v.OK() {
		t.Fatalf("verdict %+v", v)
	}
	body := fs.lastBody()
	for _, bad := range []string{`"temperature"`, `"logprobs"`, `"max_tokens"`} {
		if strings.Contains(body, bad) {
			t.Errorf("body for a reasoning model holds %s: %s", bad, clip(body, 200))
		}
	}
	if !strings.Contains(body, `"max_completion_tokens":100`) {
		t.Errorf("body lacks max_completion_tokens: %s", clip(body, 200))
	}
}

func TestAddZeroTemperature(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"model":"m"}`, `{"temperature":0,"model":"m"}`},
		{`{}`, `{"temperature":0}`},
		{`{ }`, `{"temperature":0}`},
		{`{ `, `{ `},
		{`[1]`, `[1]`},
		{``, ``},
		{`{"temperature":0.5,"model":"m"}`, `{"temperature":0.5,"model":"m"}`},
		{`{"messages":[{"content":"say \"temperature\": 1"}]}`, `{"temperature":0,"messages":[{"content":"say \"temperature\": 1"}]}`},
	}
	for _, tc := range tests {
		req, _ := http.NewRequest("POST", "http://x/v1", strings.NewReader(tc.in))
		if err := addZeroTemperature(req); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		body, _ := req.GetBody()
		buf := make([]byte, 1024)
		n, _ := body.Read(buf)
		b.Write(buf[:n])
		if b.String() != tc.want || req.ContentLength != int64(len(tc.want)) {
			t.Errorf("addZeroTemperature(%s) = %s (length %d), want %s", tc.in, b.String(), req.ContentLength, tc.want)
		}
		if tc.in == tc.want {
			continue
		}
		if !json.Valid([]byte(b.String())) {
			t.Errorf("not JSON: %s", b.String())
		}
	}
}

func TestConfidenceFromLogprobs(t *testing.T) {
	tests := []struct {
		name    string
		judge   string
		content string
		want    float64
	}{
		{"docqa", "docqa", "reason: same organisation.\nresult: YES", math.Exp(-0.1)},
		{"same-event", "same-event", "NO", math.Exp(-0.1)},
		{"bbh", "bbh", `{"id": 1, "is_correct": false, "comment": "c"}`, math.Exp(-0.1)},
		{"after a think trace", "docqa", "<think>weighing it</think>\nresult: NO", math.Exp(-0.1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := newFakeServer(t, answerWith(completion{content: tc.content, withLogprobs: true, logprob: -0.01, answerLogprob: -0.1}))
			v := mustJudge(t, tc.judge, testConfig(fs)).Judge(context.Background(), judge.Task{Item: testItem("1")})
			if !v.OK() {
				t.Fatalf("verdict %+v", v)
			}
			if v.Confidence == nil || math.Abs(*v.Confidence-tc.want) > 1e-9 {
				t.Errorf("confidence = %v, want %v", fmtPtr(v.Confidence), tc.want)
			}
		})
	}
	// No logprobs from the server: no confidence, no failure.
	fs := newFakeServer(t, answerWith(completion{content: "YES"}))
	v := mustJudge(t, "same-event", testConfig(fs)).Judge(context.Background(), judge.Task{Item: testItem("1")})
	if !v.OK() || v.Confidence != nil {
		t.Errorf("without logprobs: %+v", v)
	}
}

func TestConfidenceSpansTokens(t *testing.T) {
	a := answer{content: "result: YES", tokens: []string{"result", ":", " Y", "ES"}, logprobs: []float64{-1, -1, -0.2, -0.3}}
	if c, _ := confidence(a, 8, 11); c == nil || math.Abs(*c-math.Exp(-0.5)) > 1e-12 {
		t.Errorf("split word: %v", fmtPtr(c))
	}
	a.tokens[0] = "resolt" // tokens that do not spell the content give none
	if c, _ := confidence(a, 8, 11); c != nil {
		t.Errorf("mismatched tokens: %v", *c)
	}
}

func fmtPtr(p *float64) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

func TestAPIKeyNeverLeaks(t *testing.T) {
	// A hostile server echoes the key into errors and into the answer.
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
		key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		switch n % 3 {
		case 0:
			writeError(w, http.StatusInternalServerError, "server_error", "boom for key "+key)
		case 1:
			writeCompletion(w, req.Model, completion{content: "reason: your key is " + key + "\nresult: YES"})
		default:
			writeCompletion(w, req.Model, completion{content: "I cannot judge with key " + key})
		}
	})
	cfg := testConfig(fs)
	cfg.Retry.Attempts = 1
	cache := newMapCache()
	cfg.Cache = cache
	j := mustJudge(t, "docqa", cfg)
	var vs []judge.Verdict
	for i := range 6 {
		it := testItem(fmt.Sprint(i))
		it.Prediction += fmt.Sprint(" #", i)
		vs = append(vs, j.Judge(context.Background(), judge.Task{Item: it}))
	}
	statuses := map[judge.Status]int{}
	for _, v := range vs {
		statuses[v.Status]++
	}
	if statuses[judge.StatusOK] == 0 || statuses[judge.StatusAPIError] == 0 || statuses[judge.StatusParseError] == 0 {
		t.Fatalf("statuses %v: the test should see every kind", statuses)
	}
	assertNoKey(t, vs...)
	info, _ := json.Marshal(j.Info())
	if strings.Contains(string(info), testKey) {
		t.Errorf("Info holds the key: %s", info)
	}
	for k := range cache.m {
		if strings.Contains(k, testKey) {
			t.Errorf("cache key holds the API key")
		}
	}
	if s := fmt.Sprintf("%v %+v %#v %s", cfg, cfg, cfg, cfg); strings.Contains(s, testKey) {
		t.Errorf("printing a Config shows the key: %s", s)
	}
	// A 401 echoing the key.
	fs401 := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
		writeError(w, http.StatusUnauthorized, "invalid_request_error", "Incorrect API key provided: "+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	})
	cfg401 := testConfig(fs401)
	j401 := mustJudge(t, "docqa", cfg401)
	v := j401.Judge(context.Background(), judge.Task{Item: testItem("x")})
	assertNoKey(t, v)
	if err := j401.Client().Fatal(); err == nil || strings.Contains(err.Error(), testKey) {
		t.Errorf("fatal error %v: want one, without the key", err)
	}
}

func TestConfigChecks(t *testing.T) {
	tests := []struct {
		cfg    Config
		errHas string
	}{
		{Config{}, "no model given: pass --model"},
		{Config{Model: "m", BaseURL: "localhost:8000/v1"}, "pass --base-url"},
		{Config{Model: "m", Temperature: 3}, "--temperature takes 0 to 2"},
		{Config{Model: "m", MaxTokens: -1}, "--max-tokens"},
		{Config{Model: "m", Samples: -2}, "--samples"},
		{Config{Model: "m", RPM: -1}, "--rpm"},
		{Config{Model: "m", Timeout: -time.Second}, "--timeout"},
		{Config{Model: "m", Concurrency: -1}, "--concurrency"},
	}
	for _, tc := range tests {
		_, err := NewClient(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.errHas) {
			t.Errorf("NewClient(%v) error = %v, want %q", tc.cfg, err, tc.errHas)
		}
	}
	c, err := NewClient(Config{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if c.cfg.BaseURL != DefaultBaseURL || c.cfg.Concurrency != DefaultConcurrency || c.cfg.Timeout != DefaultTimeout || c.cfg.Samples != 1 || c.cfg.Retry != DefaultRetry {
		t.Errorf("defaults not applied: %+v", c.cfg)
	}
	env := map[string]string{EnvBaseURL: "http://env/v1", EnvAPIKey: "env-key"}
	got := Config{BaseURL: "http://flag/v1"}.WithEnv(func(k string) string { return env[k] })
	if got.BaseURL != "http://flag/v1" || got.APIKey != "env-key" {
		t.Errorf("WithEnv = %v, want the flag's URL and the env's key", got)
	}
	if po := (Config{Concurrency: 8, RPM: 60}).PoolOptions(); po.Concurrency != 8 {
		t.Errorf("PoolOptions = %+v", po)
	}
	if po := (Config{}).PoolOptions(); po.Concurrency != DefaultConcurrency {
		t.Errorf("PoolOptions of a zero Config = %+v, want the default concurrency", po)
	}
}

func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		h    http.Header
		want time.Duration
		ok   bool
	}{
		{http.Header{"Retry-After": {"3"}}, 3 * time.Second, true},
		{http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond, true},
		{http.Header{"Retry-After": {now.Add(7 * time.Second).Format(http.TimeFormat)}}, 7 * time.Second, true},
		{http.Header{"Retry-After": {now.Add(-time.Hour).Format(http.TimeFormat)}}, 0, true},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250 * time.Millisecond, true},
		{http.Header{"Retry-After": {"soon"}}, 0, false},
		{http.Header{"Retry-After": {"-4"}}, 0, false},
		{http.Header{}, 0, false},
	}
	for _, tc := range tests {
		got, ok := retryAfter(tc.h, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("retryAfter(%v) = %v, %v; want %v, %v", tc.h, got, ok, tc.want, tc.ok)
		}
	}
}

func TestBackoffGrowsWithinBounds(t *testing.T) {
	p := RetryPolicy{Attempts: 10, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}
	for n := 1; n <= 8; n++ {
		full := min(p.BaseDelay<<(n-1), p.MaxDelay)
		for range 50 {
			d := backoff(p, n)
			if d < full/2 || d > full {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", n, d, full/2, full)
			}
		}
	}
}

// mapCache is the simplest Cache, as the session store will provide.
type mapCache struct {
	mu   sync.Mutex
	m    map[string]string
	gets int
}

func newMapCache() *mapCache { return &mapCache{m: map[string]string{}} }

func (c *mapCache) Get(k string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gets++
	v, ok := c.m[k]
	return v, ok
}

func (c *mapCache) Put(k, v string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[k] = v
}

func TestCache(t *testing.T) {
	fs := newFakeServer(t, answerWith(completion{content: "reason: r\nresult: YES", withLogprobs: true, logprob: -0.01, answerLogprob: -0.2}))
	cfg := testConfig(fs)
	cache := newMapCache()
	cfg.Cache = cache
	j := mustJudge(t, "docqa", cfg)
	task := judge.Task{Item: testItem("1")}
	first := j.Judge(context.Background(), task)
	second := j.Judge(context.Background(), task)
	if fs.hits.Load() != 1 {
		t.Fatalf("server hit %d times, want 1 (the second answer comes from the cache)", fs.hits.Load())
	}
	if second.Extra[ExtraCached] != true || first.Extra[ExtraCached] != nil {
		t.Errorf("cached flags: first %v, second %v", first.Extra, second.Extra)
	}
	if second.Values["correct"] != 1 || second.Raw != first.Raw || fmtPtr(second.Confidence) != fmtPtr(first.Confidence) || second.PromptTokens != first.PromptTokens {
		t.Errorf("cached verdict differs: %+v vs %+v", second, first)
	}
	// A re-judge asks the server again and refreshes the entry.
	fresh := j.Judge(Fresh(context.Background()), task)
	if fs.hits.Load() != 2 || fresh.Extra[ExtraCached] != nil {
		t.Errorf("Fresh: hits %d, extra %v", fs.hits.Load(), fresh.Extra)
	}
	// A different item, model, temperature or key recipe misses; the API key does not matter.
	other := mustJudge(t, "docqa", cfg)
	base := other.client.cacheKey(call{messages: []Message{{"user", "x"}}}, other.client.request(call{})).String()
	keys := map[string]func(*Config){
		"model":       func(c *Config) { c.Model = "other" },
		"temperature": func(c *Config) { c.Temperature = 0.3 },
		"max tokens":  func(c *Config) { c.MaxTokens = 9 },
	}
	for name, change := range keys {
		c2 := cfg
		change(&c2)
		cl, _ := NewClient(c2)
		if cl.cacheKey(call{messages: []Message{{"user", "x"}}}, cl.request(call{})).String() == base {
			t.Errorf("changing the %s keeps the cache key", name)
		}
	}
	c3 := cfg
	c3.APIKey = "another-key-entirely"
	cl, _ := NewClient(c3)
	if cl.cacheKey(call{messages: []Message{{"user", "x"}}}, cl.request(call{})).String() != base {
		t.Error("the API key changes the cache key")
	}
	if k := other.client.cacheKey(call{messages: []Message{{"user", "x"}}, sample: 1}, other.client.request(call{})).String(); k == base {
		t.Error("samples share a cache key")
	}
	// A damaged entry is ignored, not trusted.
	for k := range cache.m {
		cache.m[k] = "{not json"
	}
	if v := j.Judge(context.Background(), task); !v.OK() || v.Extra[ExtraCached] != nil {
		t.Errorf("damaged cache entry: %+v", v)
	}
}

func FuzzAddZeroTemperature(f *testing.F) {
	for _, s := range []string{`{"model":"m"}`, `{}`, `{ }`, `{ `, `[1]`, ``, `{"temperature":1}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		req, _ := http.NewRequest("POST", "http://x/v1", strings.NewReader(in))
		if err := addZeroTemperature(req); err != nil {
			t.Fatal(err)
		}
		body, _ := req.GetBody()
		var b strings.Builder
		_, _ = io.Copy(&b, body)
		out := b.String()
		if int64(len(out)) != req.ContentLength {
			t.Fatalf("length %d, ContentLength %d", len(out), req.ContentLength)
		}
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(in), &m) != nil || strings.Contains(in, `"temperature":`) {
			return
		}
		if err := json.Unmarshal([]byte(out), &m); err != nil || string(m["temperature"]) != "0" {
			t.Fatalf("%s became %s (%v)", in, out, err)
		}
	})
}
