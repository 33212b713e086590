package tui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/sessions"
)

// "Can't judge" (SPEC "Labelling well") is one person's decision that the
// whole item cannot be judged, with a reason: not a label. It goes
// through the screen's record path as a label does, so it moves on, counts
// the item as reviewed, is stamped and saved like one, and u takes it back.

// reasonText is how the screen says a reason.
func reasonText(reason string) string {
	switch reason {
	case sessions.ReasonGoldWrong:
		return "gold is wrong"
	case sessions.ReasonAmbiguous:
		return "question ambiguous"
	case sessions.ReasonUnreadable:
		return "prediction unreadable"
	case sessions.ReasonOther:
		return "other"
	}
	return SanitizeLine(Clip(reason, 64))
}

// cantJudgeMsg is the reason dialog's answer for an item.
type cantJudgeMsg struct {
	item   int
	reason string
	note   string
}

// cantJudgeDialog asks why the item cannot be judged: a digit per reason
// (or the arrows and enter); "other" asks for a note, which it needs.
// It floats over the item, whose text stays in view around it.
type cantJudgeDialog struct {
	item   int
	id     string // sanitised, for the title
	now    string // the item's current reason, "" when none
	cursor int
	// note is the text field of "other", focused while it is typed in.
	note   textinput.Model
	typing bool
	empty  bool // enter was pressed on an empty note
	keys   cantJudgeKeys
}

type cantJudgeKeys struct {
	Reason key.Binding
	Up     key.Binding
	Down   key.Binding
	Enter  key.Binding
	Cancel key.Binding
}

// noteLimit caps a can't-judge note as the note dialog caps a note.
const noteLimit = 2000

func newCantJudgeDialog(item int, id, reason, note string) *cantJudgeDialog {
	n := len(sessions.CantJudgeReasons)
	d := &cantJudgeDialog{item: item, id: idText(id), now: reason, note: newFieldInput(note, "can it not be judged?", noteLimit),
		keys: cantJudgeKeys{
			Reason: key.NewBinding(key.WithKeys(digitsUpTo(n)...), key.WithHelp("1–"+strconv.Itoa(n), "reason")),
			Up:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous reason")),
			Down:   key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next reason")),
			Enter:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "choose")),
			Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		}}
	for i, r := range sessions.CantJudgeReasons {
		if r == reason {
			d.cursor = i
		}
	}
	return d
}

// digitsUpTo is "1" … "n".
func digitsUpTo(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.Itoa(i + 1)
	}
	return out
}

// newFieldInput is a one-line text field inside a dialog's box, focused,
// holding value sanitised (it is shown as typed). Its cursor does not
// blink: blink ticks are not routed to dialogs, and a tick a key would
// only keep the loop busy.
func newFieldInput(value, placeholder string, limit int) textinput.Model {
	in := textinput.New()
	in.Prompt = "" // the dialog says what is typed
	st := in.Styles()
	st.Cursor.Blink = false
	in.SetStyles(st)
	in.Placeholder = placeholder
	in.CharLimit = limit
	in.SetValue(SanitizeLine(value))
	in.CursorEnd()
	in.Focus()
	return in
}

// fieldUpdate sends a key or a paste to a dialog's text field, a paste
// sanitised first.
func fieldUpdate(in textinput.Model, msg tea.Msg) (textinput.Model, tea.Cmd) {
	if p, ok := msg.(tea.PasteMsg); ok {
		msg = tea.PasteMsg{Content: SanitizeLine(p.Content)}
	}
	return in.Update(msg)
}

func (d *cantJudgeDialog) update(msg tea.Msg) (tea.Cmd, bool) {
	k, isKey := msg.(tea.KeyPressMsg)
	if d.typing {
		switch {
		case isKey && key.Matches(k, d.keys.Cancel):
			d.typing, d.empty = false, false // back to the reasons
			return nil, false
		case isKey && key.Matches(k, d.keys.Enter):
			text := strings.TrimSpace(d.note.Value())
			if text == "" {
				d.empty = true
				return nil, false
			}
			return d.answer(sessions.ReasonOther, text), true
		}
		var cmd tea.Cmd
		d.note, cmd = fieldUpdate(d.note, msg)
		d.empty = false
		return cmd, false
	}
	if !isKey {
		return nil, false
	}
	n := len(sessions.CantJudgeReasons)
	switch {
	case key.Matches(k, d.keys.Cancel):
		return nil, true
	case key.Matches(k, d.keys.Up):
		d.cursor = (d.cursor + n - 1) % n
	case key.Matches(k, d.keys.Down):
		d.cursor = (d.cursor + 1) % n
	case key.Matches(k, d.keys.Reason):
		d.cursor, _ = strconv.Atoi(k.String())
		d.cursor--
		return d.choose()
	case key.Matches(k, d.keys.Enter):
		return d.choose()
	}
	return nil, false
}

// choose answers with the reason under the cursor, or asks for the note
// of "other".
func (d *cantJudgeDialog) choose() (tea.Cmd, bool) {
	r := sessions.CantJudgeReasons[d.cursor]
	if r == sessions.ReasonOther {
		d.typing = true
		return nil, false
	}
	return d.answer(r, ""), true
}

func (d *cantJudgeDialog) answer(reason, note string) tea.Cmd {
	m := cantJudgeMsg{item: d.item, reason: reason, note: note}
	return func() tea.Msg { return m }
}

// float draws the reasons, the current one marked, and the note's field
// under them once "other" is chosen.
func (d *cantJudgeDialog) float(st Styles, width, height int) string {
	w := min(60, width)
	inner := w - 4
	lines := []string{st.Muted.Render("Why can this item not be judged?"), ""}
	for i, r := range sessions.CantJudgeReasons {
		text := fmt.Sprintf("%d  %s", i+1, reasonText(r))
		if r == sessions.ReasonOther {
			text += " (say why)"
		}
		if r == d.now {
			text += st.Muted.Render("  ◂ now")
		}
		if i == d.cursor {
			lines = append(lines, st.TitleFocus.Render("▸ ")+text)
		} else {
			lines = append(lines, "  "+text)
		}
	}
	if d.typing {
		d.note.SetWidth(max(inner-5, 10))
		lines = append(lines, "", st.Key.Render("why ")+d.note.View())
		if d.empty {
			lines = append(lines, st.Warning.Render("Say why: \"other\" needs a note."))
		}
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, inner, "…")
	}
	title := "Can't judge " + d.id
	return box(st, title, lines, 0, w, min(len(lines)+2, height), true)
}

func (d *cantJudgeDialog) ShortHelp() []key.Binding {
	if d.typing {
		return []key.Binding{relabel(d.keys.Enter, "enter", "save"), relabel(d.keys.Cancel, "esc", "back to the reasons")}
	}
	return []key.Binding{d.keys.Reason, relabel(d.keys.Down, "↓↑", "move"), d.keys.Enter, d.keys.Cancel}
}

func (d *cantJudgeDialog) FullHelp() [][]key.Binding {
	return [][]key.Binding{{d.keys.Reason, d.keys.Down, d.keys.Up, d.keys.Enter, d.keys.Cancel}}
}

// openCantJudge opens the reason dialog on the item on screen.
func (s *reviewScreen) openCantJudge() action {
	id := s.items[s.cur].ID
	reason, note, _ := s.labels.CantJudge(id)
	if s.retesting(s.cur) {
		reason, note = "", "" // the first decision stays hidden
	}
	return action{open: newCantJudgeDialog(s.cur, id, reason, note)}
}

// cantJudge records the dialog's answer on the item it was opened on, if
// that item is still the one on screen.
func (s *reviewScreen) cantJudge(msg cantJudgeMsg) tea.Cmd {
	if !s.hasItem() || msg.item != s.cur {
		return nil
	}
	id := s.items[s.cur].ID
	retest := s.retesting(s.cur)
	a := sessions.Action{Kind: sessions.KindCantJudge, ItemID: id, Reason: msg.reason, Note: msg.note, Via: s.provenance()}
	cmd := s.record([]sessions.Action{a})
	if cmd != nil {
		// Logged, not flashed: record's hint ("that was the last item")
		// says where the screen went.
		said := "Can't judge " + idText(id)
		if retest {
			said += " (re-test)"
		}
		said += ": " + reasonText(msg.reason)
		if msg.note != "" {
			said += " — " + SanitizeLine(Clip(msg.note, 512))
		}
		s.mention(said + ".")
		// Hidden from the log while the item is a re-test on screen.
		s.log.about(id)
	}
	return cmd
}

// cantJudgeLines say, at the top of the verdict pane, that the person
// marked the item can't judge, and why.
func (s *reviewScreen) cantJudgeLines(inner int) []string {
	reason, note, ok := s.labels.CantJudge(s.items[s.cur].ID)
	if !ok {
		return nil
	}
	text := "can't judge: " + reasonText(reason)
	if note != "" {
		text += " — " + SanitizeLine(Clip(note, verdictFieldBytes))
	}
	lines := wrapPlain(text, inner)
	for i, l := range lines {
		lines[i] = s.styles.Warning.Render(l)
	}
	return lines
}

// labelSetAside reports whether the person's label on item is set aside
// by their can't judge: the verdict pane shows it compared with nothing,
// as every agreement figure leaves it out. A re-test hides the can't
// judge, and its label is the re-test's own.
func (w *workspace) labelSetAside(item int) bool {
	if w.retesting(item) {
		return false
	}
	_, _, ok := w.labels.CantJudge(w.items[item].ID)
	return ok
}
