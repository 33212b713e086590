package cost_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/catalog"
	"github.com/gavel-dev/gavel/judge/cost"
	"github.com/gavel-dev/gavel/judge/llm"
)

// logServer is a fault-free OpenAI-compatible server that keeps the body
// of every chat request it answers: the request log a count is checked
// against.
type logServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
}

func newLogServer(t *testing.T) *logServer {
	t.Helper()
	s := &logServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, body)
		n := len(s.bodies)
		s.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{
			"id": fmt.Sprint("c", n), "object": "chat.completion", "created": 1, "model": "m",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": "reason: fine.\nresult: YES\nscore: 1.0"}}},
			// The whole prompt, read: bytes are more than its tokens.
			"usage": map[string]any{"prompt_tokens": len(body), "completion_tokens": 5},
		})
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *logServer) take() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.bodies
	s.bodies = nil
	return b
}

// mapCache is a response cache in memory.
type mapCache struct {
	mu sync.Mutex
	m  map[string]string
}

func (c *mapCache) Get(k string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *mapCache) Put(k, v string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[k] = v
}

func items() []judge.Item {
	return []judge.Item{
		{ID: "a", Question: "What is 2+2?", Gold: "4", Prediction: "It is 4.", Rubric: []string{"says 4", "is polite"}},
		{ID: "b", Question: "Capital of France?", Gold: "Paris", Prediction: "Paris, of course.", Rubric: []string{"names Paris"}},
		{ID: "c", Question: "Name a prime.", Gold: "7", Prediction: "", Rubric: []string{"gives a prime", "explains", "is short"}},
		{ID: "d", Question: "Which is better?", ResponseA: "Answer one.", ResponseB: "Answer two, longer."},
		{ID: "e", Question: "Spell cat.", Gold: "cat", Prediction: "c-a-t", Rubric: []string{"spells it"}},
	}
}

// The check: what Count says a run sends is what a fault-free
// server then receives from the real run — the same number of requests
// and the same prompts — with cached answers, rubric criteria, samples,
// items the prompt cannot be made for and a judge file's own max tokens.
func TestCountEqualsTheRequestsARunSends(t *testing.T) {
	cases := []struct {
		judge     string
		samples   int
		maxTokens int
		swap      bool
		warm      int // tasks judged first, so that their answers are cached
	}{
		{judge: "rubric", samples: 1, warm: 2},
		{judge: "rubric", samples: 3, maxTokens: 40, warm: 3},
		{judge: "docqa", samples: 2, maxTokens: 64, warm: 1},
		{judge: "quality", samples: 1},
		{judge: "pairwise", samples: 2, swap: true, warm: 1},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/samples=%d", tc.judge, tc.samples), func(t *testing.T) {
			srv := newLogServer(t)
			cache := &mapCache{m: map[string]string{}}
			cfg := llm.Config{BaseURL: srv.URL + "/v1", Model: "gpt-4o-mini", Samples: tc.samples, MaxTokens: tc.maxTokens, Cache: cache, Concurrency: 3}
			client, err := llm.NewClient(cfg)
			if err != nil {
				t.Fatal(err)
			}
			j, err := catalog.New().Build(tc.judge, cfg, client)
			if err != nil {
				t.Fatal(err)
			}
			var tasks []judge.Task
			for _, it := range items() {
				tasks = append(tasks, judge.TasksFor(j.Info(), it, tc.swap)...)
			}
			ctx := context.Background()
			for range judge.RunPool(ctx, j, tasks[:tc.warm], judge.PoolOptions{Concurrency: 2}) {
			}
			warmed := len(srv.take())

			e, err := cost.Count(ctx, j, tasks, cost.Options{Cache: cache, Concurrency: 2})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(srv.take()); got != 0 {
				t.Fatalf("counting sent %d requests", got)
			}
			for range judge.RunPool(ctx, j, tasks, judge.PoolOptions{Concurrency: 3}) {
			}
			sent := srv.take()
			t.Logf("%d tasks, %d requests, %d cached, %d skipped; %+v", e.Tasks, e.Requests, e.Cached, e.Skipped, e.Models)
			if e.Requests != len(sent) {
				t.Errorf("Count says %d requests, the run sent %d", e.Requests, len(sent))
			}
			if want := (e.Tasks-e.Skipped)*tc.samples - len(sent); e.Cached != want || e.Cached != warmed {
				t.Errorf("Cached = %d, want %d (and the %d answers the warm-up put in the cache)", e.Cached, want, warmed)
			}
			// The same prompts: the server's log, counted on its own.
			log := cost.NewTally()
			for _, b := range sent {
				req, _ := http.NewRequest(http.MethodPost, "http://x/v1/chat/completions", bytesReader(b))
				log.RoundTrip(req)
			}
			got, _ := e.PromptTokens()
			var want int64
			for _, m := range log.Models() {
				want += m.PromptTokens
			}
			if got != want || want == 0 {
				t.Errorf("Count says %d prompt tokens, the requests sent hold %d", got, want)
			}
			out, bounded := e.MaxOutput()
			if bounded != (tc.maxTokens > 0) || out != int64(tc.maxTokens*len(sent)) {
				t.Errorf("MaxOutput = %d, %t; want %d, %t", out, bounded, tc.maxTokens*len(sent), tc.maxTokens > 0)
			}
		})
	}
}

// The offline judge sends nothing and says so.
func TestCountOfflineJudge(t *testing.T) {
	j, err := catalog.New().Build("match", llm.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := cost.Count(context.Background(), j, []judge.Task{{Item: items()[0]}}, cost.Options{})
	if err != nil || !e.Offline || e.Requests != 0 || e.Tasks != 1 {
		t.Errorf("Count(match) = %+v, %v", e, err)
	}
}

// A re-judge (no cache given) counts every sample, cached or not.
func TestCountWithoutCacheCountsEverySample(t *testing.T) {
	srv := newLogServer(t)
	cache := &mapCache{m: map[string]string{}}
	cfg := llm.Config{BaseURL: srv.URL + "/v1", Model: "qwen2.5-7b", Samples: 2, Cache: cache}
	client, _ := llm.NewClient(cfg)
	j, err := catalog.New().Build("docqa", cfg, client)
	if err != nil {
		t.Fatal(err)
	}
	tasks := []judge.Task{{Item: items()[0]}, {Item: items()[1]}}
	for range judge.RunPool(context.Background(), j, tasks, judge.PoolOptions{Concurrency: 1}) {
	}
	e, err := cost.Count(context.Background(), j, tasks, cost.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if e.Requests != 4 || e.Cached != 0 {
		t.Errorf("requests %d, cached %d; want 4, 0", e.Requests, e.Cached)
	}
	if _, exact := e.PromptTokens(); exact {
		t.Error("qwen2.5-7b's tokens are an estimate, not exact")
	}
}

// A cancelled count says so.
func TestCountCancelled(t *testing.T) {
	cfg := llm.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "gpt-4o"}
	client, _ := llm.NewClient(cfg)
	j, _ := catalog.New().Build("docqa", cfg, client)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := cost.Count(ctx, j, []judge.Task{{Item: items()[0]}}, cost.Options{}); err == nil {
		t.Error("a cancelled count returned no error")
	}
}

// Above Options.Exact prompts the tokens are counted on a sample: the
// requests stay exact.
func TestCountSamplesTheTokensOfALargeRun(t *testing.T) {
	cfg := llm.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "gpt-4o", Samples: 2}
	client, _ := llm.NewClient(cfg)
	j, err := catalog.New().Build("docqa", cfg, client)
	if err != nil {
		t.Fatal(err)
	}
	var tasks []judge.Task
	for i := range 300 {
		tasks = append(tasks, judge.Task{Item: judge.Item{ID: fmt.Sprint(i), Question: fmt.Sprintf("What is %d+%d?", i, i), Gold: fmt.Sprint(2 * i), Prediction: fmt.Sprintf("It is %d.", 2*i)}})
	}
	all, err := cost.Count(context.Background(), j, tasks, cost.Options{Exact: -1})
	if err != nil {
		t.Fatal(err)
	}
	some, err := cost.Count(context.Background(), j, tasks, cost.Options{Exact: 60})
	if err != nil {
		t.Fatal(err)
	}
	a, s := all.Models[0], some.Models[0]
	if a.Requests != 600 || s.Requests != 600 || !a.Exact || a.Counted != 600 || s.Exact || s.Counted >= 600 || s.Counted == 0 {
		t.Errorf("all: %+v\nsome: %+v", a, s)
	}
	if d := float64(s.PromptTokens-a.PromptTokens) / float64(a.PromptTokens); d < -0.02 || d > 0.02 {
		t.Errorf("sampled %d tokens, all %d", s.PromptTokens, a.PromptTokens)
	}
	// Counted on some of the tasks (a run about to start): scaled to all.
	few, err := cost.Count(context.Background(), j, tasks, cost.Options{SampleTasks: 40})
	if err != nil {
		t.Fatal(err)
	}
	f := few.Models[0]
	if few.Tasks != 300 || few.Sampled < 20 || few.Sampled > 80 || few.Requests != 600 || f.Exact {
		t.Errorf("sampled tasks: %+v", few)
	}
	if d := float64(f.PromptTokens-a.PromptTokens) / float64(a.PromptTokens); d < -0.05 || d > 0.05 {
		t.Errorf("tasks sampled: %d tokens, all %d", f.PromptTokens, a.PromptTokens)
	}
	if l := (cost.Render{}).Lines(few)[0]; !strings.HasPrefix(l, fmt.Sprintf("requests: about 600 for 300 tasks (counted on %d of them)", few.Sampled)) {
		t.Errorf("line %q", l)
	}
}

// The same prompt in several tasks (items with other ids and the same
// text) is sent once — the client waits for the first and answers the
// others from the cache, as the Batch API path sends one line per key —
// and counted once; without a cache (a re-judge) every copy is sent and
// counted.
func TestCountRepeatedPrompts(t *testing.T) {
	for _, cached := range []bool{true, false} {
		t.Run(fmt.Sprintf("cache=%t", cached), func(t *testing.T) {
			srv := newLogServer(t)
			cache := &mapCache{m: map[string]string{}}
			cfg := llm.Config{BaseURL: srv.URL + "/v1", Model: "gpt-4o-mini", Samples: 2, Concurrency: 4}
			if cached {
				cfg.Cache = cache
			}
			client, err := llm.NewClient(cfg)
			if err != nil {
				t.Fatal(err)
			}
			j, err := catalog.New().Build("docqa", cfg, client)
			if err != nil {
				t.Fatal(err)
			}
			var tasks []judge.Task
			for i := range 8 {
				tasks = append(tasks, judge.Task{Item: judge.Item{ID: fmt.Sprintf("q%d", i), Question: "What is 1+1?", Gold: "2", Prediction: "It is 2."}})
			}
			tasks = append(tasks, judge.Task{Item: items()[1]})
			o := cost.Options{Concurrency: 3}
			if cached {
				o.Cache = cache
			}
			e, err := cost.Count(context.Background(), j, tasks, o)
			if err != nil {
				t.Fatal(err)
			}
			for range judge.RunPool(context.Background(), j, tasks, judge.PoolOptions{Concurrency: 4}) {
			}
			sent := len(srv.take())
			want := 4 // two prompts, two samples each
			if !cached {
				want = 18
			}
			if e.Requests != want || sent != want {
				t.Errorf("Count says %d requests, the run sent %d; want %d", e.Requests, sent, want)
			}
		})
	}
}
