package tui

import (
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// Recorder is the part of the session store the review screen writes to.
// Both calls commit durably before they return.
type Recorder interface {
	Record(acts []sessions.Action) ([]sessions.Action, error)
	Undo() ([]sessions.Action, error)
}

// Options is what the review screen is opened with.
type Options struct {
	Store     Recorder
	Annotator string
	// Dataset names the dataset in the header (a file name).
	Dataset string
	Items   []judge.Item
	// Runs are the judges of the session; the first is active.
	Runs []Run
	// History is this annotator's actions, oldest first, from which the
	// current labels and notes are derived.
	History []sessions.Action
	// Notice is shown in the message line when the screen opens (what was
	// mapped, rows skipped, a changed dataset…).
	Notice string
	// About says what is open (dataset, mapping, session file); the help
	// overlay shows it.
	About string
	// Blind hides each verdict until the person has labelled the item,
	// so that calibration labels are not anchored on the judge.
	Blind bool
	// Stats computes the agreement report from the session; nil leaves
	// the statistics screen empty. It is called off the screen's
	// goroutine.
	Stats func() (stats.Report, error)
}

type screen int

const (
	screenReview screen = iota
	screenStats
	screenList
)

// Model is the root model: it owns routing between screens, focus, and the
// in-memory view of the session.
type Model struct {
	keys      KeyMap
	styles    Styles
	width     int
	height    int
	store     Recorder
	annotator string
	dataset   string
	about     string

	items []judge.Item
	index map[string]int
	runs  []*runView
	act   int // the active run

	labels labelState
	// Derived per item for the active run, kept up to date by refresh so
	// that drawing a frame never scans the dataset.
	reviewed   []bool
	agreement  []int8 // -1 not comparable, 0 disagrees, 1 agrees
	applicable []bool // the active judge has something to label here
	nReviewed  int
	nAgree     int
	nCompared  int
	nApplic    int

	cur       int  // the item on screen
	row       int  // the selected row (criterion × dimension) of the item
	focus     pane // the pane that scrolls
	scroll    [numPanes]int
	showThink bool
	sel       selection // the filter and order items are reviewed in
	blind     bool      // hide verdicts until the item is labelled
	searching bool      // the search prompt is open
	list      listState

	screen     screen
	stats      statsState
	statsFn    func() (stats.Report, error)
	showHelp   bool
	helpScroll int
	noting     bool
	note       textinput.Model
	query      textinput.Model // the search prompt

	save     saveQueue
	quitting bool
	// confirm, when set, asks a yes/no question in the hint line before
	// an expensive action; y runs onYes.
	confirm *confirmation

	flash      string
	flashError bool

	cache *renderCache
}

// New builds the review screen. It opens on the first unreviewed item.
func New(o Options) Model {
	m := Model{
		keys:      DefaultKeyMap(),
		styles:    NewStyles(true),
		store:     o.Store,
		annotator: o.Annotator,
		dataset:   o.Dataset,
		items:     o.Items,
		index:     make(map[string]int, len(o.Items)),
		focus:     panePrediction,
		flash:     o.Notice,
		note:      textinput.New(),
		query:     textinput.New(),
		cache:     &renderCache{},
		statsFn:   o.Stats,
		blind:     o.Blind,
		about:     o.About,
	}
	for i, it := range o.Items {
		m.index[it.ID] = i
	}
	for _, r := range o.Runs {
		m.runs = append(m.runs, newRunView(r, m.index, len(o.Items)))
	}
	m.labels = replay(o.History, m.index)
	m.save.pending = map[int]int{}
	m.note.Placeholder = "what a reader of this label should know"
	m.note.CharLimit = 2000
	m.recount()
	m.sel.filter = staticFilters[0]
	m.cur = m.firstUnreviewed(0)
	m.reselect()
	return m
}

// Init asks the terminal for its background colour (to pick light or dark
// styles) and starts listening for verdicts.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor}
	for i, r := range m.runs {
		for id, st := range r.streams {
			cmds = append(cmds, waitBatch(i, id, st.ch))
		}
		if r.loading {
			cmds = append(cmds, loadRun(i, r.load))
		}
	}
	return tea.Batch(cmds...)
}

// run returns the active run, or nil when the session has no judge.
func (m *Model) run() *runView {
	if m.act < len(m.runs) {
		return m.runs[m.act]
	}
	return nil
}

// rows lists the rows of an item for the active judge.
func (m *Model) rows(item int) []row {
	if r := m.run(); r != nil && item < len(m.items) {
		return r.rows(m.items[item])
	}
	return nil
}

// recount derives the per-item review state for every item; used when the
// screen opens or the active judge changes.
func (m *Model) recount() {
	n := len(m.items)
	m.reviewed = make([]bool, n)
	m.agreement = make([]int8, n)
	m.applicable = make([]bool, n)
	m.nReviewed, m.nAgree, m.nCompared, m.nApplic = 0, 0, 0, 0
	for i := range n {
		m.agreement[i] = -1
		m.refresh(i)
	}
}

// refresh re-derives one item's review state after its labels or verdicts
// changed, adjusting the running counts.
func (m *Model) refresh(i int) {
	if i < 0 || i >= len(m.items) {
		return
	}
	if m.applicable[i] {
		m.nApplic--
	}
	if m.reviewed[i] {
		m.nReviewed--
	}
	if m.agreement[i] >= 0 {
		m.nCompared--
		if m.agreement[i] == 1 {
			m.nAgree--
		}
	}
	rows := m.rows(i)
	m.applicable[i] = len(rows) > 0
	reviewed := len(rows) > 0
	agree, compared := true, false
	for _, rw := range rows {
		h, ok := m.labels.label(lkey{item: i, crit: rw.crit, dim: rw.dim.Name})
		if !ok {
			reviewed = false
			continue
		}
		if j, ok := m.run().judgeValue(i, rw); ok {
			compared = true
			agree = agree && j == h
		}
	}
	m.reviewed[i] = reviewed
	m.agreement[i] = -1
	if compared {
		m.agreement[i] = 0
		if agree {
			m.agreement[i] = 1
		}
	}
	if m.applicable[i] {
		m.nApplic++
	}
	if reviewed {
		m.nReviewed++
	}
	if compared {
		m.nCompared++
		if agree {
			m.nAgree++
		}
	}
}

// firstUnreviewed returns the first item at or after from (wrapping) that
// still needs a label, or from when every item is reviewed.
func (m *Model) firstUnreviewed(from int) int {
	n := len(m.items)
	for k := range n {
		i := (from + k) % n
		if m.applicable[i] && !m.reviewed[i] {
			return i
		}
	}
	return min(from, max(n-1, 0))
}

// nextUnreviewed returns the position in the selection of the first item
// at or after position from (wrapping) that still needs a label, or -1.
func (m *Model) nextUnreviewed(from int) int {
	n := len(m.sel.items)
	for k := range n {
		p := (from + k) % n
		if i := m.sel.items[p]; m.applicable[i] && !m.reviewed[i] {
			return p
		}
	}
	return -1
}

// goTo shows another item, keeping the selection's position in step.
func (m *Model) goTo(i int) {
	if len(m.items) == 0 {
		return
	}
	i = max(min(i, len(m.items)-1), 0)
	if i != m.cur {
		m.scroll = [numPanes]int{}
	}
	m.cur = i
	m.row = m.firstOpenRow(i)
	if p := m.sel.pos; p < len(m.sel.items) && m.sel.items[p] == i {
		return
	}
	for p, j := range m.sel.items {
		if j == i {
			m.sel.pos = p
			return
		}
	}
}

// Progress reports how many items are reviewed for the active judge, out
// of the items it has something to label on.
func (m Model) Progress() (reviewed, total int) { return m.nReviewed, m.nApplic }

// confirmation is a pending yes/no question.
type confirmation struct {
	question string
	onYes    func() tea.Cmd
}

// firstOpenRow returns the first row of an item without a label, or 0.
func (m *Model) firstOpenRow(item int) int {
	for k, rw := range m.rows(item) {
		if _, ok := m.labels.label(lkey{item: item, crit: rw.crit, dim: rw.dim.Name}); !ok {
			return k
		}
	}
	return 0
}
