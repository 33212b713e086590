package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"
)

// startProfile writes a CPU profile of the whole command to the file that
// GAVEL_CPUPROFILE names, for the performance work (scripts/perf): the
// whole command a user runs, process start and session open included,
// which a Go benchmark of one function misses. GAVEL_MEMPROFILE names a
// file for a heap profile taken at the command's peak (startMemProfile).
// It returns the function that ends the profiles; a profile that cannot
// start is said on stderr and the command runs anyway.
func startProfile(getenv func(string) string) func() {
	endMem := startMemProfile(getenv("GAVEL_MEMPROFILE"))
	path := getenv("GAVEL_CPUPROFILE")
	if path == "" {
		return endMem
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
		return endMem
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
		endMem()
	}
}

// memProfileEvery is how often the live heap is looked at for a new peak.
const memProfileEvery = 50 * time.Millisecond

// startMemProfile writes a heap profile to path (nothing when path is "")
// of the largest live heap the process reaches: what a peak of its memory
// is made of, which a profile at its end misses (the dataset read, then
// dropped). The live heap, as the last collection measured it, is looked
// at every memProfileEvery; the profile is written once two more
// collections have ended after it grew a twentieth past the largest seen
// (a heap profile shows the allocations of two collections before), or
// when the command ends. Read it with go tool pprof -sample_index=inuse_space.
// GAVEL_MEMDEBUG set also says each new peak on stderr.
func startMemProfile(path string) func() {
	if path == "" {
		return func() {}
	}
	debug := os.Getenv("GAVEL_MEMDEBUG") != ""
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}
	var peak, peakCycle uint64
	pending := false
	write := func() {
		f, err := os.Create(path)
		if err == nil {
			err = pprof.WriteHeapProfile(f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "gavel: GAVEL_MEMPROFILE: %v\n", err)
		}
		pending = false
	}
	look := func() {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 || sample[1].Value.Kind() != metrics.KindUint64 {
			return
		}
		live, cycle := sample[0].Value.Uint64(), sample[1].Value.Uint64()
		if live > peak+peak/20 {
			peak, peakCycle, pending = live, cycle, true
			if debug {
				fmt.Fprintf(os.Stderr, "memprofile: live heap %d MB (collection %d)\n", live>>20, cycle)
			}
		}
		if pending && cycle >= peakCycle+2 {
			write()
		}
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(memProfileEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				look()
				if pending {
					runtime.GC()
					runtime.GC()
					write()
				}
				return
			case <-t.C:
				look()
			}
		}
	}()
	return func() {
		close(stop)
		<-done
	}
}
