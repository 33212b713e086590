package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// batchArgv is gavel run --batch on a dataset against srv.
func batchArgv(data, url, session string) []string {
	return []string{"run", data, "--judge", "docqa", "--base-url", url + "/v1", "--model", "gpt-4o-mini", "--session", session, "--batch"}
}

// A dry run --batch while the run's batch is still at the server counts
// nothing new: the batch's requests were paid when sent, and the real run
// then sends nothing either.
func TestDryRunBatchWhileRunning(t *testing.T) {
	srv := newBatchAPI(t)
	dir := t.TempDir()
	data := writeDataset(t, dir, 6)
	e, errb := batchEnv(t)
	out := e.stdout.(*bytes.Buffer)
	argv := batchArgv(data, srv.URL, filepath.Join(dir, "s.gavel"))
	ctx, cancel := context.WithCancel(context.Background())
	srv.setHooks(nil, cancel)
	execute(ctx, e, argv)
	srv.setHooks(nil, nil)
	out.Reset()
	errb.Reset()
	if code := execute(context.Background(), e, append(argv, "--dry-run")); code != 0 {
		t.Fatalf("dry run: exit %d: %s", code, errb)
	}
	if !strings.Contains(out.String(), "6 tasks answered already or waiting on batches still running") || strings.Contains(out.String(), "In new batches") || strings.Contains(out.String(), "As ordinary") {
		t.Errorf("dry run while the batch runs:\n%s", out)
	}
	c0, b0, _ := srv.counts()
	errb.Reset()
	if code := execute(context.Background(), e, argv); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errb)
	}
	if c1, b1, _ := srv.counts(); c1 != c0 || b1 != b0 {
		t.Errorf("the run sent %d chats and %d batches", c1-c0, b1-b0)
	}
	if strings.Contains(errb.String(), "in new batches") {
		t.Errorf("the run announced new batches: %s", errb)
	}
}

// After a batch expired half done, a dry run --batch prices the half it
// left as ordinary requests, as the run then sends them.
func TestDryRunBatchAfterExpired(t *testing.T) {
	srv := newBatchAPI(t)
	srv.half = true
	dir := t.TempDir()
	data := writeDataset(t, dir, 10)
	e, errb := batchEnv(t)
	out := e.stdout.(*bytes.Buffer)
	argv := batchArgv(data, srv.URL, filepath.Join(dir, "s.gavel"))
	execute(context.Background(), e, argv)
	out.Reset()
	if code := execute(context.Background(), e, append(argv, "--dry-run")); code != 0 {
		t.Fatalf("dry run: exit %d: %s", code, errb)
	}
	if !strings.Contains(out.String(), "As ordinary requests (5 tasks") || strings.Contains(out.String(), "In new batches") || dryRunRequests(t, out.String()) != 5 {
		t.Errorf("dry run after the expired batch:\n%s", out)
	}
	c0, _, _ := srv.counts()
	if code := execute(context.Background(), e, argv); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errb)
	}
	if c1, _, _ := srv.counts(); c1-c0 != 5 {
		t.Errorf("the run sent %d chats, the dry run said 5", c1-c0)
	}
}

// Items with the same text (other ids) make one prompt: --batch sends it
// once, the online run once (the client waits for the first answer), and
// both the dry run and the announcement count it once.
func TestDryRunRepeatedPrompts(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 6 {
		fmt.Fprintf(&b, `{"id":"q%d","question":"What is 1+1?","answer":"2","prediction":"It is 2."}`+"\n", i)
	}
	data := filepath.Join(dir, "data.jsonl")
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"online", "batch"} {
		t.Run(mode, func(t *testing.T) {
			srv := newBatchAPI(t)
			e, errb := batchEnv(t)
			out := e.stdout.(*bytes.Buffer)
			argv := batchArgv(data, srv.URL, filepath.Join(dir, mode+".gavel"))
			argv = append(argv[:len(argv)-1], "--concurrency", "4")
			if mode == "batch" {
				argv = append(argv, "--batch")
			}
			if code := execute(context.Background(), e, append(argv, "--dry-run")); code != 0 {
				t.Fatalf("dry run: exit %d: %s", code, errb)
			}
			if n := dryRunRequests(t, out.String()); n != 1 {
				t.Errorf("the dry run counts %d requests, want 1:\n%s", n, out)
			}
			errb.Reset()
			if code := execute(context.Background(), e, argv); code != 0 {
				t.Fatalf("run: exit %d: %s", code, errb)
			}
			if !regexp.MustCompile(`: 1 request · `).MatchString(errb.String()) {
				t.Errorf("announced: %s", errb)
			}
			chats, _, _ := srv.counts()
			lines := 0
			srv.mu.Lock()
			for _, f := range srv.files {
				if bytes.Contains(f, []byte(`"method"`)) {
					lines += bytes.Count(f, []byte("\n"))
				}
			}
			srv.mu.Unlock()
			if chats+lines != 1 {
				t.Errorf("sent %d chats and %d batch lines, counted 1", chats, lines)
			}
		})
	}
}

// LM Studio answers every unknown route 200 with an error: --batch is
// refused before any cost is told, after one request.
func TestRunBatchLMStudio(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"error":"Unexpected endpoint or method. (%s %s)"}`, r.Method, r.URL.Path)
	}))
	defer srv.Close()
	dir := t.TempDir()
	data := writeDataset(t, dir, 3)
	e, errb := batchEnv(t)
	argv := batchArgv(data, srv.URL, filepath.Join(dir, "s.gavel"))
	argv[7] = "qwen"
	if code := execute(context.Background(), e, argv); code != 2 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if !strings.Contains(errb.String(), "no Batch API") || strings.Contains(errb.String(), "in new batches") || strings.Contains(errb.String(), "request · ") {
		t.Errorf("stderr: %s", errb)
	}
	if hits.Load() != 1 {
		t.Errorf("%d requests", hits.Load())
	}
}

// A run about to start counts a sample of its tasks: ids that end alike
// ("q5-q5") are sampled like any, and the announcement is not "0
// requests".
func TestRunAnnouncesRepeatingIDs(t *testing.T) {
	t.Parallel() // long: beside the other long tests once the short ones are done
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":{"message":"no"}}`)
	}))
	defer srv.Close()
	dir := t.TempDir()
	var b strings.Builder
	const n = runCostSample + 1_000 // more than the sample: the count is extrapolated
	for i := range n {
		fmt.Fprintf(&b, `{"id":"q%d-q%d","question":"What is %d+%d?","answer":"%d","prediction":"It is %d."}`+"\n", i, i, i, i, 2*i, 2*i)
	}
	data := filepath.Join(dir, "data.jsonl")
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	e, errb := batchEnv(t)
	execute(context.Background(), e, []string{"run", data, "--judge", "docqa", "--base-url", srv.URL + "/v1", "--model", "gpt-4o-mini", "--session", filepath.Join(dir, "s.gavel")})
	m := regexp.MustCompile(`: about ([0-9,]+) requests · `).FindStringSubmatch(errb.String())
	if m == nil {
		t.Fatalf("no announcement: %.1500s", errb)
	}
	got, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	if got < n*9/10 || got > n*11/10 {
		t.Errorf("announced about %d requests for %d tasks", got, n)
	}
}

// Nouns ending in s, x, z, ch or sh take "es".
func TestCountPlural(t *testing.T) {
	for _, tc := range []struct {
		n          int
		noun, want string
	}{{2, "batch", "2 batches"}, {1, "batch", "1 batch"}, {3, "box", "3 boxes"}, {2, "task", "2 tasks"}, {2, "entry", "2 entries"}} {
		if got := count(tc.n, tc.noun); got != tc.want {
			t.Errorf("count(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
}

// A task whose first sample is in a batch still running and whose second
// is new: the announcement and the dry run count only the new one, as the
// run then sends only it.
func TestBatchCostLeavesOutRunningSamples(t *testing.T) {
	srv := newBatchAPI(t)
	dir := t.TempDir()
	data := writeDataset(t, dir, 4)
	e, errb := batchEnv(t)
	out := e.stdout.(*bytes.Buffer)
	argv := batchArgv(data, srv.URL, filepath.Join(dir, "s.gavel"))
	ctx, cancel := context.WithCancel(context.Background())
	srv.setHooks(nil, cancel)
	execute(ctx, e, argv)
	srv.setHooks(nil, nil)
	two := append(argv, "--samples", "2")
	out.Reset()
	if code := execute(context.Background(), e, append(two, "--dry-run")); code != 0 {
		t.Fatalf("dry run: exit %d: %s", code, errb)
	}
	if n := dryRunRequests(t, out.String()); n != 4 || !strings.Contains(out.String(), "4 requests in batches still running, paid when sent") {
		t.Errorf("the dry run counts %d requests, want 4:\n%s", n, out)
	}
	errb.Reset()
	// Exit 1: the first samples wait on the other run's batch, which
	// only its own command follows.
	execute(context.Background(), e, two)
	if !strings.Contains(errb.String(), ": 4 requests · ") {
		t.Errorf("announced: %s", errb)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	lines := 0
	for _, f := range srv.files {
		if bytes.Contains(f, []byte(`"method"`)) {
			lines += bytes.Count(f, []byte("\n"))
		}
	}
	if lines != 8 {
		t.Errorf("%d batch lines sent in all, want 4 + 4", lines)
	}
}
