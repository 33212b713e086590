package llm

import (
	"context"
	"encoding/json"
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

// restartable is a chat server on a fixed address that can be killed (the
// listener and every connection closed, as when its process dies) and
// started again on the same address.
type restartable struct {
	t    *testing.T
	addr string
	h    http.Handler

	mu     sync.Mutex
	srv    *http.Server
	killed chan struct{}
}

func newRestartable(t *testing.T, h http.Handler) *restartable {
	t.Helper()
	r := &restartable{t: t, h: h}
	r.start()
	t.Cleanup(r.kill)
	return r
}

func (r *restartable) start() {
	r.mu.Lock()
	defer r.mu.Unlock()
	addr := r.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	var ln net.Listener
	var err error
	for range 100 { // the old socket may take a moment to let go
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		r.t.Errorf("restart on %s: %v", addr, err)
		return
	}
	r.addr = ln.Addr().String()
	r.killed = make(chan struct{})
	r.srv = &http.Server{Handler: r.h}
	go r.srv.Serve(ln)
}

// kill closes the listener and every connection at once.
func (r *restartable) kill() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.srv == nil {
		return
	}
	close(r.killed)
	r.srv.Close()
	r.srv = nil
}

func (r *restartable) dead() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.killed
}

func (r *restartable) baseURL() string { return "http://" + r.addr + "/v1" }

// A server killed after it accepted the run's requests (before answering
// any, or after some) and back a second or two minutes later: the run
// waits for it and completes, with no fatal stop and no item spent, on a
// fake clock. A refused connection after this run had a connection is a
// server that went down, not a wrong URL (issue 18: killed 6 s into a run
// before any answer, the run stopped with "check --base-url").
func TestKilledServerComesBack(t *testing.T) {
	for _, answered := range []int{0, 8} {
		for _, back := range []time.Duration{time.Second, 2 * time.Minute} {
			t.Run(fmt.Sprintf("after %d answers, back after %s", answered, back), func(t *testing.T) {
				clk := newFakeClock(t)
				var (
					srv     *restartable
					served  atomic.Int64
					held    atomic.Int64
					killAt  atomic.Int64 // fake elapsed ns when killed, -1 before
					revived atomic.Bool
				)
				killAt.Store(-1)
				srv = newRestartable(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					var req chatRequest
					_ = decodeJSON(r, &req)
					if !revived.Load() && served.Load() >= int64(answered) {
						// Accepts the request, never answers: killed meanwhile.
						if held.Add(1) == 4 {
							go func() {
								killAt.Store(int64(clk.elapsed()))
								srv.kill()
							}()
						}
						select {
						case <-r.Context().Done():
						case <-srv.dead():
						}
						return
					}
					served.Add(1)
					writeCompletion(w, req.Model, completion{content: "reason: ok\nresult: YES"})
				}))
				// Started again once `back` has passed on the fake clock.
				stop := make(chan struct{})
				defer close(stop)
				go func() {
					for {
						select {
						case <-stop:
							return
						case <-time.After(time.Millisecond):
						}
						if k := killAt.Load(); k >= 0 && clk.elapsed() >= time.Duration(k)+back {
							revived.Store(true)
							srv.start()
							return
						}
					}
				}()
				log := &healthLog{}
				cfg := Config{BaseURL: srv.baseURL(), Model: "judge-model", Concurrency: 4, Clock: clk, OnHealth: log.add}
				j := mustJudge(t, "docqa", cfg)
				ctx, cancel := StopOnFatal(context.Background())
				defer cancel()
				vs := runWithin(t, 60*time.Second, func() []judge.Verdict { return runAll(t, ctx, j, manyTasks(20), 4) })
				if f := FatalCause(ctx); f != nil {
					t.Fatalf("the run stopped: %v", f)
				}
				if killAt.Load() < 0 {
					t.Fatal("the server was never killed")
				}
				if len(vs) != 20 {
					t.Fatalf("%d verdicts, want 20", len(vs))
				}
				for _, v := range vs {
					if !v.OK() {
						t.Errorf("item %s: %s %q; no item should be spent on a server that comes back", v.ItemID, v.Status, v.Error)
					}
				}
				hs := log.all()
				if len(hs) < 2 || !hs[0].NotAnswering || hs[len(hs)-1].NotAnswering {
					t.Errorf("OnHealth reported %+v; want a pause, then answering", hs)
				}
				// From the kill (the fake clock may have run the held
				// requests' timeouts first on a slow machine).
				if e := clk.elapsed() - time.Duration(killAt.Load()); e < back || e > back+time.Minute {
					t.Errorf("the run ended %s of (fake) time after the kill; the server was away %s", e, back)
				}
			})
		}
	}
}

// A server never reached stops the run at once with the URL advice: no
// wait, no retries.
func TestNeverStartedServerStopsAtOnce(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	clk := newFakeClock(t)
	cfg := Config{BaseURL: "http://" + addr + "/v1", Model: "judge-model", Concurrency: 4, Clock: clk}
	j := mustJudge(t, "docqa", cfg)
	if _, err := j.Client().Probe(context.Background()); err == nil {
		t.Error("Probe of a server that is not there succeeded")
	}
	ctx, cancel := StopOnFatal(context.Background())
	defer cancel()
	vs := runWithin(t, 10*time.Second, func() []judge.Verdict { return runAll(t, ctx, j, manyTasks(20), 4) })
	f := FatalCause(ctx)
	if f == nil || !strings.Contains(f.Error(), "cannot connect to http://"+addr+"/v1") || !strings.Contains(f.Error(), "check --base-url") {
		t.Fatalf("cause %v, %d verdicts; want a stop with the URL advice", f, len(vs))
	}
	if e := clk.elapsed(); e != 0 {
		t.Errorf("stopped after %s of (fake) time; want at once", e)
	}
}

func decodeJSON(r *http.Request, v any) error { return json.NewDecoder(r.Body).Decode(v) }
