package main

import "runtime/debug"

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
