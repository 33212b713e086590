package tui

import (
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
)

// benchModel is a review screen over n items, each with a verdict, at
// 200×50.
func benchModel(b *testing.B, n int) *Model {
	b.Helper()
	items := make([]judge.Item, n)
	vs := make([]judge.Verdict, n)
	for i := range items {
		id := fmt.Sprintf("item-%07d", i)
		items[i] = judge.Item{Index: i, ID: id, Question: "According to the report, how many distribution centres did the company operate at the end of the year?",
			Gold: "14", Prediction: "<think>The report lists them by region.</think>The report lists 14 distribution centres in operation at year end.",
			Segments: map[string]string{"category": "doc-qa"}}
		vs[i] = judge.Verdict{ItemID: id, Status: judge.StatusOK, Values: map[string]float64{"correct": float64(i % 2)},
			Reason: "rule \"number\": 14 equals gold \"14\"", Extra: map[string]any{"extracted_answer": "14"}}
	}
	m := New(Options{Store: &fakeStore{}, Dataset: "bench.jsonl", Items: items, Runs: []Run{{Info: matchInfo, Verdicts: vs}}})
	next, _ := m.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
	return next.(*Model)
}

// BenchmarkView draws one frame, moving to the next item each time so no
// frame is served from the wrap cache alone.
func BenchmarkView(b *testing.B) {
	for _, n := range []int{100, 1_000_000} {
		m := benchModel(b, n)
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			right := keyMsg("right")
			for b.Loop() {
				next, _ := m.Update(right)
				m = next.(*Model)
				_ = m.View()
			}
		})
	}
}

// BenchmarkKeyPress labels an item (the costliest key: it updates the
// derived counts and queues the save) and draws the frame after it.
func BenchmarkKeyPress(b *testing.B) {
	for _, n := range []int{100, 1_000_000} {
		m := benchModel(b, n)
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			yes := keyMsg("y")
			for b.Loop() {
				if m.cur == len(m.items)-1 {
					m.show(0)
				}
				next, _ := m.Update(yes)
				m = next.(*Model)
				_ = m.View()
			}
		})
	}
}

// BenchmarkSearchKey is what the event loop spends on a search's enter at
// 1,000,000 items: starting the search and taking one chunk's result.
// The matching itself runs in commands, off the loop (searchFrom).
func BenchmarkSearchKey(b *testing.B) {
	m := benchModel(b, 1_000_000)
	for b.Loop() {
		next, cmd := m.Update(searchQueryMsg{query: "distribution centres"})
		m = next.(*Model)
		if cmd == nil {
			b.Fatal("no search command")
		}
		next, _ = m.Update(searchResultMsg{gen: m.search.gen, next: searchChunk, matches: []int{0, 1, 2}})
		m = next.(*Model)
	}
}

// BenchmarkSearchChunk is one chunk of matching (searchChunk items), the
// work one command does away from the event loop.
func BenchmarkSearchChunk(b *testing.B) {
	m := benchModel(b, searchChunk)
	next, _ := m.Update(searchQueryMsg{query: "Distribution Centres"})
	m = next.(*Model)
	for b.Loop() {
		if msg := m.searchFrom(0)().(searchResultMsg); len(msg.matches) != searchChunk {
			b.Fatalf("%d matches", len(msg.matches))
		}
	}
}
