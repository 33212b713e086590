package judge

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// sliceSource is a TaskSource over a list of tasks (an item's tasks
// together), for comparing a chunked queue with a whole one.
type sliceSource struct {
	tasks []Task
	next  int
	taken map[string]bool
}

func newSliceSource(ts []Task) *sliceSource {
	return &sliceSource{tasks: ts, taken: map[string]bool{}}
}

func (s *sliceSource) Next(n int) []Task {
	var out []Task
	for s.next < len(s.tasks) {
		t := s.tasks[s.next]
		if len(out) >= n && out[len(out)-1].Item.ID != t.Item.ID {
			break
		}
		s.next++
		if !s.taken[t.Item.ID] {
			out = append(out, t)
		}
	}
	return out
}

func (s *sliceSource) Take(id string) []Task {
	if s.taken[id] {
		return nil
	}
	var out []Task
	for _, t := range s.tasks[s.next:] {
		if t.Item.ID == id {
			out = append(out, t)
		}
	}
	if len(out) > 0 {
		s.taken[id] = true
	}
	return out
}

// manyTasks is n items, every fifth with three criteria.
func manyTasks(n int) []Task {
	var ts []Task
	for i := range n {
		it := Item{Index: i, ID: fmt.Sprintf("i%d", i)}
		if i%5 == 2 {
			for k := 1; k <= 3; k++ {
				ts = append(ts, Task{Item: it, Criterion: k})
			}
			continue
		}
		ts = append(ts, Task{Item: it})
	}
	return ts
}

// A queue fed chunk by chunk starts the tasks in the same order as one
// holding them all, whatever is prioritised when, and never holds more
// than a chunk (with its last item's tasks) and the items prioritised.
func TestQueueFromSourceMatchesWholeQueue(t *testing.T) {
	// The fixed cases of TestQueueOrder first, with a chunk of 2.
	for _, steps := range [][]string{nil, {"i4"}, {"i4", "i3", "i4"}, {"i5", "i2"}, {"i2", "+1", "i5", "i2"}, {"+2", "i0", "i1"}, {"+6", "i3", "i5"}, {"i1", "i0", "+2"}, {"nope"}, {"+8", "i4"}} {
		whole, chunked := NewQueue(queueTasks()), NewQueueFrom(newSliceSource(queueTasks()), 2)
		if a, b := drive(t, whole, steps), drive(t, chunked, steps); a != b {
			t.Errorf("steps %v: chunked %s\n whole %s", steps, b, a)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const items, chunk = 400, 16
	for round := range 50 {
		var steps []string
		prioritised := 0
		for range 120 {
			if rng.IntN(3) == 0 {
				steps = append(steps, fmt.Sprintf("+%d", 1+rng.IntN(20)))
			} else {
				steps = append(steps, fmt.Sprintf("i%d", rng.IntN(items+5)))
				prioritised++
			}
		}
		whole := NewQueue(manyTasks(items))
		chunked := NewQueueFrom(newSliceSource(manyTasks(items)), chunk)
		most := 0
		watch := func() { most = max(most, len(chunked.tasks)) }
		a, b := drive(t, whole, steps), driveWatch(t, chunked, steps, watch)
		if a != b {
			t.Fatalf("round %d: chunked and whole queues differ\nsteps %v\nchunked %s\n whole %s", round, steps, b, a)
		}
		if limit := chunk + 3 + 3*prioritised; most > limit {
			t.Errorf("round %d: the chunked queue held %d tasks (at most %d expected)", round, most, limit)
		}
		if most >= len(manyTasks(items)) {
			t.Errorf("round %d: the chunked queue held every task", round)
		}
	}
}

func drive(t *testing.T, q *Queue, steps []string) string {
	return driveWatch(t, q, steps, func() {})
}

// driveWatch runs steps ("+N" takes N tasks, anything else prioritises
// that item), then takes the rest, and lists the tasks in the order taken.
func driveWatch(t *testing.T, q *Queue, steps []string, watch func()) string {
	t.Helper()
	var got []string
	take := func() bool {
		task, ok := q.pop()
		watch()
		if ok {
			got = append(got, taskName(task))
		}
		return ok
	}
	for _, s := range steps {
		var n int
		if _, err := fmt.Sscanf(s, "+%d", &n); err == nil {
			for range n {
				take()
			}
			continue
		}
		q.Prioritize(s)
		watch()
	}
	for take() {
	}
	return strings.Join(got, " ")
}
