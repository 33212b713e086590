package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// confirmDialog asks a yes/no question on the hint line before an
// expensive action. Its answer is a message decided when it was opened,
// so it holds no copy of the model: whatever yes starts, starts on the one
// model the program runs.
type confirmDialog struct {
	question string
	yes      tea.Msg
	keys     confirmKeys
	// detail follows the question: what R would cost, once counted
	// (rejudge_cost.go); cancel stops the counting when the question is
	// answered first.
	detail string
	cancel func()
}

type confirmKeys struct {
	Yes key.Binding
	No  key.Binding
}

func newConfirmDialog(question string, yes tea.Msg) *confirmDialog {
	return &confirmDialog{question: question, yes: yes, keys: confirmKeys{
		Yes: key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "yes, go ahead")),
		No:  key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n/esc", "no")),
	}}
}

// update answers on y; any other key cancels, so that a stray key never
// confirms. A question whose answer is not ready yet (yes is nil: R's
// tasks still being made) keeps waiting on y.
func (d *confirmDialog) update(msg tea.Msg) (tea.Cmd, bool) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, false
	}
	if d.yes == nil && key.Matches(k, d.keys.Yes) {
		return nil, false
	}
	if d.cancel != nil {
		d.cancel()
	}
	if key.Matches(k, d.keys.Yes) {
		yes := d.yes
		return func() tea.Msg { return yes }, true
	}
	return func() tea.Msg { return cancelledMsg{} }, true
}

// cancelledMsg says a confirmation was declined.
type cancelledMsg struct{}

// line puts the answer keys first, so a narrow terminal cuts the
// question, never how to answer it.
func (d *confirmDialog) line(st Styles, width int) string {
	return st.Key.Render("y") + " " + st.KeyDesc.Render("yes") + st.Muted.Render(" · ") +
		st.Key.Render("n") + " " + st.KeyDesc.Render("no") + "  " + st.Warning.Render(d.question) + d.detailText(st)
}

func (d *confirmDialog) ShortHelp() []key.Binding { return []key.Binding{d.keys.Yes, d.keys.No} }

func (d *confirmDialog) FullHelp() [][]key.Binding { return [][]key.Binding{d.ShortHelp()} }
