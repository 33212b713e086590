package tui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// reviewScreen shows one item's question, gold answer, prediction and
// verdict, and labels it with one key.
type reviewScreen struct {
	*workspace
	keys   reviewKeys
	width  int // the body's size, set by the root
	height int

	item   int  // the item the state below belongs to; -1 before the first
	judge  int  // the judge it belongs to
	row    int  // the selected row (criterion × dimension) of the item
	focus  pane // the pane that scrolls
	scroll [numPanes]int
	// atEnd keeps a pane at the end of its text while the layout moves
	// (verdicts arriving resize the panes): a few-shot question opens so,
	// and G or end puts any pane so until the reviewer scrolls back.
	atEnd [numPanes]bool
	// lastParagraph keeps the question at the start of its last
	// paragraph until the reviewer scrolls it: see questionOffset.
	lastParagraph bool
	showThink     bool
	zoom          bool // the focused pane fills the screen
	cache         *renderCache
}

func newReviewScreen(w *workspace) *reviewScreen {
	return &reviewScreen{workspace: w, keys: defaultReviewKeys(), item: -1, focus: panePrediction, cache: &renderCache{}}
}

func (s *reviewScreen) resize(width, height int) {
	s.width, s.height = width, height
	s.clampScroll()
}

// follow resets the per-item state when another item came on screen (by a
// key on this screen or another, an undo, a filter): the first row still
// to label is selected, and a question longer than its pane opens at its
// end, where a few-shot prompt asks what the prediction answers.
func (s *reviewScreen) follow() {
	if s.item == s.cur && s.judge == s.act {
		return
	}
	if s.item != s.cur {
		// A new item on screen: the time its decision takes starts now,
		// and a re-test the person moved away from is over (it stays due).
		s.itemAppeared()
		if s.retest.on && s.retest.item != s.cur {
			s.retest = retestState{}
		}
		// Shown with its first label and verdict: a due re-test of it
		// would no longer be blind (retest.go).
		if s.hasItem() {
			s.shownWhileDue(s.cur)
		}
	}
	if s.item != s.cur && s.hasItem() {
		// The item on screen is judged ahead of the queue, by every judge
		// still running (cheap: it moves the item's tasks to the front).
		for _, r := range s.runs {
			r.prioritize(s.items[s.cur].ID)
		}
	}
	s.item, s.judge = s.cur, s.act
	if s.hasItem() && !s.shows(s.focus) {
		// B, or a reference, on an item without: the response pane.
		s.focus = panePrediction
	}
	s.row = s.firstOpenRow(s.cur)
	s.scroll = [numPanes]int{}
	s.atEnd = [numPanes]bool{}
	// A pair's question is an instruction, said first ("Summarize the
	// following content." then the content): it opens at its top.
	s.lastParagraph = !s.pairwise()
	s.clampScroll()
}

// endOfPane scrolls a pane to its end once clamped.
const endOfPane = 1 << 30

// firstOpenRow returns the first row of an item without a label, or 0.
func (s *reviewScreen) firstOpenRow(item int) int {
	for k, rw := range s.rows(item) {
		if _, ok := s.label(item, rw); !ok {
			return k
		}
	}
	return 0
}

// selectedRow is the row the label keys act on.
func (s *reviewScreen) selectedRow() (row, bool) {
	if !s.hasItem() {
		return row{}, false
	}
	rows := s.rows(s.cur)
	if len(rows) == 0 {
		return row{}, false
	}
	return rows[min(s.row, len(rows)-1)], true
}

func (s *reviewScreen) update(msg tea.KeyPressMsg) action {
	k := s.keys
	switch {
	case key.Matches(msg, k.Stats):
		return action{show: showStats}
	case key.Matches(msg, k.List):
		return action{show: showList}
	case key.Matches(msg, k.Yes, k.No, k.Score, k.Pick, k.Accept, k.Undo, k.Note, k.Rejudge, k.RejudgeAll):
		return s.labelKey(msg)
	case key.Matches(msg, k.Guidelines, k.CantJudge, k.Tags):
		return s.decisionKey(msg)
	case key.Matches(msg, k.Edit):
		return s.editJudge()
	case key.Matches(msg, k.Compare):
		return s.openCompare()
	case key.Matches(msg, k.Switch):
		s.switchJudge()
	case key.Matches(msg, k.Next, k.Skip) && s.retesting(s.cur):
		// The re-test waits for the next decision; the person goes on
		// where they were heading.
		s.leaveRetest(true)
	case key.Matches(msg, k.Prev) && s.retesting(s.cur):
		s.leaveRetest(false)
	case key.Matches(msg, k.Next):
		s.step(1)
	case key.Matches(msg, k.Prev):
		s.step(-1)
	case key.Matches(msg, k.Skip):
		s.skip()
	case key.Matches(msg, k.First):
		if p := s.nextUnreviewed(0); p >= 0 {
			s.step(p - s.sel.pos)
		} else {
			s.hint("Every item here is reviewed.")
		}
	case key.Matches(msg, k.FirstItem):
		s.step(-s.sel.pos)
	case key.Matches(msg, k.LastItem):
		s.step(len(s.sel.items) - 1 - s.sel.pos)
		if s.loading() {
			s.hint(fmt.Sprintf("The last item read so far (%s): the rest are still being read.", s.loadedText()))
		}
	case key.Matches(msg, k.NextRow, k.PrevRow) && len(s.rows(s.cur)) < 2:
		s.hint("This item has one thing to label: [ and ] move between a rubric's criteria or a judge's dimensions.")
	case key.Matches(msg, k.NextRow):
		s.row = min(s.row+1, max(len(s.rows(s.cur))-1, 0))
	case key.Matches(msg, k.PrevRow):
		s.row = max(s.row-1, 0)
	case key.Matches(msg, k.Filter, k.FilterBack, k.Order, k.Search, k.Blind):
		return s.selectionKey(msg, k.selectionKeys)
	default:
		s.readKey(msg)
	}
	return action{}
}

// readKey handles the keys that move within the panes.
func (s *reviewScreen) readKey(msg tea.KeyPressMsg) {
	k := s.keys
	f := s.focus
	s.clampScroll() // offsets as drawn now: verdicts may have moved the panes
	if f == paneQuestion && key.Matches(msg, k.Down, k.Up, k.PageDown, k.PageUp, k.Top, k.Bottom) {
		s.lastParagraph = false
	}
	switch {
	case key.Matches(msg, k.Focus):
		s.nextPane(1)
	case key.Matches(msg, k.FocusBack):
		s.nextPane(-1)
	case key.Matches(msg, k.Zoom):
		s.zoom = !s.zoom
	case key.Matches(msg, k.Down):
		s.scroll[f]++
	case key.Matches(msg, k.Up):
		s.scroll[f] = max(s.scroll[f]-1, 0)
		s.atEnd[f] = false
	case key.Matches(msg, k.PageDown):
		s.scroll[f] += max(s.paneRows(f)-1, 1)
	case key.Matches(msg, k.PageUp):
		s.scroll[f] = max(s.scroll[f]-max(s.paneRows(f)-1, 1), 0)
		s.atEnd[f] = false
	case key.Matches(msg, k.Top):
		s.scroll[f] = 0
		s.atEnd[f] = false
	case key.Matches(msg, k.Bottom):
		s.atEnd[f] = true
	case key.Matches(msg, k.Think):
		s.showThink = !s.showThink
		s.cache.clear()
	}
	s.clampScroll()
}

// labelKey handles the keys that label or judge the item on screen: none
// of them does anything when no item is on screen.
func (s *reviewScreen) labelKey(msg tea.KeyPressMsg) action {
	if !s.hasItem() {
		s.refuse("No item on screen: " + s.emptyAdvice())
		return action{}
	}
	k := s.keys
	switch {
	case key.Matches(msg, k.Yes):
		return act(s.yesNo(1))
	case key.Matches(msg, k.No):
		return act(s.yesNo(0))
	case key.Matches(msg, k.Score):
		return s.score(msg.String())
	case key.Matches(msg, k.Pick) && s.picking():
		return s.pick()
	case key.Matches(msg, k.Accept):
		return act(s.accept())
	case key.Matches(msg, k.Undo):
		return act(s.undo())
	case key.Matches(msg, k.Note) && s.retesting(s.cur):
		// The dialog would open on the first note, and saving there
		// would replace it with a note made blind.
		s.refuse("A re-test hides what you decided the first time, your note included: write the note once it is decided (→ leaves it for later).")
	case key.Matches(msg, k.Note):
		return action{open: newNoteDialog(s.cur, s.items[s.cur].ID, s.note(s.cur), s.width)}
	case key.Matches(msg, k.Rejudge, k.RejudgeAll) && s.refusesJudging():
	case key.Matches(msg, k.Rejudge):
		if r := s.run(); r != nil {
			return act(s.rejudgeNow(s.act, s.tasksFor(r, s.cur), "this item"))
		}
	case key.Matches(msg, k.RejudgeAll):
		return s.askRejudgeAll()
	}
	return action{}
}

// picking reports whether the row being labelled takes its label from
// the picker (enter opens it there, where it would accept elsewhere).
func (s *reviewScreen) picking() bool {
	rw, ok := s.selectedRow()
	return ok && inputOf(rw.dim.Scale) == inputPicker
}

// step moves by delta within the selection.
func (s *reviewScreen) step(delta int) {
	if len(s.sel.items) == 0 {
		s.refuse("No item matches the filter " + s.sel.filter.name + ": press f for another.")
		return
	}
	p := s.sel.pos + delta
	if p < 0 || p >= len(s.sel.items) {
		where := "last"
		if p < 0 {
			where = "first"
		}
		s.hint("That is the " + where + " item of " + itemCount(len(s.sel.items)) + " (" + s.sel.filter.name + ").")
		return
	}
	s.sel.pos = p
	s.cur = s.sel.items[p]
}

// skip moves on to the next unreviewed item after this one.
func (s *reviewScreen) skip() {
	n := len(s.sel.items)
	if n == 0 {
		return
	}
	p := s.nextUnreviewed((s.sel.pos + 1) % n)
	if p < 0 || p == s.sel.pos {
		s.hint("No other item here is waiting for a label.")
		return
	}
	s.step(p - s.sel.pos)
}
