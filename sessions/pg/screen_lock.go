package pg

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// ErrScreenOpen is the refusal of a second review screen for the same
// annotator on the same team session.
var ErrScreenOpen = errors.New("a review screen is already open")

// LockScreen makes sure one review screen at a time labels as annotator on
// the team session, wherever it runs: two screens of one person (two
// machines, or the URL written two ways) would each hold labels the other
// does not show, and an undo on one could take back a label made on the
// other. It holds a session advisory lock on a connection of its own
// until release is called or the process ends (as LockRun does: a server
// restart drops it, and the screen does not take it again). Another
// screen holding it is refused with what to do, naming the session by its
// URL without the password.
func (s *Store) LockScreen(ctx context.Context, annotator string) (release func(), err error) {
	conn, err := pgx.Connect(ctx, s.target.Conn)
	if err != nil {
		return nil, s.connectError(ctx, err)
	}
	var got bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, screenLockKey(s.target.Schema, annotator)).Scan(&got); err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, s.connectError(ctx, err)
	}
	if !got {
		conn.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("%w: %q is already reviewing the team session %s on another screen (this machine or another): one screen per person and session keeps your labels in step; quit that one first, or review as someone else with --annotator NAME",
			ErrScreenOpen, annotator, s.target.Shown)
	}
	return releaseAdvisory(conn, screenLockKey(s.target.Schema, annotator)), nil
}

// screenLockKey is the advisory lock key of annotator's review screen on
// the session whose schema is schema.
func screenLockKey(schema, annotator string) int64 {
	sum := sha256.Sum256([]byte("gavel review\x00" + schema + "\x00" + annotator))
	return int64(binary.BigEndian.Uint64(sum[:8]))
}
