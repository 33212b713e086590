package tui

import (
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// othersBenchModel is benchModel with two other annotators' labels on
// every item (a labelled dataset's imported human columns), on the
// adjudication queue when adjudicate is set.
func othersBenchModel(b *testing.B, n int, adjudicate bool) *Model {
	b.Helper()
	items := make([]judge.Item, n)
	vs := make([]judge.Verdict, n)
	others := make([]sessions.Label, 0, 2*n)
	for i := range items {
		id := fmt.Sprintf("item-%07d", i)
		items[i] = judge.Item{Index: i, ID: id, Question: "According to the report, how many distribution centres did the company operate at the end of the year?",
			Gold: "14", Prediction: "The report lists 14 distribution centres in operation at year end.",
			Segments: map[string]string{"category": "doc-qa"}}
		vs[i] = judge.Verdict{ItemID: id, Status: judge.StatusOK, Values: map[string]float64{"correct": float64(i % 2)}}
		// Two people who disagree on every other item: half the items
		// wait for adjudication.
		others = append(others,
			sessions.Label{ItemID: id, Dimension: "correct", Value: 1, Annotator: "ana", Via: sessions.ViaImported, ActionID: int64(2*i + 1)},
			sessions.Label{ItemID: id, Dimension: "correct", Value: float64(i % 2), Annotator: "bo", Via: sessions.ViaImported, ActionID: int64(2*i + 2)})
	}
	m := New(Options{Store: &fakeStore{}, Annotator: "me", Dataset: "bench.jsonl", Items: items, Runs: []Run{{Info: matchInfo, Verdicts: vs}},
		Others: others, Adjudicate: adjudicate})
	next, _ := m.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
	return next.(*Model)
}

// BenchmarkKeyPressOthers labels an item and draws the frame, with two
// other annotators' labels on every item: on the review, and on the
// adjudication queue (whose header counts the items left).
func BenchmarkKeyPressOthers(b *testing.B) {
	for _, adj := range []bool{false, true} {
		m := othersBenchModel(b, 1_000_000, adj)
		b.Run(fmt.Sprintf("adjudicate=%v", adj), func(b *testing.B) {
			yes := keyMsg("y")
			for b.Loop() {
				next, _ := m.Update(yes)
				m = next.(*Model)
				_ = m.View()
			}
		})
	}
}

// BenchmarkAdjudicationLeft counts the items to adjudicate afresh (as
// after the others' labels change), with two other annotators' labels on
// each of a million items.
func BenchmarkAdjudicationLeft(b *testing.B) {
	m := othersBenchModel(b, 1_000_000, true)
	for b.Loop() {
		m.adj.leftKey = adjLeftKey{labelsGen: -1}
		_ = m.adjudicationLeft()
	}
}
