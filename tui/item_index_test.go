package tui

import (
	"fmt"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// atOf is index.at's position, -1 for an unknown id.
func atOf(x *itemIndex, id string) int {
	if i, ok := x.at(id); ok {
		return i
	}
	return -1
}

// The index finds every item placed, page by page and past the size it
// was made for; an unknown id is not found; a repeated id is the last
// item's, as with a map.
func TestItemIndex(t *testing.T) {
	var items []judge.Item
	for i := range 5000 {
		items = append(items, judge.Item{Index: i, ID: fmt.Sprintf("id-%d", (i*7919)%5000)})
	}
	x := newItemIndex(1000) // fewer than will come: it grows
	if atOf(x, "id-1") != -1 {
		t.Error("an empty index finds an item")
	}
	for n := 0; n < len(items); n += 777 {
		x.add(items[:min(n+777, len(items))])
		for i := range min(n+777, len(items)) {
			if got := atOf(x, items[i].ID); got != i {
				t.Fatalf("after %d items: %s at %d, want %d", min(n+777, len(items)), items[i].ID, got, i)
			}
		}
	}
	if atOf(x, "nope") != -1 || atOf(x, "") != -1 {
		t.Error("an unknown id is found")
	}
	dup := append(items[:len(items):len(items)], judge.Item{ID: "id-3"})
	x.add(dup)
	if got := atOf(x, "id-3"); got != len(dup)-1 {
		t.Errorf("a repeated id is at %d, want the last item %d", got, len(dup)-1)
	}
	if len(x.slots) < 2*len(dup) {
		t.Errorf("%d slots for %d items", len(x.slots), len(dup))
	}
	var none *itemIndex
	if _, ok := none.at("x"); ok {
		t.Error("a nil index finds an item")
	}
}
