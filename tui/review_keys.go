package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
)

// reviewKeys are the review screen's keys.
type reviewKeys struct {
	// Labelling. Yes and No label YES/NO items; Score takes the digits of
	// the other scales; Pick opens the list of a scale too long for
	// digits. Which of them the screen offers follows the scale of the
	// row being labelled (see scale_keys.go).
	Yes    key.Binding
	No     key.Binding
	Score  key.Binding
	Pick   key.Binding
	Accept key.Binding
	Note   key.Binding
	Undo   key.Binding
	// Decisions other than labels (SPEC "Labelling well").
	CantJudge key.Binding
	Tags      key.Binding
	// Judges.
	Rejudge    key.Binding
	RejudgeAll key.Binding
	Switch     key.Binding
	Edit       key.Binding
	Compare    key.Binding
	// Moving between items.
	Next      key.Binding
	Prev      key.Binding
	Skip      key.Binding
	First     key.Binding
	FirstItem key.Binding
	LastItem  key.Binding
	NextRow   key.Binding
	PrevRow   key.Binding
	// Choosing what to review.
	List key.Binding
	selectionKeys
	// Reading.
	Focus     key.Binding
	FocusBack key.Binding
	Down      key.Binding
	Up        key.Binding
	PageDown  key.Binding
	PageUp    key.Binding
	Top       key.Binding
	Bottom    key.Binding
	Zoom      key.Binding
	Think     key.Binding
	// Guidelines shows the annotation guidelines.
	Guidelines key.Binding
	// Screens.
	Stats key.Binding
}

func defaultReviewKeys() reviewKeys {
	return reviewKeys{
		Yes:    key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "label YES (YES/NO items)")),
		No:     key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "label NO (YES/NO items)")),
		Score:  key.NewBinding(key.WithKeys("0", "1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("0-9", "label by digit: the score (0 · 5 · 1 on 0/0.5/1 items), the category's number, 1 = A · 2 = B · 0 = tie on pairwise items")),
		Pick:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "on scales of more than 9 values (1–10, long category lists): pick the label from a list; a digit opens it too")),
		Accept: key.NewBinding(key.WithKeys("a", "enter"), key.WithHelp("a/enter", "accept the judge's verdict")),
		Note:   key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "write a note on this item")),
		Undo:   key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "undo your last action")),
		// x, the mark of an item that cannot be judged (on the comparison
		// screen x is that screen's own key); t folds traces, so tags are T.
		CantJudge: key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "can't judge the item: gold wrong, ambiguous, unreadable, other")),
		Tags:      key.NewBinding(key.WithKeys("T"), key.WithHelp("T", "failure tags: toggle them on this item, or add one")),

		Rejudge:    key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "re-judge this item (asks the model again)")),
		RejudgeAll: key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "re-judge every item of the filter (asks first)")),
		Switch:     key.NewBinding(key.WithKeys("J"), key.WithHelp("J", "switch to the next judge")),
		Edit:       key.NewBinding(key.WithKeys("E"), key.WithHelp("E", "edit the judge in $EDITOR; the variant judges labelled items")),
		Compare:    key.NewBinding(key.WithKeys("C"), key.WithHelp("C", "compare a variant with the judge it was made from")),

		Next:      key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "next item")),
		Prev:      key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "previous item")),
		Skip:      key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "skip to the next unreviewed item")),
		First:     key.NewBinding(key.WithKeys("g"), key.WithHelp("g", "go to the first unreviewed item")),
		FirstItem: key.NewBinding(key.WithKeys("<"), key.WithHelp("<", "first item")),
		LastItem:  key.NewBinding(key.WithKeys(">"), key.WithHelp(">", "last item")),
		NextRow:   key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "next criterion / dimension")),
		PrevRow:   key.NewBinding(key.WithKeys("["), key.WithHelp("[", "previous criterion / dimension")),

		List:          key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "list of items")),
		selectionKeys: defaultSelectionKeys(),

		Focus:     key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "focus the next pane")),
		FocusBack: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "focus the previous pane")),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll the focused pane down")),
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll the focused pane up")),
		PageDown:  key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), key.WithHelp("pgdn", "page down in the focused pane")),
		PageUp:    key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up in the focused pane")),
		Top:       key.NewBinding(key.WithKeys("home"), key.WithHelp("home", "top of the focused pane")),
		Bottom:    key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G/end", "end of the focused pane")),
		Zoom:      key.NewBinding(key.WithKeys("z"), key.WithHelp("z", "zoom the focused pane to the whole screen")),
		Think:     key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "fold / unfold <think> traces")),

		Stats: key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "statistics")),
		// i for the instructions a person labels by.
		Guidelines: key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "the annotation guidelines (--guidelines FILE)")),
	}
}

// scaleBindings are the label keys of one scale, as the hint line and the
// help overlay show them for the row being labelled: y and n; the range
// of a scale of numbers; each digit with its name where digits stand for
// names (categories, A and B, labelled points), the names cut to fit
// width cells rather than dropped; the picker's key.
func (k reviewKeys) scaleBindings(sc judge.Scale, width int) []key.Binding {
	switch inputOf(sc) {
	case inputYesNo:
		return []key.Binding{relabel(k.Yes, "y", "yes"), relabel(k.No, "n", "no")}
	case inputPicker:
		what := "pick " + scaleRange(sc)
		if sc.Kind() == judge.KindNominal {
			what = fmt.Sprintf("pick one of %d categories", sc.Points())
		}
		return []key.Binding{relabel(k.Pick, "enter", what)}
	}
	keys := digitKeys(sc)
	switch {
	case sc == judge.Ternary:
		return []key.Binding{relabel(k.Score, "0 · 5 · 1", "score (5 = 0.5)")}
	case !named(keys):
		return []key.Binding{relabel(k.Score, keys[0].key+"–"+keys[len(keys)-1].key, "score")}
	}
	names, ok := fitNames(keys, width)
	if !ok {
		// Too many names for the line: the help overlay lists them.
		return []key.Binding{relabel(k.Score, keys[0].key+"–"+keys[len(keys)-1].key, strings.TrimPrefix(valueWord(sc), "a ")+" · ? names them")}
	}
	out := make([]key.Binding, len(keys))
	for i, d := range keys {
		out[i] = relabel(k.Score, d.key, names[i])
	}
	return out
}

// hintTail is room kept on the hint line for the keys every screen shows
// ("? help · m messages · q quit") when the label keys are laid out.
const hintTail = 32

// ShortHelp is the hint line: the label keys of the row being labelled,
// then the keys used on every item.
func (s *reviewScreen) ShortHelp() []key.Binding {
	k := s.keys
	if !s.hasItem() {
		return []key.Binding{short(k.Filter, "filter"), short(k.FilterBack, "back"), short(k.Search, "search"), short(k.List, "list"), short(k.Stats, "stats")}
	}
	var out []key.Binding
	if rw, ok := s.selectedRow(); ok {
		out = append(out, k.scaleBindings(rw.dim.Scale, max(s.width-hintTail, 24))...)
	}
	if len(s.rows(s.cur)) > 1 {
		out = append(out, relabel(k.NextRow, "[ ]", "row"))
	}
	if !s.hidden(s.cur) {
		out = append(out, relabel(k.Accept, "a", "accept"))
	}
	if len(s.variants) > 0 {
		out = append(out, short(k.Compare, "compare"))
	}
	out = append(out, relabel(k.Next, "→", "next"), relabel(k.Prev, "←", "prev"),
		short(k.Undo, "undo"), short(k.Note, "note"), short(k.Skip, "skip"), short(k.Filter, "filter"),
		short(k.List, "list"), short(k.Stats, "stats"), short(k.Focus, "pane"), short(k.Zoom, "zoom"),
		short(k.CantJudge, "can't judge"), short(k.Tags, "tags"))
	if s.guidelines != nil {
		out = append(out, short(k.Guidelines, "guidelines"))
	}
	// Last: shown where the line has room (the help lists it always).
	if r := s.run(); r != nil && r.info.Definition != "" && s.variantFn != nil {
		out = append(out, short(k.Edit, "edit judge"))
	}
	return out
}

// FullHelp is the help overlay, one column per group (named by groups).
func (s *reviewScreen) FullHelp() [][]key.Binding {
	k := s.keys
	label := []key.Binding{k.Yes, k.No, k.Score, k.Pick}
	accept := k.Accept
	if rw, ok := s.selectedRow(); ok {
		label = k.scaleBindings(rw.dim.Scale, 1<<20) // every name: the overlay has a line each
		for i, b := range label {
			label[i] = relabel(b, b.Help().Key, "label this item: "+b.Help().Desc)
		}
		if inputOf(rw.dim.Scale) == inputPicker {
			accept = relabel(accept, "a", accept.Help().Desc) // enter picks here
		}
	}
	return [][]key.Binding{
		append(label, accept, k.Note, k.CantJudge, k.Tags, k.Undo, k.Rejudge, k.RejudgeAll, k.Switch, k.Edit, k.Compare),
		{k.Next, k.Prev, k.Skip, k.First, k.FirstItem, k.LastItem, k.NextRow, k.PrevRow},
		{k.List, k.Filter, k.FilterBack, k.Order, k.Search, k.Blind, k.Stats},
		{k.Focus, k.FocusBack, k.Down, k.Up, k.PageDown, k.PageUp, k.Top, k.Bottom, k.Zoom, k.Think, k.Guidelines},
	}
}

func (s *reviewScreen) groups() []string {
	return []string{"Label and judge", "Move", "Choose", "Read"}
}

// decisionKey handles the keys of SPEC "Labelling well": the guidelines
// show at any time; can't judge and tags act on the item on screen, so
// they do nothing when the filter holds none.
func (s *reviewScreen) decisionKey(msg tea.KeyPressMsg) action {
	k := s.keys
	if key.Matches(msg, k.Guidelines) {
		return s.openGuidelines()
	}
	if !s.hasItem() {
		s.refuse("No item on screen: " + s.emptyAdvice())
		return action{}
	}
	if key.Matches(msg, k.CantJudge) {
		return s.openCantJudge()
	}
	return s.openTags()
}
