package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// jobItems is a dataset with segments, confidences (ties included, and
// items without one), errors and labels, so that every filter and order
// has something to choose.
func jobItems(n int) ([]judge.Item, []Run, []sessions.Action) {
	items := testItems(n)
	vs := verdictsFor(items)
	var history []sessions.Action
	for i := range items {
		items[i].Segments = map[string]string{"category": fmt.Sprint("c", i%3)}
		if i%5 != 0 {
			c := float64(i%7) / 10
			vs[i].Confidence = &c
		}
		if i%11 == 0 {
			vs[i] = judge.Verdict{ItemID: items[i].ID, Status: judge.StatusParseError, Error: "unreadable", At: time.Unix(0, 0)}
		}
		if i%4 == 0 {
			history = append(history, sessions.Action{ID: int64(len(history) + 1), Group: int64(len(history) + 1),
				Kind: sessions.KindLabel, ItemID: items[i].ID, Dimension: "correct", Value: float64(i % 3 % 2), Via: "order", Annotator: "tester"})
		}
	}
	return items, []Run{{Info: matchInfo, Verdicts: vs}}, history
}

// pump runs a selection's commands to the end, as the runtime would, and
// counts the steps.
func pump(t *testing.T, m *Model, cmd tea.Cmd) (*Model, int) {
	t.Helper()
	steps := 0
	for cmd != nil {
		if steps++; steps > 100_000 {
			t.Fatal("the selection never finished")
		}
		msg := cmd()
		if b, ok := msg.(tea.BatchMsg); ok {
			var next []tea.Cmd
			for _, c := range b {
				if c != nil {
					next = append(next, c)
				}
			}
			if len(next) != 1 {
				t.Fatalf("a batch of %d commands in a selection", len(next))
			}
			cmd = next[0]
			continue
		}
		n, c := m.Update(msg)
		m, cmd = n.(*Model), c
	}
	return m, steps
}

func withJobs(t *testing.T, from int, budget time.Duration) {
	t.Helper()
	saved, savedBudget := asyncSelectionFrom, selectStepBudget
	asyncSelectionFrom, selectStepBudget = from, budget
	t.Cleanup(func() { asyncSelectionFrom, selectStepBudget = saved, savedBudget })
}

// A selection computed as a job, in many steps, equals the one computed
// at once, for every filter and order.
func TestSelectionJobEqualsImmediate(t *testing.T) {
	items, runs, history := jobItems(3000)
	m := newTestModel(t, &fakeStore{}, items, runs, history, 120, 40)
	for _, f := range m.filters() {
		for o := order(0); o < numOrders; o++ {
			t.Run(fmt.Sprintf("%s/%s", f.id, o), func(t *testing.T) {
				withJobs(t, 1<<30, selectStepBudget)
				if cmd := m.selectAs(f, o); cmd != nil {
					t.Fatal("a small dataset's selection should be made at once")
				}
				want, wantCur := slices.Clone(m.sel.items), m.cur

				m.show(0)
				m = update(t, m, keyMsg("right")) // start from another item
				m.show(wantCur)
				withJobs(t, 0, 0) // every step tests 512 items
				cmd := m.selectAs(staticFilters[0], orderDataset)
				m, _ = pump(t, m, cmd)
				cmd = m.selectAs(f, o)
				if cmd == nil {
					t.Fatal("no job for a large dataset")
				}
				var steps int
				m, steps = pump(t, m, cmd)
				if steps < 3 {
					t.Errorf("%d steps: the job did not run in steps", steps)
				}
				if !slices.Equal(m.sel.items, want) || m.sel.filter.id != f.id || m.sel.order != o {
					t.Errorf("job selected %d items (%s, %s), at once %d", len(m.sel.items), m.sel.filter.id, m.sel.order, len(want))
				}
				if m.sel.job.running {
					t.Error("the job still runs after its result")
				}
			})
		}
	}
}

// While a job runs the selection in force stays, with its filter (a label
// made meanwhile records it), and the hint says what is being selected; a
// second key press replaces the job.
func TestSelectionJobKeepsTheSelectionUntilDone(t *testing.T) {
	withJobs(t, 0, 0)
	items, runs, history := jobItems(3000)
	m := newTestModel(t, &fakeStore{}, items, runs, history, 120, 40)
	m, _ = pump(t, m, m.applySelection())
	if m.sel.filter.id != "all" || len(m.sel.items) != 3000 {
		t.Fatalf("start: %s with %d items", m.sel.filter.id, len(m.sel.items))
	}
	next, first := m.Update(keyMsg("f"))
	m = next.(*Model)
	if first == nil || !m.sel.job.running {
		t.Fatal("f started no job")
	}
	if m.sel.filter.id != "all" || len(m.sel.items) != 3000 || m.provenance() != "order" {
		t.Errorf("during the job: filter %s, %d items, via %s; want the old selection in force", m.sel.filter.id, len(m.sel.items), m.provenance())
	}
	if !strings.Contains(plain(m), "Selecting unreviewed") {
		t.Errorf("the screen does not say what is being selected:\n%s", plain(m))
	}
	next, second := m.Update(keyMsg("f"))
	m = next.(*Model)
	m, _ = pump(t, m, first) // the first job's steps are dropped
	if m.sel.filter.id != "all" {
		t.Errorf("the replaced job took effect: %s", m.sel.filter.id)
	}
	m, _ = pump(t, m, second)
	if m.sel.filter.id != "disagreements" {
		t.Errorf("after two f presses the filter is %s, want disagreements", m.sel.filter.id)
	}
	for _, i := range m.sel.items {
		if m.agreement[i] != 0 {
			t.Fatalf("item %d is not a disagreement", i)
		}
	}
}

// An order chosen while a search's matches stream in applies to them when
// the search ends; a filter chosen meanwhile ends the search.
func TestSelectionJobAndSearch(t *testing.T) {
	withJobs(t, 0, 0)
	items, runs, history := jobItems(3000)
	m := newTestModel(t, &fakeStore{}, items, runs, history, 120, 40)
	next, cmd := m.Update(searchQueryMsg{query: "number 1"})
	m = next.(*Model)
	next, _ = m.Update(keyMsg("o"))
	m = next.(*Model)
	m, _ = pump(t, m, cmd)
	if m.sel.filter.id != "search" || m.sel.order != orderLeastConfident || len(m.sel.items) == 0 {
		t.Fatalf("search then o: %s, %s, %d items", m.sel.filter.id, m.sel.order, len(m.sel.items))
	}
	for k := 1; k < len(m.sel.items); k++ {
		a, okA := m.confidence(m.sel.items[k-1])
		b, okB := m.confidence(m.sel.items[k])
		if okA == okB && a > b || !okA && okB {
			t.Fatalf("matches out of order at %d: %v %v then %v %v", k, a, okA, b, okB)
		}
		if !strings.Contains(m.items[m.sel.items[k]].Question, "number 1") {
			t.Fatalf("item %d does not match the search", m.sel.items[k])
		}
	}

	next, cmd = m.Update(searchQueryMsg{query: "number"})
	m = next.(*Model)
	next, fcmd := m.Update(keyMsg("f"))
	m = next.(*Model)
	m, _ = pump(t, m, cmd)
	m, _ = pump(t, m, fcmd)
	if m.sel.filter.id == "search" || m.sel.searching {
		t.Errorf("a filter chosen during a search left it running: %s", m.sel.filter.id)
	}
}
