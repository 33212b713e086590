package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// decisionModel opens a YES/NO session of items judged by match, with
// set changing the options first (guidelines, tags, history).
func decisionModel(t *testing.T, st Recorder, items []judge.Item, w, h int, set func(*Options)) *Model {
	t.Helper()
	o := Options{Store: st, Annotator: "tester", Dataset: "test.jsonl", Items: items,
		Runs: []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}}
	if set != nil {
		set(&o)
	}
	return update(t, New(o), tea.WindowSizeMsg{Width: w, Height: h})
}

// typeText types text into whatever takes keys, one key a character.
func typeText(t *testing.T, m *Model, text string) *Model {
	t.Helper()
	for _, r := range text {
		m = update(t, m, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return m
}

// selectFilter presses f until the filter id is in force.
func selectFilter(t *testing.T, m *Model, id string) *Model {
	t.Helper()
	for range 60 {
		if m.sel.filter.id == id {
			return m
		}
		m = press(t, m, "f")
	}
	t.Fatalf("f never reaches the filter %q", id)
	return m
}

// screenHas fails unless every want is on some line of the screen, and
// checks the screen is exactly w×h cells.
func screenHas(t *testing.T, m *Model, w, h int, wants ...string) {
	t.Helper()
	s := plain(m)
	checkFits(t, s, w, h)
	for _, want := range wants {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
}

// allActions is every action the fake store holds, in order.
func (f *fakeStore) allActions() []sessions.Action {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []sessions.Action
	for _, g := range f.groups {
		out = append(out, g...)
	}
	return out
}

// x opens the reason dialog; a digit records can't judge with that reason
// on the whole item, which then counts as reviewed and moves on as a label
// does; the verdict pane says so; u takes it back.
func TestCantJudgeRecordedReviewedAndUndone(t *testing.T) {
	reasons := []struct {
		key, reason, says string
	}{
		{"1", sessions.ReasonGoldWrong, "gold is wrong"},
		{"2", sessions.ReasonAmbiguous, "question ambiguous"},
		{"3", sessions.ReasonUnreadable, "prediction unreadable"},
	}
	for _, tc := range reasons {
		t.Run(tc.reason, func(t *testing.T) {
			items := testItems(4)
			st := &fakeStore{}
			m := decisionModel(t, st, items, 80, 24, nil)
			m = press(t, m, "x")
			screenHas(t, m, 80, 24, "Can't judge q1", "Why can this item not be judged?",
				"1  gold is wrong", "2  question ambiguous", "3  prediction unreadable", "4  other (say why)")
			if h := hintLineOf(m); !strings.Contains(h, "1–4 reason") || !strings.Contains(h, "esc cancel") {
				t.Errorf("hint line of the reason dialog: %q", h)
			}
			m = press(t, m, tc.key)
			acts := st.allActions()
			if len(acts) != 1 {
				t.Fatalf("store holds %+v, want one can't-judge action", acts)
			}
			a := acts[0]
			if a.Kind != sessions.KindCantJudge || a.ItemID != "q1" || a.Reason != tc.reason || a.Note != "" ||
				a.Via != "order" || a.Criterion != 0 || a.Dimension != "" || len(st.labels()) != 0 {
				t.Errorf("recorded %+v, labels %v", a, st.labels())
			}
			if m.top() != nil || m.cur != 1 {
				t.Errorf("after the reason: dialog %T, on item %d; want closed and moved on to 1", m.top(), m.cur)
			}
			if r, _ := m.Progress(); r != 1 || !m.reviewed[0] {
				t.Errorf("reviewed %d (item 0 %v), want the can't-judge item reviewed", r, m.reviewed[0])
			}
			screenHas(t, m, 80, 24, "reviewed 1/4")
			m = press(t, m, "<")
			screenHas(t, m, 80, 24, "can't judge: "+tc.says)
			// The running agreement leaves the item out.
			if m.agreement[0] != -1 {
				t.Errorf("agreement of a can't-judge item = %d, want -1 (not compared)", m.agreement[0])
			}
			m = press(t, m, "l", "u")
			if len(st.allActions()) != 0 || st.undone != 1 {
				t.Errorf("after u the store holds %+v (undone %d)", st.allActions(), st.undone)
			}
			if r, _ := m.Progress(); r != 0 || m.cur != 0 {
				t.Errorf("after u: reviewed %d, on item %d; want 0 and the undone item", r, m.cur)
			}
			if s := plain(m); strings.Contains(s, "can't judge") {
				t.Errorf("the undone can't judge is still shown:\n%s", s)
			}
		})
	}
}

// "Other" asks for a note, refuses an empty one, types q as text, and
// records the note trimmed; esc in the note goes back to the reasons, esc
// there closes without recording.
func TestCantJudgeOtherNeedsANote(t *testing.T) {
	items := testItems(3)
	st := &fakeStore{}
	m := decisionModel(t, st, items, 80, 24, nil)
	m = press(t, m, "x", "4")
	screenHas(t, m, 80, 24, "why ")
	m = press(t, m, "enter")
	screenHas(t, m, 80, 24, `Say why: "other" needs a note.`)
	if len(st.allActions()) != 0 || m.top() == nil {
		t.Fatalf("an empty note: store %+v, dialog %T", st.allActions(), m.top())
	}
	m = press(t, m, "esc")
	if d, ok := m.top().(*cantJudgeDialog); !ok || d.typing {
		t.Fatalf("esc in the note: top %T, want the reasons again", m.top())
	}
	m = press(t, m, "esc")
	if m.top() != nil || len(st.allActions()) != 0 {
		t.Fatalf("esc on the reasons: top %T, store %+v", m.top(), st.allActions())
	}
	m = press(t, m, "x", "down", "down", "down", "enter")
	m = typeText(t, m, "  quoted twice; q is not quit  ")
	screenHas(t, m, 80, 24, "quoted twice; q is not quit")
	m = press(t, m, "enter")
	acts := st.allActions()
	if len(acts) != 1 || acts[0].Reason != sessions.ReasonOther || acts[0].Note != "quoted twice; q is not quit" {
		t.Fatalf("recorded %+v", acts)
	}
	m = press(t, m, "<")
	screenHas(t, m, 80, 24, "can't judge: other — quoted twice; q", "is not quit")
	// Reopened, the dialog marks the reason in force.
	m = press(t, m, "x")
	screenHas(t, m, 80, 24, "4  other (say why)  ◂ now")
}

// The "can't judge" filter lists the items so marked; a decision made
// there records it as its provenance; with no such item, x does nothing.
func TestCantJudgeFilter(t *testing.T) {
	items := testItems(5)
	st := &fakeStore{}
	m := decisionModel(t, st, items, 80, 24, nil)
	m = selectFilter(t, m, "cant-judge")
	screenHas(t, m, 80, 24, "No item: no item matches the filter can't judge")
	m = press(t, m, "x")
	if m.top() != nil || len(st.allActions()) != 0 {
		t.Fatalf("x with no item on screen: dialog %T, store %+v", m.top(), st.allActions())
	}
	if h := hintLineOf(m); !strings.Contains(h, "No item on screen") {
		t.Errorf("hint line: %q", h)
	}
	m = selectFilter(t, m, "all")
	m = press(t, m, "<", "l", "x", "2", "l", "x", "3")
	m = selectFilter(t, m, "cant-judge")
	var ids []string
	for _, i := range m.sel.items {
		ids = append(ids, items[i].ID)
	}
	if got := strings.Join(ids, " "); got != "q2 q4" {
		t.Fatalf("can't judge filter holds %q, want q2 q4", got)
	}
	m = press(t, m, "x", "1")
	acts := st.allActions()
	if last := acts[len(acts)-1]; last.Via != "filter:cant-judge" || last.Reason != sessions.ReasonGoldWrong {
		t.Errorf("decision in the filter recorded %+v", last)
	}
	// A label replaces the can't judge: the item leaves the filter.
	m = press(t, m, "y")
	if _, _, ok := m.labels.CantJudge("q4"); ok {
		t.Errorf("a label on q4 left it can't judge")
	}
	if acts := st.allActions(); acts[len(acts)-1].Kind != sessions.KindLabel {
		t.Errorf("y in the filter recorded %+v", acts[len(acts)-1])
	}
}

// On a re-test (the item shown again, blind) the person's first decision
// stays hidden: the verdict pane says nothing of the can't judge or the
// tags, the reason dialog marks no reason, T refuses; the decision made
// there is recorded as a re-test.
func TestRetestHidesCantJudgeAndTags(t *testing.T) {
	items := testItems(3)
	st := &fakeStore{}
	m := decisionModel(t, st, items, 80, 24, withTags("format"))
	m = press(t, m, "x", "1", "<", "T", "1", "esc")
	screenHas(t, m, 80, 24, "can't judge: gold is wrong", "tags    format")
	m.retest = retestState{on: true, item: m.cur, from: m.cur, next: -1}
	if s := plain(m); strings.Contains(s, "can't judge") || strings.Contains(s, "format") {
		t.Errorf("a re-test shows the first decision:\n%s", s)
	}
	m = press(t, m, "T")
	if m.top() != nil || !strings.Contains(hintLineOf(m), "re-test") {
		t.Errorf("T on a re-test: dialog %T, hint %q", m.top(), hintLineOf(m))
	}
	m = press(t, m, "x")
	if s := plain(m); strings.Contains(s, "◂ now") {
		t.Errorf("the reason dialog on a re-test marks the first reason:\n%s", s)
	}
	m = press(t, m, "2")
	acts := st.allActions()
	if last := acts[len(acts)-1]; last.Kind != sessions.KindCantJudge || !last.Retest || last.Reason != sessions.ReasonAmbiguous {
		t.Errorf("can't judge on a re-test recorded %+v", last)
	}
	if reason, _, _ := m.labels.CantJudge("q1"); reason != sessions.ReasonGoldWrong {
		t.Errorf("the re-test replaced the first can't judge: %q", reason)
	}
}
