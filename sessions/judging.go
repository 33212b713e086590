package sessions

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// How verdicts are grouped into transactions: a batch is committed when it
// holds batchSize verdicts or batchWait after its first verdict arrived,
// whichever comes first. Small batches keep a crash from losing more than
// a moment of judging, without one fsync per verdict.
const (
	batchSize = 64
	batchWait = 100 * time.Millisecond
)

// Batch reports verdicts just committed and the run's progress so far.
type Batch struct {
	// Verdicts were committed to the session, in arrival order.
	Verdicts []judge.Verdict
	// Done counts verdicts received, Total the tasks, Errors the received
	// verdicts that are not ok, Retries the requests the received
	// verdicts had to repeat (judge.Verdict.Retries: rate limits, server
	// errors, timeouts), Tokens the prompt and completion tokens spent on
	// the received verdicts (answers from the cache cost none). The last
	// batch holds the run's final counts.
	Done, Total, Errors, Retries, Tokens int
	// ParseErrors, APIErrors and Truncated split Errors by status (a
	// verdict of another status counts in Errors only).
	ParseErrors, APIErrors, Truncated int
	// Err is a commit failure. Judging stops at the first one; the
	// verdicts concerned are retried once when the pool has drained and,
	// if that fails too, handed back in Unsaved.
	Err error
	// Unsaved holds verdicts that were received but could not be
	// committed.
	Unsaved []judge.Verdict
	// Stopped, set on the last batch only, says why the run ended before
	// judging every task: the cause its context was cancelled with. For
	// an LLM judge started under llm.StopOnFatal that is the
	// *llm.FatalError (a refused API key, an unknown model…), whose
	// Error() gives the problem and then the fix, in full. It is nil when
	// every task was judged, after Stop, a commit failure (see Err) or a
	// context cancelled without a cause.
	Stopped error
}

// Judging is a judge run in progress; see StartJudging.
type Judging struct {
	out      chan Batch
	cancel   context.CancelFunc
	done     chan struct{}
	stopOnce sync.Once
	queue    *judge.Queue
	c        *committer
}

// StartJudging judges tasks with j through judge.RunQueue, in their
// order unless Prioritize changes it, commits the verdicts to run in small
// batches as they arrive (at most ~64 per transaction, or every ~100 ms,
// whichever first) and hands committed batches to the caller through
// Batches.
//
// It never blocks on the reader: when the reader falls behind, batches
// waiting for it are merged into one, so a reader that stops reading
// costs memory for the verdicts only, never a deadlock. Cancelling ctx
// works like Stop without the wait; cancelling it with a cause (as
// llm.StopOnFatal does) reports the cause in the last batch's Stopped.
func StartJudging(ctx context.Context, s *Store, run Run, j judge.Judge, tasks []judge.Task, opts judge.PoolOptions) *Judging {
	return startQueue(ctx, s, run, j, judge.NewQueue(tasks), len(tasks), opts)
}

// startQueue is StartJudging over a queue of total tasks, such as one
// that makes its tasks as it goes (ResumeRun).
func startQueue(ctx context.Context, s *Store, run Run, j judge.Judge, q *judge.Queue, total int, opts judge.PoolOptions) *Judging {
	ctx, cancel := context.WithCancel(ctx)
	jg := &Judging{
		out:    make(chan Batch, 1),
		cancel: cancel,
		done:   make(chan struct{}),
		queue:  q,
	}
	c := &committer{s: s, runID: run.ID, out: jg.out, cancel: cancel, total: total}
	jg.c = c
	verdicts := judge.RunQueue(ctx, j, jg.queue, opts)
	go func() {
		defer close(jg.done)
		defer close(jg.out)
		defer cancel()
		c.loop(ctx, verdicts)
	}()
	return jg
}

// Batches returns the committed batches. It is closed after the last one,
// which always comes, even from a run that committed nothing, and holds
// the final counts and Stopped.
func (jg *Judging) Batches() <-chan Batch { return jg.out }

// Prioritize has the tasks of an item that have not started judged next,
// ahead of the rest and of items prioritised before (the item on screen
// first). It does nothing for an item already judged or under way, or
// not in this run. It costs the item's own tasks, however many are
// queued, never waits for the judge, and may be called from any
// goroutine at any time, after the run's end too.
func (jg *Judging) Prioritize(itemID string) { jg.queue.Prioritize(itemID) }

// Summary returns the counts so far, without verdicts, and in Err every
// commit failure met; once Done is closed, the final counts and Stopped,
// as the last batch holds them. It never blocks.
func (jg *Judging) Summary() Batch {
	c := jg.c
	c.mu.Lock()
	defer c.mu.Unlock()
	b := Batch{Done: c.done, Total: c.total, Errors: c.errors, Retries: c.retries, Tokens: c.tokens, Err: c.err, Stopped: c.stopped}
	b.ParseErrors, b.APIErrors, b.Truncated = c.parseErrors, c.apiErrors, c.truncated
	return b
}

// Stop cancels the run and waits until every verdict already received has
// been committed (or reported unsaved). It is safe to call twice, from any
// goroutine, and whether or not anyone still reads Batches; the last batch
// stays readable from Batches afterwards.
func (jg *Judging) Stop() {
	jg.stopOnce.Do(jg.cancel)
	<-jg.done
}

// Done is closed when the run has finished and everything received is
// committed.
func (jg *Judging) Done() <-chan struct{} { return jg.done }

// committer turns the pool's verdicts into committed batches.
type committer struct {
	s      *Store
	runID  int64
	out    chan Batch
	cancel context.CancelFunc

	pending []judge.Verdict
	failed  bool
	// sent is set once a batch has been handed over.
	sent bool
	// commits records the size of each committed transaction, for tests
	// and debugging; read it only after the run is done.
	commits []int

	// mu guards what Summary reads; only the committer writes it.
	mu                                   sync.Mutex
	total, done, errors, retries, tokens int
	parseErrors, apiErrors, truncated    int
	err, stopped                         error
}

func (c *committer) loop(ctx context.Context, verdicts <-chan judge.Verdict) {
	timer := time.NewTimer(batchWait)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case v, ok := <-verdicts:
			if !ok {
				c.finish(ctx)
				return
			}
			c.receive(v)
			if len(c.pending) == 1 {
				timer.Reset(batchWait)
			}
			if len(c.pending) >= batchSize && !c.failed {
				timer.Stop()
				c.flush(false)
			}
		case <-timer.C:
			if !c.failed {
				c.flush(false)
			}
		}
	}
}

func (c *committer) receive(v judge.Verdict) {
	c.pending = append(c.pending, v)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done++
	c.retries += v.Retries
	if !v.OK() {
		c.errors++
	}
	switch v.Status {
	case judge.StatusParseError:
		c.parseErrors++
	case judge.StatusAPIError:
		c.apiErrors++
	case judge.StatusTruncated:
		c.truncated++
	}
	// An answer from the response cache cost nothing this time, though it
	// keeps the token counts of the call that first made it.
	if cached, _ := v.Extra["cached"].(bool); !cached {
		c.tokens += v.PromptTokens + v.CompletionTokens
	}
}

// finish notes why the run ended early, if it did, and hands over the
// last batch, which holds the final counts.
func (c *committer) finish(ctx context.Context) {
	if ctx.Err() != nil && c.done < c.total {
		if cause := context.Cause(ctx); !errors.Is(cause, context.Canceled) {
			c.mu.Lock()
			c.stopped = cause
			c.mu.Unlock()
		}
	}
	if len(c.pending) > 0 {
		c.flush(true)
		return
	}
	if !c.sent || c.stopped != nil {
		c.send(c.batch(nil))
	}
}

// flush commits the pending verdicts. After a failure it stops the run and
// keeps them for one last try when the pool has drained (final).
func (c *committer) flush(final bool) {
	if len(c.pending) == 0 {
		return
	}
	err := c.s.SaveVerdicts(c.runID, c.pending)
	if err == nil {
		c.commits = append(c.commits, len(c.pending))
		c.send(c.batch(c.pending))
		c.pending = nil
		return
	}
	c.cancel()
	c.failed = true
	c.mu.Lock()
	c.err = errors.Join(c.err, err)
	c.mu.Unlock()
	b := c.batch(nil)
	b.Err = err
	if final {
		b.Unsaved = c.pending
		c.pending = nil
	}
	c.send(b)
}

func (c *committer) batch(vs []judge.Verdict) Batch {
	return Batch{Verdicts: vs, Done: c.done, Total: c.total, Errors: c.errors, Retries: c.retries, Tokens: c.tokens, Stopped: c.stopped,
		ParseErrors: c.parseErrors, APIErrors: c.apiErrors, Truncated: c.truncated}
}

// send hands b to the reader without ever blocking: out has room for one
// batch and only this goroutine sends, so if the slot is taken the batch
// there is taken back and merged with b first.
func (c *committer) send(b Batch) {
	select {
	case old := <-c.out:
		b = merge(old, b)
	default:
	}
	c.out <- b
	c.sent = true
}

// merge folds a later batch into an earlier one the reader has not taken.
func merge(old, b Batch) Batch {
	m := b
	m.Verdicts = append(old.Verdicts[:len(old.Verdicts):len(old.Verdicts)], b.Verdicts...)
	m.Unsaved = append(old.Unsaved[:len(old.Unsaved):len(old.Unsaved)], b.Unsaved...)
	m.Err = errors.Join(old.Err, b.Err)
	return m
}
