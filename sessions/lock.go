package sessions

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// The lock's timing: the holder refreshes its heartbeat every
// heartbeatEvery; a lock whose heartbeat is older than staleAfter belongs
// to a process that died or hung (or to a machine that slept) and is taken
// over.
const (
	heartbeatEvery = 20 * time.Second
	staleAfter     = 2 * time.Minute
)

// lockHolder is this process's claim on one annotator of a session.
type lockHolder struct {
	token string
	pid   int
	host  string
	since time.Time

	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once

	// lost is set when another process took the lock over.
	lost atomic.Pointer[LockedError]
}

// lockRow is a row of the locks table.
type lockRow struct {
	pid       int
	host      string
	token     string
	started   time.Time
	heartbeat time.Time
}

// stale reports whether a lock held by row can be taken over by a process
// on host at time t: its heartbeat is too old, or it was taken on this host
// by a process that no longer runs.
func (row lockRow) stale(host string, t time.Time) bool {
	if t.Sub(row.heartbeat) > staleAfter {
		return true
	}
	return row.host == host && !pidAlive(row.pid)
}

// acquireLock claims the store's annotator, refusing when another live
// process holds it, and starts the heartbeat.
func (s *Store) acquireLock() error {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	var tok [16]byte
	_, _ = rand.Read(tok[:])
	h := &lockHolder{
		token: hex.EncodeToString(tok[:]),
		pid:   os.Getpid(),
		host:  host,
		since: now(),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	tx, err := s.w.Begin()
	if err != nil {
		return s.wrap(err, "taking the annotator's lock")
	}
	defer tx.Rollback()
	row, found, err := readLock(tx, s.annotator)
	if err != nil {
		return s.wrap(err, "reading the annotator's lock")
	}
	if found && !row.stale(h.host, time.Now()) {
		return &LockedError{Path: s.path, Annotator: s.annotator, PID: row.pid, Host: row.host, Since: row.started}
	}
	if _, err := tx.Exec(`INSERT OR REPLACE INTO locks (annotator, pid, host, token, started_at, heartbeat_at)
		VALUES (?, ?, ?, ?, ?, ?)`,
		s.annotator, h.pid, h.host, h.token, stamp(h.since), stamp(h.since)); err != nil {
		return s.wrap(err, "taking the annotator's lock")
	}
	if err := tx.Commit(); err != nil {
		return s.wrap(err, "taking the annotator's lock")
	}
	s.lock = h
	go s.heartbeat(h)
	return nil
}

func readLock(q interface {
	QueryRow(string, ...any) *sql.Row
}, annotator string) (lockRow, bool, error) {
	var row lockRow
	var started, beat string
	err := q.QueryRow(`SELECT pid, host, token, started_at, heartbeat_at FROM locks WHERE annotator = ?`, annotator).
		Scan(&row.pid, &row.host, &row.token, &started, &beat)
	if errors.Is(err, sql.ErrNoRows) {
		return row, false, nil
	}
	if err != nil {
		return row, false, err
	}
	// An unreadable time makes the lock look ancient, hence stale: a
	// damaged lock row must not keep a person out of their session.
	row.started, _ = parseStamp(started)
	row.heartbeat, _ = parseStamp(beat)
	return row, true, nil
}

// heartbeat refreshes the lock until Close.
func (s *Store) heartbeat(h *lockHolder) {
	defer close(h.done)
	t := time.NewTicker(heartbeatEvery)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
			// A failed refresh (a busy or full disk) is retried at the
			// next tick; the lock only goes stale after several misses.
			_ = s.refreshLock()
		}
	}
}

// refreshLock records a heartbeat. If the lock row is gone it is taken
// again; if another process holds it now, the lock is marked lost and
// writes are refused from then on.
func (s *Store) refreshLock() error {
	h := s.lock
	if h.lost.Load() != nil {
		return nil
	}
	tx, err := s.w.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	row, found, err := readLock(tx, s.annotator)
	if err != nil {
		return err
	}
	if found && row.token != h.token {
		h.lost.Store(&LockedError{Path: s.path, Annotator: s.annotator, PID: row.pid, Host: row.host, Since: row.started})
		return nil
	}
	if _, err := tx.Exec(`INSERT OR REPLACE INTO locks (annotator, pid, host, token, started_at, heartbeat_at)
		VALUES (?, ?, ?, ?, ?, ?)`,
		s.annotator, h.pid, h.host, h.token, stamp(h.since), stamp(now())); err != nil {
		return err
	}
	return tx.Commit()
}

// lockLost returns an error when another process took this store's lock.
func (s *Store) lockLost() error {
	if s.lock == nil {
		return nil
	}
	if e := s.lock.lost.Load(); e != nil {
		return newError(ErrLockLost, e,
			"session %s: another Gavel (pid %d on host %s) took over labelling as %q while this one was stalled; "+
				"everything confirmed so far is saved: quit this Gavel and label in the other one",
			s.path, e.PID, e.Host, s.annotator)
	}
	return nil
}

// releaseLock stops the heartbeat and removes the lock row, if it is still
// ours.
func (s *Store) releaseLock() error {
	h := s.lock
	h.stopOnce.Do(func() { close(h.stop) })
	<-h.done
	_, err := s.w.Exec(`DELETE FROM locks WHERE annotator = ? AND token = ?`, s.annotator, h.token)
	return err
}
