package tui

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// textDialog is a one-line prompt on the hint line: the note editor and
// the search prompt. While it is open, letters are text: q types a q, esc
// closes it and ctrl+c is the only way to quit.
type textDialog struct {
	prompt string
	input  textinput.Model
	keys   textKeys
	// done turns the text into the message the dialog answers with.
	done func(text string) tea.Msg
}

type textKeys struct {
	Enter  key.Binding
	Cancel key.Binding
}

func newTextDialog(prompt, value, placeholder, enter string, limit, width int, done func(string) tea.Msg) *textDialog {
	in := textinput.New()
	in.Placeholder = placeholder
	in.CharLimit = limit
	in.SetWidth(max(width-len(prompt)-4, 10))
	// The text is shown as typed, so it is sanitised first: a note made
	// elsewhere may hold escape sequences.
	in.SetValue(SanitizeLine(value))
	in.CursorEnd()
	in.Focus()
	return &textDialog{
		prompt: prompt,
		input:  in,
		keys: textKeys{
			Enter:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", enter)),
			Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		},
		done: done,
	}
}

// newNoteDialog edits the note of an item.
func newNoteDialog(item int, id, note string, width int) *textDialog {
	return newTextDialog("note on "+SanitizeLine(Clip(id, 40))+" ", note, "what a reader of this label should know", "save the note", 2000, width,
		func(text string) tea.Msg { return noteMsg{item: item, text: text} })
}

// newSearchDialog asks for a text to search the items for.
func newSearchDialog() *textDialog {
	return newTextDialog("search ", "", "id, question, gold, prediction or responses (empty: every item)", "search", 500, 80,
		func(text string) tea.Msg { return searchQueryMsg{query: text} })
}

func (d *textDialog) update(msg tea.Msg) (tea.Cmd, bool) {
	if p, ok := msg.(tea.PasteMsg); ok {
		msg = tea.PasteMsg{Content: SanitizeLine(p.Content)}
	}
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, d.keys.Cancel):
			return nil, true
		case key.Matches(k, d.keys.Enter):
			text := d.input.Value()
			return func() tea.Msg { return d.done(text) }, true
		}
	}
	var cmd tea.Cmd
	d.input, cmd = d.input.Update(msg)
	return cmd, false
}

func (d *textDialog) line(st Styles, width int) string {
	d.input.SetWidth(max(width-len(d.prompt)-4, 10))
	return st.Key.Render(d.prompt) + d.input.View()
}

func (d *textDialog) ShortHelp() []key.Binding { return []key.Binding{d.keys.Enter, d.keys.Cancel} }

func (d *textDialog) FullHelp() [][]key.Binding { return [][]key.Binding{d.ShortHelp()} }
