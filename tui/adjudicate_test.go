package tui

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/gavel-dev/gavel/sessions"
)

// adjudicationSession is eight items and what others did on them (ids
// are the actions' order), and lead's own history:
//
//	q1 ana YES, bo YES                          agree: not in the queue
//	q2 ana YES, bo NO                           in the queue
//	q3 ana NO, bo NO, cy YES                    in the queue
//	q4 ana YES, bo NO, bo can't judge           left out: not in it
//	q5 ana YES, bo NO, dana settled it          not in it
//	q6 ana YES, dana settled it, then bo NO     in it again
//	q7 ana YES, bo NO, lead settled it          not in it
//	q8 ana YES, lead settled it, then bo NO     in it again
func adjudicationSession() (others []sessions.Label, cantJudge []sessions.CantJudge, history []sessions.Action) {
	id := int64(0)
	l := func(item, who string, v float64, via string) sessions.Label {
		id++
		return sessions.Label{ItemID: item, Dimension: "correct", Value: v, Annotator: who, Via: via, ActionID: id}
	}
	others = []sessions.Label{
		l("q1", "ana", 1, "random"), l("q1", "bo", 1, "random"),
		l("q2", "ana", 1, "random"), l("q2", "bo", 0, "random"),
		l("q3", "ana", 0, "random"), l("q3", "bo", 0, "random"), l("q3", "cy", 1, "random"),
		l("q4", "ana", 1, "random"), l("q4", "bo", 0, "random"),
		l("q5", "ana", 1, "random"), l("q5", "bo", 0, "random"), l("q5", "dana", 1, sessions.ViaAdjudication),
		l("q6", "ana", 1, "random"), l("q6", "dana", 1, sessions.ViaAdjudication), l("q6", "bo", 0, "random"),
		l("q7", "ana", 1, "random"), l("q7", "bo", 0, "random"),
		l("q8", "ana", 1, "random"),
	}
	id++
	history = append(history, sessions.Action{ID: id, Group: id, Kind: sessions.KindLabel, ItemID: "q7", Dimension: "correct", Value: 1, Via: sessions.ViaAdjudication})
	id++
	history = append(history, sessions.Action{ID: id, Group: id, Kind: sessions.KindLabel, ItemID: "q8", Dimension: "correct", Value: 0, Via: sessions.ViaAdjudication})
	others = append(others, l("q8", "bo", 0, "random"))
	cantJudge = []sessions.CantJudge{{ItemID: "q4", Annotator: "bo", Reason: sessions.ReasonAmbiguous}}
	return others, cantJudge, history
}

// adjudicationOptions opens the review of adjudicationSession as lead.
func adjudicationOptions(store Recorder, adjudicate bool) Options {
	items := testItems(8)
	others, cj, history := adjudicationSession()
	return Options{Store: store, Annotator: "lead", Dataset: "team.jsonl", Items: items,
		Runs:    []Run{{Info: matchInfo, Key: "match", ID: 1, Verdicts: verdictsFor(items)}},
		History: history, Others: others, OthersCantJudge: cj, Adjudicate: adjudicate}
}

// header is the screen's first line.
func header(m *Model) string { return lines(m)[0] }

// TestAdjudicationQueue: --adjudicate opens on the items where people
// disagree and nothing settles it (can't judge left out, adjudications,
// lead's own included, unless a label changed since), in dataset order,
// the others' labels on screen by name; each label there is recorded via
// adjudication, the item leaves the queue and the header and the log say
// how many are left; undo puts it back.
func TestAdjudicationQueue(t *testing.T) {
	store := &fakeStore{}
	m := update(t, New(adjudicationOptions(store, true)), tea.WindowSizeMsg{Width: 80, Height: 24})
	var order []string
	for _, i := range m.sel.items {
		order = append(order, m.items[i].ID)
	}
	if want := []string{"q2", "q3", "q6", "q8"}; !slices.Equal(order, want) {
		t.Fatalf("the queue holds %v, want %v", order, want)
	}
	checkFits(t, plain(m), 80, 24)
	if h := header(m); !strings.Contains(h, "1/4 adjudicate · 4 left") || !strings.HasSuffix(strings.TrimRight(h, " "), "q2") {
		t.Errorf("header %q", h)
	}
	s := plain(m)
	for _, want := range []string{"human ana  YES", "human bo  NO"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}
	if !strings.Contains(m.log.entries[len(m.log.entries)-1].text, "Adjudication: 4 items where people's labels differ") {
		t.Errorf("the log does not say what the queue holds: %v", m.log.entries)
	}

	// q2 settled NO: on to q3, 3 left.
	m = press(t, m, "n")
	if m.items[m.cur].ID != "q3" {
		t.Errorf("after q2 on %s, want q3", m.items[m.cur].ID)
	}
	if h := header(m); !strings.Contains(h, "2/4 adjudicate · 3 left") {
		t.Errorf("header after one: %q", h)
	}
	if last := m.log.entries[len(m.log.entries)-1].text; last != "Adjudicated q2: 3 left to adjudicate." {
		t.Errorf("log says %q", last)
	}
	// q3 settled YES, then undone: it is back, 3 left again.
	m = press(t, m, "y")
	if h := header(m); !strings.Contains(h, "2 left") || m.items[m.cur].ID != "q6" {
		t.Errorf("after q3 on %s: %q", m.items[m.cur].ID, h)
	}
	m = press(t, m, "u")
	if h := header(m); !strings.Contains(h, "3 left") || m.items[m.cur].ID != "q3" {
		t.Errorf("after undo on %s: %q", m.items[m.cur].ID, h)
	}
	// Again: on to q6, where dana's adjudication stands beside the
	// people's labels, named as such.
	m = press(t, m, "y")
	if s := plain(m); m.items[m.cur].ID != "q6" || !strings.Contains(s, "adjudicator dana  YES") {
		t.Errorf("on %s:\n%s", m.items[m.cur].ID, s)
	}
	m = press(t, m, "y", "y")
	if h := header(m); !strings.Contains(h, "0 left") {
		t.Errorf("header at the end: %q", h)
	}
	if last := m.log.entries[len(m.log.entries)-1].text; !strings.HasPrefix(last, "Adjudicated q8: nothing is left to adjudicate.") {
		t.Errorf("log at the end says %q", last)
	}
	checkFits(t, plain(m), 80, 24)

	var got []string
	for _, g := range store.groups {
		for _, a := range g {
			got = append(got, fmt.Sprintf("%s=%v via %s", a.ItemID, a.Value, a.Via))
		}
	}
	if want := []string{"q2=0 via adjudication", "q3=1 via adjudication", "q6=1 via adjudication", "q8=1 via adjudication"}; !slices.Equal(got, want) {
		t.Errorf("recorded %q", got)
	}
}

// TestAdjudicationFilter: the filter is offered beside the others when
// somebody else has labelled and blind mode is off, on the list screen as
// on the review; its labels record via adjudication; out of it, labels
// record the filter in force as ever.
func TestAdjudicationFilter(t *testing.T) {
	store := &fakeStore{}
	m := update(t, New(adjudicationOptions(store, false)), tea.WindowSizeMsg{Width: 80, Height: 24})
	names := func() []string {
		var out []string
		for _, f := range m.filters() {
			out = append(out, f.name)
		}
		return out
	}
	if !slices.Contains(names(), "to adjudicate") {
		t.Fatalf("filters %v lack the adjudication queue", names())
	}
	for range len(m.filters()) {
		if m.adjudicating() {
			break
		}
		m = press(t, m, "f")
	}
	if !m.adjudicating() || m.items[m.cur].ID != "q2" {
		t.Fatalf("f never reached the queue, or not on q2 (%s)", m.items[m.cur].ID)
	}
	m = press(t, m, "L") // the list screen keeps the filter
	if s := plain(m); !strings.Contains(s, "q2") || strings.Contains(s, "q1 ") {
		t.Errorf("the list under the filter:\n%s", s)
	}
	m = press(t, m, "esc")
	m = press(t, m, "y")
	if g := store.groups; len(g) != 1 || g[0][0].Via != sessions.ViaAdjudication {
		t.Errorf("recorded %v", g)
	}
	m = press(t, m, "b")
	if slices.Contains(names(), "to adjudicate") {
		t.Errorf("blind mode offers the queue: %v", names())
	}

	// Nobody else: not offered; --adjudicate says there is nothing.
	items := testItems(3)
	m = update(t, New(Options{Store: &fakeStore{}, Annotator: "lead", Items: items, Adjudicate: true,
		Runs: []Run{{Info: matchInfo, Key: "match", ID: 1, Verdicts: verdictsFor(items)}}}), tea.WindowSizeMsg{Width: 80, Height: 24})
	if !strings.Contains(m.log.entries[len(m.log.entries)-1].text, "Nothing to adjudicate: nobody else has labelled") {
		t.Errorf("log: %v", m.log.entries)
	}
}

// TestAdjudicationProgram drives --adjudicate through a real program at
// 80x24: the queue's order, each label recorded via adjudication, the
// count left on the header, the screen checked line by line at the end.
func TestAdjudicationProgram(t *testing.T) {
	store := &fakeStore{}
	tm := teatest.NewTestModel(t, New(adjudicationOptions(store, true)), teatest.WithInitialTermSize(80, 24),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	wait := func(s string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(s)) }, teatest.WithDuration(10*time.Second))
	}
	wait("1/4 adjudicate · 4 left")
	tm.Type("n")
	wait("2/4 adjudicate · 3 left")
	tm.Type("y")
	wait("3/4 adjudicate · 2 left")
	tm.Type("n")
	wait("4/4 adjudicate · 1 left")
	tm.Type("y")
	wait("nothing is left") // the header's "0 left" is drawn as the one cell that changed
	tm.Type("q")
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
	if n, err := final.Unsaved(); n != 0 {
		t.Errorf("%d unsaved: %v", n, err)
	}
	var got []string
	for _, g := range store.groups {
		for _, a := range g {
			got = append(got, fmt.Sprintf("%s=%v via %s", a.ItemID, a.Value, a.Via))
		}
	}
	if want := []string{"q2=0 via adjudication", "q3=1 via adjudication", "q6=0 via adjudication", "q8=1 via adjudication"}; !slices.Equal(got, want) {
		t.Errorf("recorded %q\nwant %q", got, want)
	}
	ls := lines(final)
	checkFits(t, strings.Join(ls, "\n"), 80, 24)
	for i, want := range map[int]string{
		0:  "4/4 adjudicate · 0 left",
		22: "reviewed 5/8", // q7 (settled before) and the four
	} {
		if !strings.Contains(ls[i], want) {
			t.Errorf("line %d is %q, want it to hold %q", i, ls[i], want)
		}
	}
	if last := final.log.entries[len(final.log.entries)-1].text; !strings.HasPrefix(last, "Adjudicated q8: nothing is left to adjudicate.") {
		t.Errorf("the log ends with %q", last)
	}
	want := []string{"judge NO", "you YES", "human ana  YES", "human bo  NO"}
	for _, w := range want {
		if !slices.ContainsFunc(ls, func(l string) bool { return strings.Contains(l, w) }) {
			t.Errorf("no line holds %q:\n%s", w, strings.Join(ls, "\n"))
		}
	}
}

// TestAdjudicationSkipsSettled: after a label the review moves to the next
// item still to adjudicate, past those settled meanwhile, wrapping round.
func TestAdjudicationSkipsSettled(t *testing.T) {
	m := update(t, New(adjudicationOptions(&fakeStore{}, true)), tea.WindowSizeMsg{Width: 80, Height: 24})
	at := func(want string) {
		t.Helper()
		if got := m.items[m.cur].ID; got != want {
			t.Fatalf("on %s, want %s", got, want)
		}
	}
	m = press(t, m, "right", "right") // q6
	at("q6")
	m = press(t, m, "y")
	at("q8")
	m = press(t, m, "y") // the last: round to q2
	at("q2")
	m = press(t, m, "right", "y") // q3 settled: round to q2
	at("q2")
	m = press(t, m, "n")
	at("q2") // nothing left: it stays
	if h := header(m); !strings.Contains(h, "0 left") {
		t.Errorf("header %q", h)
	}
}

// An adjudicator whose queue was empty meets a disagreement that arrives
// from the team (a TeamUpdate) without choosing the filter again.
func TestAdjudicationQueueFillsFromTheTeam(t *testing.T) {
	items := testItems(3)
	o := Options{Store: &fakeStore{}, Annotator: "lead", Dataset: "team", Items: items,
		Runs:       []Run{{Info: matchInfo, Key: "match", ID: 1, Verdicts: verdictsFor(items)}},
		Adjudicate: true, Team: &Team{}}
	m := New(o)
	m = update(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	if len(m.sel.items) != 0 {
		t.Fatalf("the queue holds %v before anyone disagrees", m.sel.items)
	}
	m = update(t, m, TeamUpdate{OthersChanged: true, Others: []sessions.Label{
		{ItemID: "q2", Dimension: "correct", Value: 1, Annotator: "ana", Via: "queue", ActionID: 1},
		{ItemID: "q2", Dimension: "correct", Value: 0, Annotator: "bo", Via: "queue", ActionID: 2},
	}})
	if len(m.sel.items) != 1 || m.items[m.cur].ID != "q2" {
		t.Fatalf("after the disagreement arrived: selection %v, on %s", m.sel.items, m.items[m.cur].ID)
	}
	if s := plain(m); !strings.Contains(s, "ana") || !strings.Contains(s, "bo") {
		t.Errorf("the two labels are not on screen:\n%s", s)
	}
}

// The count of items left to adjudicate, kept up after each label and
// undo by looking at their items alone, is the count made afresh, on the
// queue and off it (labels made meanwhile), can't judge included.
func TestAdjudicationLeftKeptUp(t *testing.T) {
	fresh := func(m *Model) int {
		n := 0
		for i := range m.items {
			if m.toAdjudicate(i) {
				n++
			}
		}
		return n
	}
	m := update(t, New(adjudicationOptions(&fakeStore{}, true)), tea.WindowSizeMsg{Width: 100, Height: 30})
	steps := [][]string{{"n"}, {"y"}, {"u"}, {"u"}, {"right", "y"}, {"x", "1"}, {"u"}, {"f"}, {"esc"}, {"g", "n"}, {"right", "right", "y", "n"}, {"u", "u", "u"}}
	for _, keys := range steps {
		m = press(t, m, keys...)
		if got, want := m.adjudicationLeft(), fresh(m); got != want {
			t.Fatalf("after %v: %d left, counted afresh %d", keys, got, want)
		}
	}
	// Off the queue the count is not asked: what is touched meanwhile is
	// looked at when it is.
	m = press(t, m, "f", "enter")
	for range 3 {
		m = press(t, m, "y", "u", "n")
	}
	if got, want := m.adjudicationLeft(), fresh(m); got != want {
		t.Fatalf("after labels off the queue: %d left, counted afresh %d", got, want)
	}
}
