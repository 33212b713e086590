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

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// pacer spaces HTTP requests evenly so that no more than rpm start in any
// minute. A nil pacer never waits. (judge.RunPool paces tasks; the client
// paces requests, so that retries and samples count and cached answers
// do not.)
type pacer struct {
	mu       sync.Mutex
	interval time.Duration
	next     time.Time
}

func newPacer(rpm float64) *pacer {
	if rpm <= 0 {
		return nil
	}
	return &pacer{interval: time.Duration(float64(time.Minute) / rpm)}
}

func (p *pacer) wait(ctx context.Context) error {
	if p == nil {
		return ctx.Err()
	}
	p.mu.Lock()
	now := time.Now()
	at := p.next
	if at.Before(now) {
		at = now
	}
	p.next = at.Add(p.interval)
	p.mu.Unlock()
	return sleep(ctx, time.Until(at))
}
