//go:build unix

package dataset

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// loadSoon runs Load and fails the test if it has not returned within a
// minute: a deadlock guard, not a timing assertion.
func loadSoon(t *testing.T, path string, opts Options) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := Load(path, opts)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("Load(%s) is still blocked after a minute", path)
		return nil
	}
}

// TestNotRegular: pipes, devices and sockets are refused at once, with
// what they are and what to do.
func TestNotRegular(t *testing.T) {
	const tail = ": Gavel reads datasets from regular files. Give - and pipe it in (gavel run - --session S.gavel < "
	const end = "); gavel review needs a regular file, its keys come from standard input"
	dir := t.TempDir()
	fifo := filepath.Join(dir, "rows.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	err := loadSoon(t, fifo, Options{})
	if want := fifo + " is a named pipe (FIFO)" + tail + fifo + end; err == nil || err.Error() != want {
		t.Errorf("FIFO: error\n got: %v\nwant: %s", err, want)
	}
	// A link to the FIFO is the FIFO.
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	if err := loadSoon(t, link, Options{}); err == nil || !strings.Contains(err.Error(), "is a named pipe (FIFO)") {
		t.Errorf("link to a FIFO: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		err := loadSoon(t, "/dev/zero", Options{})
		if want := "/dev/zero is a character device" + tail + "/dev/zero" + end; err == nil || err.Error() != want {
			t.Errorf("/dev/zero: error\n got: %v\nwant: %s", err, want)
		}
	}
	sock := filepath.Join(dir, "s.sock")
	if l, err := net.Listen("unix", sock); err == nil {
		defer l.Close()
		err := loadSoon(t, sock, Options{})
		if want := sock + " is a socket" + tail + sock + end; err == nil || err.Error() != want {
			t.Errorf("socket: error\n got: %v\nwant: %s", err, want)
		}
	}
	if err := loadSoon(t, dir, Options{}); err == nil || err.Error() != dir+" is a directory: give the path of a dataset file" {
		t.Errorf("directory: %v", err)
	}
	// A link to a regular file is the file.
	good, _ := filepath.Abs("testdata/good/basic.jsonl")
	glink := filepath.Join(dir, "basic.jsonl")
	if err := os.Symlink(good, glink); err != nil {
		t.Fatal(err)
	}
	if err := loadSoon(t, glink, Options{}); err != nil {
		t.Errorf("link to a regular file: %v", err)
	}
}
