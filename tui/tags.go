package tui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/sessions"
)

// Failure tags (SPEC "Labelling well") name what went wrong on an item
// ("too strict", "format"): the session has a set of them (--tags, the
// config, or added here), and a person puts any of them on an item. A
// toggle is one tag action; it does not move on, as a note does not.

// tagView is what the tag dialog reads to draw: the session's tags and
// those on an item, as they are now (a toggle is applied by the model,
// after the dialog answered).
type tagView interface {
	tagSet() []string
	hasTag(item int, tag string) bool
}

func (w *workspace) tagSet() []string { return w.tags }

func (w *workspace) hasTag(item int, tag string) bool {
	return item >= 0 && item < len(w.items) && w.labels.HasTag(w.items[item].ID, tag)
}

// sessionTags is the tag set the screen opens with: Options.Tags in their
// order, each once. A name sessions.CheckTagName refuses (a session edited
// by hand) is left out: no tag action could be recorded with it.
func sessionTags(tags []string) []string {
	var out []string
	for _, t := range tags {
		if sessions.CheckTagName(t) == nil && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// tagText is a tag's name as the screen shows it: whole when it is a
// name the store accepts (sessions.MaxTagRunes characters, 40 CJK ones
// are 120 bytes), else cut with "…" (a session written by hand). The
// line it goes on is cut to the screen's width with "…" too.
func tagText(tag string) string {
	text := SanitizeLine(Clip(tag, 4*sessions.MaxTagRunes+4))
	if utf8.RuneCountInString(text) <= sessions.MaxTagRunes {
		return text
	}
	return string([]rune(text)[:sessions.MaxTagRunes-1]) + "…"
}

// tagMsg asks to toggle a tag on an item, or (add) to add a new tag to
// the session and put it on. The new value is decided when the message
// is handled, from the state then: two quick presses are on, then off.
type tagMsg struct {
	item int
	tag  string
	add  bool
}

// tagDialog lists the session's tags, numbered, marked when on the item:
// a digit (or the arrows and space) toggles one; n types a new one.
type tagDialog struct {
	item   int
	id     string // sanitised, for the title
	view   tagView
	cursor int
	offset int
	rows   int // list rows of the last frame drawn
	input  textinput.Model
	typing bool
	err    string // why the typed name was refused, sanitised
	keys   tagKeys
}

type tagKeys struct {
	Toggle key.Binding
	Up     key.Binding
	Down   key.Binding
	Space  key.Binding
	New    key.Binding
	Enter  key.Binding
	Back   key.Binding
	Close  key.Binding
}

func newTagDialog(item int, id string, v tagView) *tagDialog {
	return &tagDialog{item: item, id: idText(id), view: v, keys: tagKeys{
		Toggle: key.NewBinding(key.WithKeys(digitsUpTo(9)...), key.WithHelp("1–9", "toggle that tag")),
		Up:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous tag")),
		Down:   key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next tag")),
		Space:  key.NewBinding(key.WithKeys("space", "enter"), key.WithHelp("space", "toggle the tag under the cursor")),
		New:    key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new tag")),
		Enter:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "add the tag and put it on")),
		Back:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back to the tags")),
		Close:  key.NewBinding(key.WithKeys("esc", "T"), key.WithHelp("esc", "close")),
	}}
}

func (d *tagDialog) update(msg tea.Msg) (tea.Cmd, bool) {
	k, isKey := msg.(tea.KeyPressMsg)
	if d.typing {
		switch {
		case isKey && key.Matches(k, d.keys.Back):
			d.typing, d.err = false, ""
			return nil, false
		case isKey && key.Matches(k, d.keys.Enter):
			return d.add(), false
		}
		var cmd tea.Cmd
		d.input, cmd = fieldUpdate(d.input, msg)
		d.err = ""
		return cmd, false
	}
	if !isKey {
		return nil, false
	}
	tags := d.view.tagSet()
	switch {
	case key.Matches(k, d.keys.Close):
		return nil, true
	case key.Matches(k, d.keys.New):
		d.typing, d.err = true, ""
		d.input = newFieldInput("", "a short name: too strict, format, hallucinated gold…", 4*sessions.MaxTagRunes)
		return nil, false
	case key.Matches(k, d.keys.Toggle):
		n, _ := strconv.Atoi(k.String())
		if n > len(tags) {
			return nil, false
		}
		d.cursor = n - 1
		return d.toggle(tags[n-1], false), false
	case len(tags) == 0:
	case key.Matches(k, d.keys.Up):
		d.cursor = max(d.cursor-1, 0)
	case key.Matches(k, d.keys.Down):
		d.cursor = min(d.cursor+1, len(tags)-1)
	case key.Matches(k, d.keys.Space):
		d.cursor = min(d.cursor, len(tags)-1)
		return d.toggle(tags[d.cursor], false), false
	}
	return nil, false
}

// add checks the typed name as the session will (sessions.CheckTagName)
// and answers with it, or says why not and keeps the field open.
func (d *tagDialog) add() tea.Cmd {
	name := strings.TrimSpace(d.input.Value())
	if err := sessions.CheckTagName(name); err != nil {
		d.err = SanitizeLine(Clip(err.Error(), 512))
		return nil
	}
	d.typing = false
	if i := slices.Index(d.view.tagSet(), name); i >= 0 {
		d.cursor = i
	} else {
		d.cursor = len(d.view.tagSet()) // where it will be
	}
	return d.toggle(name, true)
}

func (d *tagDialog) toggle(tag string, add bool) tea.Cmd {
	m := tagMsg{item: d.item, tag: tag, add: add}
	return func() tea.Msg { return m }
}

// float draws the tags, a check mark on those the item has, scrolled to
// keep the cursor in view, and the new tag's field while it is typed.
func (d *tagDialog) float(st Styles, width, height int) string {
	w := min(64, width)
	inner := w - 4
	tags := d.view.tagSet()
	var list []string
	for i, t := range tags {
		mark := "[ ]"
		if d.view.hasTag(d.item, t) {
			mark = st.Agree.Render("[x]")
		}
		num := "  "
		if i < 9 {
			num = strconv.Itoa(i+1) + " "
		}
		line := num + mark + " " + tagText(t)
		if i == d.cursor && !d.typing {
			line = st.TitleFocus.Render("▸ ") + line
		} else {
			line = "  " + line
		}
		list = append(list, line)
	}
	var foot []string
	switch {
	case d.typing:
		d.input.SetWidth(max(inner-9, 10))
		foot = append(foot, "", st.Key.Render("new tag ")+d.input.View())
		if d.err != "" {
			foot = append(foot, wrapPlain(d.err, inner)...)
			for i := 2; i < len(foot); i++ {
				foot[i] = st.Warning.Render(foot[i])
			}
		}
	case len(tags) == 0:
		list = wrapPlain("This session has no tags yet: n adds one (gavel review --tags \"too strict,format\" names some when it opens).", inner)
	}
	head := st.Muted.Render("Tags on this item (yours):")
	d.rows = max(min(len(list), height-3-len(foot)), 1)
	d.offset = max(min(d.offset, d.cursor), d.cursor-d.rows+1, 0)
	d.offset = clampOffset(d.offset, len(list), d.rows)
	if len(list) > d.rows {
		head += st.Muted.Render(fmt.Sprintf(" %d–%d of %d", d.offset+1, d.offset+d.rows, len(list)))
	}
	lines := append([]string{head}, list[d.offset:min(d.offset+d.rows, len(list))]...)
	lines = append(lines, foot...)
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, inner, "…")
	}
	return box(st, "Tags · "+d.id, lines, 0, w, min(len(lines)+2, height), true)
}

func (d *tagDialog) ShortHelp() []key.Binding {
	if d.typing {
		return []key.Binding{d.keys.Enter, d.keys.Back}
	}
	return []key.Binding{d.keys.Toggle, relabel(d.keys.Down, "↓↑", "move"), short(d.keys.Space, "toggle"), d.keys.New, d.keys.Close}
}

func (d *tagDialog) FullHelp() [][]key.Binding {
	k := d.keys
	return [][]key.Binding{{k.Toggle, k.Down, k.Up, k.Space, k.New, k.Enter, k.Back, relabel(k.Close, "esc/T", "close")}}
}

// openTags opens the tag dialog on the item on screen.
func (s *reviewScreen) openTags() action {
	if s.retesting(s.cur) {
		// The dialog would show the tags put on it the first time.
		s.refuse("A re-test hides what you decided the first time, tags included: tag it once it is decided (→ leaves it for later).")
		return action{}
	}
	return action{open: newTagDialog(s.cur, s.items[s.cur].ID, s.workspace)}
}

// toggleTag applies a tag action on screen and queues it for the store;
// the item stays on screen. A new tag joins the session's set (the store
// adds it to session_tags with the action).
func (m *Model) toggleTag(msg tagMsg) tea.Cmd {
	if msg.item < 0 || msg.item >= len(m.items) {
		return nil
	}
	id := m.items[msg.item].ID
	on := msg.add || !m.labels.HasTag(id, msg.tag)
	if msg.add && !slices.Contains(m.tags, msg.tag) {
		m.tags = append(m.tags, msg.tag)
	}
	if on && m.labels.HasTag(id, msg.tag) {
		return nil // an "added" tag the item has already
	}
	a := sessions.Action{Kind: sessions.KindTag, ItemID: id, Tag: msg.tag, Via: m.provenance()}
	if on {
		a.Value = 1
	}
	acts := []sessions.Action{a}
	m.stamp(msg.item, acts)
	if err := m.labels.Apply(acts); err != nil {
		m.fail("Tag not saved: " + SanitizeLine(err.Error()))
		return nil
	}
	said := "Tagged " + idText(id) + " " + tagText(msg.tag)
	if !on {
		said = "Tag " + tagText(msg.tag) + " taken off " + idText(id)
	}
	m.mention(said + ".")
	m.log.about(id) // hidden from the log while the item is a re-test on screen
	return m.push(saveOp{item: msg.item, acts: acts})
}

// tagLines show, at the top of the verdict pane, the tags the person put
// on the item.
func (s *reviewScreen) tagLines(inner int) []string {
	tags := s.labels.Tags(s.items[s.cur].ID)
	if len(tags) == 0 {
		return nil
	}
	names := make([]string, len(tags))
	for i, t := range tags {
		names[i] = tagText(t)
	}
	return field(s.styles, "tags", strings.Join(names, " · "), inner)
}
