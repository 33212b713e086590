package tui

import (
	"context"
	"fmt"
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// rejudgeAllMsg carries the tasks of a re-judge of the filter (R), made
// off the loop: at a million items making them (each item's row made
// whole, its prompt's parts) took most of a second, which the key press
// would have waited. d is the question they were made for.
type rejudgeAllMsg struct {
	d     *confirmDialog
	run   int
	tasks []judge.Task
	what  string // what is re-judged, for the question
}

// tasksChecked is how many items the making of the tasks does between two
// looks at whether the question was answered meanwhile.
const tasksChecked = 1024

// askRejudgeAll asks to re-judge every item of the filter with the active
// judge. The question opens at once, so that no key meant for the review
// (y labels) answers it when it comes; its tasks are made off the loop
// and y waits for them (askRejudgeAllOf), any other key cancels them.
// The command reads the items on screen at the key press, each by its
// position: items are only ever added, never changed in place, so it may
// read them while the screen goes on.
func (s *reviewScreen) askRejudgeAll() action {
	r := s.run()
	if r == nil {
		return action{}
	}
	if r.rejudge == nil {
		s.warn(cannotRejudge(r)) // kept in the log: too long for 80 columns
		return action{}
	}
	if s.refuseWhileLoading("Re-judging the filter") {
		return action{}
	}
	if len(s.sel.items) == 0 {
		s.refuse("Nothing to re-judge here.")
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
			swap[k] = s.swap || r.hasSwapped(i)
		}
	}
	items, info, run := s.items, r.info, s.act
	d := newConfirmDialog(fmt.Sprintf("Re-judge %s with %s?", what, SanitizeLine(r.name())), nil)
	ctx, cancel := context.WithCancel(context.Background())
	d.detail, d.cancel = "counting the tasks…", cancel
	return action{open: d, cmd: func() tea.Msg {
		var tasks []judge.Task
		for k, i := range picked {
			if k%tasksChecked == 0 && ctx.Err() != nil {
				return nil // answered: nobody waits for them
			}
			tasks = append(tasks, itemTasks(info, items[i], swap != nil && swap[k])...)
		}
		return rejudgeAllMsg{d: d, run: run, tasks: tasks, what: what}
	}}
}

// askRejudgeAllOf completes the question once its tasks are made: how
// many, and what they would cost, once counted (rejudge_cost.go). A
// question answered meanwhile is gone: the tasks are dropped.
func (m *Model) askRejudgeAllOf(msg rejudgeAllMsg) tea.Cmd {
	if m.top() != dialog(msg.d) || msg.run >= len(m.runs) {
		return nil
	}
	r := m.runs[msg.run]
	if len(msg.tasks) == 0 {
		m.closeDialog()
		m.refuse("Nothing to re-judge here.")
		return nil
	}
	again := ""
	if r.info.Model != "" {
		again = ", asking the model again"
	}
	d := msg.d
	d.question = fmt.Sprintf("Re-judge %s with %s (%s%s)?", msg.what, SanitizeLine(r.name()), plural(len(msg.tasks), "task", "tasks"), again)
	d.yes = rejudgeTasksMsg{run: msg.run, tasks: msg.tasks, what: msg.what}
	d.detail, d.cancel = "", nil
	return d.countCost(r.cost, msg.tasks)
}

// cannotRejudge says why run r has nothing to re-judge with: its verdicts
// came from a file, or the judge was not named when the screen opened.
func cannotRejudge(r *runView) string {
	if r.info.Name == sessions.ImportedJudge {
		return fmt.Sprintf("%s holds verdicts imported from the file: nothing can judge them again. Name a judge with --judge to judge the items yourself.", SanitizeLine(r.name()))
	}
	return fmt.Sprintf("%s cannot re-judge from here: reopen the session with --judge %s (and its --model and server flags).", SanitizeLine(r.name()), SanitizeLine(r.info.Name))
}
