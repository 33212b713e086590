package llm

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"
)

// backoff returns the wait before retry number n (1 for the first retry):
// BaseDelay doubled n-1 times, capped at MaxDelay, with "equal jitter"
// (half fixed, half random) so that workers that failed together do not
// retry together.
func backoff(p RetryPolicy, n int) time.Duration {
	d := p.BaseDelay
	for i := 1; i < n && d < p.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, p.MaxDelay)
	half := d / 2
	return half + rand.N(half+1)
}

// retryWait is the wait the server asked for, with a little jitter added
// (never less than asked).
func retryWait(asked time.Duration) time.Duration {
	return asked + rand.N(asked/10+1)
}

// Clock tells the time and waits. The client takes every timeout, backoff
// and wait from Config.Clock, so that tests can run hours of a dead
// server's life without waiting for them.
type Clock interface {
	Now() time.Time
	// After sends the time once d has passed.
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// sleep waits for d on clk or until ctx is done.
func sleep(ctx context.Context, clk Clock, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	select {
	case <-clk.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// withTimeout is context.WithTimeout on clk: when d passes, the context is
// cancelled with context.DeadlineExceeded as its cause.
func withTimeout(ctx context.Context, clk Clock, d time.Duration) (context.Context, context.CancelFunc) {
	if _, real := clk.(realClock); real {
		return context.WithTimeout(ctx, d)
	}
	tctx, cancel := context.WithCancelCause(ctx)
	go func() {
		select {
		case <-clk.After(d):
			cancel(context.DeadlineExceeded)
		case <-tctx.Done():
		}
	}()
	return tctx, func() { cancel(context.Canceled) }
}

// pacer spaces HTTP requests evenly so that no more than rpm start in any
// minute. A nil pacer never waits. (judge.RunPool paces tasks; the client
// paces requests, so that retries and samples count and cached answers
// do not.)
type pacer struct {
	clk      Clock
	mu       sync.Mutex
	interval time.Duration
	next     time.Time
}

func newPacer(rpm float64, clk Clock) *pacer {
	if rpm <= 0 {
		return nil
	}
	return &pacer{clk: clk, interval: time.Duration(float64(time.Minute) / rpm)}
}

func (p *pacer) wait(ctx context.Context) error {
	if p == nil {
		return ctx.Err()
	}
	p.mu.Lock()
	now := p.clk.Now()
	at := p.next
	if at.Before(now) {
		at = now
	}
	p.next = at.Add(p.interval)
	p.mu.Unlock()
	return sleep(ctx, p.clk, at.Sub(now))
}
