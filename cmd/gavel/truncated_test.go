package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gavel-dev/gavel/sessions"
)

// silentCutServer answers like Ollama's OpenAI-compatible endpoint with a
// context of ctx tokens: a longer prompt is cut without a word, answered
// 200, and usage.prompt_tokens is what it read (ollama/ollama#3839; the
// body as openai/openai.go writes it, no prompt_tokens_details). It
// counts a prompt's tokens as 1.3 per word.
func silentCutServer(t *testing.T, ctx *atomic.Int64) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r) // GET /v1/models, /props: Ollama tells no context
			return
		}
		calls.Add(1)
		var req struct {
			Model    string `json:"model"`
			Messages []struct{ Content string }
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		prompt := 0
		for _, m := range req.Messages {
			prompt += len(strings.Fields(m.Content))*13/10 + 4
		}
		read := min(prompt, int(ctx.Load()))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-245","object":"chat.completion","created":1732609000,"model":%q,"system_fingerprint":"fp_ollama","choices":[{"index":0,"message":{"role":"assistant","content":"reason: it matches.\nresult: YES"},"finish_reason":"stop"}],"usage":{"prompt_tokens":%d,"completion_tokens":9,"total_tokens":%d}}`,
			req.Model, read, read+9)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// The "done when": a server that truncates silently gives
// truncated verdicts, counted apart by gavel run and gavel stats, left out
// of agreement (unless --include-truncated), and asked again once its
// context is raised.
func TestTruncatedEndToEnd(t *testing.T) {
	var ctxTokens atomic.Int64
	ctxTokens.Store(2048)
	srv, calls := silentCutServer(t, &ctxTokens)
	dir := t.TempDir()
	var b strings.Builder
	long := strings.Repeat("The telescope was carried into orbit by the shuttle Discovery in April. ", 500)
	for i := range 6 {
		q := fmt.Sprintf("Who launched Hubble (%d)?", i)
		if i == 1 || i == 4 {
			q = long + q // about 6,000 words: far over 2,048 tokens
		}
		fmt.Fprintf(&b, `{"id":"q%d","question":%q,"answer":"NASA","prediction":"NASA did."}`+"\n", i, q)
	}
	data := filepath.Join(dir, "data.jsonl")
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	session := filepath.Join(dir, "data.gavel")
	e, out, errb, _ := testEnv(t)
	e.getenv = func(string) string { return "" }
	run := func() int {
		errb.Reset()
		return execute(context.Background(), e, []string{"run", data, "--judge", "docqa", "--base-url", srv.URL + "/v1", "--model", "llama3.1:8b", "--api-key", "ollama", "--session", session})
	}
	if code := run(); code != 1 {
		t.Errorf("exit %d, want 1: truncated tasks are work left", code)
	}
	for _, want := range []string{
		"6/6 · 4 ok · 2 truncated",
		"6 of 6 tasks judged — 4 ok, 0 parse errors, 0 API errors, 2 truncated",
		"2 of 6 tasks truncated (the first: the server read 2048 of about ",
		"num_ctx", "OLLAMA_CONTEXT_LENGTH",
	} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb)
		}
	}
	if calls.Load() != 6 {
		t.Errorf("%d calls, want 6", calls.Load())
	}

	// Someone labels every item YES, the answer the judge gave.
	s, err := sessions.Open(session, sessions.Options{Annotator: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		if _, err := s.Record([]sessions.Action{{Kind: sessions.KindLabel, ItemID: fmt.Sprint("q", i), Dimension: "correct", Value: 1, Via: "random"}}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()

	type judging struct {
		OK        int `json:"ok"`
		Truncated int `json:"truncated"`
	}
	stats := func(args ...string) (judging, int) {
		t.Helper()
		out.Reset()
		if code := execute(context.Background(), e, append([]string{"stats", session, "--format", "json", "--resamples", "0"}, args...)); code != 0 {
			t.Fatalf("stats exit %d: %s", code, errb)
		}
		var rep struct {
			Truncated string `json:"truncated"`
			Judges    []struct {
				Dimensions []struct {
					Overall struct {
						Judging  judging `json:"judging"`
						VsHumans struct {
							N int `json:"n"`
						} `json:"vs_humans"`
					} `json:"overall"`
				} `json:"dimensions"`
			} `json:"judges"`
		}
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil || len(rep.Judges) != 1 {
			t.Fatalf("stats JSON: %v\n%s", err, out)
		}
		o := rep.Judges[0].Dimensions[0].Overall
		return o.Judging, o.VsHumans.N
	}
	if j, n := stats(); j.Truncated != 2 || j.OK != 4 || n != 4 {
		t.Errorf("stats: %+v, n %d; want 2 truncated left out of agreement (n 4)", j, n)
	}
	if j, n := stats("--include-truncated"); j.Truncated != 2 || n != 6 {
		t.Errorf("stats --include-truncated: %+v, n %d; want n 6", j, n)
	}
	out.Reset()
	if code := execute(context.Background(), e, []string{"stats", session, "--resamples", "0"}); code != 0 || !strings.Contains(strings.Join(strings.Fields(out.String()), " "), "truncated 2 (33.3%), kept out of agreement") {
		t.Errorf("stats text (exit %d) does not count the truncated verdicts:\n%s", code, out)
	}

	// The context raised: the next run asks only the two again.
	ctxTokens.Store(32768)
	if code := run(); code != 0 {
		t.Errorf("second run: exit %d: %s", code, errb)
	}
	if calls.Load() != 8 || !strings.Contains(errb.String(), "2 of 2 tasks judged — 2 ok") {
		t.Errorf("second run: %d calls in all, want 8; stderr:\n%s", calls.Load(), errb)
	}
	if j, n := stats(); j.Truncated != 0 || j.OK != 6 || n != 6 {
		t.Errorf("stats after the rerun: %+v, n %d", j, n)
	}
}

// The "done when": a server answering like llama.cpp under a
// grammar (the answer's token far below the top alternative) gives
// withheld confidences, with the reason in the export, and the request
// carries a bounded top_logprobs. The body is llama.cpp's
// (tools/server/server-task.cpp to_json_oaicompat_chat and
// probs_vector_to_json: per token id, token, bytes, logprob, top_logprobs).
func TestWithheldConfidenceEndToEnd(t *testing.T) {
	var bodies []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		tok := func(id int, s string, lp float64, alt string, altLP float64) string {
			return fmt.Sprintf(`{"id":%d,"token":%q,"bytes":%s,"logprob":%g,"top_logprobs":[{"id":%d,"token":%q,"bytes":%s,"logprob":%g},{"id":40,"token":" It","bytes":[32,73,116],"logprob":-4.6}]}`,
				id, s, byteList(s), lp, id+1, alt, byteList(alt), altLP)
		}
		toks := strings.Join([]string{
			tok(13043, "reason", -0.02, "The", -0.01), tok(25, ":", -0.01, ":", -0.01), tok(1890, " fine", -0.3, " it", -0.2),
			tok(13, ".", -0.01, ".", -0.01), tok(198, "\n", -0.01, "\n", -0.01), tok(1407, "result", -0.01, "result", -0.01),
			tok(25, ":", -0.01, ":", -0.01), tok(14410, " YES", -27.6, " I", -0.02),
		}, ",")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"choices":[{"finish_reason":"stop","index":0,"message":{"role":"assistant","content":"reason: fine.\nresult: YES"},"logprobs":{"content":[%s]}}],"created":1732609000,"model":"qwen2.5-7b","system_fingerprint":"b4170-b5e2d1b6","object":"chat.completion","usage":{"completion_tokens":8,"prompt_tokens":3000,"total_tokens":3008,"prompt_tokens_details":{"cached_tokens":0}},"id":"chatcmpl-x","timings":{"prompt_n":3000,"prompt_ms":210.2,"predicted_n":8,"predicted_ms":95.4}}`, toks)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	data := writeDataset(t, dir, 2)
	session := filepath.Join(dir, "data.gavel")
	e, out, errb, _ := testEnv(t)
	if code := execute(context.Background(), e, []string{"run", data, "--judge", "docqa", "--base-url", srv.URL + "/v1", "--model", "qwen2.5-7b", "--api-key", "none", "--session", session}); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errb)
	}
	mu.Lock()
	for _, b := range bodies {
		if !strings.Contains(b, `"logprobs":true`) || !strings.Contains(b, `"top_logprobs":5`) {
			t.Errorf("the request does not bound top_logprobs: %s", b)
		}
	}
	mu.Unlock()
	out.Reset()
	if code := execute(context.Background(), e, []string{"export", session, "--only", "all"}); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errb)
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var row map[string]any
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		why, _ := row["verdict_confidence_withheld:docqa · qwen2.5-7b"].(string)
		if row["verdict_confidence:docqa · qwen2.5-7b"] != nil || !strings.Contains(why, `" YES"`) || !strings.Contains(why, "grammar") {
			t.Errorf("%v: confidence %v, withheld %q", row["id"], row["verdict_confidence:docqa · qwen2.5-7b"], why)
		}
	}
}

// byteList writes a token's bytes as llama.cpp does: a list of numbers.
func byteList(s string) string {
	parts := make([]string, len(s))
	for i := range len(s) {
		parts[i] = fmt.Sprint(s[i])
	}
	return "[" + strings.Join(parts, ",") + "]"
}
