package tui

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

var pairInfo = judge.Info{Name: "pairwise", Model: "judge-model", Dimensions: []judge.Dimension{{Name: "preference", Scale: judge.Pairwise}}}

// pairItems returns n pairwise items "p1".."pn"; the first has a
// reference answer, the others none.
func pairItems(n int) []judge.Item {
	items := make([]judge.Item, n)
	for i := range items {
		items[i] = judge.Item{
			Index:     i,
			ID:        fmt.Sprintf("p%d", i+1),
			Question:  fmt.Sprintf("Write a haiku about autumn number %d.", i+1),
			ResponseA: fmt.Sprintf("Response A of pair %d: crisp leaves fall slowly, the maple lets go of red, the year exhales cold.", i+1),
			ResponseB: fmt.Sprintf("Response B of pair %d: autumn is a season in which leaves fall from trees.", i+1),
		}
	}
	items[0].Gold = "A reference haiku: an autumn evening, a crow settles on a branch."
	return items
}

// prefer is a pairwise verdict on an item, in the original order or the
// swapped one.
func prefer(id string, v float64, swapped bool) judge.Verdict {
	return judge.Verdict{ItemID: id, Swapped: swapped, Status: judge.StatusOK, Values: map[string]float64{"preference": v},
		Reason: "the first follows the instruction", At: time.Unix(0, 0)}
}

// pairVerdicts: p1 A in both orders (consistent), p2 A then B
// (inconsistent), p3 B in the original order only, p4 tie then A.
func pairVerdicts() (orig, swapped []judge.Verdict) {
	orig = []judge.Verdict{prefer("p1", judge.PreferA, false), prefer("p2", judge.PreferA, false), prefer("p3", judge.PreferB, false), prefer("p4", judge.PreferTie, false)}
	swapped = []judge.Verdict{prefer("p1", judge.PreferA, true), prefer("p2", judge.PreferB, true), prefer("p4", judge.PreferA, true)}
	return orig, swapped
}

func pairModel(t *testing.T, st Recorder, w, h int) *Model {
	t.Helper()
	orig, sw := pairVerdicts()
	return newTestModel(t, st, pairItems(4), []Run{{Info: pairInfo, Verdicts: orig, Swapped: sw}}, nil, w, h)
}

// screenLines is the screen's plain text, line by line.
func screenLines(m *Model) []string { return strings.Split(plain(m), "\n") }

// lineWith returns the first line of the screen holding all of parts.
func lineWith(m *Model, parts ...string) (string, bool) {
	for _, l := range screenLines(m) {
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

// A pairwise item shows the question, both responses in boxes titled A
// and B (side by side from 80 columns), the reference, and the verdict in
// both orders, at 80×24 and 200×50. The frames are golden files.
func TestPairwiseScreen(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			m := pairModel(t, &fakeStore{}, size.w, size.h)
			s := plain(m)
			checkFits(t, s, size.w, size.h)
			for _, want := range []string{"Write a haiku about autumn number 1.", "Response A of pair 1", "Response B of pair 1",
				"A reference haiku", "judge A", "swapped A", "✓ consistent under swap", "1 A · 2 B · 0 tie"} {
				if !strings.Contains(s, want) {
					t.Errorf("screen lacks %q:\n%s", want, s)
				}
			}
			// The two responses sit side by side: one line holds both
			// boxes' titles.
			if _, ok := lineWith(m, "─ A ─", "─ B ─"); !ok {
				t.Errorf("A and B are not side by side:\n%s", s)
			}
			golden.RequireEqual(t, []byte(s))
		})
	}
}

// Below 80 columns the responses are stacked, each still in its box.
func TestPairwiseStackedWhenNarrow(t *testing.T) {
	m := pairModel(t, &fakeStore{}, 60, 40)
	s := plain(m)
	checkFits(t, s, 60, 40)
	a, okA := lineWith(m, "─ A ─")
	b, okB := lineWith(m, "─ B ─")
	if !okA || !okB || a == b {
		t.Fatalf("A and B are not stacked:\n%s", s)
	}
	for _, want := range []string{"Response A of pair 1", "Response B of pair 1"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	// tab visits the question, the reference, A, B and the verdict.
	var seen []pane
	for range 5 {
		m = press(t, m, "tab")
		seen = append(seen, m.review.focus)
	}
	want := []pane{paneResponseB, paneVerdict, paneQuestion, paneGold, panePrediction}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("tab visits %v, want %v", seen, want)
	}
}

// A pair without a reference shows no empty reference pane, and B keeps
// scrolling at 80×24 when the responses are long.
func TestPairwiseLongResponsesScroll(t *testing.T) {
	items := pairItems(2)
	items[1].ResponseB = strings.Repeat("a long second response that goes on ", 80)
	m := newTestModel(t, &fakeStore{}, items, []Run{{Info: pairInfo}}, nil, 80, 24)
	m = press(t, m, "l")
	if s := plain(m); strings.Contains(s, "Reference") || strings.Contains(s, "Gold answer") {
		t.Errorf("a pair without reference shows its pane:\n%s", s)
	}
	m = press(t, m, "tab") // from A to B
	if m.review.focus != paneResponseB {
		t.Fatalf("focus on %v, want B", m.review.focus)
	}
	// B's bottom border says which of its lines show; G scrolls to its
	// end.
	m = press(t, m, "G")
	r := m.review
	rows := r.paneRows(paneResponseB)
	n := len(r.paneLines(paneResponseB, r.layout(r.width, r.height)[paneResponseB].w-4))
	if n <= rows || r.scroll[paneResponseB] != n-rows {
		t.Errorf("B: %d lines in %d rows, scrolled to %d\n%s", n, rows, r.scroll[paneResponseB], plain(m))
	}
	if _, ok := lineWith(m, fmt.Sprintf("–%d/%d", n, n)); !ok {
		t.Errorf("no scroll position in B's border:\n%s", plain(m))
	}
}

// 1, 2 and 0 label A, B and tie, saved as the scale's codes (0, 1, 0.5);
// y and n are refused; the verdict pane shows the label by name.
func TestPairwiseKeysLabel(t *testing.T) {
	st := &fakeStore{}
	m := pairModel(t, st, 100, 30)
	if h := hintLineOf(m); !strings.HasPrefix(h, "1 A · 2 B · 0 tie") {
		t.Errorf("hint line %q", h)
	}
	m = press(t, m, "y")
	if len(st.groups) != 0 || !strings.Contains(hintLineOf(m), "press 1 (A), 2 (B) or 0 (tie)") {
		t.Errorf("y on a pair: saved %+v, hint %q", st.groups, hintLineOf(m))
	}
	m = press(t, m, "2", "1", "0")
	want := []float64{judge.PreferB, judge.PreferA, judge.PreferTie}
	if len(st.groups) != 3 {
		t.Fatalf("saved %d groups, want 3: %+v", len(st.groups), st.groups)
	}
	for i, g := range st.groups {
		if g[0].Value != want[i] || g[0].Dimension != "preference" || g[0].ItemID != fmt.Sprintf("p%d", i+1) {
			t.Errorf("label %d: %+v, want %v on p%d", i, g[0], want[i], i+1)
		}
	}
	m = press(t, m, "<")
	if l, ok := lineWith(m, "judge A", "you B"); !ok || !strings.Contains(l, "✗ disagree") {
		t.Errorf("p1 labelled B against the judge's A: %q\n%s", l, plain(m))
	}
	m = press(t, m, "l", "l")
	if _, ok := lineWith(m, "judge B", "you tie", "✗ disagree"); !ok {
		t.Errorf("p3: tie is not shown by name:\n%s", plain(m))
	}
	m = press(t, m, "l")
	if _, ok := lineWith(m, "judge tie", "you —"); !ok {
		t.Errorf("p4: the judge's tie is not shown by name:\n%s", plain(m))
	}
	if s := plain(m); strings.Contains(s, "0.5") {
		t.Errorf("a raw code on screen:\n%s", s)
	}
	// The list shows names too.
	m = press(t, m, "L")
	if l, ok := lineWith(m, " p3 "); !ok || !strings.Contains(l, "B ") || !strings.Contains(l, "tie") || strings.Contains(l, "0.5") {
		t.Errorf("list row of p3: %q", l)
	}
}

// pairwise:notie takes 1 and 2; 0 is refused, saying why.
func TestPairwiseNoTieRefusesZero(t *testing.T) {
	info := judge.Info{Name: "pairwise", Dimensions: []judge.Dimension{{Name: "preference", Scale: judge.PairwiseNoTie}}}
	st := &fakeStore{}
	m := newTestModel(t, st, pairItems(2), []Run{{Info: info}}, nil, 80, 24)
	if h := hintLineOf(m); !strings.HasPrefix(h, "1 A · 2 B · ") || strings.Contains(h, "tie") {
		t.Errorf("hint line %q", h)
	}
	m = press(t, m, "0")
	if len(st.groups) != 0 {
		t.Fatalf("0 saved %+v", st.groups)
	}
	if h := hintLineOf(m); !strings.Contains(h, "0 would be a tie") || !strings.Contains(h, "press 1 (A) or 2 (B)") {
		t.Errorf("refusal of 0: %q", h)
	}
	m = press(t, m, "2")
	if len(st.groups) != 1 || st.groups[0][0].Value != judge.PreferB {
		t.Errorf("2 saved %+v", st.groups)
	}
}

var simpleQA = judge.Scale("nominal:CORRECT,INCORRECT,NOT_ATTEMPTED")

// A 3-category item labels with 1, 2 and 3 by position, and the hint line
// names them, in full at 80 columns.
func TestNominalKeys(t *testing.T) {
	info := judge.Info{Name: "simpleqa", Dimensions: []judge.Dimension{{Name: "grade", Scale: simpleQA}}}
	items := testItems(4)
	vs := []judge.Verdict{{ItemID: "q1", Status: judge.StatusOK, Values: map[string]float64{"grade": 2}}}
	st := &fakeStore{}
	m := newTestModel(t, st, items, []Run{{Info: info, Verdicts: vs}}, nil, 80, 24)
	if h := hintLineOf(m); !strings.HasPrefix(h, "1 CORRECT · 2 INCORRECT · 3 NOT_ATTEMPTED") {
		t.Errorf("hint line %q", h)
	}
	if _, ok := lineWith(m, "judge NOT_ATTEMPTED"); !ok {
		t.Errorf("the judge's category is not shown by name:\n%s", plain(m))
	}
	m = press(t, m, "4")
	if len(st.groups) != 0 || !strings.Contains(hintLineOf(m), "4 is not a category here (CORRECT / INCORRECT / NOT_ATTEMPTED)") {
		t.Errorf("4: saved %+v, hint %q", st.groups, hintLineOf(m))
	}
	m = press(t, m, "n")
	if len(st.groups) != 0 || !strings.Contains(hintLineOf(m), "y and n label YES/NO items") {
		t.Errorf("n: saved %+v, hint %q", st.groups, hintLineOf(m))
	}
	m = press(t, m, "3", "1", "2")
	if got := strings.Join(st.labels(), " "); got != "q1.grade=2 q2.grade=0 q3.grade=1" {
		t.Errorf("store holds %q", got)
	}
	// The help overlay names the categories.
	m = press(t, m, "?")
	if s := plain(m); !strings.Contains(s, "label this item: NOT_ATTEMPTED") {
		t.Errorf("help of a 3-category item:\n%s", s)
	}
}

// A 9-category scale still takes digits; at 80 columns the hint line cuts
// the names so that every digit shows.
func TestNominalNineCategoriesFit(t *testing.T) {
	cats := []string{"HALLUCINATION", "OMISSION", "WRONG_FORMAT", "OFF_TOPIC", "UNSAFE", "REFUSAL", "TRUNCATED", "CORRECT", "OTHER_PROBLEM"}
	sc := judge.Scale("nominal:" + strings.Join(cats, ","))
	info := judge.Info{Name: "errors", Dimensions: []judge.Dimension{{Name: "kind", Scale: sc}}}
	m := newTestModel(t, &fakeStore{}, testItems(2), []Run{{Info: info}}, nil, 200, 30)
	h := hintLineOf(m)
	for d, c := range cats {
		if !strings.Contains(h, fmt.Sprintf("%d %s", d+1, c)) {
			t.Errorf("hint line lacks %d %s: %q", d+1, c, h)
		}
	}
	// At 80 columns nine names cannot be read: the range, and where the
	// names are.
	m = update(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	if h := hintLineOf(m); !strings.HasPrefix(h, "1–9 category · ? names them") {
		t.Errorf("hint line at 80 columns: %q", h)
	}
	m = press(t, m, "?")
	if s := plain(m); !strings.Contains(s, "9         label this item: OTHER_PROBLEM") {
		t.Errorf("help:\n%s", s)
	}
}

// Four named points at 80 columns: every name in full.
func TestOrdinalLabelsOnTheHintLine(t *testing.T) {
	sc := judge.Scale("ordinal:1-4:poor,fair,good,excellent")
	info := judge.Info{Name: "quality", Dimensions: []judge.Dimension{{Name: "quality", Scale: sc}}}
	st := &fakeStore{}
	m := newTestModel(t, st, testItems(2), []Run{{Info: info}}, nil, 80, 24)
	if h := hintLineOf(m); !strings.HasPrefix(h, "1 poor · 2 fair · 3 good · 4 excellent") {
		t.Errorf("hint line %q", h)
	}
	m = press(t, m, "4")
	if len(st.groups) != 1 || st.groups[0][0].Value != 4 {
		t.Errorf("4 saved %+v", st.groups)
	}
}

// A 1–10 item: enter opens the picker; typing 1 then 0 selects 10; enter
// labels 10. A digit opens the picker with that digit typed; esc closes it
// without a label.
func TestPickerLabelsTen(t *testing.T) {
	sc := judge.Scale("ordinal:1-10")
	info := judge.Info{Name: "mt-bench", Dimensions: []judge.Dimension{{Name: "rating", Scale: sc}}}
	vs := []judge.Verdict{{ItemID: "q1", Status: judge.StatusOK, Values: map[string]float64{"rating": 7}}}
	st := &fakeStore{}
	m := newTestModel(t, st, testItems(3), []Run{{Info: info, Verdicts: vs}}, nil, 80, 24)
	if h := hintLineOf(m); !strings.HasPrefix(h, "enter pick 1–10") {
		t.Errorf("hint line %q", h)
	}
	m = press(t, m, "enter")
	if _, ok := m.top().(*pickerDialog); !ok {
		t.Fatalf("enter did not open the picker; hint %q", hintLineOf(m))
	}
	s := plain(m)
	if l, ok := lineWith(m, "▸ 7", "judge"); !ok {
		t.Errorf("the picker does not start on the judge's 7: %q\n%s", l, s)
	}
	if !strings.Contains(s, "Label · rating · 1–10") || !strings.Contains(hintLineOf(m), "enter label") {
		t.Errorf("picker:\n%s", s)
	}
	checkFits(t, s, 80, 24)
	m = press(t, m, "1", "0")
	if _, ok := lineWith(m, "▸ 10"); !ok {
		t.Errorf("typing 10 does not select 10:\n%s", plain(m))
	}
	m = press(t, m, "enter")
	if m.top() != nil || len(st.groups) != 1 || st.groups[0][0].Value != 10 || st.groups[0][0].ItemID != "q1" {
		t.Fatalf("picked 10: dialog %v, saved %+v", m.top(), st.groups)
	}
	if m.cur != 1 {
		t.Errorf("on item %d after the label, want 1", m.cur)
	}
	// A digit opens the picker on it; j moves; esc labels nothing.
	m = press(t, m, "3")
	if _, ok := lineWith(m, "▸ 3"); !ok {
		t.Fatalf("3 did not open the picker on 3:\n%s", plain(m))
	}
	m = press(t, m, "j", "j")
	if _, ok := lineWith(m, "▸ 5"); !ok {
		t.Errorf("j j from 3:\n%s", plain(m))
	}
	m = press(t, m, "esc")
	if m.top() != nil || len(st.groups) != 1 {
		t.Errorf("esc: dialog %v, saved %+v", m.top(), st.groups)
	}
	// q is not quit in the picker: it types (and finds nothing).
	m = press(t, m, "enter", "q")
	if _, ok := m.top().(*pickerDialog); !ok || !strings.Contains(plain(m), `nothing here starts with "q"`) {
		t.Errorf("q in the picker:\n%s", plain(m))
	}
	m = press(t, m, "end", "enter")
	if len(st.groups) != 2 || st.groups[1][0].Value != 10 {
		t.Errorf("end, enter saved %+v", st.groups)
	}
}

// More than nine categories: the picker, where typing the start of a name
// finds it, and names starting with j type rather than move.
func TestPickerFindsCategoryByName(t *testing.T) {
	cats := []string{"ACCURATE", "BIASED", "CONTRADICTORY", "DANGEROUS", "EVASIVE", "FABRICATED", "GIBBERISH", "HARMFUL", "IRRELEVANT", "JARGON", "OUTDATED"}
	sc := judge.Scale("nominal:" + strings.Join(cats, ","))
	info := judge.Info{Name: "kinds", Dimensions: []judge.Dimension{{Name: "kind", Scale: sc}}}
	st := &fakeStore{}
	m := newTestModel(t, st, testItems(2), []Run{{Info: info}}, nil, 100, 30)
	if h := hintLineOf(m); !strings.HasPrefix(h, "enter pick one of 11 categories") {
		t.Errorf("hint line %q", h)
	}
	m = press(t, m, "enter", "f", "a")
	if _, ok := lineWith(m, "▸ 6", "FABRICATED"); !ok {
		t.Fatalf("typing fa:\n%s", plain(m))
	}
	m = press(t, m, "backspace", "j")
	if _, ok := lineWith(m, "▸ 10", "JARGON"); !ok {
		t.Fatalf("j types JARGON's start:\n%s", plain(m))
	}
	m = press(t, m, "enter")
	if len(st.groups) != 1 || st.groups[0][0].Value != 9 {
		t.Errorf("JARGON saved %+v, want its position 9", st.groups)
	}
}

// The swap filter selects the items whose verdict changes with the order,
// is offered only when there are swapped verdicts, and the list marks
// them.
func TestSwapFilterAndList(t *testing.T) {
	m := pairModel(t, &fakeStore{}, 100, 30)
	var found bool
	for range len(m.filters()) {
		m = press(t, m, "f")
		if m.sel.filter.id == "swap-inconsistent" {
			found = true
			break
		}
	}
	if !found {
		t.Fatalf("no swap filter among %d filters", len(m.filters()))
	}
	var ids []string
	for _, i := range m.sel.items {
		ids = append(ids, m.items[i].ID)
	}
	if got := strings.Join(ids, " "); got != "p2 p4" {
		t.Errorf("inconsistent under swap: %q, want p2 p4", got)
	}
	if _, ok := lineWith(m, "✗ inconsistent under swap"); !ok {
		t.Errorf("p2 not marked:\n%s", plain(m))
	}
	m = press(t, m, "f") // back to all items, via the next filters
	for m.sel.filter.id != "all" {
		m = press(t, m, "f")
	}
	m = press(t, m, "L")
	for id, want := range map[string]string{"p1": "same", "p2": "differs", "p4": "differs"} {
		if l, ok := lineWith(m, " "+id+" "); !ok || !strings.Contains(l, want) {
			t.Errorf("list row of %s: %q, want %q", id, l, want)
		}
	}
	if l, _ := lineWith(m, " p3 "); strings.Contains(l, "same") || strings.Contains(l, "differs") {
		t.Errorf("p3, judged in one order, is marked: %q", l)
	}
	if _, ok := lineWith(m, "judge", "swap", "you"); !ok {
		t.Errorf("no swap column:\n%s", plain(m))
	}
	// Without swapped verdicts the filter is not offered.
	orig, _ := pairVerdicts()
	m2 := newTestModel(t, &fakeStore{}, pairItems(4), []Run{{Info: pairInfo, Verdicts: orig}}, nil, 100, 30)
	for _, f := range m2.filters() {
		if f.id == "swap-inconsistent" {
			t.Errorf("swap filter offered without swapped verdicts")
		}
	}
}

// The verdict pane shows both orders and whether they agree; a swapped
// verdict arriving from the judge is the second order, never a
// replacement of the first; blind mode hides both.
func TestSwappedVerdictDisplay(t *testing.T) {
	m := pairModel(t, &fakeStore{}, 120, 40)
	m = press(t, m, "l") // p2: A, then B swapped
	if l, ok := lineWith(m, "swapped B"); !ok || !strings.Contains(l, "(B shown first)") {
		t.Errorf("swapped line: %q\n%s", l, plain(m))
	}
	if _, ok := lineWith(m, "judge A"); !ok {
		t.Errorf("original order not shown:\n%s", plain(m))
	}
	if _, ok := lineWith(m, "✗ inconsistent under swap"); !ok {
		t.Errorf("p2 not marked inconsistent:\n%s", plain(m))
	}
	if !strings.Contains(plain(m), "swapped order (B shown first)") {
		t.Errorf("no detail of the swapped verdict:\n%s", plain(m))
	}
	// p3: one order only; a swapped verdict streams in.
	m = press(t, m, "l")
	if _, ok := lineWith(m, "swapped"); ok {
		t.Errorf("p3 has no swapped verdict yet:\n%s", plain(m))
	}
	ch := make(chan sessions.Batch, 1)
	m.runs[0].streams[0] = &stream{ch: ch, last: sessions.Batch{Total: 1}}
	m = update(t, m, batchMsg{run: 0, stream: 0, batch: sessions.Batch{Verdicts: []judge.Verdict{prefer("p3", judge.PreferB, true)}, Done: 1, Total: 1}})
	if _, ok := lineWith(m, "judge B"); !ok {
		t.Errorf("the original verdict was replaced:\n%s", plain(m))
	}
	if _, ok := lineWith(m, "swapped B"); !ok {
		t.Errorf("the swapped verdict is not shown:\n%s", plain(m))
	}
	if _, ok := lineWith(m, "✓ consistent under swap"); !ok {
		t.Errorf("p3 not marked consistent:\n%s", plain(m))
	}
	if v, ok := m.runs[0].verdict(2, 0); !ok || v.Swapped || v.Values["preference"] != judge.PreferB {
		t.Errorf("original slot of p3: %+v", v)
	}
	// Blind mode hides the verdicts of both orders.
	m = press(t, m, "b")
	if s := plain(m); strings.Contains(s, "swapped") || strings.Contains(s, "consistent under swap") {
		t.Errorf("blind mode shows the swap:\n%s", s)
	}
}

// With --swap, r and R judge a pair in both orders; without, only an item
// that already has a swapped verdict is re-judged in both.
func TestRejudgeBothOrders(t *testing.T) {
	orig, sw := pairVerdicts()
	rj := &rejudged{}
	m := New(Options{Store: &fakeStore{}, Annotator: "tester", Dataset: "pairs.jsonl", Items: pairItems(4), Swap: true,
		Runs: []Run{{Info: pairInfo, Verdicts: orig, Swapped: sw, Rejudge: rj.fn}}})
	m = update(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m = press(t, m, "l", "l", "r") // p3: one order so far
	if got := taskText(rj); got != "p3 p3/swapped" {
		t.Errorf("r with --swap asked %q", got)
	}
	rj.tasks = nil
	m = press(t, m, "R", "y")
	if got := taskText(rj); strings.Count(got, "/swapped") != 4 || strings.Count(got, " ")+1 != 8 {
		t.Errorf("R with --swap asked %q", got)
	}
	// Without --swap.
	rj.tasks = nil
	m2 := New(Options{Store: &fakeStore{}, Annotator: "tester", Dataset: "pairs.jsonl", Items: pairItems(4),
		Runs: []Run{{Info: pairInfo, Verdicts: orig, Swapped: sw, Rejudge: rj.fn}}})
	m2 = update(t, m2, tea.WindowSizeMsg{Width: 100, Height: 30})
	m2 = press(t, m2, "l", "r", "l", "r") // p2 (swapped before), p3 (not)
	if got := taskText(rj); got != "p2 p2/swapped p3" {
		t.Errorf("r without --swap asked %q", got)
	}
}

func taskText(rj *rejudged) string {
	rj.mu.Lock()
	defer rj.mu.Unlock()
	var parts []string
	for _, t := range rj.tasks {
		p := t.Item.ID
		if t.Swapped {
			p += "/swapped"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " ")
}

// Swapped verdicts read after the first frame (Loaded.Swapped) are the
// second order too.
func TestLoadedSwapped(t *testing.T) {
	orig, sw := pairVerdicts()
	m := newTestModel(t, &fakeStore{}, pairItems(4), []Run{{Info: pairInfo, Load: func() (Loaded, error) {
		return Loaded{Verdicts: orig, Swapped: sw}, nil
	}}}, nil, 100, 30)
	m = runCmd(t, m, m.Init(), 0)
	m = press(t, m, "l")
	if _, ok := lineWith(m, "✗ inconsistent under swap"); !ok {
		t.Errorf("loaded swapped verdicts not shown:\n%s", plain(m))
	}
}

// Through a real program: the keys typed after enter go to the picker
// at once, and the label it makes is saved before q ends the program.
func TestPickerThroughProgram(t *testing.T) {
	info := judge.Info{Name: "mt-bench", Dimensions: []judge.Dimension{{Name: "rating", Scale: judge.Scale("ordinal:0-10")}}}
	st := &fakeStore{}
	m := New(Options{Store: st, Annotator: "tester", Dataset: "ratings.jsonl", Items: testItems(2), Runs: []Run{{Info: info}}})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("pick 0–10")) },
		teatest.WithDuration(5*time.Second))
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	tm.Type("10")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("saved")) },
		teatest.WithDuration(5*time.Second))
	tm.Type("q")
	tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second))
	if got := strings.Join(st.labels(), " "); got != "q1.rating=10" {
		t.Errorf("store holds %q", got)
	}
}

// A pair's question opens at its top, where the instruction is, however
// long the content under it; swapped verdicts without a reason (an
// imported column) add no empty heading.
func TestPairwiseQuestionOpensAtTop(t *testing.T) {
	items := pairItems(2)
	items[0].Question = "Summarize the following content.\n\n" + strings.Repeat("A long story about a visa and a distance. ", 60)
	vs := []judge.Verdict{{ItemID: "p1", Status: judge.StatusOK, Values: map[string]float64{"preference": judge.PreferA}}}
	sw := []judge.Verdict{{ItemID: "p1", Swapped: true, Status: judge.StatusOK, Values: map[string]float64{"preference": judge.PreferA}}}
	m := newTestModel(t, &fakeStore{}, items, []Run{{Info: pairInfo, Verdicts: vs, Swapped: sw}}, nil, 80, 24)
	if _, ok := lineWith(m, "Summarize the following content."); !ok {
		t.Errorf("the instruction is not on screen:\n%s", plain(m))
	}
	if _, ok := lineWith(m, "swapped order"); ok {
		t.Errorf("an empty heading for the swapped order:\n%s", plain(m))
	}
}
