package tui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// An order is how the filtered items follow each other.
type order int

const (
	orderDataset order = iota
	orderLeastConfident
	orderRandom
	numOrders
)

// randomSeed seeds the random order: the same session shows the same
// sequence, and the provenance "random" is an honest random sample.
const randomSeed = 1

func (o order) String() string {
	switch o {
	case orderLeastConfident:
		return "least confident first"
	case orderRandom:
		return fmt.Sprintf("random (seed %d)", randomSeed)
	}
	return "dataset order"
}

// selection is the current filter and order and the items they give, so
// that moving between items never rescans the dataset.
type selection struct {
	filter filter
	order  order
	items  []int // indices into workspace.items
	pos    int   // the position of the item on screen within items
	job    selectJob
	// searching is set while a search's matches stream in; a filter or
	// an order chosen meanwhile ends it.
	searching bool
}

// reselect recomputes the selection's items for a new filter or order,
// keeping the current item on screen when it is still selected.
func (w *workspace) reselect() {
	items := w.sel.items[:0]
	for i := range w.items {
		if w.sel.filter.match == nil || w.sel.filter.match(w, i) {
			items = append(items, i)
		}
	}
	w.setSelection(items)
}

// setSelection orders a filter's items and moves to the item on screen,
// or the first one when it is not among them.
func (w *workspace) setSelection(items []int) {
	if a := w.sel.filter.arrange; a != nil {
		w.placeSelection(a(w, items))
		return
	}
	if w.sel.order == orderLeastConfident {
		conf, has := make([]float64, len(items)), make([]bool, len(items))
		for k, i := range items {
			conf[k], has[k] = w.rankConfidence(i)
		}
		items = orderItems(items, conf, has, w.sel.order, len(w.items))
	} else {
		items = orderItems(items, nil, nil, w.sel.order, len(w.items))
	}
	w.placeSelection(items)
}

// placeSelection puts ordered items in force and moves to the item on
// screen, or the first one when it is not among them.
func (w *workspace) placeSelection(items []int) {
	sel := &w.sel
	sel.items = items
	sel.pos = 0
	for p, i := range sel.items {
		if i == w.cur {
			sel.pos = p
			break
		}
	}
	if len(sel.items) > 0 {
		w.cur = sel.items[sel.pos]
	}
}

// inSelection reports whether an item is in the filter in force now (not
// only when the filter was chosen: labelling may have taken it out).
func (w *workspace) inSelection(i int) bool {
	return w.sel.filter.match == nil || w.sel.filter.match(w, i)
}

// show puts an item on screen, keeping the selection's position in step.
func (w *workspace) show(i int) {
	if len(w.items) == 0 {
		return
	}
	w.cur = max(min(i, len(w.items)-1), 0)
	if p := w.sel.pos; p < len(w.sel.items) && w.sel.items[p] == w.cur {
		return
	}
	for p, j := range w.sel.items {
		if j == w.cur {
			w.sel.pos = p
			return
		}
	}
}

// provenance is how items are being reached, recorded with each label.
func (w *workspace) provenance() string {
	switch {
	case w.sel.filter.via != "":
		return w.sel.filter.via
	case w.sel.filter.id != "" && w.sel.filter.id != "all":
		return "filter:" + w.sel.filter.id
	case w.sel.order == orderRandom:
		return "random"
	case w.sel.order == orderLeastConfident:
		return "filter:least-confident"
	}
	return "order"
}

// filtered reports whether anything but the dataset's whole order is
// shown, for the header.
func (w *workspace) filtered() bool {
	return (w.sel.filter.id != "" && w.sel.filter.id != "all") || w.sel.order != orderDataset
}

// emptyAdvice says what to do when the filter holds no item.
func (w *workspace) emptyAdvice() string {
	if len(w.items) == 0 {
		return "the dataset has no items."
	}
	return fmt.Sprintf("no item matches the filter %s. Press f or F for another filter, / to search.", w.sel.filter.name)
}

// selectionKeys are the keys that choose which items are reviewed, shared
// by the review and list screens (each key map embeds them).
type selectionKeys struct {
	Filter, FilterBack, Order, Search, Blind key.Binding
}

func defaultSelectionKeys() selectionKeys {
	return selectionKeys{
		Filter:     key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "next filter: unreviewed, judge ≠ you, errors…")),
		FilterBack: key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "previous filter")),
		Order:      key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "order: dataset, least confident, random")),
		Search:     key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search the items' text")),
		Blind:      key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "blind mode: hide verdicts until labelled")),
	}
}

// selectionKey handles the keys that choose which items are reviewed, in
// which order, and how.
func (w *workspace) selectionKey(msg tea.KeyPressMsg, k selectionKeys) action {
	switch {
	case key.Matches(msg, k.Filter), key.Matches(msg, k.FilterBack):
		want, o := w.wanted()
		fs := w.filters()
		cur := 0
		for i, f := range fs {
			if f.id == want.id {
				cur = i
			}
		}
		step := 1
		if key.Matches(msg, k.FilterBack) {
			step = len(fs) - 1
		}
		return act(w.selectAs(fs[(cur+step)%len(fs)], o))
	case key.Matches(msg, k.Order):
		f, o := w.wanted()
		if f.arrange != nil {
			w.refuse(fmt.Sprintf("%s keeps its own order: f or F for another filter, then o orders it.", f.name))
			return action{}
		}
		o = (o + 1) % numOrders
		if w.sel.searching {
			// The search orders its matches when they are all in.
			w.sel.order = o
			w.hint(fmt.Sprintf("The matches will be in %s when the search ends.", o))
			return action{}
		}
		if f.id == "search" && !w.sel.job.running {
			// The search's matches are known: only their order changes.
			return act(w.orderAs(o))
		}
		return act(w.selectAs(f, o))
	case key.Matches(msg, k.Search):
		return action{open: newSearchDialog()}
	case key.Matches(msg, k.Blind):
		w.blind = !w.blind
		if w.blind {
			msg := "Blind mode: each verdict stays hidden until you have labelled the item."
			var cmd tea.Cmd
			if f, o := w.wanted(); f.offered != nil && !f.offered(w) {
				// The filter in force would tell the verdicts.
				cmd = w.selectAs(staticFilters[0], o)
				msg += " The filter on the judge's value is off: it would tell the verdicts."
			}
			w.tell(msg)
			return act(cmd)
		} else {
			w.tell("Blind mode off: verdicts are shown.")
		}
	}
	return action{}
}

// applySelection recomputes the selection of the filter and order in
// force (a job on a large dataset) and says what it holds.
func (w *workspace) applySelection() tea.Cmd {
	return w.selectAs(w.sel.filter, w.sel.order)
}

// applyNow recomputes the selection at once and says what it holds.
func (w *workspace) applyNow() {
	w.reselect()
	w.saySelection()
}

func (w *workspace) saySelection() {
	if w.quitting {
		return // "Saving your last labels before quitting…" (or why the quit waits) stays
	}
	if w.adjudicating() {
		w.sayAdjudication()
		return
	}
	if len(w.sel.items) == 0 {
		w.refuse(fmt.Sprintf("No item matches %s: f or F picks another filter, / searches.", w.sel.filter.name))
		return
	}
	w.hint(fmt.Sprintf("%d of %d items · %s · %s", len(w.sel.items), len(w.items), w.sel.filter.name, w.orderName()))
}
