package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startProfile writes a CPU profile of the whole command to the file that
// GAVEL_CPUPROFILE names, for the performance work (scripts/perf): the
// whole command a user runs, process start and session open included,
// which a Go benchmark of one function misses. It returns the function
// that ends the profile; a profile that cannot start is said on stderr
// and the command runs anyway.
func startProfile(getenv func(string) string) func() {
	path := getenv("GAVEL_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
		if err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gavel: GAVEL_CPUPROFILE: %v (running without a profile)\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
