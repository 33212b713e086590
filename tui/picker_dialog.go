package tui

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/judge"
)

// pickerDialog labels a row on a scale too long for one key per value (an
// ordinal range of more than nine points, more than nine categories): a
// list floating over the item, so the text being judged stays in view.
// Arrows (or j and k) move; typing a number or the start of a name jumps
// to it; enter labels; esc closes without labelling.
type pickerDialog struct {
	target pickTarget
	scale  judge.Scale
	title  string
	items  []pickItem
	cursor int
	offset int
	rows   int    // list rows of the last frame drawn, for paging
	typed  string // what was typed, while it matches
	miss   string // what was typed last and matched nothing
	keys   pickerKeys
}

// pickItem is one value as the list shows it.
type pickItem struct {
	value float64
	num   string // the number typed for it: the value, or the category's position
	name  string // the category or label; "" for a bare number
	mark  string // "judge", "you"
}

// pickTarget is the row a picker labels: the item on screen and its row.
type pickTarget struct {
	item int
	crit int
	dim  string
}

// pickedMsg is the picker's answer: label the target with the value.
type pickedMsg struct {
	target pickTarget
	value  float64
}

type pickerKeys struct {
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Top      key.Binding
	Bottom   key.Binding
	Erase    key.Binding
	Enter    key.Binding
	Cancel   key.Binding
}

func defaultPickerKeys() pickerKeys {
	return pickerKeys{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous value")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next value")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), key.WithHelp("pgdn", "page down")),
		Top:      key.NewBinding(key.WithKeys("home"), key.WithHelp("home", "first value")),
		Bottom:   key.NewBinding(key.WithKeys("end"), key.WithHelp("end", "last value")),
		Erase:    key.NewBinding(key.WithKeys("backspace"), key.WithHelp("backspace", "erase what was typed")),
		Enter:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "label with this value")),
		Cancel:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close without labelling")),
	}
}

// newPickerDialog lists a scale's values, the cursor on at when has is
// set (the person's label, else the judge's value), marked in the list.
func newPickerDialog(t pickTarget, sc judge.Scale, title string, at float64, has bool, typed string, marks map[float64]string) *pickerDialog {
	d := &pickerDialog{target: t, scale: sc, title: title, keys: defaultPickerKeys()}
	names, labels := sc.Names(), sc.Labels()
	for i, v := range sc.Values() {
		it := pickItem{value: v, num: names[i]}
		switch {
		case sc.Kind() == judge.KindNominal:
			it.num, it.name = strconv.Itoa(i+1), names[i]
		case i < len(labels):
			it.name = labels[i]
		}
		it.name = SanitizeLine(Clip(it.name, 256))
		it.mark = marks[v]
		d.items = append(d.items, it)
		if has && v == at {
			d.cursor = i
		}
	}
	if typed != "" {
		d.typeText(typed)
	}
	return d
}

func (d *pickerDialog) update(msg tea.Msg) (tea.Cmd, bool) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, false
	}
	page := max(d.rows-1, 1)
	keys := d.keys
	switch {
	case key.Matches(k, keys.Cancel):
		return nil, true
	case key.Matches(k, keys.Enter):
		m := pickedMsg{target: d.target, value: d.items[d.cursor].value}
		return func() tea.Msg { return m }, true
	case key.Matches(k, keys.Erase):
		d.typed, d.miss = "", ""
		return nil, false
	case key.Matches(k, keys.Up, keys.Down) && !d.types(k):
		if key.Matches(k, keys.Up) {
			d.move(-1)
		} else {
			d.move(1)
		}
	case key.Matches(k, keys.PageUp):
		d.move(-page)
	case key.Matches(k, keys.PageDown):
		d.move(page)
	case key.Matches(k, keys.Top):
		d.move(-len(d.items))
	case key.Matches(k, keys.Bottom):
		d.move(len(d.items))
	case k.Text != "" && utf8.RuneCountInString(k.Text) == 1:
		d.typeText(k.Text)
	}
	return nil, false
}

// types reports whether a key that also moves (j, k) is typing instead:
// when it continues what was typed, or starts a name, a name is typed.
func (d *pickerDialog) types(k tea.KeyPressMsg) bool {
	if k.Text == "" {
		return false
	}
	return d.find(d.typed+k.Text) >= 0
}

func (d *pickerDialog) move(delta int) {
	d.cursor = max(min(d.cursor+delta, len(d.items)-1), 0)
	d.typed, d.miss = "", ""
}

// typeText adds to what was typed and moves to the value it names; text
// that names nothing starts a new search, then is reported.
func (d *pickerDialog) typeText(text string) {
	for _, try := range []string{d.typed + text, text} {
		if i := d.find(try); i >= 0 {
			d.cursor, d.typed, d.miss = i, try, ""
			return
		}
	}
	d.miss = SanitizeLine(text)
}

// find returns the value named by what was typed: the number exactly, or
// else the first number or name that starts with it (ignoring case).
func (d *pickerDialog) find(typed string) int {
	if typed == "" {
		return -1
	}
	low := strings.ToLower(typed)
	for i, it := range d.items {
		if it.num == typed || strings.EqualFold(it.name, typed) {
			return i
		}
	}
	for i, it := range d.items {
		if strings.HasPrefix(it.num, typed) || strings.HasPrefix(strings.ToLower(it.name), low) {
			return i
		}
	}
	return -1
}

// float draws the list in a box at most width × height cells: as tall as
// the values (scrolling when they do not fit), as wide as the widest.
func (d *pickerDialog) float(st Styles, width, height int) string {
	numW, nameW, markW := 0, 0, 0
	for _, it := range d.items {
		numW = max(numW, len(it.num))
		nameW = max(nameW, ansi.StringWidth(it.name))
		markW = max(markW, len(it.mark))
	}
	if d.scale.Kind() == judge.KindNominal {
		numW = max(numW, 1)
	}
	status := st.Muted.Render("type a number")
	if nameW > 0 {
		status = st.Muted.Render("type a number or a name")
	}
	switch {
	case d.miss != "":
		status = st.Warning.Render(fmt.Sprintf("nothing here starts with %q", d.miss))
	case d.typed != "":
		status = st.Muted.Render("typed ") + st.Key.Render(SanitizeLine(d.typed))
	}
	lines := []string{status, ""}
	for i, it := range d.items {
		text := padTo(it.num, numW)
		if it.name != "" {
			text += "  " + it.name
		}
		if it.mark != "" {
			text = padTo(text, numW+2+nameW) + "  " + st.Muted.Render(it.mark)
		}
		if i == d.cursor {
			lines = append(lines, st.TitleFocus.Render("▸ "+text))
		} else {
			lines = append(lines, "  "+text)
		}
	}
	w := max(2+numW+2+nameW+2+markW, ansi.StringWidth(status)+len(" · 100–101 of 101"))
	what := scaleRange(d.scale)
	if d.scale.Kind() == judge.KindNominal {
		what = fmt.Sprintf("%d categories", len(d.items)) // they are listed below
	}
	title := "Label · " + d.title + " · " + what
	w = min(max(w, ansi.StringWidth(title)+2, 30)+4, width)
	h := min(len(lines)+2, height)
	d.rows = h - 4
	// The list scrolls under the two status lines, keeping the cursor in
	// view; the first line says which part shows.
	list := lines[2:]
	d.offset = max(min(d.offset, d.cursor), d.cursor-d.rows+1, 0)
	d.offset = clampOffset(d.offset, len(list), d.rows)
	if len(list) > d.rows {
		lines[0] += st.Muted.Render(fmt.Sprintf(" · %d–%d of %d", d.offset+1, d.offset+d.rows, len(list)))
	}
	shown := append(lines[:2:2], list[d.offset:min(d.offset+max(d.rows, 0), len(list))]...)
	return box(st, title, shown, 0, w, h, true)
}

func (d *pickerDialog) ShortHelp() []key.Binding {
	k := d.keys
	typing := "a number"
	for _, it := range d.items {
		if it.name != "" {
			typing = "a number or name"
			break
		}
	}
	return []key.Binding{relabel(k.Down, "↓↑", "move"), short(k.Enter, "label"), short(k.Cancel, "close"),
		key.NewBinding(key.WithHelp("type", typing))}
}

func (d *pickerDialog) FullHelp() [][]key.Binding {
	k := d.keys
	return [][]key.Binding{{k.Down, k.Up, k.PageDown, k.PageUp, k.Top, k.Bottom, k.Erase, k.Enter, k.Cancel}}
}
