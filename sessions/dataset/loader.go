package dataset

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gavel-dev/gavel/judge"
)

// loader holds the state of one load.
type loader struct {
	ds      *Dataset
	name    string
	opts    Options
	userMap map[string]string
	harness bool
	csv     bool
	plan    plan
	// keys are the fields discovery saw, for messages.
	keys []string

	// One slot per possible row; drivers fill them in parallel and finish
	// packs the filled ones together.
	items []judge.Item
	locs  []rowLoc
	cols  [][]string // imported values, parallel to items

	bad badRows

	// chunkSlots[c] is the first slot of chunk c of a JSONL parse
	// (parseChunks, Stream), chunkSlots[c+1] the end of its slots.
	chunkSlots []int
	// discovered is how many rows the mapping of a JSONL file read
	// (mapJSONL): discoverRows unless the text had fewer good ones.
	discovered int
}

// rowLoc is where a row came from. line 0 marks an empty slot.
type rowLoc struct {
	line int32
	elem int32 // -1 unless the row is an element of a JSON document
}

// badRows collects the bad rows of one chunk of work: how many, and the
// first few in file order.
type badRows struct {
	count int
	first []*RowError
}

const maxSkippedSamples = 5

func (b *badRows) add(e *RowError) {
	b.count++
	if len(b.first) < maxSkippedSamples {
		b.first = append(b.first, e)
	}
}

func (b *badRows) merge(o *badRows) {
	b.count += o.count
	for _, e := range o.first {
		if len(b.first) < maxSkippedSamples {
			b.first = append(b.first, e)
		}
	}
}

// allocSlots makes room for n rows.
func (l *loader) allocSlots(n int) {
	l.items = make([]judge.Item, n)
	l.locs = make([]rowLoc, n)
	l.cols = make([][]string, len(l.plan.imported))
	for i := range l.cols {
		l.cols[i] = make([]string, n)
	}
}

// clearSlot empties a slot whose row turned out bad.
func (l *loader) clearSlot(slot int) {
	l.items[slot] = judge.Item{}
	l.locs[slot] = rowLoc{}
	for _, c := range l.cols {
		c[slot] = ""
	}
}

// parallel runs work(chunk, bad) for chunks 0..n-1 on every core. Without
// SkipBad, a chunk's work stops at its first bad row and later chunks are
// abandoned once an earlier one has failed; the bad rows of all chunks are
// merged in chunk order, so the first reported is the first in the file.
func (l *loader) parallel(n int, work func(chunk int, bad *badRows, stop func(chunk int) bool)) {
	bads := make([]badRows, n)
	var next atomic.Int64
	var failed atomic.Int64 // lowest chunk with a bad row, +1; 0 = none
	stop := func(chunk int) bool {
		f := failed.Load()
		return !l.opts.SkipBad && f != 0 && int(f-1) < chunk
	}
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				c := int(next.Add(1) - 1)
				if c >= n {
					return
				}
				if stop(c) {
					continue
				}
				work(c, &bads[c], stop)
				if bads[c].count > 0 && !l.opts.SkipBad {
					for {
						f := failed.Load()
						if (f != 0 && int(f-1) <= c) || failed.CompareAndSwap(f, int64(c+1)) {
							break
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	for i := range bads {
		l.bad.merge(&bads[i])
		if l.bad.count > 0 && !l.opts.SkipBad {
			break
		}
	}
}
