package tui

import (
	"context"
	"errors"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
)

// rejudgeCostMsg carries what the re-judge a confirmation asks about
// would cost (Run.Cost), to that confirmation.
type rejudgeCostMsg struct {
	d    *confirmDialog
	text string
	err  error
}

// countCost starts counting what re-judging tasks would cost, off the
// screen's goroutine (a million prompts take a while to tokenise), and
// shows "counting the cost…" until it is known. Answering the question
// first cancels the count. nil when the run tells no cost.
func (d *confirmDialog) countCost(cost func(context.Context, []judge.Task) (string, error), tasks []judge.Task) tea.Cmd {
	if cost == nil {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	d.detail, d.cancel = "counting the cost…", cancel
	return func() tea.Msg {
		text, err := cost(ctx, tasks)
		return rejudgeCostMsg{d: d, text: text, err: err}
	}
}

// gotCost shows the cost, or why it is not known. A count cancelled by
// the answer changes nothing: the dialog is gone.
func (d *confirmDialog) gotCost(msg rejudgeCostMsg) {
	switch {
	case msg.err == nil:
		d.detail = msg.text
	case errors.Is(msg.err, context.Canceled):
	default:
		d.detail = "cost unknown: " + msg.err.Error()
	}
}

// detailText is the detail as the question's tail, sanitised (it names
// models and prices from the config).
func (d *confirmDialog) detailText(st Styles) string {
	if d.detail == "" {
		return ""
	}
	return st.Muted.Render(" " + SanitizeLine(d.detail))
}
