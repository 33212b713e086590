package judge

import (
	"context"
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
