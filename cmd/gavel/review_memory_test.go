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

// The limit goes an eighth above a live heap that comes within a
// twentieth of it, and back down, not under the base, once the live heap
// has fallen a quarter below it.
func TestNextLimit(t *testing.T) {
	for _, tc := range []struct {
		name                    string
		live, limit, base, want int64
	}{
		{"well under the base", 700, 1000, 1000, 1000},
		{"within a twentieth of the base", 960, 1000, 1000, 1080},
		{"just under a twentieth", 950, 1000, 1000, 1000},
		{"raised, the live heap still near", 1040, 1080, 1000, 1170},
		{"raised, the live heap a little lower", 900, 1080, 1000, 1080},
		{"raised, the live heap fallen back", 800, 1080, 1000, 1000},
		{"raised high, the live heap fallen part of the way", 1000, 1400, 1000, 1125},
		{"at a base limitMemory raised", 700, 1200, 1200, 1200},
	} {
		if got := nextLimit(tc.live, tc.limit, tc.base); got != tc.want {
			t.Errorf("%s: nextLimit(%d, %d, %d) = %d, want %d", tc.name, tc.live, tc.limit, tc.base, got, tc.want)
		}
	}
}

// A labelled dataset's build runs under the memory limit when the file is
// large enough that the limit leaves wide room above it: the 1M rows of
// scripts/perf (636 MB), not its 100,000 (64 MB).
func TestBuildsUnderLimit(t *testing.T) {
	for _, tc := range []struct {
		bytes int64
		want  bool
	}{{635_772_870, true}, {63_583_146, false}, {0, false}} {
		if got := buildsUnderLimit(tc.bytes); got != tc.want {
			t.Errorf("buildsUnderLimit(%d) = %v, want %v", tc.bytes, got, tc.want)
		}
	}
}
