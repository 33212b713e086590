package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gavel-dev/gavel/judge/llm"
)

// llamaServer answers like llama.cpp's llama-server with a context of
// nctx tokens: GET /props (default_generation_settings.n_ctx), GET
// /v1/models (owned_by llamacpp), and chat completions, refusing a prompt
// over its context as llama-server does (HTTP 400
// exceed_context_size_error, counting a word as a token). It records the
// questions it was asked.
type llamaServer struct {
	*httptest.Server
	nctx  atomic.Int64
	chats atomic.Int64
	// loading is how many more requests get llama.cpp's 503 "Loading model".
	loading atomic.Int64
	mu      sync.Mutex
	asked   []string
}

var questionRe = regexp.MustCompile(`Question \d+`)

func newLlamaServer(t *testing.T, nctx int) *llamaServer {
	t.Helper()
	s := &llamaServer{}
	s.nctx.Store(int64(nctx))
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if s.loading.Add(-1) >= 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`)
			return
		}
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/props":
			json.NewEncoder(w).Encode(map[string]any{"default_generation_settings": map[string]any{"n_ctx": s.nctx.Load()}, "total_slots": 1, "model_path": "/models/qwen2.5-0.5b-instruct-q4_k_m.gguf"})
		case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
			json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": []any{map[string]any{"id": "qwen2.5-0.5b-instruct-q4_k_m.gguf", "object": "model", "owned_by": "llamacpp", "meta": map[string]any{"n_ctx_train": 32768}}}})
		case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
			s.chats.Add(1)
			var req struct {
				Model    string `json:"model"`
				Messages []struct {
					Content string `json:"content"`
				} `json:"messages"`
			}
			json.NewDecoder(r.Body).Decode(&req)
			words := 0
			prompt := ""
			for _, m := range req.Messages {
				words += len(strings.Fields(m.Content))
				prompt += m.Content
			}
			s.mu.Lock()
			s.asked = append(s.asked, questionRe.FindString(prompt))
			s.mu.Unlock()
			if n := s.nctx.Load(); int64(words) >= n {
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, `{"error":{"code":400,"message":"request (%d tokens) exceeds the available context size (%d tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":%d,"n_ctx":%d}}`, words, n, words, n)
				return
			}
			json.NewEncoder(w).Encode(map[string]any{
				"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": req.Model,
				"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
					"message": map[string]any{"role": "assistant", "content": "reason: compared with the standard answer.\nresult: YES"}}},
				"usage": map[string]any{"prompt_tokens": words + 20, "completion_tokens": 10, "total_tokens": words + 30},
			})
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":{"code":404,"message":"File Not Found","type":"not_found_error"}}`)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *llamaServer) questions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.asked...)
}

// A run over 20 items whose 5th and 12th exceed the server's context
// judges the other 18 and names the two with their token counts, never
// sending them; once the context is raised, the rerun sends only those two.
func TestRunSkipsItemsOverTheContext(t *testing.T) {
	srv := newLlamaServer(t, 2048)
	dir := t.TempDir()
	long := strings.Repeat("The telescope was launched by the agency in the spring of that year. ", 300) // 3600 words
	var b strings.Builder
	for i := range 20 {
		pred := fmt.Sprintf("It is %d.", 2*i)
		if i == 4 || i == 11 {
			pred = long
		}
		row, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("q%d", i+1), "question": fmt.Sprintf("Question %d: what is %d+%d?", i+1, i, i), "answer": fmt.Sprint(2 * i), "prediction": pred})
		b.Write(row)
		b.WriteByte('\n')
	}
	data := filepath.Join(dir, "data.jsonl")
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	session := filepath.Join(dir, "data.gavel")
	e, _, errb, _ := testEnv(t)
	argv := []string{"run", data, "--judge", "docqa", "--base-url", srv.URL + "/v1", "--model", "qwen", "--session", session, "--concurrency", "2"}
	if code := execute(context.Background(), e, argv); code != 1 {
		t.Fatalf("exit %d, want 1 (two items left); stderr:\n%s", code, errb)
	}
	out := errb.String()
	for _, want := range []string{
		"is llama.cpp, with a context of 2048 tokens per request (default_generation_settings.n_ctx, GET /props)",
		"18 ok",
		"2 items are too long for the server's context, not judged (the next run tries them again):",
		"q5: about ",
		"q12: about ",
		"tokens at least (a deliberately low estimate), llama.cpp's context holds 2048",
		"To judge them: start llama-server with --ctx-size 8192 or more (-c)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %q:\n%s", want, out)
		}
	}
	if n := srv.chats.Load(); n != 18 {
		t.Errorf("%d chat requests, want 18: the two long items are not sent", n)
	}
	for _, q := range srv.questions() {
		if q == "Question 5" || q == "Question 12" {
			t.Errorf("%s was sent to a server whose context cannot hold it", q)
		}
	}

	// The context raised (llama-server -c 16384), the same command tries
	// only those two.
	srv.nctx.Store(16384)
	before := len(srv.questions())
	errb.Reset()
	if code := execute(context.Background(), e, argv); code != 0 {
		t.Fatalf("rerun: exit %d; stderr:\n%s", code, errb)
	}
	asked := srv.questions()[before:]
	if len(asked) != 2 || !(asked[0] == "Question 5" && asked[1] == "Question 12" || asked[0] == "Question 12" && asked[1] == "Question 5") {
		t.Errorf("the rerun asked %q, want Question 5 and Question 12", asked)
	}
	if !strings.Contains(errb.String(), "2 ok") || strings.Contains(errb.String(), "too long") {
		t.Errorf("rerun stderr:\n%s", errb)
	}
}

// Without the pre-run check (a server that does not tell its context), the
// server's own refusal fails those items alone, with its token counts; the
// run goes on.
func TestServerRefusalFailsTheItemAlone(t *testing.T) {
	srv := newLlamaServer(t, 2048)
	// A proxy in front that hides /props and /v1/models.
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		srv.Config.Handler.ServeHTTP(w, r)
	}))
	defer front.Close()
	dir := t.TempDir()
	rows := []string{
		`{"id":"a","question":"Question 1: short?","answer":"1","prediction":"1"}`,
		fmt.Sprintf(`{"id":"b","question":"Question 2: long?","answer":"2","prediction":%q}`, strings.Repeat("word ", 3000)),
		`{"id":"c","question":"Question 3: short?","answer":"3","prediction":"3"}`,
	}
	data := filepath.Join(dir, "d.jsonl")
	os.WriteFile(data, []byte(strings.Join(rows, "\n")+"\n"), 0o644)
	e, _, errb, _ := testEnv(t)
	argv := []string{"run", data, "--judge", "docqa", "--base-url", front.URL + "/v1", "--model", "m", "--session", filepath.Join(dir, "d.gavel"), "--concurrency", "1"}
	if code := execute(context.Background(), e, argv); code != 1 {
		t.Fatalf("exit %d; stderr:\n%s", code, errb)
	}
	out := errb.String()
	for _, want := range []string{"2 ok", "1 item is too long", "b: 3", "prompt tokens, llama.cpp's context holds 2048", "--ctx-size"} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "is llama.cpp, with a context") || strings.Contains(out, "--no-response-format") {
		t.Errorf("stderr:\n%s", out)
	}
}

func TestModelsCommand(t *testing.T) {
	srv := newLlamaServer(t, 4096)
	e, out, errb, _ := testEnv(t)
	if code := execute(context.Background(), e, []string{"models", "--base-url", srv.URL + "/v1", "--model", "qwen2.5-0.5b-instruct-q4_k_m"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	for _, want := range []string{"1 model at " + srv.URL + "/v1 (llama.cpp):", "  qwen2.5-0.5b-instruct-q4_k_m.gguf", "Context: 4096 tokens per request", "--ctx-size", "the nearest name is qwen2.5-0.5b-instruct-q4_k_m.gguf"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}

	// vLLM: each model's max_model_len.
	vllm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"detail":"Not Found"}`)
			return
		}
		fmt.Fprint(w, `{"object":"list","data":[{"id":"Qwen/Qwen2.5-7B-Instruct","object":"model","created":1,"owned_by":"vllm","root":"Qwen/Qwen2.5-7B-Instruct","parent":null,"max_model_len":32768,"permission":[]}]}`)
	}))
	defer vllm.Close()
	out.Reset()
	if code := execute(context.Background(), e, []string{"models", "--base-url", vllm.URL + "/v1"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if !strings.Contains(out.String(), "(vLLM):") || !strings.Contains(out.String(), "Qwen/Qwen2.5-7B-Instruct  (context 32768 tokens, max_model_len)") {
		t.Errorf("stdout:\n%s", out)
	}

	// Without /v1: the error says to add it.
	errb.Reset()
	if code := execute(context.Background(), e, []string{"models", "--base-url", vllm.URL}); code != 1 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if !strings.Contains(errb.String(), "HTTP 404") || !strings.Contains(errb.String(), "the server answers at "+vllm.URL+"/v1: add /v1 to --base-url") {
		t.Errorf("stderr: %s", errb)
	}
}

// A server still loading its model when the run starts: the run waits for
// it before judging, and then checks the context as usual.
func TestRunWaitsForALoadingServerBeforeTheContextCheck(t *testing.T) {
	srv := newLlamaServer(t, 2048)
	srv.loading.Store(2) // GET /v1/models and /props of the first probe
	dir := t.TempDir()
	rows := []string{
		`{"id":"a","question":"Question 1: short?","answer":"1","prediction":"1"}`,
		fmt.Sprintf(`{"id":"b","question":"Question 2: long?","answer":"2","prediction":%q}`, strings.Repeat("word ", 3000)),
	}
	data := filepath.Join(dir, "d.jsonl")
	os.WriteFile(data, []byte(strings.Join(rows, "\n")+"\n"), 0o644)
	e, _, errb, _ := testEnv(t)
	argv := []string{"run", data, "--judge", "docqa", "--base-url", srv.URL + "/v1", "--model", "m", "--session", filepath.Join(dir, "d.gavel")}
	if code := execute(context.Background(), e, argv); code != 1 {
		t.Fatalf("exit %d; stderr:\n%s", code, errb)
	}
	for _, want := range []string{"is not ready (loading its model?): waiting for it", "with a context of 2048 tokens", "1 item is too long", "b: about "} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb)
		}
	}
	if n := srv.chats.Load(); n != 1 {
		t.Errorf("%d chat requests, want 1: the long item is not sent", n)
	}
}

// The review screen asks the server its context off the screen's
// goroutine (Options.Checks) and tells what it learned in the message
// log; without a model there is nothing to ask.
func TestServerCheckForTheReviewScreen(t *testing.T) {
	srv := newLlamaServer(t, 2048)
	client, err := llm.NewClient(llm.Config{BaseURL: srv.URL + "/v1", Model: "qwen"})
	if err != nil {
		t.Fatal(err)
	}
	msg, err := serverCheck(context.Background(), client)()
	if err != nil || !strings.Contains(msg, "is llama.cpp, with a context of 2048 tokens per request") || !strings.Contains(msg, "failed with its token counts") {
		t.Errorf("check: %q, %v", msg, err)
	}
	if srv.chats.Load() != 0 {
		t.Errorf("the check sent %d chat requests", srv.chats.Load())
	}
	if msg, err := serverCheck(context.Background(), nil)(); msg != "" || err != nil {
		t.Errorf("no client: %q, %v", msg, err)
	}
}
