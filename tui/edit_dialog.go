package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// editErrorDialog says what is wrong with an edited judge file, and asks
// whether to edit it again (the text as saved, to be fixed) or discard
// it. The error comes from the file's parser and may quote the file: it is
// sanitised and wrapped.
type editErrorDialog struct {
	what string // what went wrong, the line above the error
	err  string
	keys editErrorKeys
	scroller
}

type editErrorKeys struct {
	Again   key.Binding
	Discard key.Binding
}

func newEditErrorDialog(what, err string) *editErrorDialog {
	d := &editErrorDialog{what: what, err: err, keys: editErrorKeys{
		Again:   key.NewBinding(key.WithKeys("e", "enter"), key.WithHelp("e", "edit the file again (your text is kept)")),
		Discard: key.NewBinding(key.WithKeys("d", "esc"), key.WithHelp("d/esc", "discard the edit")),
	}}
	d.scroller = scroller{keys: defaultOverlayKeys()}
	// esc discards: the scroller's close key would leave the edit open.
	d.scroller.keys.Close = key.NewBinding(key.WithKeys())
	return d
}

func (d *editErrorDialog) update(msg tea.Msg) (tea.Cmd, bool) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, false
	}
	switch {
	case key.Matches(k, d.keys.Again):
		return func() tea.Msg { return editAgainMsg{} }, true
	case key.Matches(k, d.keys.Discard):
		return func() tea.Msg { return discardEditMsg{} }, true
	}
	d.scroll(msg)
	return nil, false
}

func (d *editErrorDialog) overlay(st Styles, width, height int) string {
	inner := max(min(width, 100)-4, 20)
	lines := []string{st.Error.Render(d.what), ""}
	for _, p := range strings.Split(Sanitize(d.err), "\n") {
		lines = append(lines, wrapPlain(p, inner)...)
	}
	lines = append(lines, "",
		st.Key.Render("e")+" "+st.KeyDesc.Render("edit it again (your text is kept)")+st.Muted.Render(" · ")+
			st.Key.Render("d")+" "+st.KeyDesc.Render("discard it (the judge stays as it was)"))
	return d.framed(st, "Judge file", padLines(lines, inner), width, height)
}

func (d *editErrorDialog) ShortHelp() []key.Binding {
	return []key.Binding{d.keys.Again, d.keys.Discard}
}

func (d *editErrorDialog) FullHelp() [][]key.Binding {
	return [][]key.Binding{{d.keys.Again, d.keys.Discard, d.scroller.keys.Down, d.scroller.keys.Up}}
}
