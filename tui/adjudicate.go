package tui

import (
	"fmt"
	"math"

	"github.com/gavel-dev/gavel/sessions"
)

// Adjudication (SPEC "Teams"): the filter "to adjudicate" keeps the items
// where two people's current labels differ on a row of the judge on screen
// (the labels of whoever marked the item "can't judge" left out) and no
// adjudication settles it: none was made, or a person's label changed
// after it. Labels made there record via "adjudication": the statistics
// take them as the item's reference and keep them out of every figure
// between people (sessions/adjudication.go). The others' labels stand
// beside the verdict, by name; blind mode, the blind share and re-tests
// stay out of it. `gavel review --adjudicate` opens on it
// (Options.Adjudicate); the header counts the items left.

// adjudicationID is the filter's id.
const adjudicationID = "adjudication"

// adjudicationFilter is the filter "to adjudicate".
var adjudicationFilter = filter{id: adjudicationID, name: "to adjudicate", via: sessions.ViaAdjudication,
	match: (*workspace).toAdjudicate, offered: (*workspace).canAdjudicate}

// adjState is what the filter knows of this person's own labels beyond
// their value (sessions.LabelState): whether each was made in
// adjudication, and when (the action's id), for the keys that can be in
// the queue: those on items somebody else had labelled when the screen
// opened, and any labelled since. Each key keeps a stack, as LabelState
// does, so that an undo brings back what was there.
type adjState struct {
	mine map[sessions.LabelKey][]mineLabel
	// next orders this sitting's labels after every one read (their ids
	// are given by the store later); group numbers this sitting's groups.
	next, group int64
	// left caches the count of items to adjudicate, for the header.
	left    int
	leftKey adjLeftKey
	// waiting says, per item, whether it waited when left was counted
	// (nil before, or when touched overflowed); touched lists the items
	// of the actions recorded and undone since: a label changes its
	// item's place in the queue only, so the count after it looks at
	// those again, not at every item others labelled (a million took
	// ~0.4 s a key press).
	waiting []bool
	touched []string
	// emptySaid: the log said the queue is empty, since it last had items.
	emptySaid bool
	// late, while the others' labels are read after the first frame
	// (others_late.go), keeps what recorded and undone were given, to do
	// again on the state built with them. nil otherwise.
	late []adjOp
}

// mineLabel is one of this person's labels on a key: its order and group,
// and whether it was made in adjudication.
type mineLabel struct {
	id, group int64
	adj       bool
}

// adjLeftKey is what the count of items left depends on.
type adjLeftKey struct {
	labelsGen, othersGen, teamGen, act, items int
	loading                                   bool
}

// newAdjState reads this person's history (oldest first, undo rows
// included) on the items others labelled.
func newAdjState(history []sessions.Action, others *OtherLabels) *adjState {
	a := &adjState{mine: map[sessions.LabelKey][]mineLabel{}, next: math.MaxInt64 / 2, leftKey: adjLeftKey{labelsGen: -1}}
	if others.Len() == 0 {
		return a
	}
	// The items of this person's labels that others labelled too: a set
	// of the history's items, not of the others' (a million of them),
	// each with its place in both.
	at := map[string]int{}
	for _, h := range history {
		if _, ok := at[h.ItemID]; !ok && labelling(h) {
			at[h.ItemID] = len(at)
		}
	}
	if len(at) == 0 {
		return a
	}
	both := make([]bool, len(at))
	others.eachItem(func(id []byte) {
		if k, ok := at[string(id)]; ok {
			both[k] = true
		}
	})
	items := func(id string) bool { k, ok := at[id]; return ok && both[k] }
	undone := map[int64]bool{}
	for _, h := range history {
		if h.Kind == sessions.KindUndo && h.Undoes != 0 {
			undone[h.Undoes] = true
		}
	}
	for _, h := range history {
		if !labelling(h) || undone[h.ID] || !items(h.ItemID) {
			continue
		}
		k := sessions.LabelKey{ItemID: h.ItemID, Criterion: h.Criterion, Dimension: h.Dimension}
		a.mine[k] = append(a.mine[k], mineLabel{id: h.ID, group: h.Group, adj: h.Via == sessions.ViaAdjudication})
	}
	return a
}

// labelling reports an action that sets a current label: a label or an
// accept that is not a re-test.
func labelling(a sessions.Action) bool {
	return (a.Kind == sessions.KindLabel || a.Kind == sessions.KindAccept) && !a.Retest && a.Via != viaRetest
}

// recorded notes this sitting's group of actions (one key press).
func (a *adjState) recorded(acts []sessions.Action) {
	if a.late != nil {
		a.late = append(a.late, adjOp{recorded: acts})
	}
	a.group--
	for _, x := range acts {
		a.touch(x.ItemID)
		if !labelling(x) {
			continue
		}
		a.next++
		k := sessions.LabelKey{ItemID: x.ItemID, Criterion: x.Criterion, Dimension: x.Dimension}
		a.mine[k] = append(a.mine[k], mineLabel{id: a.next, group: a.group, adj: x.Via == sessions.ViaAdjudication})
	}
}

// undone takes back, on each key an undo touched, the labels of the group
// on top.
func (a *adjState) undone(keys []sessions.LabelKey) {
	if a.late != nil {
		a.late = append(a.late, adjOp{undo: true, undone: keys})
	}
	for _, k := range keys {
		a.touch(k.ItemID)
		s := a.mine[k]
		if len(s) == 0 {
			continue
		}
		g := s[len(s)-1].group
		for len(s) > 0 && s[len(s)-1].group == g {
			s = s[:len(s)-1]
		}
		if len(s) == 0 {
			delete(a.mine, k)
		} else {
			a.mine[k] = s
		}
	}
}

// maxTouched bounds touched: past it (labels made while the count is
// not asked, outside the queue) the next count is made afresh.
const maxTouched = 4096

// touch notes that the item with id had an action recorded or undone.
func (a *adjState) touch(id string) {
	if a.waiting == nil {
		return
	}
	if n := len(a.touched); n > 0 && a.touched[n-1] == id {
		return
	}
	if len(a.touched) >= maxTouched {
		a.waiting, a.touched = nil, nil
		return
	}
	a.touched = append(a.touched, id)
}

// top is this person's current label on k as the filter reads it; an
// unknown one (made before the screen opened on an item nobody else had
// labelled then) is a rating of unknown time.
func (a *adjState) top(k sessions.LabelKey) mineLabel {
	if s := a.mine[k]; len(s) > 0 {
		return s[len(s)-1]
	}
	return mineLabel{}
}

// canAdjudicate offers the filter when somebody else has labelled and
// the verdicts are not hidden (blind mode hides the others' labels too).
func (w *workspace) canAdjudicate() bool { return w.others.any() && !w.blind }

// adjudicating reports whether the filter is in force.
func (w *workspace) adjudicating() bool { return w.sel.filter.id == adjudicationID }

// toAdjudicate reports whether item i waits for adjudication on a row of
// the judge on screen (sessions.Adjudicate): this person's label counts as
// one of the people's, or as an adjudication when made in one. An item
// this person marked "can't judge" is decided: not in their queue.
func (w *workspace) toAdjudicate(i int) bool {
	if i < 0 || i >= len(w.items) {
		return false
	}
	var obuf [4]sessions.Label
	others := w.others.on(i, obuf[:0])
	if len(others) == 0 {
		return false
	}
	id := w.items[i].ID
	if _, _, cant := w.labels.CantJudge(id); cant {
		return false
	}
	var buf [8]sessions.Label
	for _, rw := range w.rows(i) {
		ls := buf[:0]
		for _, o := range others {
			if o.Criterion == rw.crit && o.Dimension == rw.dim.Name {
				ls = append(ls, o)
			}
		}
		if len(ls) == 0 {
			continue
		}
		k := sessions.LabelKey{ItemID: id, Criterion: rw.crit, Dimension: rw.dim.Name}
		if v, ok := w.labels.Label(k); ok {
			me := sessions.Label{Annotator: w.annotator, Value: v}
			if w.adj != nil {
				t := w.adj.top(k)
				me.ActionID = t.id
				if t.adj {
					me.Via = sessions.ViaAdjudication
				}
			}
			ls = append(ls, me)
		}
		if sessions.Adjudicate(ls).Waiting {
			return true
		}
	}
	return false
}

// adjudicationLeft counts the items waiting for adjudication now (only
// items others labelled can be), kept until the labels, the others'
// labels, the judge on screen or the items change; after labels alone,
// by looking again at their items (adjState.touched).
func (w *workspace) adjudicationLeft() int {
	a := w.adj
	if a == nil {
		return 0
	}
	k := adjLeftKey{labelsGen: w.labelsGen, othersGen: w.othersGen, act: w.act, items: len(w.items), loading: w.loading()}
	if w.team != nil {
		k.teamGen = w.team.gen
	}
	if k == a.leftKey {
		return a.left
	}
	defer func() { a.touched = a.touched[:0] }()
	if same := a.leftKey; a.waiting != nil && len(a.waiting) == len(w.items) && same.labelsGen >= 0 {
		same.labelsGen = k.labelsGen
		if same == k {
			// Only labels changed since the count: their items alone.
			for _, id := range a.touched {
				if i, ok := w.index.at(id); ok && i < len(a.waiting) {
					now := w.toAdjudicate(i)
					switch {
					case now && !a.waiting[i]:
						a.left++
					case !now && a.waiting[i]:
						a.left--
					}
					a.waiting[i] = now
				}
			}
			a.leftKey = k
			return a.left
		}
	}
	if len(a.waiting) == len(w.items) {
		clear(a.waiting)
	} else {
		a.waiting = make([]bool, len(w.items))
	}
	n := 0
	for i := range w.others.items {
		if w.toAdjudicate(i) {
			a.waiting[i] = true
			n++
		}
	}
	a.left, a.leftKey = n, k
	return n
}

// openAdjudication puts the filter in force when the screen opens
// (--adjudicate): on the first item to adjudicate, in the order in force.
// While a large session's items are read, the selection waits for them
// (gotItems selects again).
func (w *workspace) openAdjudication() {
	w.sel.filter = adjudicationFilter
	if w.loading() {
		w.tell("Adjudication: the items to adjudicate are found once every item is read.")
		return
	}
	w.reselect()
	w.firstToAdjudicate()
	if !w.others.any() {
		w.warn("Nothing to adjudicate: nobody else has labelled this session. Adjudication settles items where people's labels differ: label it as several annotators first (--annotator NAME, or gavel label).")
		return
	}
	w.sayAdjudication()
}

// firstToAdjudicate moves to the queue's first item waiting, in the order
// in force: the item the screen would open on otherwise (the first the
// person has not labelled) may come after one they adjudicated and that
// is back in the queue.
func (w *workspace) firstToAdjudicate() {
	if p := w.nextUnreviewed(0); p >= 0 {
		w.sel.pos, w.cur = p, w.sel.items[p]
	}
}

// sayAdjudication says what the queue holds and how it works, when it is
// chosen.
func (w *workspace) sayAdjudication() {
	left := w.adjudicationLeft()
	if left == 0 {
		w.tell("Nothing to adjudicate: no item has people's labels that differ on this judge's rows without an adjudication made after them (can't-judge decisions left out). f or F picks another filter.")
		if w.adj != nil {
			w.adj.emptySaid = true
		}
		return
	}
	if w.adj != nil {
		w.adj.emptySaid = false
	}
	w.tell(fmt.Sprintf("Adjudication: %s where people's labels differ, %s. The others' labels stand beside the verdict, by name; your label here records via adjudication and becomes the item's reference for the judge's statistics (it counts in no agreement between people). f or F leaves the queue.",
		itemCount(left), w.orderName()))
}

// adjudicationRecorded follows a decision made in the queue: the log says
// how many items are left once the item has left the queue.
func (w *workspace) adjudicationRecorded(item int) {
	if !w.adjudicating() || w.toAdjudicate(item) {
		return
	}
	left := w.adjudicationLeft()
	id := idText(w.items[item].ID)
	if left == 0 {
		if !w.adj.emptySaid {
			w.adj.emptySaid = true
			w.tell(fmt.Sprintf("Adjudicated %s: nothing is left to adjudicate. gavel stats counts the adjudicated references; f or F picks another filter.", id))
		}
		return
	}
	w.adj.emptySaid = false
	w.tell(fmt.Sprintf("Adjudicated %s: %d left to adjudicate.", id, left))
}

// nextToAdjudicate is the position among the items chosen of the next
// one still to adjudicate after the one on screen, wrapping round; -1
// when none is.
func (w *workspace) nextToAdjudicate() int {
	n := len(w.sel.items)
	for k := 1; k < n; k++ {
		if p := (w.sel.pos + k) % n; w.toAdjudicate(w.sel.items[p]) {
			return p
		}
	}
	return -1
}

// leftAdjudication reports whether item i, just decided in the queue,
// has left it (so the review moves on, as after an item fully labelled).
func (w *workspace) leftAdjudication(i int) bool {
	return w.adjudicating() && !w.toAdjudicate(i)
}

// adjudicationNotice is the header's word on the queue: where the item is
// among the items chosen, and how many are left.
func (w *workspace) adjudicationNotice() string {
	return fmt.Sprintf("%d/%d adjudicate · %d left", w.sel.pos+1, len(w.sel.items), w.adjudicationLeft())
}
