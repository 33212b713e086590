package judge

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// slowJudge answers YES after a pause, counting the calls in flight.
type slowJudge struct {
	delay         time.Duration
	inFlight, max atomic.Int64
}

func (j *slowJudge) Info() Info {
	return Info{Name: "slow", Dimensions: []Dimension{{Name: "correct", Scale: Binary}}}
}

func (j *slowJudge) Judge(ctx context.Context, t Task) Verdict {
	n := j.inFlight.Add(1)
	defer j.inFlight.Add(-1)
	for {
		m := j.max.Load()
		if n <= m || j.max.CompareAndSwap(m, n) {
			break
		}
	}
	select {
	case <-time.After(j.delay):
		return Verdict{ItemID: t.Item.ID, Status: StatusOK, Values: map[string]float64{"correct": 1}}
	case <-ctx.Done():
		return Verdict{ItemID: t.Item.ID, Status: StatusAPIError, Error: "cancelled"}
	}
}

func tasksOf(n int) []Task {
	ts := make([]Task, n)
	for i := range ts {
		ts[i] = Task{Item: Item{Index: i, ID: string(rune('a' + i%26))}}
	}
	return ts
}

func TestRunPoolJudgesEveryTaskWithinTheConcurrency(t *testing.T) {
	j := &slowJudge{delay: time.Millisecond}
	n := 0
	for v := range RunPool(context.Background(), j, tasksOf(50), PoolOptions{Concurrency: 4}) {
		if !v.OK() {
			t.Errorf("verdict %+v", v)
		}
		n++
	}
	if n != 50 {
		t.Errorf("%d verdicts for 50 tasks", n)
	}
	if m := j.max.Load(); m > 4 {
		t.Errorf("%d calls in flight, concurrency 4", m)
	}
}

// Cancelling stops new tasks; calls that fail only because of the
// cancellation are dropped (their tasks stay to do), and the channel closes.
func TestRunPoolCancellation(t *testing.T) {
	j := &slowJudge{delay: time.Hour}
	ctx, cancel := context.WithCancel(context.Background())
	out := RunPool(ctx, j, tasksOf(20), PoolOptions{Concurrency: 3})
	for j.inFlight.Load() < 3 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	for v := range out {
		t.Errorf("a cancelled call was delivered: %+v", v)
	}
}

// queueTasks are six items in order; i2 is a rubric item with three
// criteria, judged as three tasks.
func queueTasks() []Task {
	var ts []Task
	for i := range 6 {
		it := Item{Index: i, ID: fmt.Sprintf("i%d", i)}
		if i == 2 {
			it.Rubric = []string{"a", "b", "c"}
			for k := 1; k <= 3; k++ {
				ts = append(ts, Task{Item: it, Criterion: k})
			}
			continue
		}
		ts = append(ts, Task{Item: it})
	}
	return ts
}

func taskName(t Task) string {
	if t.Criterion > 0 {
		return fmt.Sprintf("%s/%d", t.Item.ID, t.Criterion)
	}
	return t.Item.ID
}

func TestQueueOrder(t *testing.T) {
	// A step prioritises an item, or with take > 0 takes that many tasks.
	type step struct {
		prioritize string
		take       int
	}
	for _, tc := range []struct {
		name  string
		steps []step
		want  string // every task taken, steps then the rest
	}{
		{"the order given", nil, "i0 i1 i2/1 i2/2 i2/3 i3 i4 i5"},
		{"an item first", []step{{prioritize: "i4"}}, "i4 i0 i1 i2/1 i2/2 i2/3 i3 i5"},
		{"the last prioritised first", []step{{prioritize: "i4"}, {prioritize: "i3"}}, "i3 i4 i0 i1 i2/1 i2/2 i2/3 i5"},
		{"prioritised again, first again", []step{{prioritize: "i4"}, {prioritize: "i3"}, {prioritize: "i4"}}, "i4 i3 i0 i1 i2/1 i2/2 i2/3 i5"},
		{"twice in a row is once", []step{{prioritize: "i4"}, {prioritize: "i4"}, {take: 1}, {prioritize: "i5"}}, "i4 i5 i0 i1 i2/1 i2/2 i2/3 i3"},
		{"criteria keep their order", []step{{prioritize: "i5"}, {prioritize: "i2"}}, "i2/1 i2/2 i2/3 i5 i0 i1 i3 i4"},
		{"only the criteria not started", []step{{prioritize: "i2"}, {take: 1}, {prioritize: "i5"}, {prioritize: "i2"}}, "i2/1 i2/2 i2/3 i5 i0 i1 i3 i4"},
		{"a started item is left alone", []step{{take: 2}, {prioritize: "i0"}, {prioritize: "i1"}}, "i0 i1 i2/1 i2/2 i2/3 i3 i4 i5"},
		{"an item taken in order is not taken again", []step{{take: 6}, {prioritize: "i3"}, {prioritize: "i5"}}, "i0 i1 i2/1 i2/2 i2/3 i3 i5 i4"},
		{"an item taken first is not taken again in order", []step{{prioritize: "i1"}, {prioritize: "i0"}, {take: 2}}, "i0 i1 i2/1 i2/2 i2/3 i3 i4 i5"},
		{"an unknown item", []step{{prioritize: "nope"}}, "i0 i1 i2/1 i2/2 i2/3 i3 i4 i5"},
		{"after the last task", []step{{take: 8}, {prioritize: "i4"}}, "i0 i1 i2/1 i2/2 i2/3 i3 i4 i5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := NewQueue(queueTasks())
			var got []string
			take := func(n int) {
				for range n {
					task, ok := q.pop()
					if !ok {
						t.Fatalf("queue empty after %v", got)
					}
					got = append(got, taskName(task))
				}
			}
			for _, s := range tc.steps {
				if s.take > 0 {
					take(s.take)
				} else {
					q.Prioritize(s.prioritize)
				}
			}
			for {
				task, ok := q.pop()
				if !ok {
					break
				}
				got = append(got, taskName(task))
			}
			if g := strings.Join(got, " "); g != tc.want {
				t.Errorf("order %s\n want %s", g, tc.want)
			}
		})
	}
}

// gateJudge holds every call until the test lets it through, announcing
// each task as its call starts.
type gateJudge struct {
	started chan Task
	release chan struct{}
}

func (g *gateJudge) Info() Info { return (&slowJudge{}).Info() }

func (g *gateJudge) Judge(ctx context.Context, t Task) Verdict {
	g.started <- t
	select {
	case <-g.release:
		return Verdict{ItemID: t.Item.ID, Criterion: t.Criterion, Status: StatusOK, Values: map[string]float64{"correct": 1}}
	case <-ctx.Done():
		return Verdict{ItemID: t.Item.ID, Criterion: t.Criterion, Status: StatusAPIError, Error: "cancelled"}
	}
}

// The item on screen, prioritised while another call is under way, is
// the next one judged, and every task is still judged once.
func TestRunQueuePrioritizedItemIsJudgedNext(t *testing.T) {
	g := &gateJudge{started: make(chan Task), release: make(chan struct{})}
	q := NewQueue(queueTasks())
	out := RunQueue(context.Background(), g, q, PoolOptions{Concurrency: 1})
	var delivered []string
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for v := range out {
			delivered = append(delivered, v.ItemID)
		}
	}()

	order := []string{taskName(<-g.started)}
	q.Prioritize("i4") // while i0 is being judged
	for range len(queueTasks()) - 1 {
		g.release <- struct{}{}
		task := <-g.started
		order = append(order, taskName(task))
		if task.Item.ID == "i1" {
			q.Prioritize("i5")
		}
	}
	g.release <- struct{}{}
	<-drained

	if got, want := strings.Join(order, " "), "i0 i4 i1 i5 i2/1 i2/2 i2/3 i3"; got != want {
		t.Errorf("judged in order %s\n want %s", got, want)
	}
	if len(delivered) != len(queueTasks()) {
		t.Errorf("%d verdicts delivered for %d tasks", len(delivered), len(queueTasks()))
	}
}

// countingJudge counts its calls per task and answers at once.
type countingJudge struct {
	mu    sync.Mutex
	calls map[string]int
}

func (c *countingJudge) Info() Info { return (&slowJudge{}).Info() }

func (c *countingJudge) Judge(_ context.Context, t Task) Verdict {
	c.mu.Lock()
	c.calls[taskName(t)]++
	c.mu.Unlock()
	return Verdict{ItemID: t.Item.ID, Criterion: t.Criterion, Status: StatusOK, Values: map[string]float64{"correct": 1}}
}

// Prioritize called from many goroutines while the pool runs never loses
// a task nor judges one twice (run with -race).
func TestRunQueueConcurrentPrioritize(t *testing.T) {
	const items = 2000
	var tasks []Task
	for i := range items {
		it := Item{Index: i, ID: fmt.Sprintf("i%d", i)}
		crits := []int{0}
		if i%7 == 0 {
			crits = []int{1, 2, 3}
		}
		for _, k := range crits {
			tasks = append(tasks, Task{Item: it, Criterion: k})
		}
	}
	j := &countingJudge{calls: map[string]int{}}
	q := NewQueue(tasks)
	out := RunQueue(context.Background(), j, q, PoolOptions{Concurrency: 8})

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for n := g; ; n += 13 {
				select {
				case <-stop:
					return
				default:
				}
				q.Prioritize(fmt.Sprintf("i%d", n*31%(items+5))) // a few unknown
			}
		})
	}
	delivered := map[string]int{}
	for v := range out {
		delivered[taskName(Task{Item: Item{ID: v.ItemID}, Criterion: v.Criterion})]++
	}
	close(stop)
	wg.Wait()

	if len(j.calls) != len(tasks) || len(delivered) != len(tasks) {
		t.Errorf("%d tasks judged, %d delivered, of %d", len(j.calls), len(delivered), len(tasks))
	}
	for _, task := range tasks {
		name := taskName(task)
		if j.calls[name] != 1 || delivered[name] != 1 {
			t.Errorf("%s judged %d times, delivered %d times", name, j.calls[name], delivered[name])
		}
	}
}

// cancellingJudge cancels the run while judging, then returns status.
type cancellingJudge struct {
	cancel context.CancelFunc
	status Status
}

func (c *cancellingJudge) Info() Info { return (&slowJudge{}).Info() }

func (c *cancellingJudge) Judge(_ context.Context, t Task) Verdict {
	c.cancel()
	return Verdict{ItemID: t.Item.ID, Status: c.status}
}

// A verdict returned as the run is cancelled is delivered if it is an
// answer, dropped if the call failed (it may have failed because of the
// cancellation); no task starts after it.
func TestRunPoolVerdictAtCancellation(t *testing.T) {
	for _, tc := range []struct {
		status    Status
		delivered int
	}{
		{StatusOK, 1},
		{StatusParseError, 1},
		{StatusAPIError, 0},
	} {
		t.Run(string(tc.status), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			n := 0
			for range RunPool(ctx, &cancellingJudge{cancel: cancel, status: tc.status}, tasksOf(5), PoolOptions{Concurrency: 1}) {
				n++
			}
			if n != tc.delivered {
				t.Errorf("%d verdicts delivered, want %d", n, tc.delivered)
			}
		})
	}
}

// After cancellation no task starts, prioritised or not.
func TestRunQueueCancellation(t *testing.T) {
	g := &gateJudge{started: make(chan Task, len(queueTasks())), release: make(chan struct{})}
	q := NewQueue(queueTasks())
	ctx, cancel := context.WithCancel(context.Background())
	out := RunQueue(ctx, g, q, PoolOptions{Concurrency: 3})
	for range 3 {
		<-g.started
	}
	q.Prioritize("i5")
	cancel()
	q.Prioritize("i4")
	for v := range out {
		t.Errorf("a cancelled call was delivered: %+v", v)
	}
	close(g.started)
	for task := range g.started {
		t.Errorf("%s started after cancellation", taskName(task))
	}
}

// Prioritize costs the item's own tasks, not the queue's length.
func BenchmarkQueuePrioritize(b *testing.B) {
	const n = 1_000_000
	tasks := make([]Task, n)
	for i := range tasks {
		tasks[i] = Task{Item: Item{Index: i, ID: strconv.Itoa(i)}}
	}
	q := NewQueue(tasks)
	for i := 0; b.Loop(); i++ {
		q.Prioritize(tasks[i*7919%n].Item.ID)
		if i%2 == 0 {
			q.pop()
		}
	}
}

// NewQueue indexes a million tasks once, before the run.
func BenchmarkNewQueue(b *testing.B) {
	tasks := make([]Task, 1_000_000)
	for i := range tasks {
		tasks[i] = Task{Item: Item{Index: i, ID: strconv.Itoa(i)}}
	}
	for b.Loop() {
		NewQueue(tasks)
	}
}
