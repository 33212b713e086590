//go:build race

package sessions

// raceDetector is true in builds with the race detector, which slows the
// pure-Go SQLite a lot: tests that write tens of thousands of rows use
// fewer then.
const raceDetector = true
