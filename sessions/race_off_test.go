//go:build !race

package sessions

// raceDetector is true in builds with the race detector (see
// race_on_test.go).
const raceDetector = false
