package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// retestModel opens n YES/NO items whose re-test share (5 %) holds q1
// alone, with the tag "format", and set changing the options first.
func retestModel(t *testing.T, st *fakeStore, n int, set func(*Options)) *Model {
	t.Helper()
	items := testItems(n)
	o := Options{Store: st, Items: items, Runs: []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}},
		Retest: 0.05, Seed: retestSeed(t, 0.05, n), Tags: []string{"format"}}
	if set != nil {
		set(&o)
	}
	return openWith(t, o, 120, 40)
}

// decideUntilRetest labels items NO until q1 is on screen as a re-test.
func decideUntilRetest(t *testing.T, m *Model) *Model {
	t.Helper()
	for range 40 {
		if m.retesting(0) {
			return m
		}
		m = press(t, m, "n")
	}
	t.Fatalf("q1 never came back as a re-test (item %d on screen)", m.cur+1)
	return m
}

// On a re-test nothing of the first decision shows: c (the note) is
// refused as T is, and the message log leaves out what it said about the
// item — its note, tag and can't judge — while it is on screen, and only
// then; messages about other items stay.
func TestRetestHidesTheFirstNoteAndTheLog(t *testing.T) {
	st := &fakeStore{}
	m := retestModel(t, st, 40, nil)
	// Pasted: the note field's blinking cursor would make each typed key
	// wait for its timer.
	m = press(t, m, "c")
	m = update(t, m, tea.PasteMsg{Content: "secret first note"})
	m = press(t, m, "enter", "T", "1", "esc", "x", "4")
	m = typeText(t, m, "secret reason")
	m = press(t, m, "enter", "left", "y") // q1: can't judge, then YES
	if m.cur != 1 {
		t.Fatalf("after q1's label the screen is on item %d, want q2", m.cur+1)
	}
	m = press(t, m, "c")
	m = update(t, m, tea.PasteMsg{Content: "q2 note stays"})
	m = press(t, m, "enter")
	m = decideUntilRetest(t, m)

	m = press(t, m, "m")
	screen := plain(m)
	for _, secret := range []string{"secret first note", "secret reason", "Tagged q1", "Note on q1"} {
		if strings.Contains(screen, secret) {
			t.Errorf("the log shows %q during q1's re-test:\n%s", secret, screen)
		}
	}
	if !strings.Contains(screen, "q2 note stays") || !strings.Contains(screen, "hidden until it is decided") {
		t.Errorf("the log during a re-test lacks the other item's note or the reason for the gap:\n%s", screen)
	}
	m = press(t, m, "esc")
	notes := len(st.allActions())
	m = press(t, m, "c")
	if m.top() != nil {
		t.Fatalf("c on a re-test opened %T (on the first note)", m.top())
	}
	if h := hintLineOf(m); !strings.Contains(h, "re-test") {
		t.Errorf("c on a re-test says %q", h)
	}
	if len(st.allActions()) != notes {
		t.Errorf("c on a re-test recorded %+v", st.allActions()[notes:])
	}
	m = press(t, m, "y") // the re-test's decision
	if m.retesting(0) || len(st.retests()) != 1 {
		t.Fatalf("the re-test did not end with its decision: %+v", st.retests())
	}
	m = press(t, m, "m")
	if s := plain(m); !strings.Contains(s, "secret first note") || strings.Contains(s, "hidden until") {
		t.Errorf("after the re-test the log does not show q1's note again:\n%s", s)
	}
}

// Filters on the person's first decision leave out the re-test on screen:
// "judge ≠ you" (its first label disagreed) and "tag: format" would each
// tell what it hides (and the header's position in them). The item is
// matched again once it is no longer the re-test.
func TestRetestOutOfFiltersOnTheFirstDecision(t *testing.T) {
	st := &fakeStore{}
	m := retestModel(t, st, 40, nil)
	m = press(t, m, "T", "1", "esc", "n") // q1: the judge says YES
	m = decideUntilRetest(t, m)
	match := func(id string) bool {
		t.Helper()
		for _, f := range m.filters() {
			if f.id == id {
				return f.match(m.workspace, 0)
			}
		}
		t.Fatalf("no filter %q", id)
		return false
	}
	for _, id := range []string{"disagreements", "tag:format"} {
		if match(id) {
			t.Errorf("the filter %q matches q1 during its re-test", id)
		}
	}
	m = press(t, m, "right") // left for later: q1 is no longer on screen
	for _, id := range []string{"disagreements", "tag:format"} {
		if !match(id) {
			t.Errorf("the filter %q does not match q1 once it is not a re-test", id)
		}
	}
}

// A row labelled on a hidden item with several rows is not compared with
// the judge until the item is reviewed: the status line's agreement and
// the "judge ≠ you" filter would tell the hidden verdict row by row.
func TestHiddenRowsNotComparedUntilReviewed(t *testing.T) {
	items := testItems(3)
	info := judge.Info{Name: "two", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}, {Name: "helpful", Scale: judge.Binary}}}
	vs := verdictsFor(items)
	for i := range vs {
		vs[i].Values = map[string]float64{"correct": 1, "helpful": 1}
	}
	for _, tc := range []struct {
		name string
		set  func(*Options)
	}{
		{"blind share", func(o *Options) { o.BlindShare = 1 }},
		{"blind mode", func(o *Options) { o.Blind = true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{Store: &fakeStore{}, Items: items, Runs: []Run{{Info: info, Verdicts: vs}}, Seed: 1}
			tc.set(&o)
			m := openWith(t, o, 120, 40)
			m = press(t, m, "n") // q1's first row: NO, the judge YES
			if m.cur != 0 || !m.hidden(0) {
				t.Fatalf("after one row: item %d, hidden %v", m.cur+1, m.hidden(0))
			}
			if m.agreement[0] != -1 || m.nCompared != 0 {
				t.Errorf("a row of a hidden item was compared: agreement %d, %d compared", m.agreement[0], m.nCompared)
			}
			if s := plain(m); strings.Contains(s, "agreement 0/1") {
				t.Errorf("the status line tells the hidden verdict:\n%s", s)
			}
			m = press(t, m, "y") // the second row: reviewed, the verdict shows
			if m.agreement[0] != 0 || m.nCompared != 1 {
				t.Errorf("the reviewed item: agreement %d, %d compared; want 0, 1", m.agreement[0], m.nCompared)
			}
		})
	}
}

// An item due for a re-test whose first label was shown — on the review
// screen (a re-test left by L and enter, then gone back to) or in the
// list — is not re-tested later in the sitting: it would not be blind.
func TestRetestShownWhileDueIsNotRetested(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys []string // from q1's re-test on screen, ending on q22
	}{
		// The reviewer's path: the list opens another item, which ends
		// the re-test; q1 is then opened from the list.
		{"review screen", []string{"L", "down", "enter", "L", "home", "enter", "g"}},
		// The list draws q1's row (with its first label) and nothing
		// more: back on the review screen q1 was never opened.
		{"list", []string{"L", "down", "enter", "L", "home", "esc"}},
		// ← leaves the re-test for later; < goes back to q1.
		{"left then first item", []string{"left", "<", "g"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &fakeStore{}
			m := retestModel(t, st, 40, nil)
			m = decideUntilRetest(t, m)
			// During the re-test the list hides q1's label.
			m = press(t, m, "L", "home")
			if l := screenLine(m, "Question number 1?"); !strings.Contains(l, "hidden") || strings.Contains(l, "NO") {
				t.Errorf("the list shows q1's first label during its re-test: %q", l)
			}
			m = press(t, m, "esc")
			// Each key's frame is drawn, as the program draws it: what
			// the list shows is what it draws.
			for _, k := range tc.keys {
				m = press(t, m, k)
				_ = plain(m)
			}
			if m.retesting(0) || m.cur == 0 {
				t.Fatalf("after %v: item %d on screen, re-test %v; want q22", tc.keys, m.cur+1, m.retesting(0))
			}
			for m.cur < 39 {
				m = press(t, m, "n")
				if m.retesting(0) {
					t.Fatalf("q1 came back as a blind re-test after its first label was shown (%v)", tc.keys)
				}
			}
			if rt := st.retests(); len(rt) != 0 {
				t.Errorf("re-tests %+v, want none", rt)
			}
		})
	}
	// Left for later without being shown (→), it comes back.
	st := &fakeStore{}
	m := retestModel(t, st, 40, nil)
	m = decideUntilRetest(t, m)
	m = press(t, m, "right", "n")
	if !m.retesting(0) {
		t.Errorf("a re-test left with → and never shown did not come back (item %d)", m.cur+1)
	}
}

// A re-test left half done (one row of two, then →) is kept as it is: its
// one row pairs with the first label, and the item does not come back.
func TestRetestHalfDoneIsKept(t *testing.T) {
	const n = 30
	items := testItems(n)
	info := judge.Info{Name: "two", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}, {Name: "helpful", Scale: judge.Binary}}}
	vs := verdictsFor(items)
	for i := range vs {
		vs[i].Values = map[string]float64{"correct": 1, "helpful": 1}
	}
	st := &fakeStore{}
	m := openWith(t, Options{Store: st, Items: items, Runs: []Run{{Info: info, Verdicts: vs}}, Retest: 0.05, Seed: retestSeed(t, 0.05, n)}, 120, 40)
	for range 22 {
		m = press(t, m, "y")
	}
	if !m.retesting(0) {
		t.Fatalf("q1 is not back as a re-test (item %d)", m.cur+1)
	}
	m = press(t, m, "n", "right")
	for range 10 {
		if m = press(t, m, "y"); m.retesting(0) {
			t.Fatal("a half-done re-test came back")
		}
	}
	if rt := st.retests(); len(rt) != 1 || rt[0].Dimension != "correct" || rt[0].Kind != sessions.KindLabel {
		t.Errorf("re-tests %+v, want the one row", rt)
	}
}
