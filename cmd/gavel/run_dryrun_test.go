package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// countingServer answers every chat request (rubric's and docqa's
// formats) and logs each one; while refusing is set, it refuses the
// prompts that hold it with a content-filter 400 (an api_error the next
// run asks again), so a session can be left part-judged.
type countingServer struct {
	*httptest.Server
	mu       sync.Mutex
	log      int
	refusing string
}

func newCountingServer(t *testing.T) *countingServer {
	t.Helper()
	s := &countingServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.log++
		n, refusing := s.log, s.refusing
		s.mu.Unlock()
		if refusing != "" && bytes.Contains(body, []byte(refusing)) {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"message":"The response was filtered due to the prompt triggering content_filter","type":"invalid_request_error","code":"content_filter"}}`)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{
			"id": fmt.Sprint("c", n), "object": "chat.completion", "created": 1, "model": "m",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": "reason: looks right.\nresult: YES\nscore: 1.0"}}},
			"usage": map[string]any{"prompt_tokens": len(body), "completion_tokens": 6},
		})
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *countingServer) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log
}

var announcedRE = regexp.MustCompile(`(?m)^[^:\n]+ · gpt-4o-mini: ([0-9,]+) requests? · .*; retries come on top\.$`)

var requestsRE = regexp.MustCompile(`(?m)^ +requests: ([0-9,]+)`)

// dryRunRequests adds up the requests a dry run's output names.
func dryRunRequests(t *testing.T, out string) int {
	t.Helper()
	ms := requestsRE.FindAllStringSubmatch(out, -1)
	if len(ms) == 0 {
		t.Fatalf("no requests line in the dry run's output:\n%s", out)
	}
	n := 0
	for _, m := range ms {
		k, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
		n += k
	}
	return n
}

func fileHash(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// The check: gavel run --dry-run counts exactly the requests the
// real run then sends to a server that answers each one — with answers
// in the session's cache, rubric criteria, samples, items already judged,
// items the run must ask again (api_error) and items the prompt cannot
// be made for — and sends nothing, writing nothing.
func TestDryRunCountsWhatTheRunSends(t *testing.T) {
	srv := newCountingServer(t)
	dir := t.TempDir()
	var b strings.Builder
	for i := range 9 {
		crit := []string{"gives the sum", "is polite", "is short"}[:1+i%3]
		pred := fmt.Sprintf("It is %d.", 2*i)
		if i == 4 {
			pred = "" // nothing to rate: skipped, never sent
		}
		word := "plain"
		if i%4 == 1 {
			word = "FILTERME" // refused while the server refuses it
		}
		rubric, _ := json.Marshal(crit)
		fmt.Fprintf(&b, `{"id":"q%d","question":"What is %d+%d? (%s)","answer":"%d","prediction":%q,"rubric":%s}`+"\n", i, i, i, word, 2*i, pred, rubric)
	}
	data := filepath.Join(dir, "data.jsonl")
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	session := filepath.Join(dir, "data.gavel")
	e, out, errb, _ := testEnv(t)
	config := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(config, []byte("prices:\n  gpt-4o-mini: {input: 0.15, output: 0.60}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.getenv = func(k string) string {
		switch k {
		case "OPENAI_API_KEY":
			return testKey
		case envConfig:
			return config
		}
		return ""
	}
	server := []string{"--base-url", srv.URL + "/v1", "--model", "gpt-4o-mini", "--session", session}

	// A first run leaves part of the work: the refused prompts end api_error.
	srv.refusing = "FILTERME"
	execute(context.Background(), e, append([]string{"run", data, "--judge", "rubric"}, server...))
	srv.refusing = ""

	rounds := []struct {
		name string
		args []string
	}{
		{"the same judge: only the api_errors are left", []string{"--judge", "rubric"}},
		{"samples: a new run whose first samples are cached", []string{"--judge", "rubric", "--judge", "docqa", "--samples", "3"}},
		{"max tokens: a new run, none in the cache", []string{"--judge", "rubric", "--max-tokens", "50"}},
		{"all done", []string{"--judge", "rubric", "--judge", "docqa", "--samples", "3"}},
	}
	for _, r := range rounds {
		argv := append(append([]string{"run", data}, r.args...), server...)
		before, hash := srv.requests(), fileHash(t, session)
		out.Reset()
		errb.Reset()
		if code := execute(context.Background(), e, append(argv, "--dry-run")); code != 0 {
			t.Fatalf("%s: dry run exit %d: %s", r.name, code, errb)
		}
		if srv.requests() != before || fileHash(t, session) != hash {
			t.Fatalf("%s: the dry run sent %d requests or wrote the session", r.name, srv.requests()-before)
		}
		want := dryRunRequests(t, out.String())
		dry := out.String()
		errb.Reset()
		if code := execute(context.Background(), e, argv); code != 0 {
			t.Fatalf("%s: run exit %d: %s", r.name, code, errb)
		}
		if sent := srv.requests() - before; sent != want {
			t.Errorf("%s: the dry run counted %d requests, the run sent %d\n%s", r.name, want, sent, dry)
		}
		// The run itself said so before its first request.
		said := 0
		for _, m := range announcedRE.FindAllStringSubmatch(errb.String(), -1) {
			k, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
			said += k
		}
		if said != want {
			t.Errorf("%s: the run announced %d requests, want %d:\n%s", r.name, said, want, errb)
		}
		t.Logf("%s:\n%s", r.name, dry)
		if want > 0 && !strings.Contains(dry, "price: $") {
			t.Errorf("%s: no price from the config's prices:\n%s", r.name, dry)
		}
		if strings.Contains(r.name, "cached") && !strings.Contains(dry, "answers from the session's cache, not sent") {
			t.Errorf("%s: no cached answers:\n%s", r.name, dry)
		}
	}
}

// A dry run on a dataset no session holds yet makes no session.
func TestDryRunMakesNoSession(t *testing.T) {
	dir := t.TempDir()
	data := writeDataset(t, dir, 3)
	session := filepath.Join(dir, "data.gavel")
	e, out, errb, _ := testEnv(t)
	argv := []string{"run", data, "--judge", "docqa", "--base-url", "http://127.0.0.1:1/v1", "--model", "gpt-4o", "--session", session, "--dry-run"}
	if code := execute(context.Background(), e, argv); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if _, err := os.Stat(session); !os.IsNotExist(err) {
		t.Errorf("the dry run made %s (%v)", session, err)
	}
	for _, want := range []string{"does not exist yet", "requests: 3 for 3 tasks", "gpt-4o's tokenizer, o200k_base", "price: unknown"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}

// With --batch the dry run prices at the config's batch prices, and says
// so when the config has none.
func TestDryRunBatchPrices(t *testing.T) {
	dir := t.TempDir()
	data := writeDataset(t, dir, 3)
	cases := []struct{ yaml, want string }{
		{"prices:\n  gpt-4o-mini: {input: 0.15, output: 0.60, batch_input: 0.075, batch_output: 0.30}\n", ", at batch prices"},
		{"prices:\n  gpt-4o-mini: {input: 0.15, output: 0.60}\n", "price: unknown — the config gives no batch price for gpt-4o-mini"},
	}
	for _, tc := range cases {
		e, _ := configEnv(t, tc.yaml, nil)
		out := e.stdout.(*bytes.Buffer)
		argv := []string{"run", data, "--judge", "docqa", "--base-url", "http://127.0.0.1:1/v1", "--model", "gpt-4o-mini", "--session", filepath.Join(dir, "b.gavel"), "--dry-run", "--batch", "--max-tokens", "20"}
		if code := execute(context.Background(), e, argv); code != 0 {
			t.Fatalf("exit %d: %s", code, e.stderr)
		}
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("no %q in:\n%s", tc.want, out)
		}
	}
}

// When the dataset file changed since the session was made, the dry run
// counts the items the run will hold once it takes the change in: the
// new ones to do, the edited ones keeping their verdicts.
func TestDryRunOnAChangedFile(t *testing.T) {
	srv := newCountingServer(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data.jsonl")
	write := func(ids ...int) {
		var b strings.Builder
		for _, i := range ids {
			fmt.Fprintf(&b, `{"id":"q%d","question":"What is %d+%d?","answer":"%d","prediction":"It is %d."}`+"\n", i, i, i, 2*i, 2*i)
		}
		if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e, out, errb, _ := testEnv(t)
	e.getenv = func(k string) string {
		if k == "OPENAI_API_KEY" {
			return testKey
		}
		return ""
	}
	argv := []string{"run", data, "--judge", "docqa", "--base-url", srv.URL + "/v1", "--model", "gpt-4o-mini", "--session", filepath.Join(dir, "data.gavel")}
	write(1, 2, 3, 4)
	if code := execute(context.Background(), e, argv); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	write(2, 3, 4, 5, 6, 7) // q1 gone (kept, judged), three new
	before := srv.requests()
	if code := execute(context.Background(), e, append(argv, "--dry-run")); code != 0 {
		t.Fatalf("dry run exit %d: %s", code, errb)
	}
	want := dryRunRequests(t, out.String())
	if code := execute(context.Background(), e, argv); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if sent := srv.requests() - before; sent != want || want != 3 {
		t.Errorf("the dry run counted %d requests, the run sent %d, want 3\n%s", want, sent, out)
	}
	// Another dataset altogether is refused, as the run refuses it.
	write(100, 101)
	out.Reset()
	if code := execute(context.Background(), e, append(argv, "--dry-run")); code == 0 {
		t.Errorf("a dataset sharing no id was counted:\n%s", out)
	}
}

// gavel run checks the server's context before its first request, and
// its cost does too: the prompts too long for it are not sent, nor
// counted.
func TestRunCostLeavesOutPromptsOverTheContext(t *testing.T) {
	srv := newLlamaServer(t, 2048)
	dir := t.TempDir()
	long := strings.Repeat("The telescope was launched by the agency in the spring of that year. ", 300)
	var b strings.Builder
	for i := range 10 {
		pred := fmt.Sprintf("It is %d.", 2*i)
		if i == 3 || i == 7 {
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
	e, _, errb, _ := testEnv(t)
	argv := []string{"run", data, "--judge", "docqa", "--base-url", srv.URL + "/v1", "--model", "qwen", "--session", filepath.Join(dir, "data.gavel")}
	execute(context.Background(), e, argv)
	re := regexp.MustCompile(`(?m)^docqa · qwen: ([0-9]+) requests · about [0-9,]+ prompt tokens \(estimated\)`)
	m := re.FindStringSubmatch(errb.String())
	if m == nil || m[1] != "8" || srv.chats.Load() != 8 {
		t.Errorf("announced %q, sent %d; want 8 and 8:\n%s", m, srv.chats.Load(), errb)
	}
}
