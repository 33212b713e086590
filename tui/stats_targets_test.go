package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats"
	"github.com/gavel-dev/gavel/sessions/stats/render"
)

// cellSession is a small session of 12 items kept in memory, whose
// statistics are computed from what the screen holds at the time (the
// store's labels included), as the session file would give them:
//
//   - match says YES on q1, q3, q5…, NO on the others; docqa says YES on
//     every item;
//   - tester labelled q1..q8: YES on q1, q4, q7, NO on the others;
//   - bob labelled q3 YES (a tie with tester: no human majority there)
//     and q9 NO.
//
// So the items where match says YES and the humans NO are q5 and q9; q3
// is left out (tied); docqa never says NO, so its NO column is empty.
type cellSession struct {
	items  []judge.Item
	runs   []Run
	hist   []sessions.Action
	others []sessions.Label
	store  *fakeStore
}

func newCellSession() *cellSession {
	items := testItems(12)
	all := make([]judge.Verdict, len(items))
	for i, it := range items {
		all[i] = judge.Verdict{ItemID: it.ID, Status: judge.StatusOK, Values: map[string]float64{"correct": 1}}
	}
	s := &cellSession{items: items, store: &fakeStore{},
		runs: []Run{{Info: matchInfo, Key: "match", Verdicts: verdictsFor(items)}, {Info: docqaInfo, Key: "docqa · gpt-4o", Verdicts: all}}}
	for i := range 8 {
		v := 0.0
		if i%3 == 0 {
			v = 1
		}
		s.hist = append(s.hist, sessions.Action{ID: int64(i + 1), Group: int64(i + 1), Kind: sessions.KindLabel,
			ItemID: items[i].ID, Dimension: "correct", Value: v, Via: "random"})
	}
	s.others = []sessions.Label{
		{ItemID: "q3", Dimension: "correct", Value: 1, Annotator: "bob", Via: "random"},
		{ItemID: "q9", Dimension: "correct", Value: 0, Annotator: "bob", Via: "random"},
	}
	return s
}

// input is the statistics' input: the verdicts, bob's labels, and
// tester's labels from the history and the store.
func (s *cellSession) input() stats.Input {
	in := stats.Input{}
	for _, r := range s.runs {
		in.Judges = append(in.Judges, stats.JudgeSpec{Key: r.Key, Dimensions: r.Info.Dimensions})
	}
	var st sessions.LabelState
	via := map[string]string{}
	apply := func(acts []sessions.Action) {
		if err := st.Apply(acts); err == nil {
			for _, a := range acts {
				via[a.ItemID] = a.Via
			}
		}
	}
	for _, a := range s.hist {
		apply([]sessions.Action{a})
	}
	s.store.mu.Lock()
	for _, g := range s.store.groups {
		apply(g)
	}
	s.store.mu.Unlock()
	for _, it := range s.items {
		u := stats.Unit{ItemID: it.ID}
		for _, r := range s.runs {
			for _, v := range r.Verdicts {
				if v.ItemID == it.ID {
					u.Verdicts = append(u.Verdicts, stats.Verdict{Judge: r.Key, Status: v.Status, Values: v.Values})
				}
			}
		}
		if v, ok := st.Label(sessions.LabelKey{ItemID: it.ID, Dimension: "correct"}); ok {
			u.Labels = append(u.Labels, stats.Label{Annotator: "tester", Values: map[string]float64{"correct": v}, Provenance: via[it.ID]})
		}
		for _, o := range s.others {
			if o.ItemID == it.ID {
				u.Labels = append(u.Labels, stats.Label{Annotator: o.Annotator, Values: map[string]float64{o.Dimension: o.Value}, Provenance: o.Via})
			}
		}
		in.Units = append(in.Units, u)
	}
	return in
}

// open shows the session's review screen at w×h.
func (s *cellSession) open(t *testing.T, w, h int) *Model {
	t.Helper()
	m := New(Options{Store: s.store, Annotator: "tester", Dataset: "test.jsonl", Items: s.items, Runs: s.runs, History: s.hist, Others: s.others,
		Stats: func() (stats.Report, error) {
			return stats.Compute(s.input(), stats.Options{Seed: 1, Resamples: 50}), nil
		}})
	return update(t, m, tea.WindowSizeMsg{Width: w, Height: h})
}

// boxLine returns the first line inside the screen's box that holds every
// part, without the box's borders.
func boxLine(m *Model, parts ...string) (string, bool) {
	for _, l := range screenLines(m) {
		l = strings.TrimSuffix(strings.TrimPrefix(l, "│ "), "│")
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(l, p)
		}
		if ok {
			return l, true
		}
	}
	return "", false
}

// rawLine returns the styled screen's first line holding text.
func rawLine(m *Model, text string) string {
	for _, l := range strings.Split(m.View().Content, "\n") {
		if strings.Contains(ansi.Strip(l), text) {
			return l
		}
	}
	return ""
}

// focusedTarget is the target of the figure in focus.
func focusedTarget(t *testing.T, m *Model) render.Target {
	t.Helper()
	c := m.stats.content(m.stats.inner())
	k := m.stats.focusIndex(c)
	if k < 0 {
		t.Fatal("no figure in focus")
	}
	return c.figures[k].target
}

// tabTo presses tab until the line in focus (marked ▸) holds text and the
// figure in focus has the target want, and returns the model.
func tabTo(t *testing.T, m *Model, text string, want render.Target) *Model {
	t.Helper()
	for range 40 {
		m = press(t, m, "tab")
		l, ok := boxLine(m, "▸")
		if ok && strings.Contains(l, text) && focusedTarget(t, m) == want {
			return m
		}
	}
	t.Fatalf("tab never reached %q (%+v):\n%s", text, want, plain(m))
	return m
}

// The judge table comes first with every judge; J and the arrows move
// between judges, the title, the table's highlight and the detail
// following; ↑ and ↓ still scroll.
func TestStatsScreenMovesBetweenJudges(t *testing.T) {
	s := newCellSession()
	m := waitStats(t, press(t, s.open(t, 120, 40), "s"))
	title := func() string { return screenLines(m)[1] }
	if !strings.Contains(title(), "Statistics · judge 1/2 · match ─") {
		t.Fatalf("title: %q", title())
	}
	// The table ranks both judges before the detail of match.
	top := plain(m)
	iTable := strings.Index(top, "Judges, ranked by Cohen's kappa")
	iMatch, iDocqa := strings.Index(top, "match · correct"), strings.Index(top, "docqa · gpt-4o · correct")
	iDetail := strings.Index(top, "Judge vs human")
	if iTable < 0 || iMatch < iTable || iDocqa < iTable || iDetail < max(iMatch, iDocqa) {
		t.Fatalf("the judge table (both judges) does not come first:\n%s", top)
	}
	highlighted := func(name string) bool { return strings.Contains(rawLine(m, name), "\x1b[1m") }
	if !highlighted("match · correct") || highlighted("docqa · gpt-4o · correct") {
		t.Errorf("match is active: only its row is highlighted\n%q\n%q", rawLine(m, "match · correct"), rawLine(m, "docqa · gpt-4o · correct"))
	}
	for _, step := range []struct {
		key, title, detail, other string
	}{
		{"right", "judge 2/2 · docqa · gpt-4o", "docqa · gpt-4o · correct (binary)", "match · correct"},
		{"left", "judge 1/2 · match", "match · correct (binary)", "docqa · gpt-4o · correct"},
		{"left", "judge 2/2 · docqa · gpt-4o", "docqa · gpt-4o · correct (binary)", "match · correct"},
		{"J", "judge 1/2 · match", "match · correct (binary)", "docqa · gpt-4o · correct"},
		{"J", "judge 2/2 · docqa · gpt-4o", "docqa · gpt-4o · correct (binary)", "match · correct"},
	} {
		m = press(t, m, step.key)
		if !strings.Contains(title(), step.title) {
			t.Errorf("%s: title %q, want %q", step.key, title(), step.title)
		}
		if _, ok := boxLine(m, step.detail); !ok {
			t.Errorf("%s: the detail of %s does not show:\n%s", step.key, step.title, plain(m))
		}
		if !highlighted(strings.TrimSuffix(step.detail, " (binary)")) || highlighted(step.other) {
			t.Errorf("%s: the table does not highlight the active judge's row alone", step.key)
		}
		if want := strings.Contains(step.title, "match"); (m.run().key == "match") != want {
			t.Errorf("%s: the active judge is %s", step.key, m.run().key)
		}
	}
	m = press(t, m, "down", "down")
	if m.stats.scroll != 2 || !strings.Contains(title(), "docqa") {
		t.Errorf("↓ moved to offset %d and judge %s: it scrolls", m.stats.scroll, m.run().key)
	}
	m = press(t, m, "up")
	if m.stats.scroll != 1 {
		t.Errorf("↑: offset %d, want 1", m.stats.scroll)
	}
	// Back on the review screen, the judge chosen here is the active one.
	m = press(t, m, "esc")
	if m.screen != screenReview || !strings.Contains(screenLines(m)[0], "judge docqa · gpt-4o (2/2)") {
		t.Errorf("esc: screen %v, header %q", m.screen, screenLines(m)[0])
	}
}

// tab moves to the false-pass rate (scrolling it into view at 80×24) and
// enter opens exactly the items where the judge says YES and the humans
// NO; labels made there say so; f leaves the filter; s comes back to the
// figure.
func TestStatsFigureOpensItsItems(t *testing.T) {
	s := newCellSession()
	m := waitStats(t, press(t, s.open(t, 80, 24), "s"))
	hint := screenLines(m)[23]
	if !strings.Contains(hint, "tab figure") {
		t.Errorf("the hint line does not offer tab: %q", hint)
	}
	falsePass := render.Target{Judge: "match", Dimension: "correct", Human: 0, Verdict: 1}
	m = tabTo(t, m, "false-pass rate", falsePass)
	l, _ := boxLine(m, "▸")
	if !strings.HasPrefix(l, "▸ false-pass rate") {
		t.Errorf("the line in focus: %q", l)
	}
	if hint := screenLines(m)[23]; !strings.Contains(hint, "enter open items") || !strings.Contains(hint, "tab figure") {
		t.Errorf("the hint line in focus: %q", hint)
	}

	m = press(t, m, "enter")
	if m.screen != screenReview {
		t.Fatalf("enter did not open the review: screen %v", m.screen)
	}
	if got := m.provenance(); got != "filter:cell" {
		t.Errorf("provenance %q, want filter:cell", got)
	}
	var ids []string
	for _, i := range m.sel.items {
		ids = append(ids, m.items[i].ID)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"q5", "q9"}) {
		t.Fatalf("the filter holds %v, want [q5 q9]", ids)
	}
	header := screenLines(m)[0]
	if !strings.Contains(header, "judge YES · human NO") || !strings.Contains(header, "/2 ") {
		t.Errorf("the header does not name the filter: %q", header)
	}
	// The list shows the two items and nothing else.
	m = press(t, m, "L")
	var rows []string
	for _, l := range screenLines(m) {
		for _, id := range []string{"q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8", "q9", "q10", "q11", "q12"} {
			if strings.Contains(l, " "+id+" ") {
				rows = append(rows, id)
			}
		}
	}
	if !slices.Equal(rows, []string{"q5", "q9"}) {
		t.Errorf("the list shows %v, want q5 and q9:\n%s", rows, plain(m))
	}
	if _, ok := boxLine(m, "judge YES · human NO"); !ok {
		t.Errorf("the list's title does not name the filter:\n%s", plain(m))
	}
	m = press(t, m, "esc")

	// A label made here records the filter.
	m.show(s.items[8].Index)
	m = press(t, m, "n")
	if n := len(s.store.groups); n != 1 || s.store.groups[0][0].Via != "filter:cell" || s.store.groups[0][0].ItemID != "q9" {
		t.Fatalf("label through the filter: %+v", s.store.groups)
	}

	// s goes back to the statistics, the figure still in focus and its
	// count updated; esc comes back to the filtered review.
	m = waitStats(t, press(t, m, "s"))
	if l, ok := boxLine(m, "▸"); !ok || !strings.Contains(l, "false-pass rate") {
		t.Errorf("back on the statistics, the focus is lost: %q", l)
	}
	m = press(t, m, "esc")
	if m.screen != screenReview || m.sel.filter.id != cellFilterID {
		t.Fatalf("esc: screen %v, filter %q", m.screen, m.sel.filter.id)
	}
	// f leaves the filter as it leaves any other.
	m = press(t, m, "f")
	if m.sel.filter.id == cellFilterID || strings.Contains(screenLines(m)[0], "judge YES") {
		t.Errorf("f kept the filter: %q", screenLines(m)[0])
	}
}

// A cell that counts no item opens an empty review: no item is shown and
// the labelling keys do nothing. The figure in focus may be another
// judge's (a row of the table): enter makes that judge active.
func TestStatsEmptyCell(t *testing.T) {
	s := newCellSession()
	m := waitStats(t, press(t, s.open(t, 100, 30), "s"))
	m = press(t, m, "right") // docqa, which never says NO
	empty := render.Target{Judge: "docqa · gpt-4o", Dimension: "correct", Human: 1, Verdict: 0}
	m = tabTo(t, m, "human YES", empty)
	m = press(t, m, "enter")
	if m.screen != screenReview || len(m.sel.items) != 0 || m.hasItem() {
		t.Fatalf("enter on an empty cell: screen %v, %d items", m.screen, len(m.sel.items))
	}
	if header := screenLines(m)[0]; !strings.Contains(header, "no item · judge NO · human YES") {
		t.Errorf("header: %q", header)
	}
	if !strings.Contains(plain(m), "no item matches the filter judge NO · human YES") {
		t.Errorf("the empty review does not say why:\n%s", plain(m))
	}
	m = press(t, m, "y", "n", "a")
	if len(s.store.groups) != 0 {
		t.Errorf("labelling keys on an empty filter saved %+v", s.store.groups)
	}

	// From docqa's statistics, a figure of match's row in the table
	// opens match's items with match active.
	m = press(t, m, "s")
	m.stats.focused = false
	m = tabTo(t, m, "false-pass", render.Target{Judge: "match", Dimension: "correct", Human: 0, Verdict: 1})
	m = press(t, m, "enter")
	if m.run().key != "match" || len(m.sel.items) != 2 {
		t.Errorf("a table figure of match: judge %s, %d items", m.run().key, len(m.sel.items))
	}
}

// Enter without a figure in focus says what to do; in blind mode a
// figure's items are not opened (they would tell the verdicts).
func TestStatsFigureRefusals(t *testing.T) {
	s := newCellSession()
	m := waitStats(t, press(t, s.open(t, 100, 30), "s"))
	m = press(t, m, "enter")
	if m.screen != screenStats || !strings.Contains(hintLineOf(m), "Press tab to pick a figure first") {
		t.Errorf("enter without focus: screen %v, hint %q", m.screen, hintLineOf(m))
	}
	m = press(t, m, "esc", "b", "s")
	m = press(t, m, "tab", "enter")
	if m.screen != screenStats || !strings.Contains(hintLineOf(m), "Blind mode") {
		t.Errorf("enter in blind mode: screen %v, hint %q", m.screen, hintLineOf(m))
	}
	// shift+tab goes back: from the first figure to the last.
	m = press(t, m, "tab")
	first := m.stats.focus
	m = press(t, m, "shift+tab", "shift+tab")
	c := m.stats.content(m.stats.inner())
	if m.stats.focusIndex(c) != len(c.figures)-1 {
		t.Errorf("shift+tab from the second figure twice: figure %d of %d (first %+v)", m.stats.focusIndex(c), len(c.figures), first)
	}
}

// The human reference is the statistics': the majority of every
// annotator's current label, none on a tie.
func TestHumanReferenceIsTheMajority(t *testing.T) {
	s := newCellSession()
	m := s.open(t, 100, 30)
	rw := m.rows(0)[0]
	for _, c := range []struct {
		item  int
		value float64
		ok    bool
	}{{0, 1, true}, {1, 0, true}, {2, 0, false}, {8, 0, true}, {10, 0, false}} {
		v, ok := m.humanReference(c.item, rw)
		if ok != c.ok || (ok && v != c.value) {
			t.Errorf("%s: reference %v %v, want %v %v", m.items[c.item].ID, v, ok, c.value, c.ok)
		}
	}
	// The counts the filter finds are the report's confusion matrix.
	rep := stats.Compute(s.input(), stats.Options{Seed: 1, Resamples: -1})
	conf := rep.Judges[0].Dimensions[0].Overall.VsHumans.Confusion
	for hi, h := range conf.Categories {
		for ji, j := range conf.Categories {
			n := 0
			for i := range m.items {
				if m.inCell(i, render.Target{Judge: "match", Dimension: "correct", Human: h, Verdict: j}) {
					n++
				}
			}
			if n != conf.Counts[hi][ji] {
				t.Errorf("human %v judge %v: the filter finds %d items, the report counts %d", h, j, n, conf.Counts[hi][ji])
			}
		}
	}
}

// With many judges the ranking fills an 80×24 screen: a switch of judges
// then shows the part of the judge switched to, not the ranking again.
func TestStatsScreenShowsTheJudgeSwitchedTo(t *testing.T) {
	s := newCellSession()
	for k := range 10 {
		info := judge.Info{Name: fmt.Sprintf("judge%02d", k), Dimensions: matchInfo.Dimensions}
		s.runs = append(s.runs, Run{Info: info, Key: info.Name, Verdicts: verdictsFor(s.items)})
	}
	m := waitStats(t, press(t, s.open(t, 80, 24), "s"))
	if top := plain(m); !strings.Contains(top, "Judges, ranked by Cohen's kappa") {
		t.Fatalf("the statistics do not open on the ranking:\n%s", top)
	}
	m = press(t, m, "J")
	screen := plain(m)
	if !strings.Contains(screen, "Statistics · judge 2/12 · docqa · gpt-4o") || !strings.Contains(screen, "Judge vs human") {
		t.Fatalf("after J the judge's part is not on screen:\n%s", screen)
	}
	m = press(t, m, "up")
	if !strings.Contains(plain(m), "Judge vs human") {
		t.Errorf("one line up the part left the screen:\n%s", plain(m))
	}
}
