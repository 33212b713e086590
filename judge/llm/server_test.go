package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// testKey is the API key the tests use; no verdict, error or cache key
// may ever contain it.
const testKey = "sk-test-SECRET-0123456789abcdef"

// fakeServer is an in-process OpenAI-compatible server speaking the real
// wire format of POST /v1/chat/completions.
type fakeServer struct {
	*httptest.Server
	// reply answers request number n (0-based); it may write anything.
	reply  func(w http.ResponseWriter, r *http.Request, req chatRequest, n int)
	hits   atomic.Int64
	mu     sync.Mutex
	bodies []string
	reqs   []chatRequest
	auth   []string
}

// chatRequest is what the tests read from a request body.
type chatRequest struct {
	Model          string           `json:"model"`
	Messages       []Message        `json:"messages"`
	Temperature    *float64         `json:"temperature"`
	MaxTokens      int              `json:"max_tokens"`
	Logprobs       bool             `json:"logprobs"`
	ResponseFormat *json.RawMessage `json:"response_format"`
}

func newFakeServer(t testing.TB, reply func(w http.ResponseWriter, r *http.Request, req chatRequest, n int)) *fakeServer {
	t.Helper()
	fs := &fakeServer{reply: reply}
	fs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(fs.hits.Add(1) - 1)
		body, _ := io.ReadAll(r.Body)
		var req chatRequest
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			writeError(w, http.StatusNotFound, "invalid_request_error", fmt.Sprintf("no route %s %s", r.Method, r.URL.Path))
			return
		}
		if err := json.Unmarshal(body, &req); err != nil {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "body is not JSON: "+err.Error())
			return
		}
		fs.mu.Lock()
		fs.bodies = append(fs.bodies, string(body))
		fs.reqs = append(fs.reqs, req)
		fs.auth = append(fs.auth, r.Header.Get("Authorization"))
		fs.mu.Unlock()
		fs.reply(w, r, req, n)
	}))
	t.Cleanup(fs.Close)
	return fs
}

func (fs *fakeServer) baseURL() string { return fs.URL + "/v1" }

func (fs *fakeServer) lastBody() string {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if len(fs.bodies) == 0 {
		return ""
	}
	return fs.bodies[len(fs.bodies)-1]
}

// completion is one answer of the fake model.
type completion struct {
	content   string
	reasoning string
	finish    string
	// logprob is given to every token; answerLogprob to tokens that are
	// YES, NO, true or false. Without withLogprobs no logprobs are sent.
	withLogprobs  bool
	logprob       float64
	answerLogprob float64
}

// fakePromptTokens is the prompt size the fake server reports: more than
// half of any test prompt's estimate, so that no answer looks truncated
// (promptEstimate).
const fakePromptTokens = 3000

// writeCompletion writes a chat.completion object as OpenAI does.
func writeCompletion(w http.ResponseWriter, model string, c completion) {
	finish := c.finish
	if finish == "" {
		finish = "stop"
	}
	msg := map[string]any{"role": "assistant", "content": c.content, "refusal": nil}
	if c.reasoning != "" {
		msg["reasoning_content"] = c.reasoning
	}
	choice := map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish}
	if c.withLogprobs {
		var toks []map[string]any
		for _, tok := range tokenize(c.content) {
			lp := c.logprob
			switch strings.ToLower(strings.Trim(tok, " \"*")) {
			case "yes", "no", "true", "false":
				lp = c.answerLogprob
			}
			toks = append(toks, map[string]any{"token": tok, "logprob": lp, "bytes": []int(bytesOf(tok)), "top_logprobs": []any{}})
		}
		choice["logprobs"] = map[string]any{"content": toks, "refusal": nil}
	}
	resp := map[string]any{
		"id":                 "chatcmpl-test",
		"object":             "chat.completion",
		"created":            time.Now().Unix(),
		"model":              model,
		"choices":            []any{choice},
		"usage":              map[string]any{"prompt_tokens": fakePromptTokens, "completion_tokens": 10, "total_tokens": fakePromptTokens + 10},
		"system_fingerprint": "fp_test",
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

func bytesOf(s string) []int {
	out := make([]int, len(s))
	for i := range len(s) {
		out[i] = int(s[i])
	}
	return out
}

// tokenize cuts text the way BPE tokenizers roughly do: a word with the
// space before it, punctuation on its own.
func tokenize(s string) []string {
	var toks []string
	start := 0
	for i := 1; i <= len(s); i++ {
		if i == len(s) {
			toks = append(toks, s[start:])
			break
		}
		c, prev := s[i], s[i-1]
		boundary := c == ' ' || c == '\n' || isPunct(c) || isPunct(prev) || prev == '\n'
		if boundary {
			toks = append(toks, s[start:i])
			start = i
		}
	}
	return toks
}

func isPunct(c byte) bool { return strings.IndexByte(`{}[]":,.*`, c) >= 0 }

// writeError writes an OpenAI error body.
func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}})
}

// answer replies with the same content to every request.
func answerWith(c completion) func(http.ResponseWriter, *http.Request, chatRequest, int) {
	return func(w http.ResponseWriter, _ *http.Request, req chatRequest, _ int) {
		writeCompletion(w, req.Model, c)
	}
}

// testConfig is a Config for a fake server, with tiny backoffs.
func testConfig(fs *fakeServer) Config {
	return Config{
		BaseURL:     fs.baseURL(),
		APIKey:      testKey,
		Model:       "judge-model",
		Concurrency: 4,
		Timeout:     2 * time.Second,
		Retry:       RetryPolicy{Attempts: 3, BaseDelay: time.Millisecond, MaxDelay: 20 * time.Millisecond},
	}
}

func mustJudge(t testing.TB, name string, cfg Config) *Judge {
	t.Helper()
	j, err := NewCatalog().New(name, cfg)
	if err != nil {
		t.Fatalf("New(%q): %v", name, err)
	}
	return j
}

func testItem(id string) judge.Item {
	return judge.Item{
		ID:         id,
		Question:   "What organization launched the Hubble Space Telescope?",
		Gold:       "National Aeronautics and Space Administration.",
		Prediction: "NASA launched the Hubble Space Telescope in 1990.",
		Rubric:     []string{"Names NASA", "Gives the launch year"},
	}
}

// runAll judges tasks through judge.RunPool and collects the verdicts.
func runAll(t testing.TB, ctx context.Context, j judge.Judge, tasks []judge.Task, conc int) []judge.Verdict {
	t.Helper()
	var out []judge.Verdict
	for v := range judge.RunPool(ctx, j, tasks, judge.PoolOptions{Concurrency: conc}) {
		out = append(out, v)
	}
	return out
}

// assertNoKey fails if the API key appears anywhere in a verdict.
func assertNoKey(t testing.TB, vs ...judge.Verdict) {
	t.Helper()
	for _, v := range vs {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), testKey) {
			t.Errorf("verdict for %s holds the API key: %s", v.ItemID, b)
		}
	}
}
