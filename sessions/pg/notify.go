package pg

import (
	"context"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// A write that others should see at once (a team's actions, verdicts,
// runs, an assignment) ends its transaction with a notification on the
// session's channel, "gavel_" + the session's name, whose payload says
// what changed: "TABLE:MAX ID WRITTEN" (e.g. "actions:1234"; "queue_slots:0"
// for a table without ids). PostgreSQL delivers it when the transaction
// commits, and not at all when it rolls back; readers that miss one (a
// dropped listening connection) find the rows by polling.

// notify sends the notification of a write to table in tx, on the channel
// of the session named session (Target.Session).
func notify(ctx context.Context, tx pgx.Tx, session, table string, maxID int64) error {
	_, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, "gavel_"+session, table+":"+strconv.FormatInt(maxID, 10))
	return err
}
