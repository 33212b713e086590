package sessions

import (
	"runtime"
	"runtime/metrics"
)

// maxBuildGCPercent caps buildGCTarget: past it the garbage of the writes
// is collected too seldom for more room to matter.
const maxBuildGCPercent = 25

// buildGCTarget collects the garbage the caller left (the dataset's read)
// and returns the GC target (GOGC) for BuildSession's writes:
// buildGCPercent of the live heap, or more when the heap the process
// holds already (what the read needed at its peak, free now but still
// counted in the process's resident size) leaves more room than that
// above the live heap, up to maxBuildGCPercent. The room costs no memory
// the process did not hold.
//
// Writing a row leaves about 750 bytes of garbage (database/sql's
// arguments, the driver's bindings): 750 MB for a million items. At 2 %
// of the live heap the collector ran every 12 MB when the items took 620
// MB (a dataset read as a stream), each time marking every item: 62
// collections and about 5 s of CPU, where the ~90 MB the stream's read
// left free need a dozen. Items read whole with the file (Load) leave
// little free above them, and keep the 2 %.
func buildGCTarget() int {
	runtime.GC() // the live heap now, not as the last collection saw it
	s := []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
	}
	metrics.Read(s)
	for _, x := range s {
		if x.Value.Kind() != metrics.KindUint64 {
			return buildGCPercent
		}
	}
	live := s[0].Value.Uint64()
	held := s[1].Value.Uint64() + s[2].Value.Uint64() + s[3].Value.Uint64()
	if live == 0 || held <= live {
		return buildGCPercent
	}
	p := (held - live) * 100 / live
	return int(min(max(p, buildGCPercent), maxBuildGCPercent))
}
