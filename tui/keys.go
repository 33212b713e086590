package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
)

// KeyMap holds every key binding. The help overlay and the hint line are
// drawn from these same bindings, so they cannot disagree with what the
// keys do.
type KeyMap struct {
	// Labelling.
	Yes    key.Binding
	No     key.Binding
	Score  key.Binding
	Accept key.Binding
	Note   key.Binding
	Undo   key.Binding
	// Judges.
	Rejudge    key.Binding
	RejudgeAll key.Binding
	Switch     key.Binding
	// Moving between items.
	Next    key.Binding
	Prev    key.Binding
	Skip    key.Binding
	First   key.Binding
	Home    key.Binding
	End     key.Binding
	NextRow key.Binding
	PrevRow key.Binding
	// Choosing what to review.
	List       key.Binding
	Filter     key.Binding
	FilterBack key.Binding
	Order      key.Binding
	Search     key.Binding
	Blind      key.Binding
	// Reading.
	Focus     key.Binding
	FocusBack key.Binding
	Down      key.Binding
	Up        key.Binding
	PageDown  key.Binding
	PageUp    key.Binding
	Think     key.Binding
	// Screens.
	Stats key.Binding
	Help  key.Binding
	Back  key.Binding
	Quit  key.Binding
}

// DefaultKeyMap returns Gavel's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Yes:    key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "label YES")),
		No:     key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "label NO")),
		Score:  key.NewBinding(key.WithKeys("0", "1", "2", "3", "4", "5"), key.WithHelp("0-5", "score: 0/5/1 ternary (5 = 0.5), 1–5 Likert")),
		Accept: key.NewBinding(key.WithKeys("a", "enter"), key.WithHelp("a/enter", "accept the judge's verdict")),
		Note:   key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "write a note on this item")),
		Undo:   key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "undo your last action")),

		Rejudge:    key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "re-judge this item (asks the model again)")),
		RejudgeAll: key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "re-judge every item of the filter")),
		Switch:     key.NewBinding(key.WithKeys("J"), key.WithHelp("J", "switch to the next judge")),

		Next:    key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "next item")),
		Prev:    key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "previous item")),
		Skip:    key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "skip to the next unreviewed item")),
		First:   key.NewBinding(key.WithKeys("g"), key.WithHelp("g", "go to the first unreviewed item")),
		Home:    key.NewBinding(key.WithKeys("home"), key.WithHelp("home", "first item")),
		End:     key.NewBinding(key.WithKeys("end"), key.WithHelp("end", "last item")),
		NextRow: key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "next criterion / dimension")),
		PrevRow: key.NewBinding(key.WithKeys("["), key.WithHelp("[", "previous criterion / dimension")),

		List:       key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "list of items (enter opens one)")),
		Filter:     key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "next filter: unreviewed, judge ≠ you, errors…")),
		FilterBack: key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "previous filter")),
		Order:      key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "order: dataset, least confident, random")),
		Search:     key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search the items' text")),
		Blind:      key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "blind mode: hide verdicts until labelled")),

		Focus:     key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "focus the next pane")),
		FocusBack: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "focus the previous pane")),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll the focused pane down")),
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll the focused pane up")),
		PageDown:  key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), key.WithHelp("pgdn", "page down")),
		PageUp:    key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
		Think:     key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "fold / unfold <think> traces")),

		Stats: key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "statistics")),
		Help:  key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Back:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back to review")),
		Quit:  key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// ShortHelp is the hint line under the review screen.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Yes, k.No, k.Accept, k.Next, k.Prev, k.Undo, k.Stats, k.Help, k.Quit, k.Skip, k.List, k.Filter, k.Note, k.Focus}
}

// FullHelp is the help overlay, one column per group.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Yes, k.No, k.Score, k.Accept, k.Note, k.Undo, k.Rejudge, k.RejudgeAll, k.Switch},
		{k.Next, k.Prev, k.Skip, k.First, k.Home, k.End, k.NextRow, k.PrevRow},
		{k.List, k.Filter, k.FilterBack, k.Order, k.Search, k.Blind},
		{k.Focus, k.FocusBack, k.Down, k.Up, k.PageDown, k.PageUp, k.Think},
		{k.Stats, k.Help, k.Back, k.Quit},
	}
}

// hint is how a binding appears in the one-line hint under the screen: its
// first key and a word or two, so that the main keys fit in 80 columns.
func hint(b key.Binding) (keyName, desc string) {
	h := b.Help()
	keyName, _, _ = strings.Cut(h.Key, "/")
	if short, ok := hintWords[h.Desc]; ok {
		return keyName, short
	}
	return keyName, h.Desc
}

// hintWords shortens help texts for the hint line.
var hintWords = map[string]string{
	"label YES":                        "yes",
	"label NO":                         "no",
	"accept the judge's verdict":       "accept",
	"next item":                        "next",
	"previous item":                    "prev",
	"skip to the next unreviewed item": "skip",
	"undo your last action":            "undo",
	"statistics":                       "stats",
	"back to review":                   "back",
	"scroll the focused pane down":     "scroll",
	"scroll the focused pane up":       "scroll",
	"write a note on this item":        "note",
	"focus the next pane":              "pane",
	"page down":                        "page",
	"list of items (enter opens one)":  "list",
	"next filter: unreviewed, judge ≠ you, errors…": "filter",
}

// helpGroupTitles name the FullHelp columns in the overlay.
var helpGroupTitles = []string{"Label and judge", "Move", "Choose", "Read", "Screens"}
