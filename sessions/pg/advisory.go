package pg

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// releaseAdvisory returns what ends a session advisory lock (key) held on
// a connection of its own (LockRun, LockScreen): it unlocks, then closes.
// Closing alone leaves the lock to the server's backend, which drops it
// only once it has seen the connection end: a run or a screen started
// right after (again after ^C) could still find it held and be refused.
// The test suite saw it under load (TestRunTeamBatch).
func releaseAdvisory(conn *pgx.Conn, key int64) func() {
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, key)
		conn.Close(ctx)
	}
}
