package tune

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
)

// ErrBudgetSpent is the error of a request refused because the budget of
// HTTP requests is spent. No byte of it reached the server.
var ErrBudgetSpent = errors.New("the request budget (--budget) is spent")

// Budget caps the HTTP requests a tuning sends, every one counted: judge
// requests, their retries and samples, and proposals. It is enforced where
// the requests leave, in an http.RoundTripper (Transport), so no code path
// above it (the client's retries, a second sample) can go past it; answers
// from the response cache never reach it and cost nothing.
type Budget struct {
	limit int64
	used  atomic.Int64
}

// NewBudget returns a budget of limit requests (at least 0).
func NewBudget(limit int) *Budget { return &Budget{limit: int64(max(limit, 0))} }

// Limit is the number of requests allowed in all.
func (b *Budget) Limit() int { return int(b.limit) }

// Used is the number of requests reserved so far: every one sent, and any
// cancelled in flight when a phase ended, which may not have reached the
// server. It is never given back: a request can be cancelled after its
// bytes left, and a refund that guessed wrong could let the count pass
// the limit.
func (b *Budget) Used() int { return int(b.used.Load()) }

// Left is the number of requests that may still be sent.
func (b *Budget) Left() int { return int(b.limit - b.used.Load()) }

// take reserves one request; false when none is left. It never lets the
// count pass the limit, however many goroutines ask at once.
func (b *Budget) take() bool {
	for {
		n := b.used.Load()
		if n >= b.limit {
			return false
		}
		if b.used.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

type stopKey struct{}
type probeKey struct{}

// stopOnSpent returns a context that a refused request cancels, with
// ErrBudgetSpent as its cause. The LLM client reads a cancelled context as
// the caller giving up (no retry, no pause for a server that "does not
// answer"), so a phase that hits the budget ends at once instead of
// retrying a refusal.
func stopOnSpent(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	ctx = context.WithValue(ctx, stopKey{}, cancel)
	return ctx, func() { cancel(context.Canceled) }
}

// counting returns a context under which a ProbeTransport counts the
// requests it is asked to send in n.
func counting(ctx context.Context, n *atomic.Int64) context.Context {
	return context.WithValue(ctx, probeKey{}, n)
}

// Transport returns base (http.DefaultTransport when nil) behind the
// budget: each request takes one from the budget before it is sent, and
// once none is left it fails with ErrBudgetSpent without being sent.
func (b *Budget) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &budgetTransport{b: b, base: base}
}

type budgetTransport struct {
	b    *Budget
	base http.RoundTripper
}

func (t *budgetTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.b.take() {
		if req.Body != nil {
			req.Body.Close()
		}
		if cancel, ok := req.Context().Value(stopKey{}).(context.CancelCauseFunc); ok {
			cancel(ErrBudgetSpent)
		}
		return nil, ErrBudgetSpent
	}
	return t.base.RoundTrip(req)
}

// ProbeTransport sends nothing: it counts each request (in the counter of
// the request's context, see Options.Build) and answers it at once with a
// refusal. A judge built on a client with this transport, and the
// session's response cache, judges a phase "for free": what the cache
// answers comes back as verdicts, the rest are counted, which is the
// number of requests the phase needs at least (retries excepted). It is a
// client of its own, so the real client's view of the server (its
// health, whether it was ever reached) is not touched.
func ProbeTransport() http.RoundTripper { return probeTransport{} }

type probeTransport struct{}

// probeStatus is the status a probed request is answered with: 413 is
// one the LLM client neither retries nor takes as fatal, so the task ends
// at once and the probe goes on with the next.
const probeStatus = http.StatusRequestEntityTooLarge

func (probeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if n, ok := req.Context().Value(probeKey{}).(*atomic.Int64); ok {
		n.Add(1)
	}
	if req.Body != nil {
		req.Body.Close()
	}
	body := `{"error":{"message":"not sent: gavel tune counts the requests a phase needs","type":"gavel_probe"}}`
	return &http.Response{
		StatusCode:    probeStatus,
		Status:        fmt.Sprintf("%d %s", probeStatus, http.StatusText(probeStatus)),
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}, nil
}
