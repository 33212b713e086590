package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// workspace is the session as every screen sees it: the items, the judges'
// verdicts, the person's labels, the selection being reviewed, the save
// queue and the message log. The root model and each screen hold the same
// pointer, so a change made on one screen is what the next one shows; no
// screen keeps a copy.
type workspace struct {
	styles    Styles
	store     Recorder
	annotator string
	dataset   string
	about     string
	// quitting is set once quit was asked while labels were still being
	// saved: the program ends when the last one is committed. Meanwhile
	// the status line keeps saying so (saySelection stays quiet).
	quitting bool

	items []judge.Item
	index *itemIndex
	runs  []*runView
	act   int // the active run
	// reading is set while a run's verdicts are being read (one run at
	// a time: load_runs.go).
	reading bool

	labels    *sessions.LabelState // the one derivation of current labels
	others    otherLabels          // every other annotator's current labels
	othersGen int                  // counts the others' labels replaced (placeOthers)
	// blindQueue: a blind queue keeps others empty (blind_queue.go).
	blindQueue bool
	// tally is derived per item for the active run, kept up to date by
	// refresh so that drawing a frame never scans the dataset; kept holds
	// the other runs' tallies, derived in steps (tally.go).
	tally
	kept []*tally
	// tallying is set while a step deriving the kept tallies is on its
	// way (wantTally).
	tallying bool
	// judgeMoved is set when the active judge changed: the selection is
	// made again for it after the message (reselectForJudge).
	judgeMoved bool

	cur   int       // the item on screen
	sel   selection // the filter and order items are reviewed in
	blind bool      // hide verdicts until the item is labelled
	swap  bool      // judge pairwise items in both orders (--swap)

	// plan is the labelling plan followed (plan.go), nil for none;
	// planWait the plan being read after the first frame.
	plan     *planState
	planWait *planWait

	// guidelines is the version of the annotation guidelines on screen
	// (nil: none); every action is stamped with its id. tags is the
	// session's tag set.
	guidelines *Guidelines
	tags       []string
	// The labeller's reliability (SPEC "Labelling well"): a seeded share
	// of items shown blind (blind_share.go), a seeded share of labelled
	// items shown again as re-tests (retest.go), and when the item on
	// screen appeared (timing.go).
	blindShare  float64
	retestShare float64
	seed        int64
	inShare     []uint8 // per item: 0 not yet known, shareIn, shareOut
	retest      retestState
	inRetest    []uint8         // per item: in the re-test share, as inShare
	shownDue    map[string]bool // shown while due: no re-test this sitting
	dueMemo     dueMemo
	// labelsGen counts the changes of the person's labels (a decision,
	// an undo), for what is derived from them and kept (dueMemo).
	labelsGen int
	clock     func() time.Time
	appeared  time.Time

	save   saveQueue
	log    messageLog
	search searchState

	statsFn func() (stats.Report, error)
	// reportFn writes the report to send (gavel report) and returns where;
	// nil when the session cannot have one. writing: one is being written.
	reportFn func() (string, error)
	writing  bool

	// Variants of a judge (E) and their comparisons (C): see variant.go.
	variantFn func(VariantRequest) (Variant, error)
	compareFn func(a, b int64) (Compared, error)
	edit      *judgeEdit // the judge file being edited, nil when none
	variants  []*variantView
	cmpShown  int // the variant the comparison screen shows

	healthFn func() string
	health   string // what healthFn said last: "" while the server answers

	load   itemLoad                 // the items still being read
	checks []func() (string, error) // run once after the first frame
	// waitStore is set while a new session is being written (store is
	// nil meanwhile): labels wait in the save queue.
	waitStore func() (Recorder, error)
	// team is the team session the screen is on (team.go), nil for none.
	team *teamState
	// adj is what the adjudication queue knows of this person's labels
	// (adjudicate.go).
	adj *adjState
	// readOthers reads the others' labels (others_late.go), once Init
	// has asked; nil after, and when the screen was given them.
	readOthers tea.Cmd
}

// run returns the active run, or nil when the session has no judge.
func (w *workspace) run() *runView {
	if w.act < len(w.runs) {
		return w.runs[w.act]
	}
	return nil
}

// rows lists the rows of an item for the active judge.
func (w *workspace) rows(item int) []row {
	if r := w.run(); r != nil && item >= 0 && item < len(w.items) {
		return r.rows(w.items[item])
	}
	return nil
}

// hasItem reports whether an item is on screen: the dataset is not empty
// and the filter in force holds at least one item.
func (w *workspace) hasItem() bool {
	return len(w.items) > 0 && len(w.sel.items) > 0
}

// label is the person's current label on a row of an item, as the
// screens show it: on a re-test on screen, the re-test's value (none until
// given), so that no view, filter or order tells the first label.
func (w *workspace) label(item int, rw row) (float64, bool) {
	if w.retesting(item) {
		return w.labels.RetestLabel(w.key(item, rw))
	}
	return w.labels.Label(w.key(item, rw))
}

// judgement is the person's label on a row of an item as agreement
// between people counts it: as label gives it, and none on an item the
// person marked can't judge (every agreement figure leaves it out).
func (w *workspace) judgement(item int, rw row) (float64, bool) {
	if _, _, cj := w.labels.CantJudge(w.items[item].ID); cj {
		return 0, false
	}
	return w.label(item, rw)
}

// key names a row of an item in the label state.
func (w *workspace) key(item int, rw row) sessions.LabelKey {
	return sessions.LabelKey{ItemID: w.items[item].ID, Criterion: rw.crit, Dimension: rw.dim.Name}
}

// note is the person's current note on an item ("" when none).
func (w *workspace) note(item int) string { return w.labels.Note(w.items[item].ID) }

// firstUnreviewed returns the first item at or after from (wrapping) that
// still needs a label, or from when every item is reviewed.
func (w *workspace) firstUnreviewed(from int) int {
	n := len(w.items)
	for k := range n {
		i := (from + k) % n
		if w.applicable[i] && !w.reviewed[i] {
			return i
		}
	}
	return min(from, max(n-1, 0))
}

// nextUnreviewed returns the position in the selection of the first item
// at or after position from (wrapping) that still needs a label, or -1.
func (w *workspace) nextUnreviewed(from int) int {
	n := len(w.sel.items)
	for k := range n {
		p := (from + k) % n
		i := w.sel.items[p]
		if w.adjudicating() {
			// The adjudication queue: an item waits until it is settled,
			// labelled or not (a person's label may have changed after
			// this person's adjudication).
			if w.toAdjudicate(i) {
				return p
			}
			continue
		}
		// On a plan, an item labelled off it still needs its label.
		if w.applicable[i] && (!w.reviewed[i] || (w.following() && !w.planDone(i))) {
			return p
		}
	}
	return -1
}

// hidden reports whether the judge's verdict (and other people's labels)
// are hidden on item i: in blind mode and for the blind share until the
// person has reviewed it, and on a re-test on screen.
func (w *workspace) hidden(i int) bool {
	// The adjudication queue shows every item whole: the others' labels
	// are what it is for (adjudicate.go).
	return ((w.blind || w.blindShared(i) && !w.adjudicating()) && !w.reviewed[i]) || w.retesting(i)
}
