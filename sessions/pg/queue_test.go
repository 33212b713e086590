package pg_test

import (
	"context"
	"testing"

	"github.com/gavel-dev/gavel/internal/pgtest"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/pg"
	"github.com/gavel-dev/gavel/sessions/queuetest"
)

// openQueue copies a fresh queuetest session into PostgreSQL and returns
// its queue.
func openQueue(t *testing.T, srv *pgtest.Server) *pg.Queue {
	t.Helper()
	ctx := context.Background()
	st, err := pg.Connect(ctx, srv.URL(pgtest.Name(t)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pg.CopyFromSQLite(ctx, queuetest.NewSession(t), st, pg.CopyOptions{}); err != nil {
		st.Close()
		t.Fatal(err)
	}
	return pg.NewQueue(ctx, st)
}

// The contract suite on PostgreSQL, over a session copied from SQLite.
func TestQueueContract(t *testing.T) {
	srv := pgtest.Shared(t)
	queuetest.Run(t, func(t *testing.T) sessions.Queue { return openQueue(t, srv) })
}
