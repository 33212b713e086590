//go:build unix

package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestBrokenPipeHelper is gavel export in a process of its own, for
// TestBrokenPipeEndsCleanly.
func TestBrokenPipeHelper(t *testing.T) {
	session := os.Getenv("GAVEL_PIPE_SESSION")
	if session == "" {
		t.Skip("run by TestBrokenPipeEndsCleanly")
	}
	os.Exit(gavelMain([]string{"export", session, "--only", "all"}))
}

// gavel export … | head: the reader goes away after a few bytes. gavel
// ends its command as on an error, closing the session (a read-only
// store removes the -wal and -shm it made beside it), says nothing, and
// dies of SIGPIPE as the shell expects. Killed at the first failed write,
// as Go does by default, it left both files there.
func TestBrokenPipeEndsCleanly(t *testing.T) {
	dir := t.TempDir()
	data, session := writeDataset(t, dir, 3000), filepath.Join(dir, "d.gavel")
	if code, _, errs := run(t, "import", data, "--session", session); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenPipeHelper$")
	cmd.Env = append(os.Environ(), "GAVEL_PIPE_SESSION="+session)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 100)
	if _, err := io.ReadFull(out, head); err != nil {
		t.Fatalf("read the first bytes: %v (%s)", err, errb.String())
	}
	out.Close() // head has what it wanted
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("gavel ended with %v, want death by SIGPIPE", err)
	}
	ws := exit.Sys().(syscall.WaitStatus)
	if !(ws.Signaled() && ws.Signal() == syscall.SIGPIPE) && ws.ExitStatus() != 128+int(syscall.SIGPIPE) {
		t.Errorf("gavel ended with %v, want death by SIGPIPE", err)
	}
	if strings.Contains(errb.String(), "gavel:") {
		t.Errorf("gavel said something: %q", errb.String())
	}
	for _, f := range []string{session + "-wal", session + "-shm"} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s left behind: the session was not closed", filepath.Base(f))
		}
	}
}
