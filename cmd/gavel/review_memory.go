package main

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
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
// of its dataset file: under SPEC's 1.5× with room for what the runtime
// holds beside the heap.
const memoryPerFileByte = 1.42

// limitMemory sets a soft memory limit of memoryPerFileByte times the
// dataset file's size for a review of a large one (tuneGC's sizes): when
// the items take most of the limit, the collector runs before the 25 %
// above them that reviewGCPercent allows would pass it. The limit follows
// the live heap up when the items alone come near it (a session with many
// verdicts).
func limitMemory(items int, fileBytes int64) {
	if items < backgroundBuildFrom || fileBytes <= 0 {
		return
	}
	limit := int64(float64(fileBytes) * memoryPerFileByte)
	debug.SetMemoryLimit(limit)
	go followLiveHeap(limit)
}

// followLiveHeap raises the memory limit above the live heap whenever the
// live heap comes within a twentieth of it: closer, the collector would
// run for the little it can free. The limit then does no more than
// reviewGCPercent.
func followLiveHeap(limit int64) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	for range time.Tick(time.Second) {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		live := sample[0].Value.Uint64()
		if live > math.MaxInt64/2 {
			continue
		}
		if l := int64(live); l > limit-limit/20 {
			limit = l + l*reviewGCPercent/100
			debug.SetMemoryLimit(limit)
		}
	}
}
