package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestFilterDisagreementsRecordsProvenance(t *testing.T) {
	items := testItems(6)
	st := &fakeStore{}
	m := newTestModel(t, st, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}, nil, 120, 40)
	// q1: judge YES, you NO; q2: judge NO, you NO; q3: judge YES, you NO.
	m = press(t, m, "n", "n", "n")
	m = press(t, m, "f") // unreviewed
	if m.sel.filter.id != "unreviewed" || len(m.sel.items) != 3 {
		t.Fatalf("filter %q holds %d items", m.sel.filter.id, len(m.sel.items))
	}
	m = press(t, m, "f") // judge ≠ you
	if got := len(m.sel.items); m.sel.filter.id != "disagreements" || got != 2 {
		t.Fatalf("filter %q holds %d items, want the 2 disagreements", m.sel.filter.id, got)
	}
	if m.cur != 0 {
		m = press(t, m, "<")
	}
	if s := plain(m); !strings.Contains(s, "1/2 judge ≠ you") {
		t.Errorf("header does not show the filter:\n%s", s)
	}
	m = press(t, m, "y") // relabel q1 within the filter
	last := st.groups[len(st.groups)-1][0]
	if last.ItemID != "q1" || last.Via != "filter:disagreements" {
		t.Errorf("label recorded as %+v, want q1 via filter:disagreements", last)
	}
	if m.cur != 2 {
		t.Errorf("after labelling, on item index %d, want 2 (the next disagreement)", m.cur)
	}
	m = press(t, m, "F", "F") // back to all items: labels are in order again
	if m.sel.filter.id != "all" || m.provenance() != "order" {
		t.Errorf("filter %q, via %q", m.sel.filter.id, m.provenance())
	}
}

func TestRandomOrderIsReproducible(t *testing.T) {
	items := testItems(30)
	open := func() *Model {
		m := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}, nil, 120, 40)
		return press(t, m, "o", "o")
	}
	a, b := open(), open()
	if a.sel.order != orderRandom || a.provenance() != "random" {
		t.Fatalf("order %v, via %q", a.sel.order, a.provenance())
	}
	if strings.Join(ids(a), ",") != strings.Join(ids(b), ",") {
		t.Error("two random orders of the same session differ")
	}
	sorted := true
	for k := 1; k < len(a.sel.items); k++ {
		sorted = sorted && a.sel.items[k] > a.sel.items[k-1]
	}
	if sorted {
		t.Error("the random order is the dataset order")
	}
}

func ids(m *Model) []string {
	var out []string
	for _, i := range m.sel.items {
		out = append(out, m.items[i].ID)
	}
	return out
}

func TestSearchFilter(t *testing.T) {
	items := testItems(12)
	m := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}, nil, 120, 40)
	m = press(t, m, "/")
	m = update(t, m, tea.PasteMsg{Content: "number 11"})
	m = press(t, m, "enter")
	if got := ids(m); strings.Join(got, ",") != "q11" || m.cur != 10 {
		t.Errorf("search found %v, on item %d", got, m.cur)
	}
}

func TestListViewOpensAnItem(t *testing.T) {
	items := testItems(40)
	m := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}, nil, 80, 24)
	m = press(t, m, "L")
	s := plain(m)
	for _, want := range []string{"Items · all items · dataset order · 40 of 40", "q1 ", "Question number 1?", "judge"} {
		if !strings.Contains(s, want) {
			t.Errorf("list lacks %q:\n%s", want, s)
		}
	}
	checkFits(t, s, 80, 24)
	m = press(t, m, "down", "down", "down", "enter")
	if m.screen != screenReview || m.cur != 3 {
		t.Errorf("enter opened item %d on screen %d, want item 3 in review", m.cur, m.screen)
	}
	// A million-row list costs no more to draw: only visible rows render.
	m = press(t, m, "L", "end")
	if s := plain(m); !strings.Contains(s, "q40") {
		t.Errorf("end does not reach the last row:\n%s", s)
	}
}

func TestBlindModeHidesTheVerdictUntilLabelled(t *testing.T) {
	items := testItems(3)
	st := &fakeStore{}
	m := New(Options{Store: st, Annotator: "a", Dataset: "d", Items: items, Blind: true,
		Runs: []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}})
	m = update(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	s := plain(m)
	if !strings.Contains(s, "judge hidden") || strings.Contains(s, "judge YES") || strings.Contains(s, "normalized-exact") {
		t.Fatalf("verdict visible in blind mode:\n%s", s)
	}
	m = press(t, m, "a")
	if len(st.groups) != 0 || !strings.Contains(plain(m), "Blind mode") {
		t.Errorf("accept worked in blind mode: %+v", st.groups)
	}
	m = press(t, m, "n", "<")
	if s := plain(m); !strings.Contains(s, "judge YES") || !strings.Contains(s, "✗ disagree") {
		t.Errorf("verdict not shown after labelling:\n%s", s)
	}
}
