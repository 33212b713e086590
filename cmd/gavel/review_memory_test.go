package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// A large review's soft memory limit follows its dataset file's size; a
// small one keeps the runtime's default (no limit).
func TestLimitMemory(t *testing.T) {
	was := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(was)
	debug.SetMemoryLimit(math.MaxInt64)
	limitMemory(backgroundBuildFrom-1, 1<<30)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("a small review set a limit of %d", got)
	}
	size := int64(1 << 40)
	limitMemory(backgroundBuildFrom, size) // far above this test's heap: never raised
	if got, want := debug.SetMemoryLimit(-1), int64(float64(size)*memoryPerFileByte); got != want {
		t.Errorf("limit %d, want %d", got, want)
	}
}
