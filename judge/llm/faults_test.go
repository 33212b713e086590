package llm

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// hangUp drops the connection without an answer, as a crashing server or
// a proxy reset does.
func hangUp(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(err)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // close with a reset
	}
	conn.Close()
}

// fault answers one request the way a faulty server does.
type fault func(w http.ResponseWriter, r *http.Request)

var faults = map[string]fault{
	"429": func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "0")
		writeError(w, http.StatusTooManyRequests, "rate_limit_exceeded", "Rate limit reached")
	},
	"500": func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, http.StatusInternalServerError, "server_error", "The server had an error")
	},
	"503 html": func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, "<html><body>503 Service Temporarily Unavailable</body></html>")
	},
	"timeout": func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	},
	"slow body": func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id": "x", "choices": [`)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	},
	"reset": func(w http.ResponseWriter, _ *http.Request) { hangUp(w) },
	"empty choices": func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":0,"total_tokens":1}}`)
	},
	"malformed body": func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"x","choices":[{"message":{"content": "result: YES"`)
	},
	"truncated body": func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", "500")
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, `{"id":"x","choices":[`)
		w.(http.Flusher).Flush()
		hangUp(w)
	},
}

func faultTestConfig(fs *fakeServer) Config {
	cfg := testConfig(fs)
	cfg.Timeout = 150 * time.Millisecond
	return cfg
}

func TestFaultsRetriedThenJudged(t *testing.T) {
	for name, f := range faults {
		t.Run(name, func(t *testing.T) {
			fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
				if n < 2 {
					f(w, r)
					return
				}
				writeCompletion(w, req.Model, completion{content: "reason: ok\nresult: YES"})
			})
			v := mustJudge(t, "docqa", faultTestConfig(fs)).Judge(context.Background(), judge.Task{Item: testItem("1")})
			if !v.OK() || v.Values["correct"] != 1 {
				t.Fatalf("verdict %+v, want YES after two faults", v)
			}
			if v.Extra[ExtraTries] != 3 || v.Retries != 2 {
				t.Errorf("tries = %v, retries = %d; want 3 tries, 2 retries", v.Extra[ExtraTries], v.Retries)
			}
		})
	}
}

func TestFaultsEndInAPIError(t *testing.T) {
	wants := map[string]string{
		"429":            "rate limited by the server (HTTP 429: Rate limit reached) (gave up after 3 tries)",
		"500":            "server error (HTTP 500: The server had an error) (gave up after 3 tries)",
		"503 html":       "server error (HTTP 503: <html><body>503 Service Temporarily Unavailable</body></html>)",
		"timeout":        "no answer within 150ms (--timeout) (gave up after 3 tries)",
		"slow body":      "no answer within 150ms (--timeout)",
		"reset":          "connection failed",
		"empty choices":  "the server's response held no answer (empty choices) (gave up after 3 tries)",
		"malformed body": "the server's response broke off or is not valid JSON (HTTP 200",
		"truncated body": "the server's response broke off or is not valid JSON (HTTP 200",
	}
	for name, f := range faults {
		t.Run(name, func(t *testing.T) {
			fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, _ chatRequest, _ int) { f(w, r) })
			v := mustJudge(t, "docqa", faultTestConfig(fs)).Judge(context.Background(), judge.Task{Item: testItem("1")})
			if v.Status != judge.StatusAPIError || !strings.Contains(v.Error, wants[name]) {
				t.Errorf("verdict %s %q, want api_error with %q", v.Status, v.Error, wants[name])
			}
			if fs.hits.Load() != 3 || v.Retries != 2 {
				t.Errorf("server hit %d times, %d retries; want 3 tries, 2 retries", fs.hits.Load(), v.Retries)
			}
			if v.ItemID != "1" || v.Model != "judge-model" || v.At.IsZero() {
				t.Errorf("verdict lacks its identity: %+v", v)
			}
		})
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	var mu sync.Mutex
	var times []time.Time
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
		mu.Lock()
		times = append(times, time.Now())
		mu.Unlock()
		if n == 0 {
			w.Header().Set("Retry-After", "1")
			writeError(w, http.StatusTooManyRequests, "rate_limit_exceeded", "slow down")
			return
		}
		writeCompletion(w, req.Model, completion{content: "YES"})
	})
	cfg := testConfig(fs)
	cfg.Retry.MaxDelay = 5 * time.Second
	v := mustJudge(t, "same-event", cfg).Judge(context.Background(), judge.Task{Item: testItem("1")})
	if !v.OK() {
		t.Fatalf("verdict %+v", v)
	}
	// A lower bound only: the retry may come later, never sooner.
	if gap := times[1].Sub(times[0]); gap < time.Second {
		t.Errorf("retried after %v, before the server's Retry-After of 1s", gap)
	}
}

func TestRetryAfterBeyondLimitGivesUp(t *testing.T) {
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
		w.Header().Set("Retry-After", "3600")
		writeError(w, http.StatusTooManyRequests, "rate_limit_exceeded", "daily limit")
	})
	v := mustJudge(t, "docqa", testConfig(fs)).Judge(context.Background(), judge.Task{Item: testItem("1")})
	if v.Status != judge.StatusAPIError || !strings.Contains(v.Error, "the server asks to wait 1h0m0s before retrying (Retry-After)") {
		t.Errorf("verdict %s %q", v.Status, v.Error)
	}
	if fs.hits.Load() != 1 || v.Retries != 0 {
		t.Errorf("hits = %d, retries = %d; want 1 hit, no retry", fs.hits.Load(), v.Retries)
	}
}

func TestItemLevelRejections(t *testing.T) {
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
		if strings.Contains(req.Messages[0].Content, "LONG") {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.")
			return
		}
		writeCompletion(w, req.Model, completion{content: "YES"})
	})
	cfg := testConfig(fs)
	j := mustJudge(t, "same-event", cfg)
	long := testItem("long")
	long.Prediction = "LONG"
	ctx, cancel := StopOnFatal(context.Background())
	defer cancel()
	vs := runAll(t, ctx, j, []judge.Task{{Item: long}, {Item: testItem("ok")}}, 1)
	if len(vs) != 2 || FatalCause(ctx) != nil || j.Client().Fatal() != nil {
		t.Fatalf("a prompt too long stopped the run: %d verdicts, cause %v", len(vs), FatalCause(ctx))
	}
	for _, v := range vs {
		if v.ItemID == "long" && (v.Status != judge.StatusAPIError || !strings.Contains(v.Error, "the prompt is too long for the model")) {
			t.Errorf("long item: %s %q", v.Status, v.Error)
		}
	}
}

func TestFatalStopsTheRun(t *testing.T) {
	tests := []struct {
		name   string
		reply  func(w http.ResponseWriter)
		noKey  bool
		baseOf func(fs *fakeServer) string
		want   []string
	}{
		{name: "401", reply: func(w http.ResponseWriter) {
			writeError(w, http.StatusUnauthorized, "invalid_request_error", "Incorrect API key provided")
		}, want: []string{"the server refused the API key (HTTP 401: Incorrect API key provided)", "check --api-key or OPENAI_API_KEY"}},
		{name: "401 without a key", noKey: true, reply: func(w http.ResponseWriter) {
			writeError(w, http.StatusUnauthorized, "invalid_request_error", "missing key")
		}, want: []string{"none was given", "set --api-key or OPENAI_API_KEY"}},
		{name: "404 model", reply: func(w http.ResponseWriter) {
			writeError(w, http.StatusNotFound, "invalid_request_error", "The model `judge-model` does not exist")
		}, want: []string{`no model "judge-model"`, "check --model and --base-url (it must end in /v1"}},
		{name: "404 wrong base URL", baseOf: func(fs *fakeServer) string { return fs.URL }, want: []string{"/chat/completions", "(HTTP 404", "must end in /v1"}},
		{name: "400", reply: func(w http.ResponseWriter) {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "'response_format' of type 'json_object' is not supported with this model")
		}, want: []string{"the server rejected the request (HTTP 400: 'response_format'", "--no-response-format"}},
		{name: "quota", reply: func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`)
		}, want: []string{"no quota left", "billing"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) { tc.reply(w) })
			cfg := testConfig(fs)
			if tc.noKey {
				cfg.APIKey = ""
			}
			if tc.baseOf != nil {
				cfg.BaseURL = tc.baseOf(fs)
			}
			sent := &countingTransport{}
			cfg.Transport = sent
			j := mustJudge(t, "docqa", cfg)
			tasks := manyTasks(50)
			ctx, cancel := StopOnFatal(context.Background())
			defer cancel()
			vs := runWithin(t, 20*time.Second, func() []judge.Verdict { return runAll(t, ctx, j, tasks, 4) })
			f := FatalCause(ctx)
			if f == nil {
				t.Fatalf("the run was not stopped: %d verdicts, cause %v", len(vs), context.Cause(ctx))
			}
			for _, w := range tc.want {
				if !strings.Contains(f.Error(), w) {
					t.Errorf("fatal error %q lacks %q", f, w)
				}
			}
			if len(vs) != 0 {
				t.Errorf("%d verdicts delivered; tasks stopped by a fatal error stay to do", len(vs))
			}
			if n := sent.n.Load(); n > 4 {
				t.Errorf("%d requests sent; after a fatal error at most the 4 in flight", n)
			}
			if j.Client().Fatal() == nil {
				t.Error("the client forgot the fatal error")
			}
			// A new run on the same client stops at once, with no request.
			before := sent.n.Load()
			ctx2, cancel2 := StopOnFatal(context.Background())
			defer cancel2()
			runAll(t, ctx2, j, tasks, 4)
			if FatalCause(ctx2) == nil || sent.n.Load() != before {
				t.Errorf("second run: cause %v, %d new requests", FatalCause(ctx2), sent.n.Load()-before)
			}
		})
	}
}

func TestFatalWithoutStopOnFatal(t *testing.T) {
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
		writeError(w, http.StatusUnauthorized, "invalid_request_error", "bad key")
	})
	sent := &countingTransport{}
	cfg := testConfig(fs)
	cfg.Transport = sent
	j := mustJudge(t, "docqa", cfg)
	vs := runAll(t, context.Background(), j, manyTasks(20), 2)
	if len(vs) != 20 {
		t.Fatalf("%d verdicts, want 20", len(vs))
	}
	for _, v := range vs {
		if v.Status != judge.StatusAPIError || !strings.Contains(v.Error, "check --api-key") {
			t.Errorf("verdict %s %q", v.Status, v.Error)
		}
	}
	if n := sent.n.Load(); n > 2 {
		t.Errorf("%d requests sent; after the fatal error no request is made", n)
	}
}

func TestUnreachableServerIsFatal(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	j := mustJudge(t, "docqa", Config{BaseURL: "http://" + addr + "/v1", Model: "m", Retry: RetryPolicy{Attempts: 3, BaseDelay: time.Millisecond}})
	v := j.Judge(context.Background(), judge.Task{Item: testItem("1")})
	if v.Status != judge.StatusAPIError || !strings.Contains(v.Error, "cannot connect to http://"+addr+"/v1") || !strings.Contains(v.Error, "check --base-url") {
		t.Errorf("verdict %s %q", v.Status, v.Error)
	}
}

func TestMixedFaultsThroughThePool(t *testing.T) {
	// Each item meets one fault on its first try; odd items keep failing.
	names := []string{"429", "500", "503 html", "timeout", "slow body", "reset", "empty choices", "malformed body", "truncated body"}
	var mu sync.Mutex
	seen := map[string]int{}
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
		var k int
		fmt.Sscanf(req.Messages[0].Content[strings.LastIndex(req.Messages[0].Content, "#")+1:], "%d", &k)
		mu.Lock()
		seen[fmt.Sprint(k)]++
		try := seen[fmt.Sprint(k)]
		mu.Unlock()
		if try == 1 || k%2 == 1 {
			faults[names[k%len(names)]](w, r)
			return
		}
		writeCompletion(w, req.Model, completion{content: "result: NO"})
	})
	cfg := faultTestConfig(fs)
	cfg.Timeout = 100 * time.Millisecond
	j := mustJudge(t, "docqa", cfg)
	tasks := manyTasks(36)
	vs := runWithin(t, 30*time.Second, func() []judge.Verdict { return runAll(t, context.Background(), j, tasks, 8) })
	if len(vs) != len(tasks) {
		t.Fatalf("%d verdicts for %d tasks", len(vs), len(tasks))
	}
	got := map[string]judge.Status{}
	for _, v := range vs {
		got[v.ItemID] = v.Status
	}
	for i := range tasks {
		want := judge.StatusOK
		if i%2 == 1 {
			want = judge.StatusAPIError
		}
		if got[fmt.Sprint(i)] != want {
			t.Errorf("item %d (%s): %s, want %s", i, names[i%len(names)], got[fmt.Sprint(i)], want)
		}
	}
	assertNoKey(t, vs...)
}

func TestCancellationReturnsPromptly(t *testing.T) {
	arrived := make(chan struct{}, 100)
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
		arrived <- struct{}{}
		<-r.Context().Done() // never answers
	})
	cfg := testConfig(fs)
	cfg.Timeout = time.Minute
	j := mustJudge(t, "bbh", cfg)

	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-arrived; cancel() }()
	v := runWithin(t, 10*time.Second, func() []judge.Verdict {
		return []judge.Verdict{j.Judge(ctx, judge.Task{Item: testItem("1")})}
	})[0]
	if v.Status != judge.StatusAPIError || !strings.Contains(v.Error, "cancelled") {
		t.Errorf("verdict %s %q", v.Status, v.Error)
	}

	// The pool: cancelling stops the run, nothing is left hanging.
	ctx2, cancel2 := context.WithCancel(context.Background())
	go func() { <-arrived; cancel2() }()
	vs := runWithin(t, 10*time.Second, func() []judge.Verdict { return runAll(t, ctx2, j, manyTasks(20), 4) })
	if len(vs) != 0 {
		t.Errorf("%d verdicts from a cancelled run whose server never answered", len(vs))
	}

	// Cancelling during a backoff wait returns too.
	fs2 := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
		arrived <- struct{}{}
		w.Header().Set("Retry-After", "30")
		writeError(w, http.StatusTooManyRequests, "rate_limit_exceeded", "wait")
	})
	cfg2 := testConfig(fs2)
	cfg2.Retry.MaxDelay = time.Minute
	ctx3, cancel3 := context.WithCancel(context.Background())
	go func() { <-arrived; time.Sleep(20 * time.Millisecond); cancel3() }()
	v = runWithin(t, 10*time.Second, func() []judge.Verdict {
		return []judge.Verdict{mustJudge(t, "docqa", cfg2).Judge(ctx3, judge.Task{Item: testItem("1")})}
	})[0]
	if v.Status != judge.StatusAPIError || !strings.Contains(v.Error, "cancelled") {
		t.Errorf("cancelled in backoff: %s %q", v.Status, v.Error)
	}
}

func TestRPMPacesRequests(t *testing.T) {
	var mu sync.Mutex
	var times []time.Time
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
		mu.Lock()
		times = append(times, time.Now())
		mu.Unlock()
		writeCompletion(w, req.Model, completion{content: "YES"})
	})
	cfg := testConfig(fs)
	cfg.RPM = 600 // one request per 100 ms
	j := mustJudge(t, "same-event", cfg)
	runAll(t, context.Background(), j, manyTasks(4), 4)
	// Lower bound only: 4 requests at 600/min span at least 300 ms.
	if span := times[len(times)-1].Sub(times[0]); span < 290*time.Millisecond {
		t.Errorf("4 requests within %v at 600 rpm", span)
	}
}

// manyTasks returns n whole-item tasks with distinct predictions ("#k").
func manyTasks(n int) []judge.Task {
	tasks := make([]judge.Task, n)
	for i := range tasks {
		it := testItem(fmt.Sprint(i))
		it.Index = i
		it.Prediction = fmt.Sprintf("NASA, answer #%d", i)
		tasks[i] = judge.Task{Item: it}
	}
	return tasks
}

// runWithin runs f and fails the test if it has not returned in time:
// a guard against hangs, not a timing assertion.
func runWithin(t *testing.T, d time.Duration, f func() []judge.Verdict) []judge.Verdict {
	t.Helper()
	done := make(chan []judge.Verdict, 1)
	go func() { done <- f() }()
	select {
	case vs := <-done:
		return vs
	case <-time.After(d):
		t.Fatalf("still running after %v: something hangs", d)
		return nil
	}
}

// countingTransport counts the chat requests the client sends (POSTs: not
// the GET /v1/models a 404's advice lists the models with).
type countingTransport struct{ n atomic.Int64 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost {
		c.n.Add(1)
	}
	return http.DefaultTransport.RoundTrip(r)
}
