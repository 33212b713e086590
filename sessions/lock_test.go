package sessions

import (
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// lockMessage is the refusal a person sees, with the variable parts as
// patterns.
func lockMessage(path, annotator string) *regexp.Regexp {
	return regexp.MustCompile(`^session ` + regexp.QuoteMeta(path) + ` is already open for labelling by annotator "` +
		regexp.QuoteMeta(annotator) + `" \(pid \d+ on host \S+ since (\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d\)\. ` +
		`Close that Gavel first, or label as someone else with --annotator NAME\.$`)
}

func TestSecondWriterRefusedInProcess(t *testing.T) {
	first, path := newSession(t)

	_, err := Open(path, Options{Annotator: "ann"})
	var le *LockedError
	if !errors.As(err, &le) || !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open as the same annotator: %v, want a *LockedError", err)
	}
	host, _ := os.Hostname()
	if le.PID != os.Getpid() || le.Host != host || le.Annotator != "ann" {
		t.Errorf("LockedError = %+v, want this process (pid %d on %s)", le, os.Getpid(), host)
	}
	if !lockMessage(path, "ann").MatchString(err.Error()) {
		t.Errorf("message = %q", err.Error())
	}

	other, err := Open(path, Options{Annotator: "bob"})
	if err != nil {
		t.Fatalf("another annotator was refused: %v", err)
	}
	defer other.Close()
	ro, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("a read-only open was refused: %v", err)
	}
	defer ro.Close()

	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(path, Options{Annotator: "ann"})
	if err != nil {
		t.Fatalf("Open after the holder closed: %v", err)
	}
	again.Close()
}

// plantLock writes a lock row for annotator "ann" as another process would.
func plantLock(t *testing.T, path string, pid int, host string, heartbeat string) {
	t.Helper()
	_, err := rawDB(t, path).Exec(`INSERT OR REPLACE INTO locks (annotator, pid, host, token, started_at, heartbeat_at)
		VALUES ('ann', ?, ?, 'planted', ?, ?)`, pid, host, stamp(time.Now().Add(-time.Hour)), heartbeat)
	if err != nil {
		t.Fatal(err)
	}
}

func TestStaleLocks(t *testing.T) {
	for _, tc := range []struct {
		name      string
		host      string
		heartbeat string
		takeOver  bool
	}{
		{"live on another host", "elsewhere", stamp(time.Now()), false},
		{"heartbeat a minute old", "elsewhere", stamp(time.Now().Add(-time.Minute)), false},
		{"heartbeat too old", "elsewhere", stamp(time.Now().Add(-staleAfter - time.Minute)), true},
		{"unreadable heartbeat", "elsewhere", "yesterday-ish", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, path := newSession(t)
			s.Close()
			plantLock(t, path, 4242, tc.host, tc.heartbeat)
			s2, err := Open(path, Options{Annotator: "ann"})
			if tc.takeOver {
				if err != nil {
					t.Fatalf("stale lock not taken over: %v", err)
				}
				defer s2.Close()
				row, _, _ := readLock(rawDB(t, path), "ann")
				if row.pid != os.Getpid() || row.token == "planted" {
					t.Errorf("lock row after takeover = %+v", row)
				}
				return
			}
			var le *LockedError
			if !errors.As(err, &le) || le.PID != 4242 || le.Host != "elsewhere" {
				t.Fatalf("live lock: err = %v, want LockedError naming pid 4242 on elsewhere", err)
			}
			if !lockMessage(path, "ann").MatchString(err.Error()) {
				t.Errorf("message = %q", err.Error())
			}
		})
	}
}

func TestHeartbeatRefreshesLock(t *testing.T) {
	s, path := newSession(t)
	old := stamp(time.Now().Add(-time.Hour))
	if _, err := s.w.Exec(`UPDATE locks SET heartbeat_at = ? WHERE annotator = 'ann'`, old); err != nil {
		t.Fatal(err)
	}
	if err := s.refreshLock(); err != nil {
		t.Fatal(err)
	}
	row, found, err := readLock(rawDB(t, path), "ann")
	if err != nil || !found || stamp(row.heartbeat) <= old || row.token != s.lock.token {
		t.Errorf("after refresh: %+v, %v, %v", row, found, err)
	}
	// A lock row removed by someone else is taken again.
	if _, err := s.w.Exec(`DELETE FROM locks`); err != nil {
		t.Fatal(err)
	}
	if err := s.refreshLock(); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := readLock(s.db, "ann"); !found {
		t.Error("a deleted lock row was not taken again")
	}
}

func TestLockLost(t *testing.T) {
	s, path := newSession(t)
	// Another process decided this one was stale and took over.
	if _, err := s.w.Exec(`UPDATE locks SET token = 'theirs', pid = 999, host = 'otherbox' WHERE annotator = 'ann'`); err != nil {
		t.Fatal(err)
	}
	if err := s.refreshLock(); err != nil {
		t.Fatal(err)
	}
	_, err := s.Record([]Action{label("q1", "correct", 1)})
	if !errors.Is(err, ErrLockLost) || !strings.Contains(err.Error(), "pid 999 on host otherbox") {
		t.Errorf("Record after the lock was taken over: %v", err)
	}
	if _, err := s.Undo(); !errors.Is(err, ErrLockLost) {
		t.Errorf("Undo after the lock was taken over: %v", err)
	}
	s.Close()
	if row, found, _ := readLock(rawDB(t, path), "ann"); !found || row.token != "theirs" {
		t.Errorf("Close removed the other process's lock: %+v, %v", row, found)
	}
}

func TestCloseRemovesOnlyItsLock(t *testing.T) {
	a, path := newSession(t)
	b := openStore(t, path, "bob")
	a.Close()
	db := rawDB(t, path)
	if _, found, _ := readLock(db, "ann"); found {
		t.Error("ann's lock is still there after Close")
	}
	if _, found, _ := readLock(db, "bob"); !found {
		t.Error("closing ann removed bob's lock")
	}
	b.Close()
}
