package sessions

import (
	"fmt"
	"time"
)

// timeLayout is how times are stored: UTC, to the millisecond, fixed width,
// so that text order is time order and SQLite's date functions read them.
const timeLayout = "2006-01-02T15:04:05.000Z"

// stamp converts a time to its stored form.
func stamp(t time.Time) string { return t.UTC().Format(timeLayout) }

// now returns the current time at the precision times are stored with, so
// that what a method returns equals what a later read returns.
func now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

// parseStamp reads a stored time.
func parseStamp(s string) (time.Time, error) {
	t, err := time.Parse(timeLayout, s)
	if err != nil {
		// Accept any RFC 3339 time someone wrote with another tool.
		if t2, err2 := time.Parse(time.RFC3339Nano, s); err2 == nil {
			return t2.UTC(), nil
		}
		return time.Time{}, fmt.Errorf("bad time %q in session", s)
	}
	return t, nil
}
