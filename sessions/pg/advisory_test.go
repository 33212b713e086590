package pg_test

import (
	"context"
	"testing"
)

// A run's or a screen's lock is free once released, at once: taken and
// released again and again, it is never found still held (closing the
// connection alone left it to the server, which dropped it a moment
// later; a run started right after a ^C was refused under load). While
// held, a second taker is refused.
func TestLocksFreeOnRelease(t *testing.T) {
	st := connect(t)
	ctx := context.Background()
	for _, lock := range []struct {
		name string
		take func() (func(), error)
	}{
		{"gavel run", func() (func(), error) { return st.LockRun(ctx) }},
		{"review screen", func() (func(), error) { return st.LockScreen(ctx, "ann") }},
	} {
		t.Run(lock.name, func(t *testing.T) {
			release, err := lock.take()
			if err != nil {
				t.Fatal(err)
			}
			if again, err := lock.take(); err == nil {
				again()
				t.Fatal("a second taker got the lock while it was held")
			}
			release()
			for i := range 40 {
				release, err := lock.take()
				if err != nil {
					t.Fatalf("round %d, right after a release: %v", i, err)
				}
				release()
			}
		})
	}
}
