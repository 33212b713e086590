package tui

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/match"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/dataset"
	"github.com/gavel-dev/gavel/sessions/plan"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// plannedIDs is the plan of the tests: four of ten items, in an order of
// its own.
var plannedIDs = []string{"q7", "q2", "q9", "q4"}

// planVias lists the via of every action the store recorded, as
// "item=via".
func (f *fakeStore) vias() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, g := range f.groups {
		for _, a := range g {
			out = append(out, a.ItemID+"="+a.Via)
		}
	}
	return out
}

// planModel opens ten items with a plan of four (plannedIDs), after
// history; stats, when set, computes the statistics.
func planModel(t *testing.T, st *fakeStore, history []sessions.Action, statsFn func() (stats.Report, error), w, h int) *Model {
	t.Helper()
	items := testItems(10)
	var p *Plan
	if plannedIDs != nil {
		p = &Plan{ID: 1, Items: plannedIDs, Design: "active", Judge: "match", Dimension: "correct"}
	}
	m := New(Options{Store: st, Annotator: "tester", Dataset: "test.jsonl", Items: items,
		Runs: []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}, History: history, Plan: p, Stats: statsFn})
	m = runCmd(t, m, m.Init(), 0)
	return update(t, m, windowSize(w, h))
}

// logHas counts the log's messages that contain s.
func logHas(m *Model, s string) int {
	n := 0
	for _, e := range m.log.entries {
		if strings.Contains(e.text, s) {
			n++
		}
	}
	return n
}

// The review opens on the plan's items in the plan's order, from the
// first not yet labelled on it; labels on them record via plan:1 (a
// planned item labelled before the plan is shown again and counts once
// relabelled); the header counts the progress; once every planned item
// is done the log and the header say so and the review goes on over every
// item, whose labels record the usual via.
func TestPlanFollowedInOrder(t *testing.T) {
	st := &fakeStore{}
	// q2 was labelled in dataset order before the plan: off the plan.
	history := []sessions.Action{{ID: 1, Group: 1, Kind: sessions.KindLabel, ItemID: "q2", Dimension: "correct", Value: 1, Via: "order"}}
	m := planModel(t, st, history, nil, 80, 24)
	if got := m.items[m.cur].ID; got != "q7" {
		t.Fatalf("opened on %s, want q7 (the plan's first)", got)
	}
	var order []string
	for _, i := range m.sel.items {
		order = append(order, m.items[i].ID)
	}
	if strings.Join(order, " ") != "q7 q2 q9 q4" {
		t.Errorf("selection %v, want the plan's order", order)
	}
	if logHas(m, "Following plan 1") != 1 || logHas(m, "1 of its items was labelled before the plan or off it") != 1 {
		t.Errorf("log lacks the plan's opening words: %v", m.log.entries)
	}
	if l := lines(m)[0]; !strings.Contains(l, "plan 1 · 0/4") {
		t.Errorf("header %q lacks the plan's progress", l)
	}
	m = press(t, m, "y") // q7
	if got := m.items[m.cur].ID; got != "q2" {
		t.Fatalf("after the first label on %s, want q2", got)
	}
	if l := lines(m)[0]; !strings.Contains(l, "plan 1 · 1/4") {
		t.Errorf("header %q: want 1/4", l)
	}
	m = press(t, m, "n", "a", "x", "1") // q2 relabelled; q9 accepted; q4 can't judge: gold wrong
	want := "q7=plan:1 q2=plan:1 q9=plan:1 q4=plan:1"
	if got := strings.Join(st.vias(), " "); got != want {
		t.Fatalf("vias %q, want %q", got, want)
	}
	if logHas(m, "Plan 1 is done") != 1 {
		t.Errorf("no word of the plan done: %v", m.log.entries)
	}
	if m.sel.filter.id != "all" || m.following() {
		t.Errorf("after the plan: filter %q, want every item", m.sel.filter.id)
	}
	if l := lines(m)[0]; !strings.Contains(l, "plan 1 done") {
		t.Errorf("header %q lacks the plan done", l)
	}
	// The usual order: the first unreviewed item, via order.
	if got := m.items[m.cur].ID; got != "q1" {
		t.Errorf("went on at %s, want q1", got)
	}
	m = press(t, m, "y")
	if v := st.vias(); v[len(v)-1] != "q1=order" {
		t.Errorf("after the plan, recorded %v", v[len(v)-1])
	}
}

// f reaches the plan's filter next to every item; o is refused there (the
// plan has its own order); undo takes a plan label back from the count.
func TestPlanFilterKeys(t *testing.T) {
	st := &fakeStore{}
	m := planModel(t, st, nil, nil, 120, 30)
	m = press(t, m, "F")
	if m.sel.filter.id != "all" {
		t.Fatalf("F from the plan gave %q, want all", m.sel.filter.id)
	}
	if l := lines(m)[0]; strings.Contains(l, "plan 1") {
		t.Errorf("header %q speaks of the plan after leaving it", l)
	}
	m = press(t, m, "y")
	if v := st.vias(); len(v) != 1 || v[0] != "q7=order" {
		t.Errorf("off the plan recorded %v, want q7=order (q7 is on screen, every item)", v)
	}
	m = press(t, m, "f")
	if !m.following() {
		t.Fatalf("f from every item gave %q, want the plan", m.sel.filter.id)
	}
	if got := m.items[m.cur].ID; got != "q7" {
		t.Errorf("plan filter shows %s, want q7", got)
	}
	if l := lines(m)[0]; !strings.Contains(l, "plan 1 · 0/4") {
		t.Errorf("header %q: q7's label is off the plan, want 0/4", l)
	}
	m = press(t, m, "L")
	if l := lines(m)[1]; !strings.Contains(l, "Items · plan 1 · the plan's order · 4 of 10") {
		t.Errorf("list title %q", l)
	}
	m = press(t, m, "esc", ">", "g")
	if got := m.items[m.cur].ID; got != "q7" {
		t.Errorf("g on the plan went to %s, want q7 (labelled off the plan)", got)
	}
	m = press(t, m, "o")
	if m.log.flash == "" || !strings.Contains(m.log.flash, "keeps its own order") || !m.following() {
		t.Errorf("o on the plan: %q, filter %q", m.log.flash, m.sel.filter.id)
	}
	m = press(t, m, "y")
	if l := lines(m)[0]; !strings.Contains(l, "plan 1 · 1/4") {
		t.Errorf("header %q: want 1/4", l)
	}
	m = press(t, m, "u")
	if l := lines(m)[0]; !strings.Contains(l, "plan 1 · 0/4") {
		t.Errorf("after undo, header %q: want 0/4", l)
	}
}

// With no plan (--plan none) nothing changes: labels record the usual
// via, the header says nothing of a plan, no statistics are computed.
func TestPlanNone(t *testing.T) {
	saved := plannedIDs
	plannedIDs = nil
	defer func() { plannedIDs = saved }()
	calls := 0
	st := &fakeStore{}
	m := planModel(t, st, nil, func() (stats.Report, error) { calls++; return stats.Report{}, nil }, 80, 24)
	m = press(t, m, "y", "y")
	if got := strings.Join(st.vias(), " "); got != "q1=order q2=order" {
		t.Errorf("vias %q", got)
	}
	if l := lines(m)[0]; strings.Contains(l, "plan") {
		t.Errorf("header %q", l)
	}
	if calls != 0 {
		t.Errorf("statistics computed %d times with no plan and no statistics screen", calls)
	}
}

// fakePlanStats is a plan estimate whose half-width shrinks with the plan
// labels the store holds: ±8 points under 4, ±4.8 from 4 on.
type fakePlanStats struct {
	st    *fakeStore
	mu    sync.Mutex
	calls int
}

func (f *fakePlanStats) report() (stats.Report, error) {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	n := 0
	for _, v := range f.st.vias() {
		if strings.HasSuffix(v, "=plan:1") {
			n++
		}
	}
	h := 0.08
	if n >= 4 {
		h = 0.048
	}
	p := &stats.PlanReport{ID: 1, Design: "active", Scale: judge.Binary, Measure: stats.MeasurePassRate, Labelled: n,
		Stop: stats.StopRule{Figure: "score", TargetWidth: 0.05, HalfWidth: stats.Estimate{Value: h}, Reached: h <= 0.05}}
	return stats.Report{Plan: p}, nil
}

// The plan's estimate is computed at open and every few plan labels;
// the header shows its half-width against the width asked for, and the
// log says once that the plan can stop when it is reached.
func TestPlanStopRuleNotice(t *testing.T) {
	saved := plannedIDs
	plannedIDs = []string{"q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8", "q9", "q10"}
	defer func() { plannedIDs = saved }()
	st := &fakeStore{}
	fs := &fakePlanStats{st: st}
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		st.groups = nil
		fs.calls = 0
		m := planModel(t, st, nil, fs.report, size[0], size[1])
		if fs.calls != 1 {
			t.Errorf("%v: statistics computed %d times at open, want 1", size, fs.calls)
		}
		if l := lines(m)[0]; !strings.Contains(l, "plan 1 · 0/10 · ±8.0 pts (aim ±5.0)") {
			t.Errorf("%v: header %q", size, l)
		}
		checkFits(t, plain(m), size[0], size[1])
		m = press(t, m, "y", "y", "y", "y")
		if fs.calls != 1 || logHas(m, "can stop here") != 0 {
			t.Errorf("%v: after 4 labels: %d computations, notice %d; want 1 and none", size, fs.calls, logHas(m, "can stop here"))
		}
		m = press(t, m, "y") // the fifth: the estimate again
		if fs.calls != 2 {
			t.Errorf("%v: after 5 labels %d computations, want 2", size, fs.calls)
		}
		if n := logHas(m, "Plan 1: the corrected score is within ±5.0 pts (±4.8 pts now, 5 labels): the plan can stop here"); n != 1 {
			t.Errorf("%v: notice said %d times: %v", size, n, m.log.entries)
		}
		l := lines(m)[0]
		if !strings.Contains(l, "plan 1 · 5/10 · ±4.8 pts (aim met)") {
			t.Errorf("%v: header %q", size, l)
		}
		if w := ansi.StringWidth(l); w != size[0] {
			t.Errorf("%v: header %d cells wide", size, w)
		}
		m = press(t, m, "y", "y", "y", "y", "y")
		if fs.calls != 3 || logHas(m, "can stop here") != 1 {
			t.Errorf("%v: after 10 labels %d computations, notice %d times; want 3 and once", size, fs.calls, logHas(m, "can stop here"))
		}
		if l := lines(m)[0]; !strings.Contains(l, "plan 1 done · ±4.8 pts (aim met)") {
			t.Errorf("%v: header %q", size, l)
		}
		checkFits(t, plain(m), size[0], size[1])
	}
}

// A plan drawn in a real session: the labels the screen makes on it are
// in the session's actions with via plan:1, and the statistics the
// screen computes estimate from them.
func TestPlanRealSession(t *testing.T) {
	var b strings.Builder
	for i := range 20 {
		fmt.Fprintf(&b, `{"id":"r%02d","question":"q %d","gold":"a","prediction":"%s"}`+"\n", i, i, []string{"a", "b"}[i%2])
	}
	ds, err := dataset.LoadBytes("plan.jsonl", []byte(b.String()), dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "plan.gavel")
	rv, err := sessions.OpenReview(path, "tester", ds)
	if err != nil {
		t.Fatal(err)
	}
	defer rv.Store.Close()
	dr, err := rv.Store.CreatePlan(sessions.PlanOptions{Design: plan.Uniform, N: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	st, err := rv.StartRun(context.Background(), match.New(), judge.PoolOptions{Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if st.Judging != nil {
		defer st.Judging.Stop()
	}
	runs, err := rv.Store.Runs()
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{Store: rv.Store, Annotator: "tester", Dataset: "plan.jsonl", Items: rv.Items,
		Runs: []Run{{Info: st.Run.Info, Key: sessions.RunNames(runs)[st.Run.ID], Verdicts: st.Verdicts, Pending: st.Pending}},
		Plan: &Plan{ID: dr.Plan.ID, Items: dr.SelectedIDs(), Design: "uniform"},
		Stats: func() (stats.Report, error) {
			in, err := rv.Store.StatsInputWith(sessions.StatsOptions{PlanID: 1})
			if err != nil {
				return stats.Report{}, err
			}
			in.Plan.TargetWidth = 0.9
			return stats.Compute(in, stats.Options{Seed: 1}), nil
		}})
	m = update(t, m, windowSize(100, 30))
	m = press(t, m, "y", "n", "y", "n", "y")
	acts, err := rv.Store.Actions("tester")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range acts {
		got = append(got, a.ItemID+"="+a.Via)
	}
	var want []string
	for _, id := range dr.SelectedIDs() {
		want = append(want, id+"=plan:1")
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("actions %v, want %v", got, want)
	}
	if m.stats.report == nil {
		m = waitStats(t, m)
	}
	p := m.stats.report.Plan
	if p == nil || p.Labelled != 5 || p.Stop.TargetWidth != 0.9 || math.IsNaN(p.Score.Value) {
		t.Fatalf("plan estimate %+v", p)
	}
	if logHas(m, "Plan 1 is done") != 1 {
		t.Errorf("log: %v", m.log.entries)
	}
}

// A large session's items are read after the first frame: the plan is
// followed among the items read so far, and once every item is in, in
// the plan's order from its first item not done.
func TestPlanWhileItemsLoad(t *testing.T) {
	items := testItems(10)
	pages := [][]judge.Item{items[:6], items}
	calls := 0
	more := func() ([]judge.Item, bool, error) {
		p := pages[min(calls, len(pages)-1)]
		calls++
		return p, len(p) == len(items), nil
	}
	run := Run{Info: matchInfo, Load: func() (Loaded, error) { return Loaded{Verdicts: verdictsFor(items)}, nil }}
	m := New(Options{Store: &fakeStore{}, Annotator: "tester", Dataset: "big.jsonl", Items: items[:3], Runs: []Run{run},
		MoreItems: more, ItemCount: len(items), Plan: &Plan{ID: 2, Items: []string{"q9", "q2", "q7"}, Design: "uniform"}})
	m = update(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	if got := m.items[m.cur].ID; got != "q2" || !m.following() {
		t.Fatalf("while loading: on %s (following %v), want q2, the only planned item read", got, m.following())
	}
	if l := lines(m)[0]; !strings.Contains(l, "plan 2 · 0/3") {
		t.Errorf("header while loading %q", l)
	}
	m = runCmd(t, m, m.Init(), 0)
	var order []string
	for _, i := range m.sel.items {
		order = append(order, m.items[i].ID)
	}
	if m.loading() || strings.Join(order, " ") != "q9 q2 q7" || m.items[m.cur].ID != "q9" {
		t.Errorf("after loading: %v on %s (loading %v), want q9 q2 q7 on q9", order, m.items[m.cur].ID, m.loading())
	}
	m = press(t, m, "y")
	if m.items[m.cur].ID != "q2" || m.provenance() != "plan:2" {
		t.Errorf("after a label: on %s via %s", m.items[m.cur].ID, m.provenance())
	}

	// A plan found done once every item is read goes to the usual order.
	var history []sessions.Action
	for k, id := range []string{"q9", "q2", "q7"} {
		history = append(history, sessions.Action{ID: int64(k + 1), Group: int64(k + 1), Kind: sessions.KindLabel, ItemID: id, Dimension: "correct", Value: 1, Via: "plan:2"})
	}
	calls = 0
	m = New(Options{Store: &fakeStore{}, Annotator: "tester", Dataset: "big.jsonl", Items: items[:3], Runs: []Run{run}, History: history,
		MoreItems: more, ItemCount: len(items), Plan: &Plan{ID: 2, Items: []string{"q9", "q2", "q7"}, Design: "uniform"}})
	m = update(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	m = runCmd(t, m, m.Init(), 0)
	if m.following() || m.sel.filter.id != "all" || logHas(m, "Plan 2 is done") != 1 || !strings.Contains(lines(m)[0], "plan 2 done") {
		t.Errorf("a done plan once read: filter %q, log %v, header %q", m.sel.filter.id, m.log.entries, lines(m)[0])
	}
}

// On a large dataset the plan's filter is chosen by a selection job (see
// asyncSelectionFrom): its matches come out in the plan's order too, and
// done switches to every item the same way.
func TestPlanSelectionJob(t *testing.T) {
	saved := asyncSelectionFrom
	asyncSelectionFrom = 1
	defer func() { asyncSelectionFrom = saved }()
	st := &fakeStore{}
	m := planModel(t, st, nil, nil, 100, 30)
	m = press(t, m, "F", "f")
	var order []string
	for _, i := range m.sel.items {
		order = append(order, m.items[i].ID)
	}
	if !m.following() || strings.Join(order, " ") != strings.Join(plannedIDs, " ") {
		t.Fatalf("after the job: filter %q, items %v", m.sel.filter.id, order)
	}
	m = press(t, m, "y", "y", "y", "y")
	if m.following() || m.sel.filter.id != "all" || logHas(m, "Plan 1 is done") != 1 {
		t.Errorf("after the plan: filter %q, log %v", m.sel.filter.id, m.log.entries)
	}
	if got := strings.Join(st.vias(), " "); got != "q7=plan:1 q2=plan:1 q9=plan:1 q4=plan:1" {
		t.Errorf("vias %q", got)
	}
}

// The plan read after the first frame (Options.ReadPlan) is followed
// when the person has not moved meanwhile; otherwise it is offered (f),
// and the review stays where the person is.
func TestPlanReadAfterFirstFrame(t *testing.T) {
	for _, moved := range []bool{false, true} {
		items := testItems(10)
		m := New(Options{Store: &fakeStore{}, Annotator: "tester", Dataset: "t.jsonl", Items: items,
			Runs:     []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}},
			ReadPlan: func() (*Plan, error) { return &Plan{ID: 3, Items: []string{"q5", "q1"}, Design: "uniform"}, nil }})
		m = update(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
		if m.plan != nil || m.following() {
			t.Fatalf("plan followed before it was read")
		}
		if moved {
			m = press(t, m, "right")
		}
		m = runCmd(t, m, m.Init(), 0)
		switch {
		case !moved && (!m.following() || m.items[m.cur].ID != "q5"):
			t.Errorf("not moved: following %v, on %s; want the plan from q5", m.following(), m.items[m.cur].ID)
		case moved && (m.following() || m.items[m.cur].ID != "q2" || logHas(m, "Plan 3 is read: f reaches its 2 items") != 1):
			t.Errorf("moved: following %v, on %s, log %v; want q2 and the plan offered", m.following(), m.items[m.cur].ID, m.log.entries)
		}
		if moved {
			m = press(t, m, "f")
			if !m.following() || m.items[m.cur].ID != "q5" || m.provenance() != "plan:3" {
				t.Errorf("f after the plan was read: filter %q on %s", m.sel.filter.id, m.items[m.cur].ID)
			}
		}
	}
}

// A plan none of whose items is in the dataset any more (the dataset
// changed) is not followed, and the log says why.
func TestPlanOfItemsGone(t *testing.T) {
	saved := plannedIDs
	plannedIDs = []string{"gone-1", "gone-2"}
	defer func() { plannedIDs = saved }()
	st := &fakeStore{}
	m := planModel(t, st, nil, nil, 80, 24)
	if m.following() || m.plan != nil || logHas(m, "Plan 1 chose 2 items, none of which is in the dataset now") != 1 {
		t.Errorf("following %v, log %v", m.following(), m.log.entries)
	}
	m = press(t, m, "y")
	if v := st.vias(); len(v) != 1 || v[0] != "q1=order" {
		t.Errorf("recorded %v", v)
	}
}

// The plan's words from the session (design, judge, dimension) reach the
// log inert.
func TestPlanHostileNames(t *testing.T) {
	items := testItems(4)
	m := New(Options{Store: &fakeStore{}, Annotator: "tester", Dataset: "t.jsonl", Items: items,
		Runs: []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}},
		Plan: &Plan{ID: 1, Items: []string{"q2"}, Design: "active\x1b[2J", Judge: "j\x1b]0;x\x07", Dimension: "d\u202e"}})
	m = update(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	for _, e := range m.log.entries {
		if strings.ContainsAny(e.text, "\x1b\x07\u202e") {
			t.Errorf("log entry not inert: %q", e.text)
		}
	}
	if logHas(m, "Following plan 1") != 1 {
		t.Errorf("log %v", m.log.entries)
	}
}
