package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

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
	// Others are the current labels of every other annotator of the
	// session (imported ones included), shown beside the verdict.
	Others []sessions.Label
	// OthersCantJudge are the other annotators' current can't-judges
	// (sessions.Store.CantJudges without this annotator's): their labels
	// on those items are left out wherever the screen shows or compares
	// other people's labels, as every agreement figure leaves them out.
	OthersCantJudge []sessions.CantJudge
	// OthersLater, when set instead of Others and OthersCantJudge, reads
	// them after the first frame, off the screen's goroutine
	// (others_late.go).
	OthersLater OthersLater
	// Notices are what the message log says when the screen opens (how
	// the dataset was mapped, rows skipped, a changed dataset…); the last
	// one also shows on the hint line.
	Notices []string
	// About says what is open (dataset, mapping, session file); the help
	// overlay shows it.
	About string
	// Blind hides each verdict until the person has labelled the item,
	// so that calibration labels are not anchored on the judge.
	Blind bool
	// Guidelines are the annotation guidelines for the person (SPEC
	// "Labelling well"); nil when the session has none.
	Guidelines *Guidelines
	// Tags is the session's set of failure tags when the screen opens.
	Tags []string
	// BlindShare is the share of items (0–1, seeded by Seed) shown blind
	// even outside blind mode, for the anchoring check.
	BlindShare float64
	// Retest is the share of the items this person labels (0–1, seeded by
	// Seed) that come back once, blind, after at least RetestGap other
	// decisions, as re-tests.
	Retest float64
	// Seed seeds BlindShare and Retest.
	Seed int64
	// Swap judges each pairwise item in both orders (the position-bias
	// audit, --swap): a judge's swapped-order tasks are queued with the
	// others, and re-judging an item re-judges both orders.
	Swap bool
	// ServerHealth, when set, says whether the judges' server is
	// answering: "" when it is, else what to show ("the server at … has
	// not answered for 1m30s; waiting up to 10m0s (--wait)"). It is asked
	// every second off the screen's goroutine.
	ServerHealth func() string
	// Stats computes the agreement report from the session; nil leaves
	// the statistics screen empty. It is called off the screen's
	// goroutine.
	Stats func() (stats.Report, error)
	// Report writes the session's report to send (`gavel report`: one
	// HTML file) and returns where it went; the statistics screen's w key
	// calls it, off the screen's goroutine. Nil: no report key.
	Report func() (string, error)
	// MoreItems, when set, reads the rest of a large session's items
	// after the first frame: Items is then the first page, and each call
	// (off the screen's goroutine, one at a time) returns every item read
	// so far, Items' values first and unchanged, and whether that is all.
	// Until it is, the runs' verdicts are not read and filters, orders
	// and search wait; the header counts ItemCount.
	MoreItems func() ([]judge.Item, bool, error)
	// ItemCount is how many items the session holds, while MoreItems is
	// still reading them.
	ItemCount int
	// Checks run once after the first frame, off the screen's goroutine
	// (such as comparing the dataset file's hash); each returns what the
	// person should be told, "" for nothing.
	Checks []func() (string, error)
	// StoreReady, when set, waits (off the screen's goroutine) for the
	// session a new dataset is being written to, and returns its store:
	// Store is then nil, and labels made meanwhile are queued, shown as
	// not yet saved, and written once it returns.
	StoreReady func() (Recorder, error)
	// Variant, when set, makes a variant of a judge from its edited judge
	// file (E on the review screen): it parses the file (an error of the
	// file itself wrapped in *JudgeFileError), gives it its few-shot
	// examples when it takes some, and returns it ready to Start. It is
	// called off the screen's goroutine. nil: E says judges cannot be
	// edited here.
	Variant func(VariantRequest) (Variant, error)
	// Compare compares two runs of the session by id (A the baseline) on
	// the human-labelled items, on the evaluation part of the split when
	// the session has one. It is called off the screen's goroutine.
	Compare func(a, b int64) (Compared, error)
	// Plan is the labelling plan to follow (plan.go), nil for none:
	// its items open first, in its order, and Stats is computed every
	// few labels on it for its estimate (Stats should estimate from it).
	Plan *Plan
	// ReadPlan, when set (and Plan nil), reads the plan to follow after
	// the first frame, off the screen's goroutine (a plan covers every
	// item: seconds at a million); nil, nil for none. The screen follows
	// it once read if the person has not moved or decided meanwhile.
	ReadPlan func() (*Plan, error)
	// BlindQueue: the session's queue is blind (gavel assign --blind;
	// blind_queue.go): unless Adjudicate, the screen sets aside Others,
	// OthersCantJudge and those of every TeamUpdate, shows nothing of
	// other people's labels on items until adjudication, and says "blind
	// queue" on the header.
	BlindQueue bool
	// Adjudicate opens the review on the adjudication queue (adjudicate.go):
	// the items where people's labels differ and no adjudication settles
	// them, labels there recorded via "adjudication". The caller follows
	// no plan then (Plan and ReadPlan nil) and leaves Blind off.
	Adjudicate bool
	// Team, when set, is the team session the screen is on (team.go):
	// the others' work arrives as it is saved, the review follows the
	// person's queue when the session has one, and the judge keys say
	// that only gavel run judges it.
	Team *Team
}

// Guidelines is the version of the annotation guidelines on screen.
type Guidelines struct {
	// ID is the version's id in the session (sessions.GuidelinesVersion),
	// stamped on every decision; 0 while a new session is being written
	// (the store's recorder stamps it then).
	ID int64
	// Path names the file; Text is its Markdown.
	Path, Text string
	// First: this session sees this version for the first time, so the
	// screen shows it once when it opens.
	First bool
	// Older counts this annotator's current labels made under an older
	// version (the re-review filter lists their items).
	Older int
}

// RetestGap is how many other decisions come between a label and its
// re-test at least.
const RetestGap = 20

// screenID names the screens the root routes between.
type screenID int

const (
	screenReview screenID = iota
	screenList
	screenStats
	screenCompare
)

// Model is the root model. It owns the terminal's size, routes each
// message to the one part that handles it, and keeps the dialogs on a
// stack above the screens: a key goes to quit, then the top dialog, then
// the keys every screen shares, then the screen on display.
type Model struct {
	*workspace
	keys    appKeys
	width   int
	height  int
	screen  screenID
	review  *reviewScreen
	list    *listScreen
	stats   *statsScreen
	compare *compareScreen
	dialogs []dialog
	// exec runs the editor (tea.ExecProcess; tests run it plainly).
	exec execEditor
}

// New builds the review screen. It opens on the first unreviewed item.
func New(o Options) *Model {
	w := &workspace{
		styles:    NewStyles(true),
		store:     o.Store,
		annotator: o.Annotator,
		dataset:   o.Dataset,
		about:     o.About,
		items:     o.Items,
		// Sized for every item, those still to be read included: a table
		// that grows rehashes all it holds, a long stall at a million.
		index:     newItemIndex(max(len(o.Items), o.ItemCount)),
		blind:     o.Blind,
		swap:      o.Swap,
		statsFn:   o.Stats,
		reportFn:  o.Report,
		healthFn:  o.ServerHealth,
		checks:    o.Checks,
		waitStore: o.StoreReady,
		variantFn: o.Variant,
		compareFn: o.Compare,

		// The guidelines on screen (their id is stamped on every action)
		// and the session's failure tags.
		guidelines: o.Guidelines, tags: sessionTags(o.Tags),

		// The reliability checks: the blind share and re-tests.
		blindShare: o.BlindShare, retestShare: o.Retest, seed: o.Seed,

		team: newTeamState(o.Team),
	}
	if o.MoreItems != nil {
		w.load = itemLoad{more: o.MoreItems, total: o.ItemCount}
	}
	w.index.add(o.Items)
	for _, r := range o.Runs {
		w.runs = append(w.runs, newRunView(r, w.index, len(o.Items)))
	}
	w.labels = sessions.ReplayLabels(o.History)
	if w.blindQueue = hidesOthers(o); w.blindQueue {
		o.Others, o.OthersCantJudge = nil, nil // blind_queue.go
	}
	others := OtherLabelsOf(o.Others)
	w.adj = newAdjState(o.History, others)
	if o.OthersLater != nil && !w.blindQueue && len(o.Others) == 0 {
		w.readOthers = readOthers(o.OthersLater, o.History)
		w.adj.late = []adjOp{}
	}
	if w.loading() {
		// Placed once every item has its position (gotItems).
		w.load.others, w.load.othersCantJudge = others, o.OthersCantJudge
	} else {
		w.placeOthers(others, o.OthersCantJudge)
	}
	w.save.pending = map[int]int{}
	var notices []string
	for _, n := range o.Notices {
		if strings.TrimSpace(n) != "" {
			w.tell(n)
			notices = append(notices, n)
		}
	}
	// The first notice (how the dataset was mapped) is the first thing
	// said; when there are more, the status line counts them as unread.
	if len(notices) == 1 {
		w.log.read = 1
	} else if len(notices) > 1 {
		w.hint(fmt.Sprintf("%s · %s more in the messages (m)", notices[0], plural(len(notices)-1, "notice", "notices")))
		w.log.flashKept = true
	}
	w.recountAll()
	w.sel.filter = staticFilters[0]
	w.cur = w.firstUnreviewed(0)
	w.load.start = w.cur
	w.reselect()
	w.openPlan(o.Plan, o.History)
	w.waitPlan(o)
	if o.Adjudicate {
		w.plan, w.planWait = nil, nil
		w.openAdjudication()
	}
	w.readDetails(w.cur)
	m := &Model{
		workspace: w,
		keys:      defaultAppKeys(),
		review:    newReviewScreen(w),
		list:      &listScreen{workspace: w, keys: defaultListKeys()},
		stats:     &statsScreen{workspace: w, keys: defaultStatsKeys()},
		compare:   &compareScreen{workspace: w, keys: defaultCompareKeys()},
		exec:      tea.ExecProcess,
	}
	m.review.follow()
	if o.Guidelines != nil && o.Guidelines.First {
		// A version this session has not seen: read once before labelling.
		m.openDialog(newGuidelinesDialog(o.Guidelines, true))
	}
	return m
}

// Init asks the terminal for its background colour (to pick light or dark
// styles), starts listening for verdicts, reading the rest of the items
// (then the verdicts) and the checks.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor, m.checkHealth()}
	for i, r := range m.runs {
		for id, st := range r.streams {
			cmds = append(cmds, waitBatch(i, id, st.ch))
		}
	}
	cmds = append(cmds, m.nextLoad())
	if m.loading() {
		cmds = append(cmds, readItems(m.load.more))
	}
	for _, c := range m.checks {
		cmds = append(cmds, runCheck(c))
	}
	if m.waitStore != nil {
		cmds = append(cmds, awaitStore(m.waitStore))
	}
	if m.readOthers != nil {
		cmds = append(cmds, m.readOthers)
		m.readOthers = nil
	}
	cmds = append(cmds, m.planInit()) // the plan's estimate, or reading the plan
	cmds = append(cmds, m.teamInit()) // the others' work, the queue's first claim
	return tea.Batch(cmds...)
}

// Progress reports how many items are reviewed for the active judge, out
// of the items it has something to label on.
func (m *Model) Progress() (reviewed, total int) { return m.nReviewed, m.nApplic }

// Loading reports whether the screen was still reading the session's
// items (Options.MoreItems): Progress then counts the items read only.
func (m *Model) Loading() bool { return m.loading() }

// current is the screen on display.
func (m *Model) current() screen {
	switch m.screen {
	case screenList:
		return m.list
	case screenStats:
		return m.stats
	case screenCompare:
		return m.compare
	}
	return m.review
}

// View draws the whole screen. Only the root model returns a tea.View; the
// screens and dialogs below it return strings.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = "gavel · " + SanitizeLine(Clip(m.dataset, 256))
	return v
}

func (m *Model) render() string {
	if m.width == 0 || m.height == 0 {
		return ""
	}
	if m.width < minWidth || m.height < minHeight {
		msg := fmt.Sprintf("The terminal is %d×%d; Gavel needs at least %d×%d.\nMake the window larger, or press q to quit.", m.width, m.height, minWidth, minHeight)
		return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, ansi.Wordwrap(msg, m.width, ""))
	}
	if d, ok := m.top().(overlay); ok {
		return d.overlay(m.styles, m.width, m.height)
	}
	body := m.current().view(m.width, m.height-chromeRows)
	if d, ok := m.top().(floating); ok {
		body = placeOver(body, d.float(m.styles, m.width, m.height-chromeRows), m.width, m.height-chromeRows)
	}
	return strings.Join([]string{m.headerLine(), body, m.statusLine(), padTo(m.hintLine(), m.width)}, "\n")
}
