//go:build !unix

package stats

func cpuSeconds() (float64, bool) { return 0, false }
