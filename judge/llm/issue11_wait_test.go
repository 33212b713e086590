package llm

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// fakeClock is a Clock whose time moves only when the client is idle: once
// no timer has been asked for during a short real-time lull, it jumps to
// the earliest pending timer and fires it. Hours of a dead server's life
// pass in a second, and no assertion depends on real time.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	start  time.Time
	timers []fakeTimer
	asked  time.Time // real time of the last After
	stop   chan struct{}
}

type fakeTimer struct {
	at time.Time
	ch chan time.Time
}

func newFakeClock(t *testing.T) *fakeClock {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	c := &fakeClock{now: t0, start: t0, stop: make(chan struct{})}
	go c.run()
	t.Cleanup(func() { close(c.stop) })
	return c
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) elapsed() time.Duration { return c.Now().Sub(c.start) }

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.timers = append(c.timers, fakeTimer{at: c.now.Add(d), ch: ch})
	c.asked = time.Now()
	return ch
}

// run advances the time whenever the client has been idle for a lull.
func (c *fakeClock) run() {
	const lull = 30 * time.Millisecond
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-tick.C:
		}
		c.mu.Lock()
		if len(c.timers) > 0 && time.Since(c.asked) >= lull {
			next := c.timers[0].at
			for _, t := range c.timers {
				if t.at.Before(next) {
					next = t.at
				}
			}
			c.now = next
			kept := c.timers[:0]
			for _, t := range c.timers {
				if t.at.After(c.now) {
					kept = append(kept, t)
				} else {
					t.ch <- c.now
				}
			}
			c.timers = kept
			c.asked = time.Now()
		}
		c.mu.Unlock()
	}
}

// healthLog records what OnHealth reported.
type healthLog struct {
	mu  sync.Mutex
	got []Health
}

func (l *healthLog) add(h Health) {
	l.mu.Lock()
	l.got = append(l.got, h)
	l.mu.Unlock()
}

func (l *healthLog) all() []Health {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Health(nil), l.got...)
}

// waitConfig is the default flags' configuration (--timeout 2m, 6 tries,
// --wait 10m) against fs, on clk.
func waitConfig(fs *fakeServer, clk Clock, log *healthLog) Config {
	return Config{BaseURL: fs.baseURL(), APIKey: testKey, Model: "judge-model", Concurrency: 4, Clock: clk, OnHealth: log.add}
}

func TestServerNotAnswering(t *testing.T) {
	tests := []struct {
		name string
		// answersFrom is the server's time from which it answers; 0: never.
		answersFrom time.Duration
		wantOK      bool
	}{
		{name: "never answers", answersFrom: 0},
		{name: "back after 5 minutes", answersFrom: 5 * time.Minute, wantOK: true},
		{name: "back after 7 minutes", answersFrom: 7 * time.Minute, wantOK: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := newFakeClock(t)
			var hung atomic.Int64
			fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
				if tc.answersFrom == 0 || clk.elapsed() < tc.answersFrom {
					hung.Add(1)
					<-r.Context().Done() // accepts the connection, never answers
					return
				}
				writeCompletion(w, req.Model, completion{content: "reason: ok\nresult: YES"})
			})
			log := &healthLog{}
			j := mustJudge(t, "docqa", waitConfig(fs, clk, log))
			ctx, cancel := StopOnFatal(context.Background())
			defer cancel()
			vs := runWithin(t, 60*time.Second, func() []judge.Verdict { return runAll(t, ctx, j, manyTasks(8), 4) })
			if len(vs) != 8 {
				t.Fatalf("%d verdicts, want 8", len(vs))
			}
			if f := FatalCause(ctx); f != nil {
				t.Fatalf("a server that does not answer stopped the run as fatal: %v", f)
			}
			if tc.wantOK {
				// The task whose failure started the pause spends its own
				// tries; the others wait and are judged once it answers.
				ok := 0
				for _, v := range vs {
					if v.OK() {
						ok++
					} else if !strings.Contains(v.Error, "gave up after") {
						t.Errorf("item %s: %s %q; the run should resume once the server answers", v.ItemID, v.Status, v.Error)
					}
				}
				if ok < 6 {
					t.Errorf("%d of 8 judged after the server came back", ok)
				}
				if h := j.Client().Health(); h.NotAnswering || h.GaveUp {
					t.Errorf("health after recovery: %+v", h)
				}
				got := log.all()
				if len(got) < 2 || !got[0].NotAnswering || got[len(got)-1].NotAnswering {
					t.Errorf("OnHealth reported %+v; want not answering, then answering", got)
				}
				return
			}
			waited := 0
			for _, v := range vs {
				if v.Status != judge.StatusAPIError {
					t.Errorf("item %s: %s, want api_error", v.ItemID, v.Status)
				}
				switch {
				case strings.Contains(v.Error, "has not answered for 10m0s") && strings.Contains(v.Error, "--wait"):
					waited++
				case strings.Contains(v.Error, "--item-timeout") || strings.Contains(v.Error, "(--timeout)"):
					// Spent its own budget on probes before the wait ended.
				default:
					t.Errorf("item %s: %q", v.ItemID, v.Error)
				}
			}
			if waited < 4 {
				t.Errorf("%d items ended with the not-answering message, want at least 4", waited)
			}
			// Fake time: the wait (10m) and the requests then in flight
			// (2m), not 8 items × 6 tries × 2m.
			if e := clk.elapsed(); e > 13*time.Minute {
				t.Errorf("the run took %s of (fake) time, want about 12m", e)
			}
			// 4 first tries, then one probe at a time: at most one per 2m.
			if n := hung.Load(); n > 10 {
				t.Errorf("%d requests sent to a server that does not answer", n)
			}
			h := j.Client().Health()
			// The last failure is a request's time limit: --timeout's 2m, or
			// less when the probe's item had less of --item-timeout left
			// (which one depends on how the workers were scheduled).
			if !h.GaveUp || !strings.Contains(h.String(), "has not answered for 10m0s") || !strings.Contains(h.Last, "no answer within") {
				t.Errorf("health %+v: %s", h, h)
			}
			got := log.all()
			if len(got) != 2 || !got[0].NotAnswering || got[0].GaveUp || !got[1].GaveUp {
				t.Errorf("OnHealth reported %+v; want not answering, then gave up", got)
			}
			// Later tasks end at once, with no request.
			before := fs.hits.Load()
			v := j.Judge(context.Background(), judge.Task{Item: testItem("late")})
			if v.Status != judge.StatusAPIError || !strings.Contains(v.Error, "has not answered") || fs.hits.Load() != before {
				t.Errorf("after giving up: %s %q, %d requests", v.Status, v.Error, fs.hits.Load()-before)
			}
			// A new run after ResetHealth tries again.
			j.Client().ResetHealth()
			if h := j.Client().Health(); h.NotAnswering {
				t.Errorf("after ResetHealth: %+v", h)
			}
		})
	}
}

func TestHealthLine(t *testing.T) {
	h := Health{URL: "http://127.0.0.1:8000/v1", NotAnswering: true, For: 90*time.Second + 300*time.Millisecond, Wait: 10 * time.Minute}
	if got, want := h.String(), "the server at http://127.0.0.1:8000/v1 has not answered for 1m30s; waiting up to 10m0s (--wait)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if (Health{URL: "x"}).String() != "" {
		t.Error("a server that answers has a line")
	}
	h.GaveUp, h.Last = true, "connection failed: reset"
	if got := h.String(); !strings.Contains(got, "has not answered for 10m0s (last: connection failed: reset)") || !strings.Contains(got, "--wait") {
		t.Errorf("gave up: %q", got)
	}
}

// A 503 (a server loading its model) pauses the run like silence does,
// and the first answer resumes it.
func TestServiceUnavailablePausesThenResumes(t *testing.T) {
	clk := newFakeClock(t)
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
		if clk.elapsed() < 3*time.Minute {
			writeError(w, http.StatusServiceUnavailable, "server_error", "Loading model")
			return
		}
		writeCompletion(w, req.Model, completion{content: "reason: ok\nresult: YES"})
	})
	log := &healthLog{}
	j := mustJudge(t, "docqa", waitConfig(fs, clk, log))
	vs := runWithin(t, 60*time.Second, func() []judge.Verdict { return runAll(t, context.Background(), j, manyTasks(8), 4) })
	ok := 0
	for _, v := range vs {
		if v.OK() {
			ok++
		} else if !strings.Contains(v.Error, "gave up after") {
			t.Errorf("item %s: %s %q", v.ItemID, v.Status, v.Error)
		}
	}
	if ok < 4 {
		t.Errorf("%d of 8 judged after the server came back", ok)
	}
	if got := log.all(); len(got) < 2 || !got[0].NotAnswering || !strings.Contains(got[0].Last, "Loading model") {
		t.Errorf("OnHealth reported %+v", got)
	}
}

func TestItemTimeoutBoundsRetries(t *testing.T) {
	clk := newFakeClock(t)
	// 500s are answers: no pause, but the item's budget ends the retries.
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
		w.Header().Set("Retry-After", "100")
		writeError(w, http.StatusInternalServerError, "server_error", "boom")
	})
	cfg := waitConfig(fs, clk, &healthLog{})
	cfg.ItemTimeout = 4 * time.Minute
	j := mustJudge(t, "docqa", cfg)
	v := runWithin(t, 30*time.Second, func() []judge.Verdict {
		return []judge.Verdict{j.Judge(context.Background(), judge.Task{Item: testItem("1")})}
	})[0]
	if v.Status != judge.StatusAPIError || !strings.Contains(v.Error, "gave up after 3 tries, at the 4m0s limit of one item's tries: --item-timeout") {
		t.Errorf("verdict %s %q", v.Status, v.Error)
	}
	if e := clk.elapsed(); e > 4*time.Minute {
		t.Errorf("the item took %s, over its 4m budget", e)
	}
}

func TestOversizedBodyIsNotRetried(t *testing.T) {
	for _, status := range []int{http.StatusOK, http.StatusInternalServerError} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				w.Write([]byte(`{"id":"x","choices":[{"message":{"content":"`))
				chunk := []byte(strings.Repeat("a", 1<<20))
				for range maxResponseBytes>>20 + 1 {
					if _, err := w.Write(chunk); err != nil {
						return
					}
				}
				w.Write([]byte(`"}}]}`))
			})
			cfg := testConfig(fs)
			cfg.Timeout = time.Minute // reading 32 MB under -race is slow
			j := mustJudge(t, "docqa", cfg)
			v := j.Judge(context.Background(), judge.Task{Item: testItem("1")})
			if v.Status != judge.StatusAPIError || !strings.Contains(v.Error, "larger than 32 MB") || !strings.Contains(v.Error, "not retried") {
				t.Errorf("verdict %s %q", v.Status, v.Error)
			}
			if fs.hits.Load() != 1 || v.Retries != 0 {
				t.Errorf("fetched %d times, %d retries; want once", fs.hits.Load(), v.Retries)
			}
		})
	}
}
