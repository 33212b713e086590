package tui

import (
	"fmt"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// BenchmarkItemsPage is the screen's loop taking in one page of items read
// in the background (Options.MoreItems): the time during which a key press
// would wait. Pages are added to a screen that holds 100,000 items, with
// one judge and with three (each judge's tally takes in the page).
func BenchmarkItemsPage(b *testing.B) {
	for _, judges := range []int{1, 3} {
		b.Run(fmt.Sprintf("judges=%d", judges), func(b *testing.B) {
			const held, page = 100_000, 5_000
			items := testItems(held + page*b.N)
			var runs []Run
			for k := range judges {
				info := matchInfo
				info.Name = fmt.Sprintf("judge %d", k+1)
				runs = append(runs, Run{Info: info})
			}
			m := New(Options{Store: &fakeStore{}, Annotator: "tester", Dataset: "big.jsonl", Items: items[:held],
				Runs: runs, ItemCount: len(items),
				MoreItems: func() ([]judge.Item, bool, error) { return nil, false, nil }})
			b.ResetTimer()
			for i := range b.N {
				m.gotItems(itemsMsg{items: items[:held+page*(i+1)]})
			}
		})
	}
}
