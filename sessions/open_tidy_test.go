package sessions

import (
	"database/sql"
	"os"
	"testing"
	"time"
)

// exists reports whether path is there.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// A read-only store (gavel stats, gavel export) leaves no -wal or -shm
// file beside a session nobody else has open; beside one a writer has
// open it leaves them, and the writer's labels are all there after.
func TestReadOnlyLeavesNoWALFiles(t *testing.T) {
	s, path := newSession(t)
	if _, err := s.Record([]Action{label("q1", "correct", 1)}); err != nil {
		t.Fatal(err)
	}
	// With the writer open: its files stay, and it goes on writing.
	ro, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if ls, err := ro.Labels(""); err != nil || len(ls) != 1 {
		t.Fatalf("read-only Labels = %v, %v", ls, err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	if !exists(path+"-wal") || !exists(path+"-shm") {
		t.Fatalf("a reader's close removed the files of the writer still open (-wal %v, -shm %v)", exists(path+"-wal"), exists(path+"-shm"))
	}
	if _, err := s.Record([]Action{label("q2", "correct", 0)}); err != nil {
		t.Fatalf("the writer after a reader closed: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if exists(path+"-wal") || exists(path+"-shm") {
		t.Fatal("the writer's close left -wal or -shm")
	}
	// Alone: what the reader made, it removes.
	for range 2 {
		ro, err := Open(path, Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if ls, err := ro.Labels(""); err != nil || len(ls) != 2 {
			t.Fatalf("read-only Labels = %v, %v", ls, err)
		}
		if err := ro.Close(); err != nil {
			t.Fatal(err)
		}
		if exists(path+"-wal") || exists(path+"-shm") {
			t.Fatalf("a read-only store left -wal %v, -shm %v", exists(path+"-wal"), exists(path+"-shm"))
		}
	}
}

// Close ends the reads in flight (the statistics of a big session, asked
// just before a quit) rather than waiting for them, and its checkpoint
// then empties the -wal: after Close the .gavel file alone holds every
// label, as the README says of a quit.
func TestCloseEndsReadsInFlight(t *testing.T) {
	s, path := newSession(t)
	if _, err := s.Record([]Action{label("q1", "correct", 1)}); err != nil {
		t.Fatal(err)
	}
	started, release := make(chan struct{}), make(chan struct{})
	readDone := make(chan error, 1)
	go func() {
		readDone <- s.read("a long read", func(tx *sql.Tx) error {
			var n int
			if err := tx.QueryRow(`SELECT count(*) FROM actions`).Scan(&n); err != nil {
				return err
			}
			close(started)
			<-release
			return tx.QueryRow(`SELECT count(*) FROM items`).Scan(&n)
		})
	}()
	<-started
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		close(release)
		t.Fatal("Close waited for a read in flight")
	}
	close(release)
	if err := <-readDone; err == nil {
		t.Error("the read went on after Close")
	}
	if exists(path + "-wal") {
		t.Error("Close left the -wal a read in flight kept from its checkpoint")
	}
	r, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if ls, err := r.Labels(""); err != nil || len(ls) != 1 {
		t.Fatalf("labels after Close: %v, %v", ls, err)
	}
}
