package tui

import (
	"fmt"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// A team session (SPEC "Teams") is reviewed by several people at once:
// the screen runs on a local copy of the session and is told, as
// TeamUpdate messages, what the others did (their labels and can't
// judges, the verdicts a `gavel run` elsewhere saved, new judges, tags)
// and how far each person is. With a queue (gavel assign), the review
// follows the items claimed for this person ("your queue"), claims more
// as they are decided, and the caller gives back what was left undecided
// when the screen closes (Model.Claimed). Only `gavel run` judges a team
// session: the judge keys say so here.

// Team is what the review screen is given on a team session.
type Team struct {
	// Where names the session for messages (its URL, password removed).
	Where string
	// Updates brings what the others did, as the caller learns it; the
	// screen reads it off its goroutine until it is closed.
	Updates <-chan TeamUpdate
	// Claim asks the team's queue for up to n more items for this person
	// and returns their ids (none: nothing left to claim); it is called
	// off the screen's goroutine. nil: the session has no queue, and the
	// review shows every item.
	Claim func(n int) ([]string, error)
}

// TeamUpdate is what the others did since the last one. A nil field is
// unchanged. It is sent on Team.Updates (or to the program).
type TeamUpdate struct {
	// Others and OthersCantJudge replace the other annotators' current
	// labels and can't judges (as Options.Others); OthersChanged says they
	// are given (both may be empty).
	Others          []sessions.Label
	OthersCantJudge []sessions.CantJudge
	OthersChanged   bool
	// Verdicts are current verdicts that arrived, per run (by its id in
	// the session): the latest of their item, criterion and order.
	Verdicts []RunVerdicts
	// Runs are judges that appeared in the session since the screen
	// opened (a `gavel run` of another judge), with their verdicts.
	Runs []Run
	// Tags are the session's failure tags (added to the screen's set).
	Tags []string
	// Progress is the team's progress, one row per person; nil unchanged.
	Progress []TeamProgress
	// Err says the session could not be read (the server restarting, the
	// network down): the screen says so once, and again when it works.
	// Nil when this update was read.
	Err error
}

// RunVerdicts are verdicts of one run.
type RunVerdicts struct {
	RunID    int64
	Verdicts []judge.Verdict
}

// TeamProgress is one person's progress on the team's queue: the items
// assigned to them (slots of gavel assign), claimed and not yet decided,
// and decided (their own or taken from others); of their share, Taken
// were done or are held by someone else and Left remain (nobody has done
// them, nobody else holds them). Without a queue Assigned, Claimed, Taken
// and Left are 0 and Done counts the items they decided.
type TeamProgress struct {
	Annotator               string
	Assigned, Claimed, Done int
	Taken, Left             int
}

// claimBatch is how many items a claim asks for; claimLow how few
// undecided claimed items are left when the next claim is made.
const (
	claimBatch = 10
	claimLow   = 3
)

// claimRetry is how long after finding nothing to claim the screen asks
// again (somebody may have released items, or claims expired).
const claimRetry = 30 * time.Second

// viaQueue is the provenance of labels made through the queue: the
// queue deals items to people in a seeded random order.
const viaQueue = "queue"

// teamState is the team session the screen is on; nil when not one.
type teamState struct {
	where    string
	updates  <-chan TeamUpdate
	claim    func(n int) ([]string, error)
	progress []TeamProgress
	// gen counts the updates that changed what the statistics screen
	// shows of the team (its cache key).
	gen int
	at  time.Time // when the last update was read
	err error     // the last update's error, until one works again
	q   queueState
}

// queueState is this person's claimed items.
type queueState struct {
	ids      []string       // claimed, in the order claimed
	rank     map[string]int // id -> place in ids
	claiming bool
	// empty: the last claim found nothing; emptyAt when.
	empty   bool
	emptyAt time.Time
	opened  bool // the queue was put in force once
	// doneSaid: "your queue is done" was said, since the last claim
	// that brought items.
	doneSaid bool
	start    int // the item on screen when it opened, to tell a move
	gen      int // labelsGen then
}

// teamMsg is an update read from Team.Updates; closed when it has ended.
type teamMsg struct {
	u      TeamUpdate
	closed bool
}

// claimedMsg is the outcome of a claim.
type claimedMsg struct {
	ids []string
	err error
}

func newTeamState(t *Team) *teamState {
	if t == nil {
		return nil
	}
	return &teamState{where: t.Where, updates: t.Updates, claim: t.Claim, q: queueState{rank: map[string]int{}}}
}

// waitTeam reads the next update.
func waitTeam(ch <-chan TeamUpdate) tea.Cmd {
	return func() tea.Msg {
		u, ok := <-ch
		return teamMsg{u: u, closed: !ok}
	}
}

// teamInit starts listening for updates and makes the first claim.
func (m *Model) teamInit() tea.Cmd {
	t := m.team
	if t == nil {
		return nil
	}
	var cmds []tea.Cmd
	if t.updates != nil {
		cmds = append(cmds, waitTeam(t.updates))
	}
	t.q.start, t.q.gen = m.cur, m.labelsGen
	cmds = append(cmds, m.claimMore())
	return tea.Batch(cmds...)
}

// gotTeam applies an update read from the channel and reads the next.
func (m *Model) gotTeam(msg teamMsg) tea.Cmd {
	if msg.closed || m.team == nil {
		return nil
	}
	return tea.Batch(m.applyTeam(msg.u), waitTeam(m.team.updates))
}

// applyTeam applies what the others did.
func (m *Model) applyTeam(u TeamUpdate) tea.Cmd {
	t := m.team
	if t == nil {
		return nil
	}
	if u.Err != nil {
		if t.err == nil {
			m.warn(fmt.Sprintf("The team's session at %s cannot be read: %s — trying again every 2 seconds; the others' work shows once it answers.",
				SanitizeLine(Clip(t.where, 256)), SanitizeLine(u.Err.Error())))
		}
		t.err = u.Err
		t.gen++
		return nil
	}
	if t.err != nil {
		t.err = nil
		m.mention("The team's session answers again: the others' work is up to date.")
	}
	t.at = time.Now()
	changed := false // what the statistics are computed from
	if u.OthersChanged && m.blindQueue {
		changed = true // the statistics' aggregate figures; no label kept
	} else if u.OthersChanged {
		m.setOthers(OtherLabelsOf(u.Others), u.OthersCantJudge)
		changed = true
	}
	for _, k := range m.addRuns(u.Runs) {
		m.mention(fmt.Sprintf("A new judge's verdicts arrive: %s (J switches judges).", SanitizeLine(m.runs[k].name())))
		changed = true
	}
	for _, rv := range u.Verdicts {
		k := m.runByID(rv.RunID)
		if k < 0 {
			continue
		}
		r := m.runs[k]
		for _, v := range rv.Verdicts {
			m.elide(&v)
			if i := r.put(m.index, v, true); i >= 0 {
				m.verdictChanged(k, i)
			}
		}
		changed = changed || len(rv.Verdicts) > 0
	}
	for _, tag := range sessionTags(u.Tags) {
		if !slices.Contains(m.tags, tag) {
			m.tags = append(m.tags, tag)
		}
	}
	if u.Progress != nil {
		t.progress = u.Progress
	}
	t.gen++
	m.review.cache.clear()
	var cmds []tea.Cmd
	if changed && m.screen == screenStats {
		cmds = append(cmds, m.computeStats())
	}
	if t.q.empty && time.Since(t.q.emptyAt) >= claimRetry {
		cmds = append(cmds, m.claimMore())
	}
	return tea.Batch(cmds...)
}

// setOthers replaces the other annotators' current labels and can't
// judges; while items are still read, they are placed once all are.
// others are the screen's from now on.
func (m *Model) setOthers(others *OtherLabels, cantJudge []sessions.CantJudge) {
	if m.loading() {
		m.load.others, m.load.othersCantJudge = others, cantJudge
		return
	}
	m.placeOthers(others, cantJudge)
	if len(m.sel.items) == 0 && m.sel.filter.match != nil {
		// A filter left empty (nothing to adjudicate yet, no
		// disagreement between people) may hold items now: an
		// adjudicator waiting on "no item" meets the next
		// disagreement without pressing f again.
		m.reselect()
	}
}

// addRuns adds the runs the screen does not show yet (by their session
// id) after the others, and returns their positions.
func (m *Model) addRuns(runs []Run) []int {
	var added []int
	for _, r := range runs {
		if r.ID != 0 && m.runByID(r.ID) >= 0 {
			continue
		}
		m.runs = append(m.runs, newRunView(r, m.index, len(m.items)))
		added = append(added, len(m.runs)-1)
		m.keepTally(len(m.runs) - 1)
	}
	return added
}

// runByID is the position of the run with a session id, -1 when none.
func (w *workspace) runByID(id int64) int {
	for k, r := range w.runs {
		if r.id == id && id != 0 {
			return k
		}
	}
	return -1
}

// refusesJudging says, on a team session, that judging happens
// elsewhere, and reports whether it did.
func (w *workspace) refusesJudging() bool {
	if w.team == nil {
		return false
	}
	w.refuse("Only gavel run judges a team session: run `gavel run URL --judge NAME` on one machine; its verdicts appear here as they are saved.")
	return true
}

// claimMore asks the queue for more items, unless a claim is in flight.
func (w *workspace) claimMore() tea.Cmd {
	t := w.team
	if t == nil || t.claim == nil || t.q.claiming {
		return nil
	}
	t.q.claiming = true
	claim := t.claim
	return func() tea.Msg {
		ids, err := claim(claimBatch)
		return claimedMsg{ids: ids, err: err}
	}
}

// gotClaimed adds the items claimed to the queue and follows it: at once
// when the person has not moved or decided since the screen opened, else
// the queue is only offered (f reaches it).
func (m *Model) gotClaimed(msg claimedMsg) tea.Cmd {
	t := m.team
	if t == nil {
		return nil
	}
	q := &t.q
	q.claiming = false
	if msg.err != nil {
		m.warn("Could not claim items from the team's queue: " + SanitizeLine(msg.err.Error()) + " — trying again shortly.")
		q.empty, q.emptyAt = true, time.Now()
		return nil
	}
	added := 0
	for _, id := range msg.ids {
		if _, dup := q.rank[id]; dup {
			continue
		}
		if _, ok := m.index.at(id); !ok {
			continue // not in the copy (yet): the pull brings new items
		}
		q.rank[id] = len(q.ids)
		q.ids = append(q.ids, id)
		added++
	}
	if added == 0 {
		first := !q.empty
		q.empty, q.emptyAt = true, time.Now()
		if len(q.ids) > 0 {
			m.queueDone()
		} else if first {
			m.tell("The team's queue has nothing for you: every item is claimed or decided. The review shows every item.")
		}
		return nil
	}
	q.empty, q.doneSaid = false, false
	m.team.gen++
	if m.sel.filter.id == viaQueue {
		m.reselect()
		if m.reviewed[m.cur] {
			if p := m.nextUnreviewed(m.sel.pos); p >= 0 {
				m.sel.pos, m.cur = p, m.sel.items[p]
			}
		}
		m.review.cache.clear()
		return nil
	}
	still := !q.opened && m.cur == q.start && m.labelsGen == q.gen && m.sel.filter.id == "all" &&
		!m.sel.job.running && !m.sel.searching && m.top() == nil && !m.following()
	if still {
		m.openQueue()
		return nil
	}
	m.mention(fmt.Sprintf("%s claimed for you: f reaches your queue.", plural(added, "item", "items")))
	return nil
}

// openQueue puts the queue in force, on its first item not yet decided.
func (w *workspace) openQueue() {
	q := &w.team.q
	q.opened = true
	w.sel.filter = w.queueFilter()
	w.reselect()
	if p := w.nextUnreviewed(0); p >= 0 {
		w.sel.pos, w.cur = p, w.sel.items[p]
	}
	w.tell(fmt.Sprintf("Your queue: %s claimed for you, %d still to decide. More are claimed as you go; f leaves the queue.",
		itemCount(len(q.ids)), w.queueLeft()))
}

// queueLeft counts the claimed items this person has not decided.
func (w *workspace) queueLeft() int {
	n := 0
	for _, id := range w.team.q.ids {
		if i, ok := w.index.at(id); ok && i < len(w.items) && !w.decidedHere(i) {
			n++
		}
	}
	return n
}

// decidedHere reports whether this person decided item i: reviewed, or
// "can't judge".
func (w *workspace) decidedHere(i int) bool {
	if w.reviewed[i] {
		return true
	}
	_, _, cj := w.labels.CantJudge(w.items[i].ID)
	return cj
}

// queueFilter keeps the claimed items, in the order claimed.
func (w *workspace) queueFilter() filter {
	return filter{id: viaQueue, name: "your queue", via: viaQueue,
		match: func(w *workspace, i int) bool {
			if w.team == nil {
				return false
			}
			_, ok := w.team.q.rank[w.items[i].ID]
			return ok
		},
		arrange: func(w *workspace, items []int) []int {
			slices.SortStableFunc(items, func(a, b int) int { return w.team.q.rank[w.items[a].ID] - w.team.q.rank[w.items[b].ID] })
			return items
		}}
}

// queueFilters is the queue's filter, for f and F, once items are claimed.
func (w *workspace) queueFilters() []filter {
	if w.team == nil || len(w.team.q.ids) == 0 {
		return nil
	}
	return []filter{w.queueFilter()}
}

// queueSaved claims more once few claimed items are left undecided.
func (m *Model) queueSaved(done []saveOp) tea.Cmd {
	t := m.team
	if t == nil || t.claim == nil || len(done) == 0 || len(t.q.ids) == 0 {
		return nil
	}
	t.gen++
	if t.q.empty {
		m.queueDone()
		if time.Since(t.q.emptyAt) < claimRetry {
			return nil
		}
	}
	if m.queueLeft() < claimLow {
		return m.claimMore()
	}
	return nil
}

// queueDone says once that every claimed item is decided and nothing is
// left to claim.
func (w *workspace) queueDone() {
	q := &w.team.q
	if q.doneSaid || !q.empty || w.queueLeft() > 0 {
		return
	}
	q.doneSaid = true
	w.tell("Your queue is done: nothing is left to claim for you. f shows the other filters; the statistics (s) show the team's progress.")
}

// Claimed returns the items claimed for this person and not decided, for
// the caller to give back to the queue once the screen has closed.
func (m *Model) Claimed() []string {
	if m.team == nil {
		return nil
	}
	var out []string
	for _, id := range m.team.q.ids {
		if i, ok := m.index.at(id); !ok || i >= len(m.items) || !m.decidedHere(i) {
			out = append(out, id)
		}
	}
	return out
}
