package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// longItem is an item whose document is words words long: with the
// judge's instructions, more than a small context holds.
func longItem(id string, words int) judge.Item {
	it := testItem(id)
	it.Question = strings.Repeat("The telescope was carried into orbit by the shuttle Discovery. ", words/10) + it.Question
	return it
}

// realTokens is what a tokenizer makes of msgs, about: 1.3 tokens a word,
// plus a chat template's few per message.
func realTokens(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += len(strings.Fields(m.Content))*13/10 + 4
	}
	return n
}

// ollamaServer answers like Ollama's OpenAI-compatible endpoint
// (openai/openai.go toChatCompletion: usage is prompt_eval_count and
// eval_count, no prompt_tokens_details): a prompt longer than its context
// is cut from the front, the cut prompt answered 200, and prompt_tokens
// is what it read (ollama/ollama#3839, #3427). With zeroCached, a prompt
// it has seen before reports 0 prompt tokens, as Ollama did before
// ollama/ollama#5371 for a cached prompt (#5370).
type ollamaServer struct {
	*fakeServer
	ctx        atomic.Int64
	zeroCached bool
	mu         sync.Mutex
	seen       map[string]bool
}

func newOllamaServer(t *testing.T, ctx int, zeroCached bool) *ollamaServer {
	o := &ollamaServer{zeroCached: zeroCached, seen: map[string]bool{}}
	o.ctx.Store(int64(ctx))
	o.fakeServer = newFakeServer(t, func(w http.ResponseWriter, _ *http.Request, req chatRequest, _ int) {
		prompt := realTokens(req.Messages)
		read := min(prompt, int(o.ctx.Load()))
		key, _ := json.Marshal(req.Messages)
		o.mu.Lock()
		if o.zeroCached && o.seen[string(key)] {
			read = 0
		}
		o.seen[string(key)] = true
		o.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-245","object":"chat.completion","created":1732609000,"model":%q,"system_fingerprint":"fp_ollama","choices":[{"index":0,"message":{"role":"assistant","content":"reason: the question asks nothing.\nresult: NO"},"finish_reason":"stop"}],"usage":{"prompt_tokens":%d,"completion_tokens":12,"total_tokens":%d}}`,
			req.Model, read, read+12)
	})
	return o
}

// A server that cuts the prompt to its context without saying so gives
// truncated verdicts (values kept, the counts in the error, how to raise
// the context); they are never cached, so once its context is raised the
// same judge asks again and gets ok verdicts, which are cached.
func TestTruncatedBySilentServer(t *testing.T) {
	srv := newOllamaServer(t, 2048, false)
	cfg := testConfig(srv.fakeServer)
	cache := newMapCache()
	cfg.Cache = cache
	j := mustJudge(t, "docqa", cfg)
	tasks := []judge.Task{{Item: longItem("long", 6000)}, {Item: testItem("short")}}
	status := func() map[string]judge.Verdict {
		out := map[string]judge.Verdict{}
		for _, v := range runAll(t, context.Background(), j, tasks, 2) {
			out[v.ItemID] = v
		}
		return out
	}
	vs := status()
	long, short := vs["long"], vs["short"]
	if long.Status != judge.StatusTruncated || long.Values["correct"] != 0 || len(long.Values) != 1 {
		t.Fatalf("the long item: %s %v %q, want truncated with its value", long.Status, long.Values, long.Error)
	}
	for _, want := range []string{"the server read 2048 of about ", "num_ctx", "OLLAMA_CONTEXT_LENGTH", "--ctx-size"} {
		if !strings.Contains(long.Error, want) {
			t.Errorf("the error %q does not say %q", long.Error, want)
		}
	}
	if short.Status != judge.StatusOK {
		t.Errorf("the short item: %s %q", short.Status, short.Error)
	}
	if len(cache.m) != 1 {
		t.Errorf("%d answers cached, want 1: a truncated one is never cached", len(cache.m))
	}

	// The same run again: the truncated one is asked again (the server
	// still truncates), the short one comes from the cache.
	hits := srv.hits.Load()
	if vs = status(); vs["long"].Status != judge.StatusTruncated || srv.hits.Load() != hits+1 {
		t.Errorf("again: %s, %d requests, want truncated and 1", vs["long"].Status, srv.hits.Load()-hits)
	}

	// The context raised: asked again, now ok, and cached.
	srv.ctx.Store(32768)
	hits = srv.hits.Load()
	if vs = status(); vs["long"].Status != judge.StatusOK || srv.hits.Load() != hits+1 {
		t.Errorf("after the context was raised: %s %q, %d requests", vs["long"].Status, vs["long"].Error, srv.hits.Load()-hits)
	}
	hits = srv.hits.Load()
	if vs = status(); vs["long"].Status != judge.StatusOK || srv.hits.Load() != hits {
		t.Errorf("third run: %s, %d requests, want every answer from the cache", vs["long"].Status, srv.hits.Load()-hits)
	}

	// A cached answer that reads as truncated (as one written before
	// truncation was known could) is not served.
	for k, v := range cache.m {
		var r cachedAnswer
		if err := json.Unmarshal([]byte(v), &r); err != nil {
			t.Fatal(err)
		}
		if r.PromptTokens > 5000 {
			r.PromptTokens = 100
			b, _ := json.Marshal(r)
			cache.m[k] = string(b)
		}
	}
	srv.ctx.Store(2048)
	hits = srv.hits.Load()
	// A new run (a new client: this one has seen the server read the long
	// prompt whole, and would take a small count for its prefix cache).
	j = mustJudge(t, "docqa", cfg)
	if vs = status(); vs["long"].Status != judge.StatusTruncated || srv.hits.Load() != hits+1 {
		t.Errorf("a truncated answer in the cache: %s, %d requests, want it asked again", vs["long"].Status, srv.hits.Load()-hits)
	}
}

// Ollama versions that report 0 prompt tokens for a prompt they had
// cached give no truncated verdict: 0 is unknown.
func TestZeroPromptTokensAreUnknown(t *testing.T) {
	srv := newOllamaServer(t, 1<<20, true)
	j := mustJudge(t, "docqa", testConfig(srv.fakeServer))
	tasks := []judge.Task{{Item: longItem("long", 3000)}, {Item: testItem("short")}}
	for round := range 2 {
		for _, v := range runAll(t, context.Background(), j, tasks, 1) {
			if v.Status != judge.StatusOK {
				t.Errorf("round %d, %s: %s %q", round, v.ItemID, v.Status, v.Error)
			}
			if round == 1 && v.PromptTokens != 0 {
				t.Errorf("round %d, %s: %d prompt tokens, want the server's 0", round, v.ItemID, v.PromptTokens)
			}
		}
	}
}

// A server counting the cached prefix apart from prompt_tokens is read
// whole: prompt plus cached tokens. (llama.cpp's usage, in
// tools/server/server-task.cpp usage_json_oaicompat, counts the whole
// prompt in prompt_tokens and the cached part of it in
// prompt_tokens_details.cached_tokens; the sum then over-counts, which
// only makes the truncation rule more cautious.) Here the judge's
// instructions were cached and only the last 40 tokens processed.
func TestCachedTokensCount(t *testing.T) {
	fs := newFakeServer(t, func(w http.ResponseWriter, _ *http.Request, req chatRequest, _ int) {
		total := realTokens(req.Messages)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"choices":[{"finish_reason":"stop","index":0,"message":{"role":"assistant","content":"reason: fine.\nresult: YES"}}],"created":1732609000,"model":"gpt-3.5-turbo","system_fingerprint":"b4170-b5e2d1b6","object":"chat.completion","usage":{"completion_tokens":9,"prompt_tokens":%d,"total_tokens":%d,"prompt_tokens_details":{"cached_tokens":%d}},"id":"chatcmpl-abc","timings":{"prompt_n":%d,"prompt_ms":10.5,"predicted_n":9,"predicted_ms":80.1}}`,
			40, 49, total-40, 40)
	})
	v := mustJudge(t, "docqa", testConfig(fs)).Judge(context.Background(), judge.Task{Item: longItem("1", 3000)})
	if v.Status != judge.StatusOK {
		t.Errorf("%s %q", v.Status, v.Error)
	}
}

// llamaGrammarServer answers like llama.cpp's server under a grammar
// (response_format json, or the judge's output constrained): each
// logprobs.content entry is {id, token, bytes, logprob, top_logprobs:[…]}
// (tools/server/server-task.cpp probs_vector_to_json), and the logprobs
// are the model's from before the grammar, so the answer's token can be
// far below the top alternative.
func llamaGrammarServer(t *testing.T, answerLogprob float64) *fakeServer {
	return newFakeServer(t, func(w http.ResponseWriter, _ *http.Request, req chatRequest, _ int) {
		content := "reason: same organisation.\nresult: YES"
		var toks []map[string]any
		for i, tok := range tokenize(content) {
			lp, alt, altLP := -0.05, "The", -0.01
			if strings.TrimSpace(tok) == "YES" {
				lp, alt, altLP = answerLogprob, " I", -0.02
			}
			top := []map[string]any{
				{"id": 791, "token": alt, "bytes": bytesOf(alt), "logprob": altLP},
				{"id": 40, "token": " It", "bytes": bytesOf(" It"), "logprob": -4.6},
			}
			toks = append(toks, map[string]any{"id": 1000 + i, "token": tok, "bytes": bytesOf(tok), "logprob": lp, "top_logprobs": top})
		}
		resp := map[string]any{
			"choices": []any{map[string]any{"finish_reason": "stop", "index": 0,
				"message":  map[string]any{"role": "assistant", "content": content},
				"logprobs": map[string]any{"content": toks}}},
			"created": 1732609000, "model": req.Model, "system_fingerprint": "b4170-b5e2d1b6", "object": "chat.completion",
			"usage": map[string]any{"completion_tokens": len(toks), "prompt_tokens": 3000, "total_tokens": 3000 + len(toks),
				"prompt_tokens_details": map[string]any{"cached_tokens": 0}},
			"id": "chatcmpl-grammar",
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	})
}

// Under a grammar the answer's token is far below the top alternative:
// the confidence is withheld, with the reason, cached answers too; the
// request asks for a bounded top_logprobs.
func TestConfidenceWithheldUnderGrammar(t *testing.T) {
	fs := llamaGrammarServer(t, -27.6) // 1e-12, as the issue saw 1e-18 to 1e-9
	cfg := testConfig(fs)
	cfg.Cache = newMapCache()
	j := mustJudge(t, "docqa", cfg)
	for _, round := range []string{"server", "cache"} {
		v := j.Judge(context.Background(), judge.Task{Item: testItem("1")})
		if !v.OK() || v.Values["correct"] != 1 {
			t.Fatalf("%s: %+v", round, v)
		}
		why, _ := v.Extra[ExtraConfidenceWithheld].(string)
		if v.Confidence != nil || !strings.Contains(why, `" YES"`) || !strings.Contains(why, "grammar") || !strings.Contains(why, `" I"`) {
			t.Errorf("%s: confidence %s, withheld %q", round, fmtPtr(v.Confidence), why)
		}
	}
	if fs.hits.Load() != 1 {
		t.Errorf("%d requests, want 1 (the second from the cache)", fs.hits.Load())
	}
	var req map[string]any
	if err := json.Unmarshal([]byte(fs.lastBody()), &req); err != nil {
		t.Fatal(err)
	}
	if req["logprobs"] != true || req["top_logprobs"] != float64(topLogprobs) || topLogprobs > 5 {
		t.Errorf("logprobs %v, top_logprobs %v: want true and a small bound", req["logprobs"], req["top_logprobs"])
	}

	// The same server sampling as it should (the answer's token near the
	// top) gives the confidence.
	fs = llamaGrammarServer(t, -0.3)
	v := mustJudge(t, "docqa", testConfig(fs)).Judge(context.Background(), judge.Task{Item: testItem("1")})
	if v.Confidence == nil || math.Abs(*v.Confidence-math.Exp(-0.3)) > 1e-9 || v.Extra[ExtraConfidenceWithheld] != nil {
		t.Errorf("sampled answer: confidence %s, extra %v", fmtPtr(v.Confidence), v.Extra)
	}

	// --no-logprobs: neither logprobs nor top_logprobs.
	cfg = testConfig(fs)
	cfg.NoLogprobs = true
	mustJudge(t, "docqa", cfg).Judge(context.Background(), judge.Task{Item: testItem("1")})
	if b := fs.lastBody(); strings.Contains(b, "logprobs") {
		t.Errorf("--no-logprobs sent %s", b)
	}
}

// With several samples, a withheld confidence does not stand beside a
// confidence of the other samples.
func TestWithheldAcrossSamples(t *testing.T) {
	held := judge.Verdict{Status: judge.StatusOK, Values: map[string]float64{"correct": 1}, Extra: map[string]any{ExtraConfidenceWithheld: "why"}}
	c := 0.8
	sure := judge.Verdict{Status: judge.StatusOK, Values: map[string]float64{"correct": 1}, Confidence: &c}
	dims := []judge.Dimension{{Name: "correct", Scale: judge.Binary}}
	if v := combineSamples(dims, []judge.Verdict{held, sure}); v.Confidence == nil || v.Extra[ExtraConfidenceWithheld] != nil {
		t.Errorf("one withheld, one not: confidence %s, extra %v", fmtPtr(v.Confidence), v.Extra)
	}
	if v := combineSamples(dims, []judge.Verdict{held, held}); v.Confidence != nil || v.Extra[ExtraConfidenceWithheld] != "why" {
		t.Errorf("both withheld: confidence %s, extra %v", fmtPtr(v.Confidence), v.Extra)
	}
}

// Chat (tuning's proposals) refuses an answer to a prompt the server cut.
func TestChatTruncated(t *testing.T) {
	srv := newOllamaServer(t, 512, false)
	c, err := NewClient(testConfig(srv.fakeServer))
	if err != nil {
		t.Fatal(err)
	}
	long := []Message{{Role: "user", Content: strings.Repeat("Rewrite these instructions so that the judge reads the document first. ", 300)}}
	if _, err := c.Chat(context.Background(), long); err == nil || !strings.Contains(err.Error(), "the server read 512 of about ") {
		t.Errorf("a cut prompt: %v", err)
	}
	srv.ctx.Store(1 << 20)
	if got, err := c.Chat(context.Background(), long); err != nil || got == "" {
		t.Errorf("once the context is raised: %q, %v", got, err)
	}
}
