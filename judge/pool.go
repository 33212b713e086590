package judge

import (
	"context"
	"sync"
)

// PoolOptions tunes a Pool run.
type PoolOptions struct {
	// Concurrency is how many tasks are judged at once; at least 1. Rate
	// limits belong to the judge's client, which alone sees its retries.
	Concurrency int
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

	go func() {
		defer close(next)
		for _, t := range tasks {
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
