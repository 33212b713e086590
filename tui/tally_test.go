package tui

import (
	"fmt"
	"reflect"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
)

// checkTallies fails when a run's tally, the active one or one kept,
// differs from the tally derived afresh: every change since (labels,
// undos, verdicts, switches) must have reached it.
func checkTallies(t *testing.T, m *Model, step string) {
	t.Helper()
	for k, r := range m.runs {
		var want tally
		want.grow(len(m.items), len(m.items))
		want.upTo = 0
		m.deriveTo(&want, r, len(m.items))
		got := m.tally
		if k != m.act {
			if k >= len(m.kept) || m.kept[k] == nil {
				t.Fatalf("%s: run %d (%s) has no tally kept", step, k, r.name())
			}
			got = *m.kept[k]
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: run %d (%s): tally %+v, derived afresh %+v", step, k, r.name(), counts(got), counts(want))
		}
	}
}

func counts(t tally) [4]int { return [4]int{t.nReviewed, t.nAgree, t.nCompared, t.nApplic} }

// TestTalliesFollowEveryRun switches judges (J) between labels, undos
// and verdicts of a judge not on screen, and checks after each step that
// every judge's counts are those a fresh pass gives, so that J shows them
// without one.
func TestTalliesFollowEveryRun(t *testing.T) {
	items := testItems(12)
	yes := verdictsFor(items)
	for i := range yes {
		yes[i].Values = map[string]float64{"correct": 1}
	}
	other := judge.Info{Name: "always yes", Dimensions: matchInfo.Dimensions}
	half := judge.Info{Name: "half", Dimensions: matchInfo.Dimensions}
	m := newTestModel(t, &fakeStore{}, items, []Run{
		{Info: matchInfo, Key: "match", ID: 1, Verdicts: verdictsFor(items)},
		{Info: other, Key: "yes", ID: 2, Verdicts: yes},
		{Info: half, Key: "half", ID: 3, Verdicts: verdictsFor(items[:6])},
	}, nil, 100, 30)
	checkTallies(t, m, "open")
	steps := []struct {
		name string
		keys []string
	}{
		{"labels under match", []string{"y", "n", "y"}},
		{"J", []string{"J"}},
		{"labels under always yes", []string{"n", "y"}},
		{"J to half", []string{"J"}},
		{"a label past half's verdicts", []string{"G", "y"}},
		{"undo", []string{"u"}},
		{"J back to match", []string{"J"}},
	}
	for _, s := range steps {
		m = press(t, m, s.keys...)
		checkTallies(t, m, s.name)
	}
	// A verdict of a judge not on screen arrives (a judging batch, a
	// team's update): its kept tally follows.
	k := (m.act + 1) % len(m.runs)
	v := yes[1]
	v.Values = map[string]float64{"correct": 0}
	if i := m.runs[k].put(m.index, v, true); i >= 0 {
		m.verdictChanged(k, i)
	}
	checkTallies(t, m, "a verdict of another judge")
	m = press(t, m, "J")
	checkTallies(t, m, "J after the verdict")
	if m.act != k {
		t.Fatalf("J made run %d active, want %d", m.act, k)
	}
}

// A judge's tally not on screen is derived a step at a time, tallyChunk
// items per message, and is right once whole: labels made meanwhile, on
// items derived and on items not yet, are counted; J before the last
// step finishes it.
func TestTallyDerivedInSteps(t *testing.T) {
	items := testItems(2*tallyChunk + 500)
	other := judge.Info{Name: "other", Dimensions: matchInfo.Dimensions}
	runs := []Run{
		{Info: matchInfo, Key: "match", ID: 1, Verdicts: verdictsFor(items)},
		{Info: other, Key: "other", ID: 2, Verdicts: verdictsFor(items)},
	}
	for _, switchEarly := range []bool{false, true} {
		m := New(Options{Store: &fakeStore{}, Annotator: "tester", Dataset: "big.jsonl", Items: items, Runs: runs})
		next, cmd := m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
		m = next.(*Model)
		if m.kept[1] == nil || m.kept[1].upTo != 0 || cmd == nil {
			t.Fatalf("the other judge's tally at the start: %+v (a step asked: %v)", m.kept[1], cmd != nil)
		}
		next, _ = m.Update(tallyStepMsg{})
		m = next.(*Model)
		if m.kept[1].upTo != tallyChunk {
			t.Fatalf("after a step: %d items derived, want %d", m.kept[1].upTo, tallyChunk)
		}
		// A label within what is derived, and one past it.
		m = update(t, m, keyMsg("y"))
		m.cur = tallyChunk + 10
		m = update(t, m, keyMsg("n"))
		if switchEarly {
			next, _ = m.Update(keyMsg("J"))
			m = next.(*Model)
			if m.act != 1 {
				t.Fatal("J did not switch")
			}
		}
		m = runCmd(t, m, func() tea.Msg { return tallyStepMsg{} }, 0)
		checkTallies(t, m, fmt.Sprintf("whole (J before the end: %v)", switchEarly))
		if m.nReviewed != 2 {
			t.Errorf("reviewed %d, want 2", m.nReviewed)
		}
	}
}

// After J the filter in force holds the items of the judge switched to:
// "judge ≠ you" under one judge is not the same items under another.
func TestFilterFollowsTheJudge(t *testing.T) {
	items := testItems(6)
	yes := verdictsFor(items)
	for i := range yes {
		yes[i].Values = map[string]float64{"correct": 1}
	}
	m := newTestModel(t, &fakeStore{}, items, []Run{
		{Info: matchInfo, Key: "match", ID: 1, Verdicts: verdictsFor(items)}, // YES on q1, q3, q5
		{Info: judge.Info{Name: "always yes", Dimensions: matchInfo.Dimensions}, Key: "yes", ID: 2, Verdicts: yes},
	}, nil, 100, 30)
	m = press(t, m, "y", "y", "y", "y", "y", "y") // YES on every item
	for m.sel.filter.id != "disagreements" {
		m = press(t, m, "f")
	}
	if want := []int{1, 3, 5}; !reflect.DeepEqual(m.sel.items, want) {
		t.Fatalf("judge ≠ you under match: %v, want %v", m.sel.items, want)
	}
	m = press(t, m, "J")
	if m.sel.filter.id != "disagreements" || len(m.sel.items) != 0 {
		t.Fatalf("judge ≠ you under always yes: %s %v, want none", m.sel.filter.id, m.sel.items)
	}
	m = press(t, m, "J")
	if want := []int{1, 3, 5}; !reflect.DeepEqual(m.sel.items, want) {
		t.Fatalf("judge ≠ you back under match: %v, want %v", m.sel.items, want)
	}
}
