package main

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// reviewGCPercent is the garbage collector's target while a large dataset
// is reviewed: the items are most of the heap and live until the end, so
// the default (let the heap double before collecting) would hold about as
// much garbage as items. Collections stay rare once the items are in: a
// key press allocates little.
const reviewGCPercent = 25

// tuneGC lowers the collector's target for a review of items items, from
// the size where the screen already works in the background.
func tuneGC(items int) {
	if items >= backgroundBuildFrom {
		debug.SetGCPercent(reviewGCPercent)
	}
}

// memoryPerFileByte is the soft memory limit of a large review, per byte
// of its dataset file. The limit bounds what the Go runtime maps (heap,
// stacks, its own tables); the process's resident size is about 45 MB
// more at a million items (the binary's pages, SQLite's C memory): at
// 1.42 a review of the 636 MB labelled file peaked at 1.49x, on the edge
// of SPEC's 1.5x, whenever the limit held the heap. At 1.38 it peaks at
// ~1.44x; the collector then runs about once a second while a judge
// works, with the items, the verdicts and the others' labels at ~1.24x.
const memoryPerFileByte = 1.38

// memoryLimit is the limit limitMemory set last (its base), which
// followLiveHeap, started once, keeps above the live heap.
var memoryLimit struct {
	base   atomic.Int64
	follow sync.Once
}

// limitMemory sets a soft memory limit of memoryPerFileByte times the
// dataset file's size for a review of a large one (tuneGC's sizes): when
// the items take most of the limit, the collector runs before the 25 %
// above them that reviewGCPercent allows would pass it. The limit follows
// the live heap up when the items alone come near it (a session with many
// verdicts), and back down (followLiveHeap).
//
// A new labelled dataset's session is built behind the screen, its
// verdict and label columns imported as it is written: the limit holds
// that build when the room it leaves above the file is wide
// (buildsUnderLimit); without it the build's heap grew to 1.25 times its
// live heap, ~1.51x the 636 MB file at one run. A smaller file's build
// (SQLite's pages and the import's values beside the items: 1.4-2.4x the
// file at 100,000 rows) would keep the collector running for little: its
// limit starts once the session is written (the imported columns reached
// the screen of 100,000 rows 0.8 s later under it).
func limitMemory(items int, fileBytes int64) {
	if items < backgroundBuildFrom || fileBytes <= 0 {
		return
	}
	limit := int64(float64(fileBytes) * memoryPerFileByte)
	memoryLimit.base.Store(limit)
	debug.SetMemoryLimit(limit)
	memoryLimit.follow.Do(func() { go followLiveHeap() })
}

// buildRoom is the room above the file, in bytes, from which a labelled
// dataset's build runs under the review's memory limit: (1.38 - 1) x 636
// MB is 242 MB; at 100,000 rows (64 MB) it would be 24 MB.
const buildRoom = 128 << 20

// buildsUnderLimit reports whether the build of a new labelled dataset's
// session, of a file of fileBytes, runs under the review's memory limit
// (limitMemory).
func buildsUnderLimit(fileBytes int64) bool {
	return float64(fileBytes)*(memoryPerFileByte-1) >= buildRoom
}

// followEvery is how often followLiveHeap looks at the live heap: often
// enough that a heap that passes its limit in a second (a dataset of
// tens of thousands of items, read) is not held under it for long.
const followEvery = 250 * time.Millisecond

// followLiveHeap keeps the memory limit above the live heap (nextLimit),
// as the last collection measured it.
func followLiveHeap() {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	for range time.Tick(followEvery) {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		live := sample[0].Value.Uint64()
		if live > math.MaxInt64/2 {
			continue
		}
		limit := debug.SetMemoryLimit(-1)
		if next := nextLimit(int64(live), limit, memoryLimit.base.Load()); next != limit {
			debug.SetMemoryLimit(next)
		}
	}
}

// nextLimit is the memory limit for a live heap of live bytes under limit
// (base: limitMemory's). When the live heap comes within a twentieth of
// the limit (closer, the collector would run for the little it can
// free) the limit goes to an eighth above it, not reviewGCPercent's
// quarter: past the base every byte counts against SPEC's 1.5x. Once the
// live heap has fallen back so far that a quarter above it stays under
// the limit (a moment's peak: a judge's verdicts read, the others'
// labels placed), the limit comes down to an eighth above it, to the
// base at the lowest.
func nextLimit(live, limit, base int64) int64 {
	switch {
	case live > limit-limit/20:
		return live + live/8
	case limit > base && live+live/4 < limit:
		return max(base, live+live/8)
	}
	return limit
}
