package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Quitting while the store keeps failing (a team session's server not
// answering, a full disk under a session file) would lose the decisions
// not yet saved. q then asks first: unsavedDialog says how many decisions
// are not saved, on which items, that the screen keeps retrying, and
// offers to wait (the default: the program ends by itself once they are
// saved), to go on labelling, or to quit anyway; the caller then names
// the items whose decisions were lost (Model.UnsavedItems).

// unsavedDialog asks whether to quit with decisions not saved.
type unsavedDialog struct {
	n    int      // decisions not saved
	ids  []string // their items, sanitised, in the order decided
	why  string   // the last error, sanitised
	keys unsavedKeys
}

type unsavedKeys struct {
	Wait key.Binding
	Back key.Binding
	Quit key.Binding
}

// waitQuitMsg: wait, and quit once every decision is saved.
type waitQuitMsg struct{}

// keepLabellingMsg: stay on the screen, not quitting.
type keepLabellingMsg struct{}

// quitAnywayMsg: quit now, the decisions not saved lost.
type quitAnywayMsg struct{}

func newUnsavedDialog() *unsavedDialog {
	return &unsavedDialog{keys: unsavedKeys{
		Wait: key.NewBinding(key.WithKeys("enter", "w"), key.WithHelp("enter", "wait: quit once they are saved")),
		Back: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "go on labelling")),
		Quit: key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "quit anyway, losing them")),
	}}
}

// set fills the dialog from the save queue.
func (d *unsavedDialog) set(w *workspace) {
	d.n, d.ids = w.unsavedDecisions()
	for i, id := range d.ids {
		d.ids[i] = SanitizeLine(Clip(id, 64))
	}
	d.why = ""
	if w.save.err != nil {
		d.why = SanitizeLine(Clip(w.save.err.Error(), 400))
	}
}

// update: y quits anyway, esc goes back to labelling; any other key
// (enter, w, a stray key) waits, so that no key but y loses anything.
func (d *unsavedDialog) update(msg tea.Msg) (tea.Cmd, bool) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, false
	}
	var answer tea.Msg = waitQuitMsg{}
	switch {
	case key.Matches(k, d.keys.Quit):
		answer = quitAnywayMsg{}
	case key.Matches(k, d.keys.Back):
		answer = keepLabellingMsg{}
	}
	return func() tea.Msg { return answer }, true
}

// float draws the question over the screen, whose status line keeps
// saying "✗ not saved".
func (d *unsavedDialog) float(st Styles, width, height int) string {
	w := min(76, width)
	inner := max(w-4, 10)
	var lines []string
	add := func(text string, style func(...string) string) {
		for _, l := range wrapPlain(text, inner) {
			if style != nil {
				l = style(l)
			}
			lines = append(lines, l)
		}
	}
	add(fmt.Sprintf("%s not saved yet, on %s: %s.", plural(d.n, "decision is", "decisions are"),
		itemCount(len(d.ids)), listIDs(d.ids, 12)), st.Warning.Render)
	if d.why != "" {
		add("Saving fails: "+d.why, st.Muted.Render)
	}
	add("The screen keeps retrying every 2 seconds; they are saved as soon as it works.", nil)
	lines = append(lines, "")
	for _, b := range []key.Binding{d.keys.Wait, d.keys.Back, d.keys.Quit} {
		h := b.Help()
		lines = append(lines, st.Key.Render(padRight(h.Key, 7))+st.KeyDesc.Render(h.Desc))
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, inner, "…")
	}
	return box(st, "Quit? Your last decisions are not saved", lines, 0, w, min(len(lines)+2, height), true)
}

func (d *unsavedDialog) ShortHelp() []key.Binding {
	return []key.Binding{d.keys.Wait, d.keys.Back, d.keys.Quit}
}

func (d *unsavedDialog) FullHelp() [][]key.Binding { return [][]key.Binding{d.ShortHelp()} }

// listIDs joins ids, the first max of them, then how many more.
func listIDs(ids []string, max int) string {
	if len(ids) <= max {
		return strings.Join(ids, ", ")
	}
	return strings.Join(ids[:max], ", ") + fmt.Sprintf(" and %d more", len(ids)-max)
}

// unsavedDecisions counts the decisions (key presses: a label, a note, an
// undo) made on screen and not committed, queued or being written, and
// lists their items once each, in the order decided.
func (w *workspace) unsavedDecisions() (int, []string) {
	var ids []string
	seen := map[int]bool{}
	n := 0
	for _, ops := range [][]saveOp{w.save.sending, w.save.queue} {
		for _, op := range ops {
			n++
			if seen[op.item] || op.item < 0 || op.item >= len(w.items) {
				continue
			}
			seen[op.item] = true
			ids = append(ids, w.items[op.item].ID)
		}
	}
	return n, ids
}

// UnsavedItems reports, once the program has ended, the decisions made on
// screen and never committed (the person quit anyway, or a new session
// could not be written): how many, and the ids of their items (as stored,
// not sanitised), in the order decided.
func (m *Model) UnsavedItems() (int, []string) { return m.unsavedDecisions() }

// unsavedOpen is the unsaved dialog when it is on the stack.
func (m *Model) unsavedOpen() *unsavedDialog {
	for _, d := range m.dialogs {
		if u, ok := d.(*unsavedDialog); ok {
			return u
		}
	}
	return nil
}

// askUnsaved opens the question, or brings it up to date when it is open.
func (m *Model) askUnsaved() {
	d := m.unsavedOpen()
	if d == nil {
		d = newUnsavedDialog()
		m.openDialog(d)
	}
	d.set(m.workspace)
}

// closeUnsaved takes the question off the stack, wherever it is.
func (m *Model) closeUnsaved() {
	for k, d := range m.dialogs {
		if _, ok := d.(*unsavedDialog); ok {
			m.dialogs = append(m.dialogs[:k], m.dialogs[k+1:]...)
			return
		}
	}
}

// answerUnsaved carries out the answer.
func (m *Model) answerUnsaved(msg tea.Msg) tea.Cmd {
	switch msg.(type) {
	case quitAnywayMsg:
		m.quitting, m.save.abandoned = true, true
		return tea.Quit
	case keepLabellingMsg:
		m.quitting, m.save.waiting = false, false
		m.hint("Not quitting: the screen keeps saving your labels; q quits once the status line says ✓ saved.")
		return nil
	}
	if m.save.err == nil && !m.save.inflight && len(m.save.queue) == 0 {
		return tea.Quit // saved meanwhile
	}
	m.quitting, m.save.waiting = true, true
	m.hint("Waiting: Gavel quits by itself once your last decisions are saved (q asks again).")
	return m.flush()
}
