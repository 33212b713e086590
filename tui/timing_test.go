package tui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/sessions"
)

// testClock is a clock a test moves by hand.
type testClock struct{ t time.Time }

func (c *testClock) now() time.Time          { return c.t }
func (c *testClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// useClock puts the screen on a test's clock; the item on screen appears
// now by it.
func useClock(m *Model, c *testClock) {
	m.clock = c.now
	m.itemAppeared()
}

// openWith opens the review screen with o (Store, Annotator and Dataset
// filled in when unset) at w×h.
func openWith(t *testing.T, o Options, w, h int) *Model {
	t.Helper()
	if o.Annotator == "" {
		o.Annotator = "tester"
	}
	if o.Dataset == "" {
		o.Dataset = "test.jsonl"
	}
	return update(t, New(o), tea.WindowSizeMsg{Width: w, Height: h})
}

// lastGroup is the store's latest group of actions.
func (f *fakeStore) lastGroup(t *testing.T) []sessions.Action {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.groups) == 0 {
		t.Fatal("the store holds no action")
	}
	return f.groups[len(f.groups)-1]
}

// Every write path stamps what it writes: the guidelines version on
// screen, whether the verdict was visible and whose (the active run's
// id), and when the item appeared — by the workspace's clock, not when
// the key was pressed. A verdict shown by a run without an id is
// recorded as unknown, not as shown by some run.
func TestActionsAreStamped(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	items := testItems(4)
	withVerdicts := []Run{{Info: matchInfo, ID: 5, Verdicts: verdictsFor(items)}}
	noVerdicts := []Run{{Info: matchInfo, ID: 5}}
	noID := []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}
	note := func(t *testing.T, m *Model) *Model {
		m = press(t, m, "c")
		m = update(t, m, tea.PasteMsg{Content: "a note"})
		return press(t, m, "enter")
	}
	cantJudge := func(t *testing.T, m *Model) *Model {
		// As the reason dialog records it (cant_judge.go).
		next, cmd := m, m.review.record([]sessions.Action{{Kind: sessions.KindCantJudge, ItemID: m.items[m.cur].ID,
			Reason: sessions.ReasonAmbiguous, Via: m.provenance()}})
		return runCmd(t, next, cmd, 0)
	}
	for _, tc := range []struct {
		name       string
		o          Options
		do         func(*testing.T, *Model) *Model
		kind       sessions.ActionKind
		shown      sessions.Visibility
		guidelines int64
	}{
		{"label, verdict shown", Options{Runs: withVerdicts, Guidelines: &Guidelines{ID: 7, Path: "g.md", Text: "# Rules"}},
			func(t *testing.T, m *Model) *Model { return press(t, m, "n") }, sessions.KindLabel, sessions.ShownVerdict, 7},
		{"accept", Options{Runs: withVerdicts, Guidelines: &Guidelines{ID: 3}},
			func(t *testing.T, m *Model) *Model { return press(t, m, "a") }, sessions.KindAccept, sessions.ShownVerdict, 3},
		{"note, verdict shown", Options{Runs: withVerdicts, Guidelines: &Guidelines{ID: 7}},
			note, sessions.KindNote, sessions.ShownVerdict, 7},
		{"can't judge, verdict shown", Options{Runs: withVerdicts, Guidelines: &Guidelines{ID: 7}},
			cantJudge, sessions.KindCantJudge, sessions.ShownVerdict, 7},
		{"label, blind mode", Options{Runs: withVerdicts, Blind: true},
			func(t *testing.T, m *Model) *Model { return press(t, m, "y") }, sessions.KindLabel, sessions.ShownBlind, 0},
		{"note, blind mode", Options{Runs: withVerdicts, Blind: true},
			note, sessions.KindNote, sessions.ShownBlind, 0},
		{"can't judge, blind mode", Options{Runs: withVerdicts, Blind: true},
			cantJudge, sessions.KindCantJudge, sessions.ShownBlind, 0},
		{"label, blind share", Options{Runs: withVerdicts, BlindShare: 1, Seed: 9},
			func(t *testing.T, m *Model) *Model { return press(t, m, "y") }, sessions.KindLabel, sessions.ShownBlind, 0},
		{"can't judge, blind share", Options{Runs: withVerdicts, BlindShare: 1, Seed: 9},
			cantJudge, sessions.KindCantJudge, sessions.ShownBlind, 0},
		{"label, verdict shown, run without an id", Options{Runs: noID},
			func(t *testing.T, m *Model) *Model { return press(t, m, "n") }, sessions.KindLabel, sessions.ShownUnknown, 0},
		{"accept, run without an id", Options{Runs: noID},
			func(t *testing.T, m *Model) *Model { return press(t, m, "a") }, sessions.KindAccept, sessions.ShownUnknown, 0},
		{"label, blind mode, run without an id", Options{Runs: noID, Blind: true},
			func(t *testing.T, m *Model) *Model { return press(t, m, "y") }, sessions.KindLabel, sessions.ShownBlind, 0},
		{"label, no verdict", Options{Runs: noVerdicts, Guidelines: &Guidelines{ID: 2}},
			func(t *testing.T, m *Model) *Model { return press(t, m, "y") }, sessions.KindLabel, sessions.ShownUnknown, 2},
		{"note, no verdict", Options{Runs: noVerdicts},
			note, sessions.KindNote, sessions.ShownUnknown, 0},
		{"can't judge, no verdict", Options{Runs: noVerdicts},
			cantJudge, sessions.KindCantJudge, sessions.ShownUnknown, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &fakeStore{}
			o := tc.o
			o.Store, o.Items = st, items
			m := openWith(t, o, 120, 40)
			clk := &testClock{t: t0}
			useClock(m, clk)
			// The first item takes 9 s: it appeared at t0, when the
			// person moved to it, not when the key was pressed.
			m = press(t, m, "right")
			appeared := clk.now()
			clk.advance(9 * time.Second)
			m = tc.do(t, m)
			g := st.lastGroup(t)
			if len(g) != 1 {
				t.Fatalf("recorded %+v, want one action", g)
			}
			a := g[0]
			if a.Kind != tc.kind || a.ItemID != "q2" {
				t.Fatalf("recorded a %s on %s, want a %s on q2", a.Kind, a.ItemID, tc.kind)
			}
			if a.Shown != tc.shown {
				t.Errorf("Shown = %d, want %d", a.Shown, tc.shown)
			}
			wantRun := int64(0)
			if tc.shown == sessions.ShownVerdict {
				wantRun = 5
			}
			if a.ShownRun != wantRun {
				t.Errorf("ShownRun = %d, want %d", a.ShownRun, wantRun)
			}
			if a.Guidelines != tc.guidelines {
				t.Errorf("Guidelines = %d, want %d", a.Guidelines, tc.guidelines)
			}
			if !a.Appeared.Equal(appeared) {
				t.Errorf("Appeared = %v, want %v (when q2 came on screen)", a.Appeared, appeared)
			}
			if a.Retest {
				t.Error("marked as a re-test")
			}
		})
	}
}

// The next item appears when the screen moves on to it: its decision is
// timed from then.
func TestAppearedIsWhenTheItemCameOnScreen(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	items := testItems(4)
	st := &fakeStore{}
	m := openWith(t, Options{Store: st, Items: items, Runs: []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}}, 120, 40)
	clk := &testClock{t: t0}
	useClock(m, clk)
	clk.advance(4 * time.Second)
	m = press(t, m, "y") // q1: on screen since t0; q2 appears at t0+4s
	clk.advance(30 * time.Second)
	m = press(t, m, "c") // a dialog open does not make q2 appear again
	m = press(t, m, "esc")
	clk.advance(3 * time.Second)
	press(t, m, "n")
	want := []time.Time{t0, t0.Add(4 * time.Second)}
	for k, g := range st.groups {
		if !g[0].Appeared.Equal(want[k]) {
			t.Errorf("decision %d on %s: Appeared %v, want %v", k+1, g[0].ItemID, g[0].Appeared, want[k])
		}
	}
}
