package sessions

import (
	"os"
	"testing"
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
