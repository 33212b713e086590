package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// What a dialect fixture must lead to.
type outcome int

const (
	// itemFails: this item ends api_error after one request; the run goes on.
	itemFails outcome = iota
	// waits: the run pauses while the server answers so, then the item is
	// judged, with no try of its own spent.
	waits
	// stops: the run stops at once (a FatalError).
	stops
)

func (o outcome) String() string { return [...]string{"item fails", "waits", "stops"}[o] }

// dialectFixture is one error body as a server really writes it.
type dialectFixture struct {
	name   string
	status int
	ctype  string
	body   string
	// model is --model (default "judge-model"); noV1 sends to the server's
	// root instead of /v1.
	model string
	noV1  bool
	// models is what GET /v1/models lists; nil answers 404.
	models []Model
	want   outcome
	// says are what the error must say (the counts, the fix).
	says []string
	// never are what it must not say.
	never []string
}

// ollamaDoubleEncoded is Ollama's /v1 body for a prompt over num_ctx: its
// llama-server runner's error body (llama.cpp's exceed_context_size_error)
// becomes Ollama's native {"error":"<that body as a string>"} (as reported
// in continuedev/continue#12735), which middleware/openai.go writeError
// wraps again as openai.NewError(400, serr.Error()).
var ollamaDoubleEncoded = func() string {
	inner := `{"error":{"code":400,"message":"request (42947 tokens) exceeds the available context size (8192 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":42947,"n_ctx":8192}}`
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": inner, "type": "invalid_request_error", "param": nil, "code": nil}})
	return string(b)
}()

var dialectFixtures = []dialectFixture{
	// OpenAI (as quoted in mckaywrigley/chatbot-ui#102).
	{name: "OpenAI context_length_exceeded", status: 400,
		body: `{"error":{"message":"This model's maximum context length is 4097 tokens. However, you requested 4120 tokens (3120 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
		want: itemFails, says: []string{"3120 prompt tokens and 1000 for the answer (--max-tokens), over OpenAI's 4097", "lower --max-tokens to 977 or less", "longer context"}},
	{name: "OpenAI 401 invalid_api_key", status: 401,
		body: `{"error":{"message":"Incorrect API key provided: sk-wrong. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
		want: stops, says: []string{"refused the API key", "check --api-key or OPENAI_API_KEY"}},
	{name: "OpenAI 404 model_not_found", status: 404, model: "gpt-5-turbo",
		body:   "{\"error\":{\"message\":\"The model `gpt-5-turbo` does not exist or you do not have access to it.\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"model_not_found\"}}",
		models: []Model{{ID: "gpt-4o"}, {ID: "gpt-4o-mini"}},
		want:   stops, says: []string{`no model "gpt-5-turbo"`, "gpt-4o, gpt-4o-mini", "gavel models"}},

	// llama.cpp llama-server (tools/server: format_error_response; the
	// exceed_context_size_error of PR #15780, answered 400 since, as the
	// issue's llama-server did and oobabooga/textgen#7257 quotes).
	{name: "llama.cpp exceed_context_size_error", status: 400,
		body: `{"error":{"code":400,"message":"request (1739 tokens) exceeds the available context size (512 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":1739,"n_ctx":512}}`,
		want: itemFails, says: []string{"1739 prompt tokens, llama.cpp's context holds 512", "start llama-server with --ctx-size 2048 or more (-c)"}, never: []string{"--no-response-format"}},
	{name: "llama.cpp exceed_context_size_error as HTTP 500 (PR #15780)", status: 500,
		body: `{"error":{"code":500,"message":"the request exceeds the available context size. try increasing the context size or enable context shift","type":"exceed_context_size_error","n_prompt_tokens":1407,"n_ctx":256}}`,
		want: itemFails, says: []string{"1407 prompt tokens, llama.cpp's context holds 256", "--ctx-size 2048 or more"}},
	{name: "llama.cpp 503 Loading model", status: 503,
		body: `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`,
		want: waits, says: []string{"loading its model", "Loading model"}},

	// vLLM (vllm/entrypoints/openai: ErrorResponse; serving_engine's
	// _validate_input wording). The flat shape is older vLLM's, as in
	// vllm-project/vllm issues' curl output; {"error":{…}} is newer vLLM's.
	{name: "vLLM flat, messages and completion", status: 400,
		body: `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`,
		want: itemFails, says: []string{"4000 prompt tokens and 1000 for the answer (--max-tokens), over vLLM's 4096", "lower --max-tokens to 96 or less", "--max-model-len 8192 (or more), up to what the model supports"}},
	{name: "vLLM flat, messages alone", status: 400,
		body: `{"object":"error","message":"This model's maximum context length is 2048 tokens. However, you requested 2300 tokens in the messages, Please reduce the length of the messages.","type":"BadRequestError","param":null,"code":400}`,
		want: itemFails, says: []string{"2300 prompt tokens, vLLM's context holds 2048", "--max-model-len 4096 (or more)"}},
	// Newer vLLM, as quoted in andrewcho-dev/opsconductor-ng vLLM_transition/TOKEN_LIMIT_FIX.md.
	{name: "vLLM error object, max_tokens too large", status: 400,
		body: `{"error":{"message":"'max_tokens' or 'max_completion_tokens' is too large: 8000. This model's maximum context length is 4096 tokens and your request has 2778 input tokens (8000 > 4096 - 2778). None","type":"BadRequestError","param":null,"code":400}}`,
		want: stops, says: []string{"the answer's room (max_tokens 8000) alone is over the model's context of 4096 tokens", "lower --max-tokens below 4096"}},
	{name: "vLLM error object, max_tokens pushes it over", status: 400,
		body: `{"error":{"message":"'max_tokens' or 'max_completion_tokens' is too large: 1000. This model's maximum context length is 4096 tokens and your request has 3500 input tokens (1000 > 4096 - 3500). None","type":"BadRequestError","param":null,"code":400}}`,
		want: itemFails, says: []string{"3500 prompt tokens and 1000 for the answer (--max-tokens), over vLLM's 4096", "lower --max-tokens to 596 or less", "--max-model-len 8192 (or more)"}},

	// Hugging Face text-generation-inference (router/src/validation.rs
	// ValidationError, as InferError's "Input validation error: {0}",
	// HTTP 422 with error_type "validation").
	{name: "TGI 422 inputs + max_new_tokens", status: 422,
		body: "{\"error\":\"Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4838 `inputs` tokens and 512 `max_new_tokens`\",\"error_type\":\"validation\"}",
		want: itemFails, says: []string{"4838 prompt tokens, TGI's context holds 4096", "--max-total-tokens 8192 or more"}, never: []string{"--no-response-format", "Ollama"}},
	{name: "TGI 422 inputs + max_new_tokens, the answer pushes it over", status: 422,
		body: "{\"error\":\"Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 3900 `inputs` tokens and 512 `max_new_tokens`\",\"error_type\":\"validation\"}",
		want: itemFails, says: []string{"3900 prompt tokens and 512 for the answer (--max-tokens), over TGI's 4096", "lower --max-tokens to 196 or less"}},
	{name: "TGI 422 inputs too long (older wording)", status: 422,
		body: `{"error":"Input validation error: inputs must have less than 1000 tokens. Given: 1534","error_type":"validation"}`,
		want: itemFails, says: []string{"1534 prompt tokens, TGI's context holds 1000", "--max-input-tokens"}},
	{name: "TGI 422 inputs too long", status: 422,
		body: "{\"error\":\"Input validation error: `inputs` must have less than 4095 tokens. Given: 6000\",\"error_type\":\"validation\"}",
		want: itemFails, says: []string{"6000 prompt tokens, TGI's context holds 4095"}},
	{name: "TGI 422 answer room alone over the context", status: 422,
		body: "{\"error\":\"Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 300 `inputs` tokens and 8000 `max_new_tokens`\",\"error_type\":\"validation\"}",
		want: stops, says: []string{"lower --max-tokens below 4096"}},
	// A proxy's limit on the body's bytes (nginx's own page).
	{name: "nginx 413", status: 413, ctype: "text/html",
		body: "<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx/1.24.0</center>\r\n</body>\r\n</html>\r\n",
		want: itemFails, says: []string{"refused the request body as too large", "not the model's context", "client_max_body_size"}, never: []string{"--ctx-size", "num_ctx"}},
	{name: "vLLM flat 404 model", status: 404, model: "Llama-3.1-8B-Instruct",
		body:   "{\"object\":\"error\",\"message\":\"The model `Llama-3.1-8B-Instruct` does not exist.\",\"type\":\"NotFoundError\",\"param\":null,\"code\":404}",
		models: []Model{{ID: "meta-llama/Llama-3.1-8B-Instruct", OwnedBy: "vllm", Context: 8192}},
		want:   stops, says: []string{`no model "Llama-3.1-8B-Instruct"`, "use --model meta-llama/Llama-3.1-8B-Instruct"}},
	{name: "vLLM error object 404 model", status: 404, model: "qwen2.5-7b",
		body:   "{\"error\":{\"message\":\"The model `qwen2.5-7b` does not exist.\",\"type\":\"NotFoundError\",\"param\":\"model\",\"code\":404}}",
		models: []Model{{ID: "Qwen/Qwen2.5-7B-Instruct", OwnedBy: "vllm", Context: 32768}},
		want:   stops, says: []string{`no model "qwen2.5-7b"`, "use --model Qwen/Qwen2.5-7B-Instruct"}},
	// FastAPI's own 404 when the base URL lacks /v1.
	{name: "vLLM 404 without /v1", status: 404, noV1: true, body: `{"detail":"Not Found"}`,
		models: []Model{{ID: "judge-model", OwnedBy: "vllm"}},
		want:   stops, says: []string{"no chat endpoint at", "/chat/completions", "add /v1 to --base-url: the server answers at", "/v1"}},

	// Ollama (openai/openai.go NewError, middleware/openai.go writeError).
	// Older Ollama typed every error api_error; newer types a 404
	// not_found_error.
	{name: "Ollama 404 model not found", status: 404, model: "llama3.1",
		body:   `{"error":{"message":"model \"llama3.1\" not found, try pulling it first","type":"api_error","param":null,"code":null}}`,
		models: []Model{{ID: "llama3.1:8b", OwnedBy: "library"}, {ID: "qwen2.5:7b", OwnedBy: "library"}},
		want:   stops, says: []string{`no model "llama3.1"`, "use --model llama3.1:8b", "ollama pull llama3.1"}},
	{name: "Ollama 404 not_found_error, no list", status: 404, model: "qwen3",
		body: `{"error":{"message":"model \"qwen3\" not found, try pulling it first","type":"not_found_error","param":null,"code":null}}`,
		want: stops, says: []string{`no model "qwen3"`, "ollama pull qwen3"}},
	{name: "Ollama double-encoded 400", status: 400, body: ollamaDoubleEncoded,
		want: itemFails, says: []string{"42947 prompt tokens, Ollama's context holds 8192", "num_ctx to 65536 or more: PARAMETER num_ctx 65536", "OLLAMA_CONTEXT_LENGTH=65536"}, never: []string{"--no-response-format"}},
	// Gin's own 404 (text/plain) when the base URL lacks /v1.
	{name: "Ollama 404 without /v1", status: 404, ctype: "text/plain", noV1: true, body: "404 page not found",
		models: []Model{{ID: "judge-model", OwnedBy: "library"}},
		want:   stops, says: []string{"no chat endpoint at", "add /v1 to --base-url"}},
}

// dialectServer answers chat requests with the fixture (the first five only
// when want is waits, then a verdict) and GET /v1/models with its list.
func dialectServer(t *testing.T, f dialectFixture) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var chats atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/v1/models" && f.models != nil:
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": f.models})
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions"):
			n := chats.Add(1)
			if f.want == waits && n > 5 {
				writeCompletion(w, "m", completion{content: "reason: ok\nresult: YES"})
				return
			}
			ct := f.ctype
			if ct == "" {
				ct = "application/json"
			}
			w.Header().Set("Content-Type", ct)
			w.WriteHeader(f.status)
			fmt.Fprint(w, f.body)
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"detail":"Not Found"}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &chats
}

// Every fixture goes through a real HTTP round trip to a server answering
// with that status and body, and ends as its dialect means.
func TestDialects(t *testing.T) {
	for _, f := range dialectFixtures {
		t.Run(f.name, func(t *testing.T) {
			srv, chats := dialectServer(t, f)
			cfg := Config{BaseURL: srv.URL + "/v1", APIKey: testKey, Model: "judge-model", Concurrency: 1, Timeout: 5 * time.Second,
				Retry: RetryPolicy{Attempts: 3, BaseDelay: time.Millisecond, MaxDelay: 20 * time.Millisecond}}
			if f.model != "" {
				cfg.Model = f.model
			}
			if f.noV1 {
				cfg.BaseURL = srv.URL
			}
			log := &healthLog{}
			cfg.OnHealth = log.add
			j := mustJudge(t, "docqa", cfg)
			ctx, cancel := StopOnFatal(context.Background())
			defer cancel()
			v := runWithin(t, 20*time.Second, func() []judge.Verdict {
				return []judge.Verdict{j.Judge(ctx, judge.Task{Item: testItem("1")})}
			})[0]
			got := v.Error
			switch f.want {
			case itemFails:
				if v.Status != judge.StatusAPIError || FatalCause(ctx) != nil || j.Client().Fatal() != nil {
					t.Fatalf("%s %q, fatal %v; want this item to fail and the run to go on", v.Status, v.Error, j.Client().Fatal())
				}
				if !strings.HasPrefix(got, TooLongPrefix) && f.status != http.StatusRequestEntityTooLarge {
					t.Errorf("error %q does not start %q", got, TooLongPrefix)
				}
				if n := chats.Load(); n != 1 {
					t.Errorf("%d requests; a prompt too long is not retried", n)
				}
			case waits:
				if !v.OK() || FatalCause(ctx) != nil {
					t.Fatalf("%s %q; want the run to wait, then judge", v.Status, v.Error)
				}
				// Five answers so, and the item has 3 tries: the wait
				// spent none of them.
				if n := chats.Load(); n != 6 {
					t.Errorf("%d requests, want 6", n)
				}
				hs := log.all()
				if len(hs) == 0 || !hs[0].NotAnswering {
					t.Fatalf("OnHealth reported %+v; want a pause", hs)
				}
				if line := hs[0].String(); !strings.Contains(line, "has been loading its model for") {
					t.Errorf("health line %q", line)
				}
				got = hs[0].Last
			case stops:
				f := FatalCause(ctx)
				if f == nil {
					t.Fatalf("%s %q; want the run stopped", v.Status, v.Error)
				}
				got = f.Error()
			}
			for _, s := range f.says {
				if !strings.Contains(got, s) {
					t.Errorf("%s: %q lacks %q", f.want, got, s)
				}
			}
			for _, s := range f.never {
				if strings.Contains(got, s) {
					t.Errorf("%q says %q", got, s)
				}
			}
			assertNoKey(t, v)
		})
	}
}

func TestParseErrorBodyCounts(t *testing.T) {
	tests := []struct {
		body                             string
		kind                             string
		prompt, ctx, completion, request int
	}{
		{ollamaDoubleEncoded, serverOllama, 42947, 8192, 0, 0},
		{dialectFixtures[0].body, serverOpenAI, 3120, 4097, 1000, 4120},
		{`{"error":"model \"x\" not found, try pulling it first"}`, serverOllama, 0, 0, 0, 0},
		{`plain text`, "", 0, 0, 0, 0},
		{"{\"error\":\"Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4838 `inputs` tokens and 512 `max_new_tokens`\",\"error_type\":\"validation\"}", serverTGI, 4838, 4096, 512, 5350},
		{`{"error":"Input validation error: inputs must have less than 1000 tokens. Given: 1534","error_type":"validation"}`, serverTGI, 1534, 1000, 0, 0},
	}
	for _, tc := range tests {
		e := parseErrorBody([]byte(tc.body))
		if e.kind != tc.kind || e.promptTokens != tc.prompt || e.ctxTokens != tc.ctx || e.completion != tc.completion || e.requested != tc.request {
			t.Errorf("%.60s: %+v", tc.body, e)
		}
	}
}

func TestNearestModel(t *testing.T) {
	served := []string{"qwen2.5:latest", "llama3.1:8b", "meta-llama/Llama-3.1-8B-Instruct", "gpt-4o-mini"}
	tests := map[string]string{
		"qwen2.5":               "qwen2.5:latest", // x and x:latest are one model on Ollama
		"Qwen2.5:latest":        "qwen2.5:latest",
		"llama3.1":              "llama3.1:8b",
		"Llama-3.1-8B-Instruct": "meta-llama/Llama-3.1-8B-Instruct",
		"gpt-4o-mimi":           "gpt-4o-mini",
		"mistral":               "",
	}
	for asked, want := range tests {
		if got := nearestModel(asked, served); got != want {
			t.Errorf("nearestModel(%q) = %q, want %q", asked, got, want)
		}
	}
}
