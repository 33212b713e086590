package pg

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// `gavel run` on a team session judges on the session's replica, as the
// review screen labels on it: the judge reads the items, the verdicts so
// far and its answer cache from the local file, and every run and verdict
// it makes goes to PostgreSQL first, under ids the team session gives,
// then into the replica by a pull (sessions.Upstream). The other
// reviewers' replicas pull the verdicts as they are made (each batch's
// commit notifies the session's channel). A batch of verdicts whose
// write failed keeps its ids and times: the judging's last try at what
// it could not save writes them under the same ids, so a commit whose
// answer was lost is not written twice.

// upstreamTimeout bounds one write to the team session and the pull
// after it: the writes themselves keep trying for retryFor while the
// server is away.
const upstreamTimeout = 3 * retryFor

// Upstream is the hook through which a judge run on the replica writes
// to the team session: set it on the replica's store
// (rv.Store.SetUpstream(rep.Upstream())) before judging.
func (r *Replica) Upstream() sessions.Upstream {
	return &judgeUpstream{src: r.src, p: r.p}
}

// judgeUpstream writes a judge run's rows to the team session and pulls
// them into the replica.
type judgeUpstream struct {
	src *Store
	p   *puller

	mu sync.Mutex
	// unsaved is the last batch whose write or pull failed, with the
	// ids and times it was written under.
	unsaved *unsavedVerdicts
}

type unsavedVerdicts struct {
	runID   int64
	given   []judge.Verdict // as SaveVerdicts was given them
	stamped []judge.Verdict // with their times set
	ids     []int64
}

// EnsureRun makes or finds the run in the team session and pulls it in.
func (u *judgeUpstream) EnsureRun(info judge.Info) (sessions.Run, error) {
	ctx, cancel := context.WithTimeout(context.Background(), upstreamTimeout)
	defer cancel()
	run, err := u.src.EnsureRun(ctx, info)
	if err != nil {
		return sessions.Run{}, u.src.explain(ctx, err)
	}
	if err := u.pull(ctx); err != nil {
		return sessions.Run{}, err
	}
	return run, nil
}

// SaveVerdicts writes vs to the team session's run under ids it reserves
// there, then pulls them into the replica. After a failure, a call whose
// verdicts start with the failed call's writes those under the ids and
// times they were given then.
func (u *judgeUpstream) SaveVerdicts(runID int64, vs []judge.Verdict) error {
	if len(vs) == 0 {
		return nil
	}
	for _, v := range vs {
		if v.Criterion < 0 {
			return fmt.Errorf("session %s: verdict for item %q has criterion %d: criteria start at 1 (0 is the whole item)", u.src.target.Shown, v.ItemID, v.Criterion)
		}
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), upstreamTimeout)
	defer cancel()
	var stamped []judge.Verdict
	var ids []int64
	if w := u.unsaved; w != nil && w.runID == runID && len(w.given) <= len(vs) && reflect.DeepEqual(w.given, vs[:len(w.given)]) {
		stamped, ids = slices.Clone(w.stamped), slices.Clone(w.ids)
	}
	if rest := vs[len(stamped):]; len(rest) > 0 {
		more, err := u.src.reserveVerdictIDs(ctx, len(rest))
		if err != nil {
			return u.src.explain(ctx, err)
		}
		at := sessions.Now()
		for _, v := range rest {
			if v.At.IsZero() {
				v.At = at
			}
			stamped = append(stamped, v)
		}
		ids = append(ids, more...)
	}
	u.unsaved = &unsavedVerdicts{runID: runID, given: slices.Clone(vs), stamped: stamped, ids: ids}
	if err := u.src.saveVerdicts(ctx, runID, ids, sessions.Now(), stamped); err != nil {
		return u.src.explain(ctx, err)
	}
	if err := u.pull(ctx); err != nil {
		return err
	}
	u.unsaved = nil
	return nil
}

// pull brings what the team session holds into the replica, trying
// again while the server is away (for retryFor at most).
func (u *judgeUpstream) pull(ctx context.Context) error {
	deadline := time.Now().Add(retryFor)
	wait := 50 * time.Millisecond
	for {
		_, err := u.p.pull(ctx)
		if err == nil {
			return nil
		}
		if !lost(err) || ctx.Err() != nil || time.Now().After(deadline) {
			return u.src.explain(ctx, err)
		}
		select {
		case <-ctx.Done():
			return u.src.explain(ctx, err)
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// lost reports whether err says the server went away or could not be
// reached (the store's errors keep the driver's words, not its values).
func lost(err error) bool {
	if transient(err) {
		return true
	}
	msg := err.Error()
	for _, w := range lostConnection {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}

// LockRun makes sure one `gavel run` at a time judges the team session,
// as the "gavel run" lock does on a session file: it holds a session
// advisory lock on a connection of its own until release is called (or
// the process ends; a server restart drops it too). Another run holding
// it is refused with what to do.
func (s *Store) LockRun(ctx context.Context) (release func(), err error) {
	conn, err := pgx.Connect(ctx, s.target.Conn)
	if err != nil {
		return nil, s.connectError(ctx, err)
	}
	var got bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, runLockKey(s.target.Schema)).Scan(&got); err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, s.connectError(ctx, err)
	}
	if !got {
		conn.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("another gavel run is judging the team session %s (one run at a time per session): wait until it ends, then run again to judge what it left", s.target.Shown)
	}
	return releaseAdvisory(conn, runLockKey(s.target.Schema)), nil
}

// runLockKey is the advisory lock key of gavel run on the session whose
// schema is schema.
func runLockKey(schema string) int64 {
	sum := sha256.Sum256([]byte("gavel run\x00" + schema))
	return int64(binary.BigEndian.Uint64(sum[:8]))
}
