package tui

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	tea "charm.land/bubbletea/v2"
)

// On a large dataset a new filter or order is too slow for one key press
// (a filter on the judge's value takes a second at 1,000,000 items, the
// least-confident order 0.1 s), so it runs as a job: the filter is tested
// on the event loop in steps of a few milliseconds, each step a message of
// its own, so keys and frames go on between them; the ordering runs in a
// command, off the loop, on private copies of the matches and their
// confidences. The selection in force stays on screen, filter and
// provenance included, until the new one is complete and takes its place
// at once. A newer filter or order replaces a job still running.

// asyncSelectionFrom is the number of items from which a selection is
// computed as a job; smaller datasets take a key press for it.
var asyncSelectionFrom = 50_000

// selectStepBudget is how long one step tests the filter.
var selectStepBudget = 4 * time.Millisecond

// selectJob is a selection being computed.
type selectJob struct {
	gen     int
	running bool
	filter  filter
	order   order
	pool    []int // the items to test, in dataset order; nil for every item
	all     bool  // every item of pool matches (no test)
	next    int   // the next position in pool (or item) to test
	items   []int // the matches so far, in dataset order
	conf    []float64
	has     []bool // conf[k] is defined (least-confident order only)
}

// selectStepMsg asks for the next step of job gen.
type selectStepMsg struct{ gen int }

// selectOrderedMsg is job gen's matches, ordered.
type selectOrderedMsg struct {
	gen   int
	items []int
}

// wanted is the filter and order the person asked for last: those of the
// job when one runs, else those in force.
func (w *workspace) wanted() (filter, order) {
	if j := &w.sel.job; j.running {
		return j.filter, j.order
	}
	return w.sel.filter, w.sel.order
}

// selectAs computes the selection of filter f in order o: at once on a
// small dataset, as a job (see asyncSelectionFrom) on a large one.
func (w *workspace) selectAs(f filter, o order) tea.Cmd {
	// A selection made after a switch of judges is the new judge's:
	// nothing to select again (reselectForJudge).
	w.judgeMoved = false
	w.sel.job.gen++
	w.sel.job.running = false
	w.sel.searching = false
	if len(w.items) < asyncSelectionFrom {
		w.sel.filter, w.sel.order = f, o
		w.applyNow()
		return nil
	}
	w.sel.job = selectJob{gen: w.sel.job.gen, running: true, filter: f, order: o}
	w.hint(fmt.Sprintf("Selecting %s · %s among %d items…", f.name, o, len(w.items)))
	return nextStep(w.sel.job.gen)
}

// orderAs puts the selection in force in order o without testing its
// filter again (a search's matches are known).
func (w *workspace) orderAs(o order) tea.Cmd {
	w.judgeMoved = false
	items := slices.Clone(w.sel.items)
	slices.Sort(items)
	w.sel.job.gen++
	w.sel.job.running = false
	if len(w.items) < asyncSelectionFrom {
		w.sel.order = o
		w.setSelection(items)
		w.saySelection()
		return nil
	}
	w.sel.job = selectJob{gen: w.sel.job.gen, running: true, filter: w.sel.filter, order: o, pool: items, all: true}
	w.hint(fmt.Sprintf("Ordering %d items · %s…", len(items), o))
	return nextStep(w.sel.job.gen)
}

// selectStep tests the filter on items until the step's time is up, then
// asks for the next step, or hands the matches to be ordered.
func (w *workspace) selectStep(gen int) tea.Cmd {
	j := &w.sel.job
	if !j.running || j.gen != gen {
		return nil
	}
	start := time.Now()
	n := len(w.items)
	if j.pool != nil {
		n = len(j.pool)
	}
	for j.next < n {
		i := j.next
		if j.pool != nil {
			i = j.pool[j.next]
		}
		j.next++
		if j.all || j.filter.match == nil || j.filter.match(w, i) {
			j.items = append(j.items, i)
			if j.order == orderLeastConfident {
				c, ok := w.rankConfidence(i)
				j.conf, j.has = append(j.conf, c), append(j.has, ok)
			}
		}
		if j.next%512 == 0 && time.Since(start) > selectStepBudget {
			return nextStep(gen)
		}
	}
	items, conf, has, o, size := j.items, j.conf, j.has, j.order, len(w.items)
	if a := j.filter.arrange; a != nil {
		return w.selectOrdered(selectOrderedMsg{gen: gen, items: a(w, items)})
	}
	if o == orderDataset {
		return w.selectOrdered(selectOrderedMsg{gen: gen, items: items})
	}
	return func() tea.Msg { return selectOrderedMsg{gen: gen, items: orderItems(items, conf, has, o, size)} }
}

// nextStep asks for a step of job gen, after the messages already waiting
// (keys, frames).
func nextStep(gen int) tea.Cmd {
	return func() tea.Msg { return selectStepMsg{gen: gen} }
}

// selectOrdered puts a finished job's selection in force.
func (w *workspace) selectOrdered(msg selectOrderedMsg) tea.Cmd {
	j := &w.sel.job
	if !j.running || j.gen != msg.gen {
		return nil
	}
	j.running = false
	w.sel.filter, w.sel.order = j.filter, j.order
	w.sel.job = selectJob{gen: j.gen}
	w.placeSelection(msg.items)
	w.saySelection()
	return nil
}

// orderItems orders a filter's matches: least confident first (conf and
// has give each match's lowest confidence, items without one last), or
// shuffled with the session's seed. It reads nothing but its arguments,
// so it may run off the event loop, and gives what setSelection gives.
func orderItems(items []int, conf []float64, has []bool, o order, size int) []int {
	switch o {
	case orderLeastConfident:
		idx := make([]int, len(items))
		for k := range idx {
			idx[k] = k
		}
		sort.SliceStable(idx, func(a, b int) bool {
			ka, kb := idx[a], idx[b]
			if has[ka] != has[kb] {
				return has[ka] // items with a confidence first
			}
			return conf[ka] < conf[kb]
		})
		out := make([]int, len(items))
		for k, x := range idx {
			out[k] = items[x]
		}
		return out
	case orderRandom:
		r := rand.New(rand.NewPCG(randomSeed, uint64(size)))
		r.Shuffle(len(items), func(a, b int) { items[a], items[b] = items[b], items[a] })
	}
	return items
}
