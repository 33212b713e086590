package tui

import (
	"hash/maphash"
	"math/bits"

	"github.com/gavel-dev/gavel/judge"
)

// itemIndex finds an item's position from its ID. It is a table of
// positions hashed by the IDs the items themselves hold, with two to four
// int32 slots an item: 8 to 16 bytes, where a map[string]int takes about
// 40 at a million items (its key is a copy of the string header).
type itemIndex struct {
	items []judge.Item // the items placed so far
	// slots hold a position plus one, 0 for an empty slot; their count
	// is a power of two.
	slots []int32
	seed  maphash.Seed
}

// newItemIndex returns an index with room for n items (more make it grow).
func newItemIndex(n int) *itemIndex {
	x := &itemIndex{seed: maphash.MakeSeed()}
	x.slots = make([]int32, slotsFor(n))
	return x
}

// slotsFor is the table size for n items: a power of two, at least 2n.
func slotsFor(n int) int {
	return 1 << bits.Len(uint(max(2*n, 16)-1))
}

// add places items[len(x.items):], items being every item so far (the
// ones already placed unchanged). A later item with the ID of an earlier
// one takes its place, as a map would.
func (x *itemIndex) add(items []judge.Item) {
	from := len(x.items)
	x.items = items
	if 2*len(items) > len(x.slots) {
		x.rehash()
		return
	}
	for i := from; i < len(items); i++ {
		x.put(i)
	}
}

func (x *itemIndex) rehash() {
	x.slots = make([]int32, slotsFor(len(x.items)))
	for i := range x.items {
		x.put(i)
	}
}

func (x *itemIndex) put(i int) {
	id := x.items[i].ID
	mask := len(x.slots) - 1
	for s := int(maphash.String(x.seed, id)) & mask; ; s = (s + 1) & mask {
		switch p := x.slots[s]; {
		case p == 0:
			x.slots[s] = int32(i + 1)
			return
		case x.items[p-1].ID == id:
			x.slots[s] = int32(i + 1)
			return
		}
	}
}

// at returns the position of the item with id.
func (x *itemIndex) at(id string) (int, bool) {
	if x == nil || len(x.slots) == 0 {
		return 0, false
	}
	mask := len(x.slots) - 1
	for s := int(maphash.String(x.seed, id)) & mask; ; s = (s + 1) & mask {
		p := x.slots[s]
		if p == 0 {
			return 0, false
		}
		if x.items[p-1].ID == id {
			return int(p - 1), true
		}
	}
}
