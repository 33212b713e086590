package pg

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// A team session is reviewed on a local replica: a SQLite copy of it in
// the user's cache folder (os.UserCacheDir()/gavel/team), made by
// CopyToSQLite when it is missing and brought up to date by a pull when
// it is there. The review screen, the statistics and the exports run on
// it as on any session file. A label is written to PostgreSQL first, with
// ids it reserves, then into the replica under the same ids; what others
// write comes in by pulls (Follow: LISTEN on the session's channel, and a
// poll every few seconds, which also covers a lost connection).
//
// One replica serves every process of the user on one session: it is
// named after the server's host and port, the database, the user and the
// session's name (however the URL spells them, password or not) and the
// session's creation time (a session copied anew under the same name gets
// a new replica), and every insert into it is idempotent (an id already there
// is skipped), so a review and a `gavel stats` may both bring rows in.
// Each reviewer's labels are theirs by the replica's annotator lock, as
// on any session file.

// ReplicaDir is the folder of the replicas: the user's cache folder's
// gavel/team.
func ReplicaDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache folder for the team session's local copy (%v): set XDG_CACHE_HOME or HOME", err)
	}
	return filepath.Join(dir, "gavel", "team"), nil
}

// replicaPath is the replica's file for the session created at created.
// It is named after what tells the session apart (replicaKey), so that
// every way of writing its URL (with a password or without, parameters in
// another order or spelling) shares one local copy.
func (s *Store) replicaPath(created string) (string, error) {
	dir, err := ReplicaDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(s.replicaKey() + "\x00" + created))
	return filepath.Join(dir, s.target.Session+"-"+hex.EncodeToString(sum[:10])+".gavel"), nil
}

// replicaKey is what names the session: the server's host (in lower case)
// and port, the database, the user, and the session's name, as the
// connection resolves them (defaults filled in).
func (s *Store) replicaKey() string {
	c := s.pool.Config().ConnConfig
	return strings.Join([]string{strings.ToLower(c.Host), strconv.Itoa(int(c.Port)), c.Database, c.User, s.target.Session}, "\x00")
}

// createdAt reads the session's creation time from gavel_meta.
func (s *Store) createdAt(ctx context.Context) (string, error) {
	var v string
	err := s.pool.QueryRow(ctx, `SELECT value FROM `+s.table(MetaTable)+` WHERE key = 'created_at'`).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", s.wrap(err, "reading the session's creation time")
	}
	return v, nil
}

// ensureReplica makes the replica file when it is missing and returns
// its path.
func (s *Store) ensureReplica(ctx context.Context) (string, error) {
	if err := s.Reach(ctx); err != nil {
		return "", err
	}
	ok, err := s.Exists(ctx)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", s.noSession(ctx)
	}
	created, err := s.createdAt(ctx)
	if err != nil {
		return "", err
	}
	path, err := s.replicaPath(created)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("cannot make the folder of the team session's local copy: %w", err)
	}
	if _, err := CopyToSQLite(ctx, s, path); err != nil {
		if _, serr := os.Stat(path); serr == nil {
			return path, nil // another process made it meanwhile
		}
		return "", err
	}
	return path, nil
}

// openReplica opens the replica with open, checks that it is a copy of
// this session (no table holds an id past the session's), and pulls what
// is new. A replica that is not is moved aside and made again.
func (s *Store) openReplica(ctx context.Context, open func(path string) (*sessions.Store, error)) (string, *sessions.Store, *puller, error) {
	if err := s.Reach(ctx); err != nil {
		return "", nil, nil, err
	}
	if err := s.upgrade(ctx); err != nil { // a session of an older Gavel (upgrade.go)
		return "", nil, nil, err
	}
	for attempt := 0; ; attempt++ {
		path, err := s.ensureReplica(ctx)
		if err != nil {
			return "", nil, nil, err
		}
		local, err := open(path)
		if err != nil {
			return "", nil, nil, err
		}
		p, err := newPuller(s, local)
		if err == nil {
			err = p.check(ctx)
		}
		if err == nil {
			if _, err = p.pull(ctx); err == nil {
				return path, local, p, nil
			}
		}
		local.Close()
		if !errors.Is(err, sessions.ErrReplicaDiverged) || attempt > 0 {
			return "", nil, nil, err
		}
		aside := path + ".diverged-" + time.Now().UTC().Format("20060102T150405")
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Rename(path+suffix, aside+suffix)
		}
	}
}

// check makes sure the replica holds no id the session does not: each
// numbered table's highest id here is in the session too.
func (p *puller) check(ctx context.Context) error {
	for name, m := range p.marks {
		if m.last == 0 {
			continue
		}
		t := p.tables[slices.IndexFunc(p.tables, func(t Table) bool { return t.Name == name })]
		var there bool
		err := p.src.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+p.src.table(name)+` WHERE `+quote(t.Serial)+` = $1)`, m.last).Scan(&there)
		if err != nil {
			return p.src.connectError(ctx, err)
		}
		if !there {
			return fmt.Errorf("%w: its table %s holds id %d, which the session %s has not", sessions.ErrReplicaDiverged, name, m.last, p.src.target.Shown)
		}
	}
	return nil
}

// SyncReplica brings the local copy of the team session at rawURL up to
// date (made when missing, else what is new pulled in) and returns its
// path, for the commands that read a session (stats, export, report).
// Several processes may call it at once.
func SyncReplica(ctx context.Context, rawURL string) (string, error) {
	s, err := Connect(ctx, rawURL)
	if err != nil {
		return "", err
	}
	defer s.Close()
	path, local, _, err := s.openReplica(ctx, sessions.OpenReplica)
	if err != nil {
		return "", err
	}
	if err := local.Close(); err != nil {
		return "", err
	}
	return path, nil
}

// Replica is a team session's local copy opened for one annotator's
// review: the screen's Recorder (Record, Undo, ItemVerdicts) and the
// pulls of what the others write.
type Replica struct {
	src       *Store
	review    *sessions.Review
	annotator string
	sitting   string
	p         *puller
	// timeout bounds one write or pull, so that a server that stopped
	// answering is told as an error the screen retries.
	timeout time.Duration

	wmu     sync.Mutex
	pending *pendingWrite
}

// pendingWrite is a write that failed: its ids, reserved in the team
// session, are used again when the screen retries it, so that a write
// whose commit was in fact done is not done twice.
type pendingWrite struct {
	undo   bool
	given  []sessions.Action // what the screen gave (Record)
	acts   []sessions.Action // the rows, ids set once reserved
	undone []sessions.Action // the group an undo takes back
}

// writeTimeout bounds one write to the team session.
const writeTimeout = 15 * time.Second

// OpenReview opens the team session's replica for annotator's review,
// made or brought up to date first, and returns it as sessions.OpenReview
// does (without a dataset file: the session holds its items) with the
// Replica that writes and pulls for it. Close the Replica, then the
// Review's store.
func OpenReview(ctx context.Context, src *Store, annotator string) (*sessions.Review, *Replica, error) {
	var rv *sessions.Review
	open := func(path string) (*sessions.Store, error) {
		var err error
		rv, err = sessions.OpenReview(path, annotator, nil)
		if err != nil {
			return nil, err
		}
		return rv.Store, nil
	}
	_, _, p, err := src.openReplica(ctx, open)
	if le := (*sessions.LockedError)(nil); errors.As(err, &le) {
		// The local copy's annotator lock: another Gavel on this machine
		// labels as annotator. The message names the team session, not
		// the copy in the cache folder.
		named := *le
		named.Path = src.target.Shown
		return nil, nil, &named
	}
	if err != nil {
		return nil, nil, err
	}
	// The items and the dataset as the replica now holds them.
	if rv.Items, err = rv.Store.Items(); err != nil {
		rv.Store.Close()
		return nil, nil, err
	}
	if rv.Info, _, err = rv.Store.Dataset(); err != nil {
		rv.Store.Close()
		return nil, nil, err
	}
	return rv, &Replica{src: src, review: rv, annotator: annotator, sitting: newSitting(), p: p, timeout: writeTimeout}, nil
}

// newSitting names this process's sitting in the actions it writes.
func newSitting() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Local is the replica's session store.
func (r *Replica) Local() *sessions.Store { return r.review.Store }

// Sitting is the token this review's actions carry.
func (r *Replica) Sitting() string { return r.sitting }

// Pull brings in what the others wrote since the last pull.
func (r *Replica) Pull(ctx context.Context) (Pulled, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	p, err := r.p.pull(ctx)
	if err != nil {
		return p, r.src.explain(ctx, err)
	}
	return p, nil
}

// explain says a server that did not answer in time, or could not be
// connected to, as "not answering", and a connection lost on the way (the
// server restarting, the network down) as such; other errors are told as
// they are.
func (s *Store) explain(ctx context.Context, err error) error {
	var ce *pgconn.ConnectError
	if ctx.Err() != nil || errors.As(err, &ce) {
		return s.connectError(ctx, err)
	}
	var pe *pgconn.PgError
	var ne net.Error
	switch {
	case errors.As(err, &pe) && (strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P")):
		return fmt.Errorf("PostgreSQL at %s is restarting or shutting down (%s)", s.Address(), scrub(pe.Message, s.target.Conn))
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.As(err, &ne) || pgconn.SafeToRetry(err) || pgconn.Timeout(err):
		return fmt.Errorf("PostgreSQL at %s stopped answering: the connection was lost (%s)", s.Address(), scrub(rootCause(err).Error(), s.target.Conn))
	}
	// The store's messages keep the driver's text, not its error values.
	msg := err.Error()
	for _, lost := range lostConnection {
		if strings.Contains(msg, lost) {
			return fmt.Errorf("PostgreSQL at %s stopped answering: the connection was lost (%s)", s.Address(), lost)
		}
	}
	return err
}

// lostConnection are the driver's words for a connection that broke.
var lostConnection = []string{"conn closed", "unexpected EOF", "connection refused", "connection reset", "broken pipe",
	"SQLSTATE 57P01", "SQLSTATE 57P02", "SQLSTATE 57P03", "SQLSTATE 08", "server closed the connection", "timeout"}

// Record writes one key press's actions to the team session, then into
// the replica under the ids the session gave them. A call that fails
// keeps the ids it reserved: the screen's retry of the same actions uses
// them again, so a write whose commit was done but not confirmed is not
// written twice.
func (r *Replica) Record(acts []sessions.Action) ([]sessions.Action, error) {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	w := r.pending
	if w == nil || w.undo || !reflect.DeepEqual(w.given, acts) {
		w = &pendingWrite{given: slices.Clone(acts), acts: slices.Clone(acts)}
		for i := range w.acts {
			w.acts[i].ID, w.acts[i].Group = 0, 0
			if w.acts[i].Sitting == "" {
				w.acts[i].Sitting = r.sitting
			}
		}
		r.pending = w
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout)
	defer cancel()
	stored, err := r.src.RecordAs(ctx, r.annotator, w.acts)
	if err != nil {
		return nil, r.src.explain(ctx, err)
	}
	if _, err := r.review.Store.ApplyActions(stored); err != nil {
		return nil, err
	}
	r.pending = nil
	return stored, nil
}

// Undo takes back this annotator's latest group that is not undone (as
// the replica holds it) in the team session, then in the replica, and
// returns the actions undone (nil, nil when none is left). A failed undo
// is retried with the same rows, as Record does.
func (r *Replica) Undo() ([]sessions.Action, error) {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	w := r.pending
	if w == nil || !w.undo {
		group, err := r.review.Store.LastLiveGroup(r.annotator)
		if err != nil || len(group) == 0 {
			return nil, err
		}
		w = &pendingWrite{undo: true, undone: group}
		for _, a := range group {
			w.acts = append(w.acts, sessions.Action{Kind: sessions.KindUndo, Undoes: a.ID, Sitting: r.sitting})
		}
		r.pending = w
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout)
	defer cancel()
	stored, err := r.src.RecordUndo(ctx, r.annotator, w.acts)
	if err != nil {
		return nil, r.src.explain(ctx, err)
	}
	if _, err := r.review.Store.ApplyActions(stored); err != nil {
		return nil, err
	}
	r.pending = nil
	return w.undone, nil
}

// ItemVerdicts reads an item's whole current verdicts from the replica,
// for the verdict pane.
func (r *Replica) ItemVerdicts(info judge.Info, itemID string) ([]judge.Verdict, error) {
	return r.review.Store.ItemVerdicts(info, itemID)
}

// pollEvery is how often Follow pulls without a notification: the
// fallback when notifications are lost, and the first pull after a
// connection comes back.
const pollEvery = 2 * time.Second

// Follow pulls whenever the session says it was written to (LISTEN on
// its channel, gavel_NAME, through a connection of its own) and every
// pollEvery otherwise, until ctx ends, and calls fn after each pull with
// what it brought or why it failed (the caller tells the screen).
func (r *Replica) Follow(ctx context.Context, fn func(Pulled, error)) {
	wake := make(chan struct{}, 1)
	go r.listen(ctx, wake)
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-tick.C:
		}
		p, err := r.Pull(ctx)
		if ctx.Err() != nil {
			return
		}
		fn(p, err)
	}
}

// Channel is the name of the session's notification channel.
func (t Target) Channel() string { return "gavel_" + t.Session }

// listen keeps a connection listening on the session's channel and wakes
// the puller at each notification, and once after each (re)connection.
func (r *Replica) listen(ctx context.Context, wake chan<- struct{}) {
	signal := func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	for ctx.Err() == nil {
		conn, err := pgx.Connect(ctx, r.src.target.Conn)
		if err == nil {
			_, err = conn.Exec(ctx, `LISTEN `+pgx.Identifier{r.src.target.Channel()}.Sanitize())
			if err == nil {
				signal() // what was written while not listening
				for err == nil {
					_, err = conn.WaitForNotification(ctx)
					if err == nil {
						signal()
					}
				}
			}
			conn.Close(context.WithoutCancel(ctx))
		}
		select {
		case <-ctx.Done():
		case <-time.After(pollEvery):
		}
	}
}
