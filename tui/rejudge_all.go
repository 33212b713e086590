package tui

import (
	"fmt"
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
)

// rejudgeAllMsg carries the tasks of a re-judge of the filter (R), made
// off the loop: at a million items making them (each item's row made
// whole, its prompt's parts) took most of a second, which the key press
// would have waited.
type rejudgeAllMsg struct {
	run   int
	tasks []judge.Task
	what  string // what is re-judged, for the question
}

// askRejudgeAll starts making the tasks of every item of the filter for
// the active judge; the question that confirms them comes with them
// (askRejudgeAllOf). The command reads the items on screen at the key
// press, each by its position: items are only ever added, never changed
// in place, so it may read them while the screen goes on.
func (s *reviewScreen) askRejudgeAll() action {
	r := s.run()
	if r == nil {
		return action{}
	}
	if s.counting {
		s.hint("Still counting what to re-judge…")
		return action{}
	}
	what := fmt.Sprintf("%s of %s", itemCount(len(s.sel.items)), s.sel.filter.name)
	if s.sel.filter.id == "all" {
		what = "all " + itemCount(len(s.sel.items))
		if len(s.sel.items) == 1 {
			what = "the one item"
		}
	}
	picked := slices.Clone(s.sel.items)
	// Which items are judged in both orders is read here, where the
	// run's verdicts change: a judge that is not pairwise has none.
	var swap []bool
	if pairwiseJudge(r.info) {
		swap = make([]bool, len(picked))
		for k, i := range picked {
			swap[k] = s.swap || len(r.swappedOf(i)) > 0
		}
	}
	items, info, run := s.items, r.info, s.act
	s.counting = true
	s.hint("Counting what to re-judge…")
	return action{cmd: func() tea.Msg {
		var tasks []judge.Task
		for k, i := range picked {
			tasks = append(tasks, itemTasks(info, items[i], swap != nil && swap[k])...)
		}
		return rejudgeAllMsg{run: run, tasks: tasks, what: what}
	}}
}

// askRejudgeAllOf confirms the re-judge of the filter once its tasks are
// made: it may cost money, which the question tells once counted
// (rejudge_cost.go).
func (s *reviewScreen) askRejudgeAllOf(msg rejudgeAllMsg) action {
	s.counting = false
	if msg.run >= len(s.runs) {
		return action{}
	}
	r := s.runs[msg.run]
	if len(msg.tasks) == 0 {
		s.refuse("Nothing to re-judge here.")
		return action{}
	}
	again := ""
	if r.info.Model != "" {
		again = ", asking the model again"
	}
	q := fmt.Sprintf("Re-judge %s with %s (%s%s)?", msg.what, SanitizeLine(r.name()), plural(len(msg.tasks), "task", "tasks"), again)
	d := newConfirmDialog(q, rejudgeTasksMsg{run: msg.run, tasks: msg.tasks, what: msg.what})
	return action{open: d, cmd: d.countCost(r.cost, msg.tasks)}
}
