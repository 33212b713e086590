package sessions

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// tasksItems is n items with ids out of order, every fourth a rubric item
// and every third a pair.
func tasksItems(n int) []judge.Item {
	items := make([]judge.Item, n)
	for i := range items {
		it := judge.Item{Index: i, ID: fmt.Sprintf("id-%03d", (i*37)%n), Question: "q", Prediction: "p"}
		if i%4 == 1 {
			it.Rubric = []string{"a", "b"}
		}
		if i%3 == 2 {
			it.ResponseA, it.ResponseB = "a", "b"
		}
		items[i] = it
	}
	return items
}

// wantTasks is TasksToDo as it was written before todoSource: every task
// of every item, less those with a verdict that is not an api_error.
func wantTasks(info judge.Info, items []judge.Item, vs []judge.Verdict, swap bool) []string {
	done := map[string]bool{}
	for _, v := range vs {
		if v.Status != judge.StatusAPIError {
			done[fmt.Sprint(v.ItemID, v.Criterion, v.Swapped)] = true
		}
	}
	var out []string
	for _, it := range items {
		for _, t := range judge.TasksFor(info, it, swap) {
			if !done[fmt.Sprint(it.ID, t.Criterion, t.Swapped)] {
				out = append(out, taskString(t))
			}
		}
	}
	return out
}

func taskString(t judge.Task) string {
	return fmt.Sprintf("%s/%d/%v", t.Item.ID, t.Criterion, t.Swapped)
}

func taskStrings(ts []judge.Task) []string {
	var out []string
	for _, t := range ts {
		out = append(out, taskString(t))
	}
	return out
}

// The chunked source makes TasksToDo's tasks in the same order, whatever
// the chunk, for every kind of judge; Take hands an item's tasks out of
// turn once, and Next then skips them.
func TestTodoSourceMakesTheTasksToDo(t *testing.T) {
	items := tasksItems(60)
	var vs []judge.Verdict
	for i, it := range items {
		switch i % 5 {
		case 0:
			vs = append(vs, judge.Verdict{ItemID: it.ID, Status: judge.StatusOK})
		case 1:
			vs = append(vs, judge.Verdict{ItemID: it.ID, Criterion: 1, Status: judge.StatusOK})
		case 2:
			vs = append(vs, judge.Verdict{ItemID: it.ID, Swapped: true, Status: judge.StatusOK})
		case 3:
			vs = append(vs, judge.Verdict{ItemID: it.ID, Status: judge.StatusAPIError})
		}
	}
	rubric := binaryInfo("rubric", "m")
	rubric.PerCriterion = true
	for _, tc := range []struct {
		name string
		info judge.Info
		swap bool
	}{{"whole items", binaryInfo("docqa", "m"), false}, {"criteria", rubric, false}, {"pairs both orders", prefInfo, true}, {"pairs one order", prefInfo, false}} {
		want := wantTasks(tc.info, items, vs, tc.swap)
		if got := taskStrings(TasksToDo(tc.info, items, vs, tc.swap)); !slices.Equal(got, want) {
			t.Errorf("%s: TasksToDo\n got %v\nwant %v", tc.name, got, want)
		}
		for _, chunk := range []int{1, 3, 7, 1000} {
			src := newTodoSource(tc.info, items, tc.swap, vs)
			if src.len() != len(want) {
				t.Errorf("%s: len %d, want %d", tc.name, src.len(), len(want))
			}
			var got []string
			for {
				ts := src.Next(chunk)
				if len(ts) == 0 {
					break
				}
				got = append(got, taskStrings(ts)...)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s, chunk %d:\n got %v\nwant %v", tc.name, chunk, got, want)
			}
		}
		// Take: an item ahead comes out of turn, once; one handed out,
		// or unknown, gives nothing.
		src := newTodoSource(tc.info, items, tc.swap, vs)
		first := src.Next(1)
		if len(first) == 0 {
			t.Fatalf("%s: no task", tc.name)
		}
		if ts := src.Take(first[0].Item.ID); ts != nil {
			t.Errorf("%s: Take of an item handed out: %v", tc.name, taskStrings(ts))
		}
		last := want[len(want)-1]
		lastID := items[src.refs[len(src.refs)-1].item].ID
		ts := src.Take(lastID)
		if len(ts) == 0 || taskString(ts[len(ts)-1]) != last {
			t.Errorf("%s: Take(%s) = %v, want its tasks ending %s", tc.name, lastID, taskStrings(ts), last)
		}
		if again := src.Take(lastID); again != nil {
			t.Errorf("%s: taken twice", tc.name)
		}
		if src.Take("nope") != nil {
			t.Errorf("%s: an unknown item has tasks", tc.name)
		}
		var rest []string
		for ts := src.Next(5); len(ts) > 0; ts = src.Next(5) {
			rest = append(rest, taskStrings(ts)...)
		}
		wantRest := want[len(first) : len(want)-len(ts)]
		if !slices.Equal(rest, wantRest) {
			t.Errorf("%s: after Take, Next gives\n %v\nwant %v", tc.name, rest, wantRest)
		}
	}
}
