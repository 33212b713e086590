package sessions

import (
	"slices"
	"strings"

	"github.com/gavel-dev/gavel/judge"
)

// taskChunk is how many tasks a review's judging holds at once (see
// todoSource): enough that making the next chunk is rare, few enough to
// be a couple of megabytes.
const taskChunk = 10_000

// todoSource makes a run's tasks still to do (TasksToDo's, in the same
// order) chunk by chunk for judge.NewQueueFrom. It keeps 8 bytes per task
// and 4 per item with tasks, where a judge.Task holds its whole item.
type todoSource struct {
	info  judge.Info
	items []judge.Item
	swap  bool
	// refs are the tasks to do in order: an item and the task's place
	// among the item's tasks (judge.TasksFor).
	refs []taskRef
	// next is the first ref Next has not handed out; taken marks refs
	// Take handed out first, which Next skips.
	next  int
	taken []bool
	// byID is the first ref of each item, ordered by the item's ID, for
	// Take.
	byID []int32
}

type taskRef struct{ item, k int32 }

// newTodoSource lists the tasks of items that no verdict of vs (either
// order, api_errors and truncated aside: those are asked again) has done.
func newTodoSource(info judge.Info, items []judge.Item, swap bool, vs ...[]judge.Verdict) *todoSource {
	d := newDoneSet(info, items, swap)
	for _, l := range vs {
		d.restart()
		d.add(l)
	}
	return newTodoSourceDone(info, items, swap, d)
}

// newTodoSourceDone lists the tasks of items that d does not hold.
func newTodoSourceDone(info judge.Info, items []judge.Item, swap bool, d *doneSet) *todoSource {
	s := &todoSource{info: info, items: items, swap: swap}
	one := s.oneTask()
	for i, it := range items {
		if one {
			if !d.has(i, 0, false) {
				s.refs = append(s.refs, taskRef{int32(i), 0})
			}
			continue
		}
		for k, t := range judge.TasksFor(info, it, swap) {
			if !d.has(i, t.Criterion, t.Swapped) {
				s.refs = append(s.refs, taskRef{int32(i), int32(k)})
			}
		}
	}
	s.refs = slices.Clip(s.refs)
	s.taken = make([]bool, len(s.refs))
	for r := range s.refs {
		if r == 0 || s.refs[r].item != s.refs[r-1].item {
			s.byID = append(s.byID, int32(r))
		}
	}
	s.byID = slices.Clip(s.byID)
	if !slices.IsSortedFunc(s.byID, s.compareIDs) {
		slices.SortFunc(s.byID, s.compareIDs)
	}
	return s
}

// doneSet holds which tasks of a run's items have a verdict that counts
// as done (not an api_error or truncated one), by the item's position
// rather than its id: a map keyed by a million item ids is ~50 MB, the
// bits of the whole item's task ~125 KB. The position of a verdict's
// item is found by a forward scan of items, as a run's verdicts come in
// item order; a verdict out of that order (or of an item not among
// items) makes a map of the positions once, used from then on.
type doneSet struct {
	items []judge.Item
	// whole has a bit per item: its whole-item, first-order task
	// (criterion 0, not swapped) is done.
	whole []uint64
	// others holds the other tasks done; nil when there are none to do
	// (one task per item: todoSource.oneTask).
	others map[doneTask]struct{}
	next   int              // where the forward scan resumes
	pos    map[string]int32 // positions by id, once a scan missed
}

type doneTask struct {
	item, crit int32
	swapped    bool
}

func newDoneSet(info judge.Info, items []judge.Item, swap bool) *doneSet {
	d := &doneSet{items: items, whole: make([]uint64, (len(items)+63)/64)}
	if info.PerCriterion || swap {
		d.others = map[doneTask]struct{}{}
	}
	return d
}

// restart starts the forward scan again from the first item: for the
// next run of verdicts in item order (the swapped order's, after the
// first order's).
func (d *doneSet) restart() { d.next = 0 }

// add marks the tasks vs have done.
func (d *doneSet) add(vs []judge.Verdict) {
	for k := range vs {
		v := &vs[k]
		if v.Status == judge.StatusAPIError || v.Status == judge.StatusTruncated {
			continue
		}
		whole := v.Criterion == 0 && !v.Swapped
		if !whole && d.others == nil {
			continue
		}
		i, ok := d.position(v.ItemID)
		if !ok {
			continue
		}
		if whole {
			d.whole[i/64] |= 1 << (i % 64)
		} else {
			d.others[doneTask{int32(i), int32(v.Criterion), v.Swapped}] = struct{}{}
		}
	}
}

// position is the position of the item with id among items.
func (d *doneSet) position(id string) (int, bool) {
	if d.pos == nil {
		for p := d.next; p < len(d.items); p++ {
			if d.items[p].ID == id {
				d.next = p
				return p, true
			}
		}
		// Out of order: a map from now on. The first item of an id
		// is the one found, as the forward scan does.
		d.pos = make(map[string]int32, len(d.items))
		for p := len(d.items) - 1; p >= 0; p-- {
			d.pos[d.items[p].ID] = int32(p)
		}
	}
	p, ok := d.pos[id]
	return int(p), ok
}

// has reports whether an item's task of a criterion and order is done.
func (d *doneSet) has(item, crit int, swapped bool) bool {
	if crit == 0 && !swapped {
		return d.whole[item/64]&(1<<(item%64)) != 0
	}
	_, ok := d.others[doneTask{int32(item), int32(crit), swapped}]
	return ok
}

// oneTask reports whether every item has exactly one task, the whole
// item in its own order (judge.Tasks without criteria or swap).
func (s *todoSource) oneTask() bool { return !s.info.PerCriterion && !s.swap }

func (s *todoSource) compareIDs(a, b int32) int {
	return strings.Compare(s.items[s.refs[a].item].ID, s.items[s.refs[b].item].ID)
}

// len is how many tasks there are to do.
func (s *todoSource) len() int { return len(s.refs) }

// tasksOf makes the tasks of refs[from:to], all of one item.
func (s *todoSource) tasksOf(out []judge.Task, from, to int) []judge.Task {
	it := s.items[s.refs[from].item]
	if s.oneTask() {
		return append(out, judge.Task{Item: it})
	}
	all := judge.TasksFor(s.info, it, s.swap)
	for r := from; r < to; r++ {
		out = append(out, all[s.refs[r].k])
	}
	return out
}

// itemEnd is the end of the refs of the item refs[from] is about.
func (s *todoSource) itemEnd(from int) int {
	to := from + 1
	for to < len(s.refs) && s.refs[to].item == s.refs[from].item {
		to++
	}
	return to
}

// Next returns the next tasks, about n, never part of an item's.
func (s *todoSource) Next(n int) []judge.Task {
	var out []judge.Task
	for s.next < len(s.refs) && len(out) < n {
		from := s.next
		s.next = s.itemEnd(from)
		if s.taken[from] {
			continue
		}
		if out == nil {
			out = make([]judge.Task, 0, min(n, len(s.refs)-from)+2)
		}
		out = s.tasksOf(out, from, s.next)
	}
	return out
}

// Take returns the tasks of an item Next has not handed out yet.
func (s *todoSource) Take(itemID string) []judge.Task {
	at, ok := slices.BinarySearchFunc(s.byID, itemID, func(r int32, id string) int {
		return strings.Compare(s.items[s.refs[r].item].ID, id)
	})
	if !ok {
		return nil
	}
	from := int(s.byID[at])
	if from < s.next || s.taken[from] {
		return nil
	}
	to := s.itemEnd(from)
	for r := from; r < to; r++ {
		s.taken[r] = true
	}
	return s.tasksOf(nil, from, to)
}
