package judge

import (
	"context"
	"sync"
	"time"
)

// PoolOptions tunes a Pool run.
type PoolOptions struct {
	// Concurrency is how many tasks are judged at once; at least 1.
	Concurrency int
	// RPM caps how many tasks start per minute; 0 means no cap.
	RPM float64
}

// RunPool judges every task with up to opts.Concurrency calls at once and
// sends each verdict on the returned channel as soon as it is ready, in
// completion order. The channel is closed when every task is done or, after
// ctx is cancelled, when the calls in flight have returned.
//
// After cancellation no new task starts; a verdict that was already
// received is still delivered, while one that failed only because of the
// cancellation is dropped (the task was not judged, so it stays to do).
// The caller must read until the channel is closed.
func RunPool(ctx context.Context, j Judge, tasks []Task, opts PoolOptions) <-chan Verdict {
	n := max(opts.Concurrency, 1)
	out := make(chan Verdict, n)
	next := make(chan Task)
	limit := newPacer(opts.RPM)

	go func() {
		defer close(next)
		for _, t := range tasks {
			if limit.wait(ctx) != nil {
				return
			}
			select {
			case next <- t:
			case <-ctx.Done():
				return
			}
		}
	}()

	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for t := range next {
				v := j.Judge(ctx, t)
				if ctx.Err() != nil && !v.OK() {
					continue
				}
				out <- v
			}
		})
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	return out
}

// pacer spaces task starts evenly so that no more than rpm start in any
// minute. A zero pacer never waits.
type pacer struct {
	mu       sync.Mutex
	interval time.Duration
	next     time.Time
}

func newPacer(rpm float64) *pacer {
	if rpm <= 0 {
		return &pacer{}
	}
	return &pacer{interval: time.Duration(float64(time.Minute) / rpm)}
}

func (p *pacer) wait(ctx context.Context) error {
	if p.interval == 0 {
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
	if d := time.Until(at); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return ctx.Err()
}
