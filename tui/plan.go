package tui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats"
	"github.com/gavel-dev/gavel/sessions/stats/render"
)

// Following a labelling plan (SPEC "Labels where they count"). `gavel
// plan` records which items to label; the review opens on them, in the
// plan's order, through a filter of its own whose labels record via
// "plan:ID" (not "filter:…": the statistics weight them by the plan's
// probabilities). The header counts the planned items labelled on the
// plan and, from the statistics computed off the loop every few plan
// labels (the statistics screen's own computeStats), the corrected
// score's interval against the width asked for; the message log says once
// when the interval is narrow enough, and when every planned item is
// labelled, after which the review goes on in the usual order, whose
// labels record the usual via.

// Plan is the labelling plan the review follows (Options.Plan).
type Plan struct {
	// ID is the plan's id in the session.
	ID int64
	// Items are the ids of the items the plan chose, in the plan's order
	// (rank 1 first): the order the review follows.
	Items []string
	// Design is the plan's design ("active", "uniform", "stratified"),
	// Judge the run its probabilities were drawn from ("" none) and
	// Dimension the dimension its estimates read, for the message log.
	Design, Judge, Dimension string
	// Chosen, when the plan was chosen for the person (no --plan), says
	// in a sentence why this one and how to pick another; the log shows
	// it on opening.
	Chosen string
}

// PlanStanding says where this annotator's history (oldest first) stands
// on plan p, as the review counts it: labelled, the planned items with a
// decision made following the plan (on its dimension, or can't judge, not
// undone); left, those whose latest such decision was not made on it or
// that have none. It is what the default plan is chosen by.
func PlanStanding(p *Plan, history []sessions.Action) (labelled, left int) {
	ps := newPlanState(p, history)
	for id := range ps.rank {
		v := ps.vias[id]
		if slices.Contains(v, ps.via) {
			labelled++
		}
		if len(v) == 0 || v[len(v)-1] != ps.via {
			left++
		}
	}
	return labelled, left
}

// planEstimateEvery is how many plan labels are saved between two
// computations of the plan's estimate (besides the one at open and the
// one when the plan is done): often enough for the header to follow, not
// so often that the statistics run on every key at a million items.
const planEstimateEvery = 5

// planState is the plan the review follows and where it stands.
type planState struct {
	id        int64
	via, name string
	dimension string
	ids       []string       // the planned items, in the plan's order
	rank      map[string]int // item id -> place in ids
	// vias holds, per planned item, the via of each of this annotator's
	// decisions on it that counts (labels, accepts, can't judge; re-tests
	// and undone ones left out), oldest first: an item is done on the
	// plan when it is reviewed and its latest decision was made on it. A
	// label made before the plan, or through another filter, does not
	// enter the plan's estimates (the statistics set it apart).
	vias map[string][]string
	// resolved: the positions of ids among the items, -1 for an id not
	// (yet) read; computed for resolvedAt items.
	resolved   []int
	resolvedAt int
	done       bool // every planned item is done on the plan (said once)
	// since counts the plan labels saved since the last estimate.
	since int
	// report is the plan's part of the last statistics (nil before).
	report *stats.PlanReport
	// reached: the log said the stop rule was reached.
	reached bool
}

// newPlanState reads which planned items this annotator's history
// decided on the plan.
func newPlanState(p *Plan, history []sessions.Action) *planState {
	ps := &planState{id: p.ID, via: sessions.PlanVia(p.ID), name: fmt.Sprintf("plan %d", p.ID), dimension: p.Dimension,
		ids: p.Items, rank: make(map[string]int, len(p.Items)), vias: map[string][]string{}}
	for k, id := range p.Items {
		if _, dup := ps.rank[id]; !dup {
			ps.rank[id] = k
		}
	}
	undone := map[int64]bool{}
	for _, a := range history {
		if a.Kind == sessions.KindUndo && a.Undoes != 0 {
			undone[a.Undoes] = true
		}
	}
	group := map[string]int64{} // the group of the last via kept per item
	for _, a := range history {
		if !ps.counts(a) || (a.ID != 0 && undone[a.ID]) {
			continue
		}
		if _, ok := ps.rank[a.ItemID]; !ok {
			continue
		}
		// One via per group, as one undo takes back one group.
		if g, seen := group[a.ItemID]; seen && g == a.Group && a.Group != 0 {
			continue
		}
		group[a.ItemID] = a.Group
		ps.vias[a.ItemID] = append(ps.vias[a.ItemID], a.Via)
	}
	return ps
}

// counts reports whether action a decides the item for the plan: a
// decision (see decision) on the plan's dimension of the whole item, or
// "can't judge", whatever judge is on screen (a label on another judge's
// dimension enters none of the plan's estimates).
func (ps *planState) counts(a sessions.Action) bool {
	if !decision(a) {
		return false
	}
	if a.Kind == sessions.KindCantJudge || ps.dimension == "" {
		return true
	}
	return a.Criterion == 0 && a.Dimension == ps.dimension
}

// decision reports an action that labels an item (or says it cannot be
// labelled), other than a re-test's.
func decision(a sessions.Action) bool {
	switch a.Kind {
	case sessions.KindLabel, sessions.KindAccept, sessions.KindCantJudge:
		return !a.Retest && a.Via != viaRetest
	}
	return false
}

// openPlan follows plan p when the screen opens: its items in its order,
// from the first one not yet done on it. A plan already done is only
// said (the header keeps saying it).
func (w *workspace) openPlan(p *Plan, history []sessions.Action) {
	if p == nil || len(p.Items) == 0 {
		return
	}
	w.plan = newPlanState(p, history)
	ps := w.plan
	done, total := w.planProgress()
	if !w.loading() && total == 0 {
		w.warn(fmt.Sprintf("Plan %d chose %s, none of which is in the dataset now: the review is in the usual order.", ps.id, itemCount(len(ps.ids))))
		w.plan = nil
		return
	}
	if !w.loading() && done == total {
		ps.done = true
		w.tell(fmt.Sprintf("Plan %d is done: its %s are labelled on the plan. The review is in the usual order; gavel stats shows the plan's estimates.",
			ps.id, itemCount(total)))
		return
	}
	var items []int
	first := -1
	for _, i := range w.planItems() {
		if i < 0 {
			continue
		}
		if first < 0 && !w.planDone(i) {
			first = len(items)
		}
		items = append(items, i)
	}
	w.sel.filter = w.planFilter()
	w.sel.items, w.sel.pos = items, max(first, 0)
	if len(items) > 0 {
		w.cur = items[w.sel.pos]
	}
	w.load.start = w.cur // not moved once every item is read: startItem
	what := SanitizeLine(Clip(p.Design, 32)) + " plan"
	if p.Judge != "" {
		what += " drawn from " + SanitizeLine(Clip(p.Judge, 64)) + "'s verdicts"
	}
	msg := fmt.Sprintf("Following plan %d (%s): its %s in its order, %d done. Labels made here record via %s and count in its estimates; f leaves the plan, --plan none opens without it.",
		ps.id, what, itemCount(len(ps.ids)), done, ps.via)
	if p.Chosen != "" {
		msg += " " + SanitizeLine(Clip(p.Chosen, 256))
	}
	if off := w.planOff(); off > 0 {
		msg += fmt.Sprintf(" %s labelled before the plan or off it: label %s again here for the plan's estimates to count %s.",
			plural(off, "of its items was", "of its items were"), pick(off, "it", "them"), pick(off, "it", "them"))
	}
	w.tell(msg)
	if r := w.run(); r != nil && ps.dimension != "" && !slices.ContainsFunc(r.info.Dimensions, func(d judge.Dimension) bool { return d.Name == ps.dimension }) {
		w.warn(fmt.Sprintf("Plan %d estimates %q, which the judge on screen does not rate: label with the plan's judge (J switches judges).",
			ps.id, SanitizeLine(Clip(ps.dimension, 64))))
	}
}

// startItem is where the review starts once every item is read (a large
// session's, Options.MoreItems) when the person has not moved: the plan's
// first item not done on it while the plan is followed, else the first
// unreviewed item.
func (w *workspace) startItem() int {
	if w.following() {
		for _, i := range w.planItems() {
			if i >= 0 && !w.planDone(i) {
				return i
			}
		}
	}
	if w.adjudicating() {
		// The adjudication queue's first item, in dataset order (the
		// selection made once every item is read keeps it).
		for i := range w.items {
			if w.toAdjudicate(i) {
				return i
			}
		}
	}
	return w.firstUnreviewed(0)
}

// planItemsRead checks the plan once every item is read: one found done
// then is said so and left for the usual order, as after its last label.
func (w *workspace) planItemsRead() tea.Cmd {
	if w.plan == nil {
		return nil
	}
	return w.planCheck()
}

// planWait is a plan read after the first frame (Options.ReadPlan): the
// history its state is derived from is kept until then, and where the
// screen opened, to tell whether the person has moved since.
type planWait struct {
	read      func() (*Plan, error)
	history   []sessions.Action
	cur       int
	labelsGen int
}

// waitPlan keeps what reading the plan after the first frame needs.
func (w *workspace) waitPlan(o Options) {
	if o.Plan == nil && o.ReadPlan != nil {
		w.planWait = &planWait{read: o.ReadPlan, history: o.History, cur: w.cur, labelsGen: w.labelsGen}
	}
}

// planReadMsg is the plan read after the first frame.
type planReadMsg struct {
	plan *Plan
	err  error
}

// planInit starts what a plan needs after the first frame: reading it,
// or its estimate.
func (m *Model) planInit() tea.Cmd {
	if pw := m.planWait; pw != nil {
		read := pw.read
		return func() tea.Msg {
			p, err := read()
			return planReadMsg{plan: p, err: err}
		}
	}
	if m.plan != nil {
		return m.computeStats() // the plan's estimate, for the header
	}
	return nil
}

// gotPlan follows the plan read after the first frame: at once when the
// person has neither moved nor decided since the screen opened (and no
// filter job or search runs), else it is only offered (f reaches it).
func (m *Model) gotPlan(msg planReadMsg) tea.Cmd {
	pw := m.planWait
	m.planWait = nil
	if pw == nil {
		return nil
	}
	if msg.err != nil {
		m.fail("The labelling plan could not be read: " + SanitizeLine(msg.err.Error()) + " — the review goes on without it.")
		return nil
	}
	if msg.plan == nil || len(msg.plan.Items) == 0 {
		return nil
	}
	still := m.cur == pw.cur && m.labelsGen == pw.labelsGen && m.sel.filter.id == "all" && !m.sel.job.running && !m.sel.searching && m.top() == nil
	if still {
		m.openPlan(msg.plan, pw.history)
		m.review.cache.clear()
	} else {
		m.plan = newPlanState(msg.plan, pw.history)
		done, total := m.planProgress()
		m.plan.done = !m.loading() && total > 0 && done == total
		text := fmt.Sprintf("Plan %d is read: f reaches its %s (after \"all items\"); labels made there record via %s.",
			m.plan.id, itemCount(len(m.plan.ids)), m.plan.via)
		if c := msg.plan.Chosen; c != "" {
			text += " " + SanitizeLine(Clip(c, 256))
		}
		m.tell(text)
	}
	return m.computeStats()
}

// orderName names the order of the selection: the filter's own (a
// plan's) or the order in force.
func (w *workspace) orderName() string {
	if w.sel.filter.arrange != nil {
		return "the plan's order"
	}
	return w.sel.order.String()
}

// pick is one or many by n.
func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// planItems are the positions of the planned items among the items, in
// the plan's order; -1 for one not read (yet) or not in the dataset.
func (w *workspace) planItems() []int {
	ps := w.plan
	if ps.resolved == nil || ps.resolvedAt != len(w.items) {
		ps.resolved = make([]int, len(ps.ids))
		for k, id := range ps.ids {
			ps.resolved[k] = -1
			if i, ok := w.index.at(id); ok && i < len(w.items) {
				ps.resolved[k] = i
			}
		}
		ps.resolvedAt = len(w.items)
	}
	return ps.resolved
}

// planDone reports whether planned item i is done on the plan: labelled
// on the plan's dimension (or can't judge), its latest such decision made
// following the plan.
func (w *workspace) planDone(i int) bool {
	if !w.planLabelled(i) {
		return false
	}
	v := w.plan.vias[w.items[i].ID]
	return len(v) > 0 && v[len(v)-1] == w.plan.via
}

// planLabelled reports whether item i holds this annotator's label on
// the plan's dimension of the whole item, or a "can't judge": what the
// plan's estimates read, whatever judge is on screen (reviewed is the
// screen judge's rows). A plan without a dimension reads reviewed.
func (w *workspace) planLabelled(i int) bool {
	ps := w.plan
	if ps.dimension == "" {
		return w.reviewed[i]
	}
	id := w.items[i].ID
	if _, ok := w.labels.Label(sessions.LabelKey{ItemID: id, Dimension: ps.dimension}); ok {
		return true
	}
	_, _, cant := w.labels.CantJudge(id)
	return cant
}

// planProgress counts the planned items done on the plan, of those in
// the dataset (all planned ones while the items are still read).
func (w *workspace) planProgress() (done, total int) {
	for _, i := range w.planItems() {
		if i < 0 {
			continue
		}
		total++
		if w.planDone(i) {
			done++
		}
	}
	if w.loading() {
		total = len(w.plan.ids)
	}
	return done, total
}

// planOff counts the planned items reviewed but not on the plan.
func (w *workspace) planOff() int {
	n := 0
	for _, i := range w.planItems() {
		if i >= 0 && w.planLabelled(i) && !w.planDone(i) {
			n++
		}
	}
	return n
}

// planFilter keeps the planned items, in the plan's order whatever the
// order in force, and its labels record via plan:ID.
func (w *workspace) planFilter() filter {
	ps := w.plan
	return filter{id: ps.via, name: ps.name, via: ps.via,
		match: func(w *workspace, i int) bool {
			_, ok := w.plan.rank[w.items[i].ID]
			return ok
		},
		arrange: func(w *workspace, items []int) []int {
			slices.SortStableFunc(items, func(a, b int) int { return w.plan.rank[w.items[a].ID] - w.plan.rank[w.items[b].ID] })
			return items
		}}
}

// planFilters is the plan's filter, for f and F, when a plan is followed.
func (w *workspace) planFilters() []filter {
	if w.plan == nil {
		return nil
	}
	return []filter{w.planFilter()}
}

// following reports whether the plan's filter is in force.
func (w *workspace) following() bool {
	return w.plan != nil && w.sel.filter.id == w.plan.via
}

// planRecorded follows a group of decisions on item (record): its via
// for the item's state, and, when the last planned item is done, the
// message and the usual order.
func (w *workspace) planRecorded(item int, acts []sessions.Action) tea.Cmd {
	ps := w.plan
	if ps == nil || item < 0 || item >= len(w.items) {
		return nil
	}
	id := w.items[item].ID
	if _, ok := ps.rank[id]; ok {
		for _, a := range acts {
			if ps.counts(a) {
				ps.vias[id] = append(ps.vias[id], a.Via)
				break
			}
		}
	}
	return w.planCheck()
}

// planUndone takes back the via of an undone decision on a planned item.
func (w *workspace) planUndone(keys []sessions.LabelKey) {
	ps := w.plan
	if ps == nil || len(keys) == 0 {
		return
	}
	id := keys[0].ItemID
	for _, k := range keys {
		isDecision := k == sessions.CantJudgeKey(id) || (k.Dimension != "" && k.Criterion >= 0 && k != sessions.NoteKey(id) &&
			(ps.dimension == "" || (k.Criterion == 0 && k.Dimension == ps.dimension)))
		if v := ps.vias[id]; isDecision && len(v) > 0 {
			ps.vias[id] = v[:len(v)-1]
			break
		}
	}
	w.planCheck()
}

// planCheck notes when the plan becomes done (said once, the review
// then going on in the usual order) or is undone back.
func (w *workspace) planCheck() tea.Cmd {
	ps := w.plan
	if w.loading() {
		return nil
	}
	done, total := w.planProgress()
	switch {
	case done < total || total == 0:
		ps.done = false
		return nil
	case ps.done:
		return nil
	}
	ps.done = true
	msg := fmt.Sprintf("Plan %d is done: its %s are labelled on the plan.", ps.id, itemCount(total))
	if !w.following() {
		w.tell(msg)
		return nil
	}
	cmd := w.selectAs(staticFilters[0], w.sel.order)
	if w.sel.filter.id == "all" && w.sel.order == orderDataset {
		w.show(w.firstUnreviewed(0)) // where a session opens
	}
	// Said after the selection, whose own line it replaces.
	w.tell(msg + " The review goes on in the usual order (every item); labels from here record via " +
		viaOf(w.sel.order) + ", not " + ps.via + ". f and F choose a filter.")
	return cmd
}

// viaOf is the via of labels made on every item in order o.
func viaOf(o order) string {
	switch o {
	case orderRandom:
		return "random"
	case orderLeastConfident:
		return "filter:least-confident"
	}
	return "order"
}

// planSaved counts the plan labels the session now holds and, every few,
// or when the plan is done, computes the statistics again (off the loop)
// for the plan's estimate.
func (m *Model) planSaved(done []saveOp) tea.Cmd {
	ps := m.plan
	if ps == nil {
		return nil
	}
	n := 0
	for _, op := range done {
		for _, a := range op.acts {
			if a.Via == ps.via && ps.counts(a) {
				n++
				break
			}
		}
	}
	if n == 0 {
		return nil
	}
	ps.since += n
	if ps.since < planEstimateEvery && !ps.done {
		return nil
	}
	ps.since = 0
	if m.screen == screenStats {
		return nil // the statistics screen computes them after every save
	}
	return m.computeStats()
}

// planStats reads the plan's estimate from fresh statistics and says once
// when the stop rule is reached.
func (m *Model) planStats() {
	ps := m.plan
	if ps == nil || m.stats.report == nil || m.stats.report.Plan == nil || int64(m.stats.report.Plan.ID) != ps.id {
		return
	}
	p := *m.stats.report.Plan
	ps.report = &p
	st := p.Stop
	if !st.Reached || ps.reached || !st.HalfWidth.Defined() {
		return
	}
	ps.reached = true
	m.tell(fmt.Sprintf("Plan %d: the corrected score is within %s (%s now, %s): the plan can stop here. More labels narrow it further.",
		ps.id, render.PlanHalfWidth(&p, st.TargetWidth), render.PlanHalfWidth(&p, st.HalfWidth.Value), plural(p.Labelled, "label", "labels")))
}

// planNotice is the header's word on the plan: "plan 1 · 23/60 · ±7.9
// pts (aim ±5.0)" while it is followed, "plan 1 done · ±4.8 pts (aim
// met)" once done ("aim met", not ✓: the header's ✓ marks a reviewed
// item); with no half-width yet, why in a few words ("strata
// unlabelled"), unless the count says it (no label yet); "" when no plan
// is followed or done.
func (m *Model) planNotice() string {
	ps := m.plan
	if ps == nil || (!m.following() && !ps.done) {
		return ""
	}
	parts := []string{ps.name}
	if ps.done {
		parts[0] += " done"
	} else {
		done, total := m.planProgress()
		parts = append(parts, fmt.Sprintf("%d/%d", done, total))
	}
	r := ps.report
	switch {
	case r == nil:
	case r.Census && r.Stop.Reached:
		parts = append(parts, "no sampling error")
	case r.Stop.HalfWidth.Defined():
		h := render.PlanHalfWidth(r, r.Stop.HalfWidth.Value)
		if r.Stop.Reached {
			parts = append(parts, h+" (aim met)")
		} else {
			parts = append(parts, h+" (aim "+strings.TrimSuffix(render.PlanHalfWidth(r, r.Stop.TargetWidth), " pts")+")")
		}
	case r.Stop.Wait != "" && r.Stop.Wait != "no label yet":
		parts = append(parts, SanitizeLine(Clip(r.Stop.Wait, 24)))
	}
	return strings.Join(parts, " · ")
}

// planNoticeRoom is the widest planNotice is expected to grow while the
// plan is followed (its count at the plan's size, a half-width against
// the aim), so that the header gives up its parts as if it were that
// wide and its left title does not change as labels come in; 0 when no
// plan is followed.
func (m *Model) planNoticeRoom() int {
	ps := m.plan
	if ps == nil || (!m.following() && !ps.done) {
		return 0
	}
	n := len(ps.ids)
	aim := "±5.0"
	if r := ps.report; r != nil && r.Stop.TargetWidth > 0 {
		aim = strings.TrimSuffix(render.PlanHalfWidth(r, r.Stop.TargetWidth), " pts")
	}
	return ansi.StringWidth(fmt.Sprintf("%s · %d/%d · ±100.0 pts (aim %s)", ps.name, n, n, aim))
}
