package tui

import (
	"slices"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats/render"
)

// staticFilter is the static filter id, offered or not.
func staticFilter(t *testing.T, id string) filter {
	t.Helper()
	for _, f := range staticFilters {
		if f.id == id {
			return f
		}
	}
	t.Fatalf("no static filter %q", id)
	return filter{}
}

// verdictFilterItems: q1 YES (confidence 90 %), q2 a parse error, q3 YES
// (confidence 20 %), q4 truncated; alice labelled q1 and q3 YES.
func verdictFilterItems() ([]judge.Item, []judge.Verdict, []sessions.Label) {
	items := testItems(4)
	vs := verdictsFor(items)
	hi, lo := 0.9, 0.2
	vs[0].Confidence, vs[2].Confidence = &hi, &lo
	vs[1].Status, vs[1].Values = judge.StatusParseError, nil
	vs[3].Status, vs[3].Values = judge.StatusTruncated, nil
	others := []sessions.Label{
		{ItemID: "q1", Dimension: "correct", Value: 1, Annotator: "alice"},
		{ItemID: "q3", Dimension: "correct", Value: 1, Annotator: "alice"},
	}
	return items, vs, others
}

// With --blind-share outside blind mode, the filters and the order that
// read the judge's verdict tell nothing of a hidden item: the statistics
// screen's cell filter, "parse or API errors", "truncated prompts" leave
// it out, and the least-confident order puts it after the items it ranks,
// in dataset order. Once labelled (shown), it is matched and ranked.
func TestHiddenItemsOutOfVerdictFiltersAndOrder(t *testing.T) {
	items, vs, others := verdictFilterItems()
	cell := cellFilter(matchInfo.Dimensions[0], render.Target{Judge: "match", Dimension: "correct", Verdict: 1, Human: 1}, false)
	for _, tc := range []struct {
		name  string
		share float64
		hide  bool
		order []int
	}{
		{"blind share", 1, true, []int{0, 1, 2, 3}},
		{"none hidden", 0, false, []int{2, 0, 1, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := openWith(t, Options{Store: &fakeStore{}, Items: items, Runs: []Run{{Info: matchInfo, Verdicts: vs}},
				Others: others, BlindShare: tc.share, Seed: 1}, 120, 40)
			for _, c := range []struct {
				what string
				f    filter
				item int
			}{
				{"the cell judge YES · human YES", cell, 0},
				{"parse or API errors", staticFilter(t, "errors"), 1},
				{"truncated prompts", staticFilter(t, "truncated"), 3},
			} {
				if got := c.f.match(m.workspace, c.item); got == tc.hide {
					t.Errorf("%s matches q%d: %v, hidden %v", c.what, c.item+1, got, tc.hide)
				}
			}
			m.sel.order = orderLeastConfident
			m.reselect()
			if !slices.Equal(m.sel.items, tc.order) {
				t.Errorf("least confident first: %v, want %v", m.sel.items, tc.order)
			}
		})
	}
	// Labelled, the blind items show their verdicts and are ranked.
	m := openWith(t, Options{Store: &fakeStore{}, Items: items, Runs: []Run{{Info: matchInfo, Verdicts: vs}},
		Others: others, BlindShare: 1, Seed: 1}, 120, 40)
	m = press(t, m, "y", "right", "y")
	m.sel.order = orderLeastConfident
	m.reselect()
	if want := []int{2, 0, 1, 3}; !slices.Equal(m.sel.items, want) {
		t.Errorf("least confident first once q1 and q3 are labelled: %v, want %v", m.sel.items, want)
	}
	if !cell.match(m.workspace, 0) {
		t.Error("the cell filter leaves out q1 once it is labelled")
	}
}

// Can't judge is left out of agreement between people on the screen as in
// the statistics: this person's label on an item they then marked can't
// judge, and another annotator's label on an item that annotator marked
// can't judge, count neither in "annotators disagree" nor in the humans'
// reference of the statistics screen's cell filter.
func TestCantJudgeOutOfAgreementBetweenPeople(t *testing.T) {
	items := testItems(3) // the judge: q1 YES, q2 NO, q3 YES
	var history []sessions.Action
	for k, id := range []string{"q1", "q3"} {
		g := int64(2*k + 1)
		history = append(history,
			sessions.Action{ID: g, Group: g, Kind: sessions.KindLabel, ItemID: id, Dimension: "correct", Value: 1, Annotator: "tester"},
			sessions.Action{ID: g + 1, Group: g + 1, Kind: sessions.KindCantJudge, ItemID: id, Reason: sessions.ReasonGoldWrong, Annotator: "tester"})
	}
	others := []sessions.Label{
		{ItemID: "q2", Dimension: "correct", Value: 1, Annotator: "alice"},
		{ItemID: "q2", Dimension: "correct", Value: 0, Annotator: "bob"},
		{ItemID: "q3", Dimension: "correct", Value: 0, Annotator: "alice"},
	}
	m := openWith(t, Options{Store: &fakeStore{}, Items: items, Runs: []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}},
		History: history, Others: others,
		OthersCantJudge: []sessions.CantJudge{{ItemID: "q2", Annotator: "bob", Reason: sessions.ReasonAmbiguous}}}, 120, 40)
	differ := staticFilter(t, "annotators-differ")
	for i, want := range []bool{false, false, false} {
		if got := differ.match(m.workspace, i); got != want {
			t.Errorf("annotators disagree on q%d: %v, want %v", i+1, got, want)
		}
	}
	yesYes := cellFilter(matchInfo.Dimensions[0], render.Target{Dimension: "correct", Verdict: 1, Human: 1}, false)
	noYes := cellFilter(matchInfo.Dimensions[0], render.Target{Dimension: "correct", Verdict: 0, Human: 1}, false)
	if yesYes.match(m.workspace, 0) {
		t.Error("q1, which this person cannot judge, is in the cell judge YES · human YES by their label")
	}
	if !noYes.match(m.workspace, 1) {
		t.Error("q2 is not in the cell judge NO · human YES: bob's label on an item bob cannot judge tied it")
	}
	if l := screenLine(m, "bob"); l != "" {
		t.Errorf("the screen shows bob's label on an item bob cannot judge: %q", l)
	}
}
