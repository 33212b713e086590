package judge

import (
	"context"
	"slices"
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
// completion order. Tasks start in the order given. The channel is closed
// when every task is done or, after ctx is cancelled, when the calls in
// flight have returned.
//
// After cancellation no new task starts; a verdict that was already
// received is still delivered, while one that failed only because of the
// cancellation is dropped (the task was not judged, so it stays to do):
// an api_error returned once ctx is done. A parse_error is an answer,
// and is delivered.
// The caller must read until the channel is closed.
func RunPool(ctx context.Context, j Judge, tasks []Task, opts PoolOptions) <-chan Verdict {
	return RunQueue(ctx, j, &Queue{tasks: tasks}, opts)
}

// RunQueue is RunPool over a Queue, whose order may change while it runs:
// a task starts when a call is free, taking the queue's next task at that
// moment (see Queue.Prioritize). A Queue serves one run.
func RunQueue(ctx context.Context, j Judge, q *Queue, opts PoolOptions) <-chan Verdict {
	n := max(opts.Concurrency, 1)
	out := make(chan Verdict, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for ctx.Err() == nil {
				t, ok := q.pop()
				if !ok {
					return
				}
				v := j.Judge(ctx, t)
				if ctx.Err() != nil && v.Status == StatusAPIError {
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

// Queue holds the tasks of a run in the order they start: the tasks of
// the items last prioritised first, then the others in the order given.
// It is safe for concurrent use.
type Queue struct {
	mu    sync.Mutex
	tasks []Task
	// next is the next task in the order given; those before it have
	// started.
	next int
	// The rest serves Prioritize and is nil in a queue made by RunPool.
	// started marks the tasks taken, in whatever order.
	started []bool
	// first is the index of an item's first task, same[i] that of the
	// next task of the same item after task i (-1 after the last), so
	// that an item's tasks are found without a scan.
	first map[string]int
	same  []int
	// front is a stack of tasks put first by Prioritize, the next one
	// last. It may hold tasks already taken (an item prioritised twice),
	// which are skipped; its top never is one.
	front []int
	// src, when set, makes the tasks as they are needed (NewQueueFrom):
	// tasks then holds the current chunk, and the tasks Prioritize took
	// from src.
	src   TaskSource
	chunk int
}

// A TaskSource makes the tasks of a queue in their order, chunk by chunk
// (NewQueueFrom), so that a run of a million tasks never holds them all:
// a task holds its item, and a million items are ~160 MB of task.
type TaskSource interface {
	// Next returns the next tasks in order: about n of them, the tasks
	// of an item never split between two calls, and none once every
	// task was returned. Tasks Take returned are not returned again.
	Next(n int) []Task
	// Take returns, in their order, the tasks of an item that Next has
	// not returned yet, which Next then skips; nil when there are none.
	Take(itemID string) []Task
}

// NewQueue makes a queue of tasks in the order given, indexed by item so
// that Prioritize costs only the item's own tasks, however many are
// queued. The queue keeps tasks: do not change the slice afterwards.
func NewQueue(tasks []Task) *Queue {
	q := &Queue{tasks: tasks}
	q.index()
	return q
}

// NewQueueFrom makes a queue whose tasks src makes as they are needed,
// about chunk at a time: it starts them in the same order, and
// Prioritize works as on NewQueue's, as if it held every task.
func NewQueueFrom(src TaskSource, chunk int) *Queue {
	q := &Queue{src: src, chunk: max(chunk, 1)}
	q.index()
	return q
}

// index makes started, first and same for the tasks held.
func (q *Queue) index() {
	q.started = make([]bool, len(q.tasks))
	q.first = make(map[string]int, len(q.tasks))
	q.same = make([]int, len(q.tasks))
	for i := len(q.tasks) - 1; i >= 0; i-- {
		id := q.tasks[i].Item.ID
		q.same[i] = -1
		if f, ok := q.first[id]; ok {
			q.same[i] = f
		}
		q.first[id] = i
	}
}

// hold adds an item's tasks taken from src out of turn, indexed like the
// others.
func (q *Queue) hold(itemID string, ts []Task) int {
	at := len(q.tasks)
	q.tasks = append(q.tasks, ts...)
	for k := range ts {
		q.started = append(q.started, false)
		q.same = append(q.same, at+k+1)
	}
	q.same[len(q.same)-1] = -1
	q.first[itemID] = at
	return at
}

// Prioritize moves the tasks of an item that have not started to the
// front of the queue, in their own order, ahead of any item prioritised
// before: the item on screen is judged next. It does nothing for an item
// whose tasks have all started, or that has no task in the queue. It
// takes the time of the item's own tasks, never of the whole queue, and
// may be called from any goroutine at any time.
func (q *Queue) Prioritize(itemID string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	i, ok := q.first[itemID]
	if !ok {
		if q.src == nil {
			return
		}
		ts := q.src.Take(itemID)
		if len(ts) == 0 {
			return
		}
		i = q.hold(itemID, ts)
	}
	if n := len(q.front); n > 0 && q.tasks[q.front[n-1]].Item.ID == itemID {
		// Already first: its tasks not started lie under the top, in order.
		return
	}
	from := len(q.front)
	for ; i >= 0; i = q.same[i] {
		if !q.started[i] {
			q.front = append(q.front, i)
		}
	}
	slices.Reverse(q.front[from:])
}

// pop takes the next task; false when none is left.
func (q *Queue) pop() (Task, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if n := len(q.front); n > 0 {
		i := q.front[n-1]
		q.started[i] = true
		q.front = q.front[:n-1]
		for n := len(q.front); n > 0 && q.started[q.front[n-1]]; n-- {
			q.front = q.front[:n-1]
		}
		return q.tasks[i], true
	}
	for {
		for q.next < len(q.tasks) {
			i := q.next
			q.next++
			if q.started == nil {
				return q.tasks[i], true
			}
			if !q.started[i] {
				q.started[i] = true
				return q.tasks[i], true
			}
		}
		if q.src == nil {
			return Task{}, false
		}
		// Every task held has started (front is empty): the next chunk
		// replaces them.
		ts := q.src.Next(q.chunk)
		if len(ts) == 0 {
			return Task{}, false
		}
		q.tasks, q.next, q.front = ts, 0, q.front[:0]
		q.index()
	}
}
