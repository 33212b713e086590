package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// retestSeed finds a seed whose re-test share (of annotator "tester")
// holds q1 and no other of items q2..qn: the test then knows which item
// comes back.
func retestSeed(t *testing.T, share float64, n int) int64 {
	t.Helper()
	for seed := int64(1); seed < 100_000; seed++ {
		if !sessions.InShare(seed, "retest:tester", "q1", share) {
			continue
		}
		alone := true
		for i := 2; i <= n && alone; i++ {
			alone = !sessions.InShare(seed, "retest:tester", fmt.Sprintf("q%d", i), share)
		}
		if alone {
			return seed
		}
	}
	t.Fatal("no seed puts q1 alone in the share")
	return 0
}

// retests are the re-test actions the store holds, in order.
func (f *fakeStore) retests() []sessions.Action {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []sessions.Action
	for _, g := range f.groups {
		for _, a := range g {
			if a.Retest {
				out = append(out, a)
			}
		}
	}
	return out
}

// screenLine returns the first line of the screen holding want, "" when
// none does.
func screenLine(m *Model, want string) string {
	for _, l := range strings.Split(plain(m), "\n") {
		if strings.Contains(l, want) {
			return l
		}
	}
	return ""
}

// A re-test item comes back once, blind, after 20 other decisions: the
// judge's verdict and the person's own first label hidden, the header
// saying "re-test"; its label is recorded as a re-test and the first label
// stays, on screen and in the store; then the person goes on where they
// were heading, and the item never comes back.
func TestRetestComesBackBlindOnce(t *testing.T) {
	const n = 40
	items := testItems(n)
	st := &fakeStore{}
	seed := retestSeed(t, 0.05, n)
	m := openWith(t, Options{Store: st, Items: items, Runs: []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}},
		Retest: 0.05, Seed: seed}, 120, 40)

	m = press(t, m, "y") // q1 = YES, the first label (the judge says YES)
	for i := 2; i <= 21; i++ {
		if m.cur != i-1 {
			t.Fatalf("before decision %d the screen is on item %d, want q%d", i, m.cur+1, i)
		}
		m = press(t, m, "n")
	}
	// 20 decisions after q1's: q1 is back, blind.
	if m.cur != 0 || !m.retesting(0) {
		t.Fatalf("after 20 more decisions the screen is on item %d (re-test %v), want q1 as a re-test", m.cur+1, m.retesting(m.cur))
	}
	s := plain(m)
	if !strings.Contains(strings.Split(s, "\n")[0], "re-test") {
		t.Errorf("the header does not say re-test:\n%s", s)
	}
	if l := screenLine(m, "   you "); !strings.Contains(l, "judge hidden") || !strings.Contains(l, "you —") {
		t.Errorf("the re-test shows the verdict or the first label: %q\n%s", l, s)
	}
	if strings.Contains(s, "rule \"normalized-exact\"") {
		t.Errorf("the re-test shows the judge's reason:\n%s", s)
	}
	if !strings.Contains(s, "Re-test: you labelled this item before") {
		t.Errorf("the verdict pane does not say it is a re-test:\n%s", s)
	}
	// Accepting would copy the hidden verdict.
	if m = press(t, m, "a"); len(st.retests()) != 0 || !m.retesting(0) {
		t.Fatalf("a accepted on a re-test: %+v", st.retests())
	}
	// The list does not tell the hidden label either.
	m = press(t, m, "L", "home")
	if l := screenLine(m, "Question number 1?"); !strings.Contains(l, "hidden") || strings.Contains(l, "YES") {
		t.Errorf("the list shows q1's first label or verdict during its re-test: %q", l)
	}
	m = press(t, m, "esc")
	if !m.retesting(0) {
		t.Fatalf("back from the list, q1 is no longer the re-test (item %d on screen)", m.cur+1)
	}

	m = press(t, m, "n") // the re-test says NO this time
	rt := st.retests()
	if len(rt) != 1 || rt[0].ItemID != "q1" || rt[0].Value != 0 || rt[0].Shown != sessions.ShownBlind || rt[0].Via != "retest" {
		t.Fatalf("re-test actions %+v, want one NO on q1, blind, via retest", rt)
	}
	if m.cur != 21 {
		t.Errorf("after the re-test the screen is on item %d, want q22 (where the person was heading)", m.cur+1)
	}
	if got := st.labels()[0]; got != "q1=1" {
		t.Errorf("the store's current label on q1 is %q, want q1=1 (the first label)", got)
	}
	for m.cur < n-1 {
		m = press(t, m, "y")
		if m.retesting(m.cur) {
			t.Fatalf("item %d came as a re-test; only q1 is in the share and it had its re-test", m.cur+1)
		}
	}
	if len(st.retests()) != 1 {
		t.Errorf("%d re-test actions, want 1", len(st.retests()))
	}
	// q1, visited again, shows its first label and the verdict.
	m = press(t, m, "<")
	if l := screenLine(m, "   you "); !strings.Contains(l, "judge YES") || !strings.Contains(l, "you YES") {
		t.Errorf("q1 after its re-test: %q, want the verdict and the first label", l)
	}
	if m.retesting(0) || strings.Contains(strings.Split(plain(m), "\n")[0], "re-test") {
		t.Error("q1 is shown as a re-test again")
	}
}

// Undoing a re-test makes it due again: the item is back as a re-test at
// once, and after it the person returns to the item they were on.
func TestUndoingARetestShowsItAgain(t *testing.T) {
	const n = 30
	items := testItems(n)
	st := &fakeStore{}
	seed := retestSeed(t, 0.05, n)
	m := openWith(t, Options{Store: st, Items: items, Runs: []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}},
		Retest: 0.05, Seed: seed}, 120, 40)
	for range 21 {
		m = press(t, m, "y")
	}
	m = press(t, m, "n") // the re-test of q1
	if len(st.retests()) != 1 || m.cur != 21 {
		t.Fatalf("re-tests %+v, on item %d; want one, then q22", st.retests(), m.cur+1)
	}
	m = press(t, m, "u")
	if len(st.retests()) != 0 {
		t.Fatalf("the undo left re-tests %+v", st.retests())
	}
	if m.cur != 0 || !m.retesting(0) {
		t.Fatalf("after undoing the re-test the screen is on item %d (re-test %v), want q1 as a re-test", m.cur+1, m.retesting(m.cur))
	}
	if l := screenLine(m, "   you "); !strings.Contains(l, "you —") {
		t.Errorf("the re-test again shows a label: %q", l)
	}
	m = press(t, m, "y")
	if rt := st.retests(); len(rt) != 1 || rt[0].Value != 1 {
		t.Fatalf("re-tests %+v, want the one YES", rt)
	}
	if m.cur != 21 {
		t.Errorf("after the re-test the screen is on item %d, want q22, where u was pressed", m.cur+1)
	}
}

// Moving away from a re-test leaves it due: it comes back after the next
// decision. ← goes back to the item decided before it.
func TestRetestLeftForLater(t *testing.T) {
	const n = 30
	items := testItems(n)
	st := &fakeStore{}
	seed := retestSeed(t, 0.05, n)
	m := openWith(t, Options{Store: st, Items: items, Runs: []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}},
		Retest: 0.05, Seed: seed}, 120, 40)
	for range 21 {
		m = press(t, m, "y")
	}
	if !m.retesting(0) {
		t.Fatalf("q1 is not back as a re-test (item %d on screen)", m.cur+1)
	}
	m = press(t, m, "left")
	if m.cur != 20 || m.retesting(m.cur) {
		t.Fatalf("← from the re-test went to item %d, want q21 (decided before it)", m.cur+1)
	}
	m = press(t, m, "right")
	if m.cur != 21 {
		t.Fatalf("→ went to item %d, want q22", m.cur+1)
	}
	m = press(t, m, "y")
	if !m.retesting(0) {
		t.Fatalf("after the next decision q1 is not back as a re-test (item %d on screen)", m.cur+1)
	}
	m = press(t, m, "space") // skip it again: on to q23
	if m.cur != 22 {
		t.Errorf("space on the re-test went to item %d, want q23", m.cur+1)
	}
	if len(st.retests()) != 0 {
		t.Errorf("a skipped re-test recorded %+v", st.retests())
	}
}

// A re-test may come in a later sitting: which items are due is derived
// from the history.
func TestRetestInALaterSitting(t *testing.T) {
	const n = 30
	items := testItems(n)
	seed := retestSeed(t, 0.05, n)
	var history []sessions.Action
	for i := range 21 {
		history = append(history, sessions.Action{ID: int64(i + 1), Group: int64(i + 1), Kind: sessions.KindLabel,
			ItemID: items[i].ID, Dimension: "correct", Value: 1, Annotator: "tester"})
	}
	st := &fakeStore{}
	m := openWith(t, Options{Store: st, Items: items, Runs: []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}},
		History: history, Retest: 0.05, Seed: seed}, 120, 40)
	if m.cur != 21 || m.retesting(m.cur) {
		t.Fatalf("the screen opened on item %d (re-test %v), want q22: a re-test comes after a decision", m.cur+1, m.retesting(m.cur))
	}
	m = press(t, m, "y")
	if !m.retesting(0) {
		t.Fatalf("the first decision of the sitting did not bring q1's re-test (item %d on screen)", m.cur+1)
	}
	m = press(t, m, "y")
	if rt := st.retests(); len(rt) != 1 || rt[0].ItemID != "q1" {
		t.Errorf("re-tests %+v, want one on q1", rt)
	}
}

// On an item with several rows the re-test takes each row: the screen
// stays on it, showing the re-test's own values (never the first labels,
// nor whether they agree with the hidden verdict), until every row has
// one.
func TestRetestOfEveryRow(t *testing.T) {
	const n = 30
	items := testItems(n)
	info := judge.Info{Name: "two", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}, {Name: "helpful", Scale: judge.Binary}}}
	vs := verdictsFor(items)
	for i := range vs {
		vs[i].Values = map[string]float64{"correct": 1, "helpful": 1}
	}
	st := &fakeStore{}
	seed := retestSeed(t, 0.05, n)
	m := openWith(t, Options{Store: st, Items: items, Runs: []Run{{Info: info, Verdicts: vs}}, Retest: 0.05, Seed: seed}, 120, 40)
	// Two decisions an item: q1's first label, then 20 more decisions end
	// on q11's first row; q11's second completes it.
	for range 22 {
		m = press(t, m, "y")
	}
	if !m.retesting(0) {
		t.Fatalf("q1 is not back as a re-test (item %d on screen)", m.cur+1)
	}
	m = press(t, m, "y") // the re-test's first row: YES
	if !m.retesting(0) || m.review.row != 1 {
		t.Fatalf("after one row the screen is on item %d row %d, want q1's second row", m.cur+1, m.review.row)
	}
	s := plain(m)
	if l := screenLine(m, "correct"); !strings.Contains(l, "you YES") || strings.Contains(l, "agree") {
		t.Errorf("the re-test's first row: %q, want its value and no agreement\n%s", l, s)
	}
	if l := screenLine(m, "helpful"); !strings.Contains(l, "you —") {
		t.Errorf("the re-test's second row shows a label: %q", l)
	}
	m = press(t, m, "n")
	if rt := st.retests(); len(rt) != 2 || rt[0].Dimension != "correct" || rt[1].Dimension != "helpful" || rt[1].Value != 0 {
		t.Fatalf("re-tests %+v, want correct YES and helpful NO", rt)
	}
	if m.cur != 11 {
		t.Errorf("after the re-test the screen is on item %d, want q12", m.cur+1)
	}
	if got := strings.Join(st.labels()[:2], " "); got != "q1=1 q1.helpful=1" {
		t.Errorf("q1's first labels in the store: %q", got)
	}
}

// "Can't judge" on a re-test is the re-test's decision: recorded as a
// re-test, blind, and the person moves on.
func TestCantJudgeOnARetest(t *testing.T) {
	const n = 30
	items := testItems(n)
	st := &fakeStore{}
	seed := retestSeed(t, 0.05, n)
	m := openWith(t, Options{Store: st, Items: items, Runs: []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}},
		Retest: 0.05, Seed: seed}, 120, 40)
	for range 21 {
		m = press(t, m, "y")
	}
	if !m.retesting(0) {
		t.Fatalf("q1 is not back as a re-test (item %d on screen)", m.cur+1)
	}
	m = runCmd(t, m, m.review.record([]sessions.Action{{Kind: sessions.KindCantJudge, ItemID: "q1",
		Reason: sessions.ReasonUnreadable, Via: m.provenance()}}), 0)
	rt := st.retests()
	if len(rt) != 1 || rt[0].Kind != sessions.KindCantJudge || rt[0].Shown != sessions.ShownBlind {
		t.Fatalf("re-tests %+v, want one blind can't judge", rt)
	}
	if m.cur != 21 {
		t.Errorf("after the re-test the screen is on item %d, want q22", m.cur+1)
	}
	if _, _, ok := m.labels.CantJudge("q1"); ok {
		t.Error("the re-test's can't judge replaced q1's first label")
	}
}
