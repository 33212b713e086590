package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge/llm"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/tui"
)

const testKey = "sk-gavel-test-key-0123456789"

// fakeServer speaks the OpenAI chat completions wire format: it answers
// docqa's two-line format, YES for even requests and NO for odd ones,
// refuses a wrong key with 401, and counts the requests it served.
func fakeServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+testKey {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`)
			return
		}
		var req struct {
			Model       string   `json:"model"`
			Temperature *float64 `json:"temperature"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Temperature == nil || *req.Temperature != 0 {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"message":"temperature 0 expected"}}`)
			return
		}
		n := calls.Add(1)
		result := "YES"
		if n%2 == 1 {
			result = "NO"
		}
		json.NewEncoder(w).Encode(map[string]any{
			"id": fmt.Sprint("cmpl-", n), "object": "chat.completion", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": "reason: compared with the standard answer.\nresult: " + result}}},
			"usage": map[string]any{"prompt_tokens": 3000, "completion_tokens": 10, "total_tokens": 3010}, // the whole prompt: more than half of its estimate, so never truncated
		})
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func writeDataset(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"id":"q%d","question":"What is %d+%d?","answer":"%d","prediction":"It is %d."}`+"\n", i, i, i, 2*i, 2*i)
	}
	path := filepath.Join(dir, "data.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The path as a new user would try it: gavel run against a local
// server judges every item, gavel review on the same session shows the
// verdicts, a second run costs no call, and the API key is in no file
// Gavel wrote.
func TestRunThenReview(t *testing.T) {
	t.Parallel() // long: beside the other long tests once the short ones are done
	srv, calls := fakeServer(t)
	dir := t.TempDir()
	data := writeDataset(t, dir, 12)
	session := filepath.Join(dir, "data.gavel")
	e, _, errb, shown := testEnv(t)
	e.getenv = func(k string) string {
		if k == "OPENAI_API_KEY" {
			return testKey
		}
		return ""
	}
	argv := []string{"run", data, "--judge", "docqa", "--base-url", srv.URL + "/v1", "--model", "m", "--session", session}
	if code := execute(context.Background(), e, argv); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if !strings.Contains(errb.String(), "12 of 12 tasks judged — 12 ok") {
		t.Errorf("summary: %s", errb)
	}
	if calls.Load() != 12 {
		t.Errorf("%d calls for 12 items", calls.Load())
	}

	// Reviewing the same session shows the verdicts without new calls.
	errb.Reset()
	argv = []string{"review", data, "--judge", "docqa", "--base-url", srv.URL + "/v1", "--model", "m", "--session", session}
	if code := execute(context.Background(), e, argv); code != 0 {
		t.Fatalf("review exit %d: %s", code, errb)
	}
	next, _ := (*shown)[0].Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	s := next.(*tui.Model).View().Content
	if !strings.Contains(s, "Verdict · docqa") || !strings.Contains(s, "compared with the standard answer") {
		t.Errorf("the review screen does not show docqa's verdicts:\n%s", s)
	}
	if calls.Load() != 12 {
		t.Errorf("review made %d more calls", calls.Load()-12)
	}

	// A run into a fresh copy of the session answers from the cache.
	st, err := sessions.Open(session, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := st.Runs()
	vs, _ := st.Verdicts(runs[0].ID)
	st.Close()
	if len(runs) != 1 || len(vs) != 12 || runs[0].Info.Params["temperature"] != float64(0) {
		t.Errorf("runs %+v, %d verdicts", runs, len(vs))
	}

	// The key is in no file Gavel wrote.
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if bytes.Contains(b, []byte(testKey)) {
			t.Errorf("%s holds the API key", f)
		}
	}
}

func TestRunStopsOnARefusedKey(t *testing.T) {
	srv, calls := fakeServer(t)
	dir := t.TempDir()
	data := writeDataset(t, dir, 20)
	e, _, errb, _ := testEnv(t)
	e.getenv = func(k string) string {
		if k == "OPENAI_API_KEY" {
			return "sk-wrong-key-aaaaaaaaaaaa"
		}
		return ""
	}
	argv := []string{"run", data, "--judge", "docqa", "--base-url", srv.URL + "/v1", "--model", "m", "--session", filepath.Join(dir, "s.gavel"), "--concurrency", "2"}
	if code := execute(context.Background(), e, argv); code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, errb)
	}
	if !strings.Contains(errb.String(), "OPENAI_API_KEY") || !strings.Contains(errb.String(), "stay to do") {
		t.Errorf("message does not say what to fix: %s", errb)
	}
	if calls.Load() != 0 {
		t.Errorf("%d calls were answered with a wrong key", calls.Load())
	}
	st, err := sessions.Open(filepath.Join(dir, "s.gavel"), sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, _ := st.Runs()
	if vs, _ := st.Verdicts(runs[0].ID); len(vs) != 0 {
		t.Errorf("%d verdicts saved from a refused key; the tasks should stay to do", len(vs))
	}
}

func TestRunNeedsAModel(t *testing.T) {
	e, _, errb, _ := testEnv(t)
	data := writeDataset(t, t.TempDir(), 2)
	if code := execute(context.Background(), e, []string{"run", data, "--judge", "docqa"}); code != 2 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if !strings.Contains(errb.String(), "--model") {
		t.Errorf("message: %s", errb)
	}
}

func TestHealthNote(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	url := "http://127.0.0.1:8000/v1"
	down := func(d time.Duration) llm.Health {
		return llm.Health{URL: url, NotAnswering: true, For: d, Wait: 10 * time.Minute}
	}
	steps := []struct {
		at   time.Duration
		h    llm.Health
		want string
	}{
		{0, llm.Health{URL: url}, ""},
		{time.Second, down(90 * time.Second), "gavel: the server at " + url + " has not answered for 1m30s; waiting up to 10m0s (--wait)"},
		{2 * time.Second, down(91 * time.Second), ""},
		{32 * time.Second, down(2 * time.Minute), "gavel: the server at " + url + " has not answered for 2m0s; waiting up to 10m0s (--wait)"},
		{33 * time.Second, llm.Health{URL: url}, "gavel: the server at " + url + " answers again; judging goes on"},
		{34 * time.Second, llm.Health{URL: url}, ""},
		{40 * time.Second, func() llm.Health { h := down(10 * time.Minute); h.GaveUp = true; return h }(), "gavel: the server at " + url + " has not answered for 10m0s"},
		{41 * time.Second, func() llm.Health { h := down(10 * time.Minute); h.GaveUp = true; return h }(), ""},
	}
	var n healthNote
	for i, s := range steps {
		got := n.text(s.h, t0.Add(s.at))
		if s.want == "" && got != "" || !strings.HasPrefix(got, s.want) {
			t.Errorf("step %d: %q, want %q", i, got, s.want)
		}
	}
}
