//go:build unix

package sessions

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Environment of the build helper child (see TestBuildHelperProcess).
const (
	buildHelperEnv  = "GAVEL_SESSIONS_BUILD_HELPER"
	buildItemsCount = 60000
)

// TestBuildHelperProcess is not a test: it is the body of a child process
// that TestBuildSessionSurvivesKill starts. It builds a session of
// buildItemsCount items at the path in its environment and prints
// "building" before and "built" after.
func TestBuildHelperProcess(t *testing.T) {
	path := os.Getenv(buildHelperEnv)
	if path == "" {
		t.Skip("only runs as a child process")
	}
	fmt.Println("building")
	if err := BuildSession(path, DatasetInfo{Path: "big.jsonl", SHA256: "h"}, manyItems(buildItemsCount)); err != nil {
		fmt.Printf("error: %v\n", err)
		os.Exit(1)
	}
	fmt.Println("built")
	os.Exit(0)
}

// TestBuildSessionSurvivesKill kills a process building a large session
// with SIGKILL at moments spread over the build, and checks each time that
// the path holds either no session or a whole one that opens with every
// item. The last round lets the build finish, so a whole session is seen.
func TestBuildSessionSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds large sessions")
	}
	dir := t.TempDir()
	delays := []time.Duration{0, 20 * time.Millisecond, 100 * time.Millisecond, 300 * time.Millisecond,
		700 * time.Millisecond, 1500 * time.Millisecond, -1}
	whole := 0
	for round, delay := range delays {
		path := filepath.Join(dir, "s"+strconv.Itoa(round)+".gavel")
		cmd := exec.Command(os.Args[0], "-test.run=^TestBuildHelperProcess$")
		cmd.Env = append(os.Environ(), buildHelperEnv+"="+path)
		cmd.Stderr = os.Stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		c := &child{cmd: cmd, lines: bufio.NewScanner(stdout)}
		c.expect(t, "building")
		if delay >= 0 {
			time.Sleep(delay)
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Fatalf("round %d: %v", round, err)
			}
		} else {
			c.expect(t, "built")
			if err := cmd.Wait(); err != nil {
				t.Fatalf("round %d: the build failed: %v", round, err)
			}
		}
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			if delay < 0 {
				t.Fatalf("round %d: the finished build left no session", round)
			}
			continue
		}
		s, err := Open(path, Options{Annotator: "ann"})
		if err != nil {
			t.Fatalf("round %d (killed after %v): a session is there but does not open: %v", round, delay, err)
		}
		items, err := s.Items()
		if err != nil || len(items) != buildItemsCount {
			t.Fatalf("round %d (killed after %v): %d items, %v", round, delay, len(items), err)
		}
		var check string
		if err := s.db.QueryRow("PRAGMA quick_check").Scan(&check); err != nil || check != "ok" {
			t.Errorf("round %d: quick_check = %q, %v", round, check, err)
		}
		s.Close()
		whole++
	}
	if whole == 0 {
		t.Fatal("no round produced a session")
	}
}

// TestBuildRemovesDeadBuilds checks that a build removes the temporary
// file a killed build of the same session left, and leaves alone those
// of a live process, of another machine and of another session.
func TestBuildRemovesDeadBuilds(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.gavel")
	host := buildHost()
	dead := filepath.Join(dir, fmt.Sprintf(".s.gavel.building-%d-1.%s", deadPID(t), host))
	keep := []string{
		filepath.Join(dir, fmt.Sprintf(".s.gavel.building-%d-2.%s", os.Getppid(), host)),
		filepath.Join(dir, fmt.Sprintf(".s.gavel.building-%d-3.%s", deadPID(t), host+"-elsewhere")),
		filepath.Join(dir, fmt.Sprintf(".other.gavel.building-%d-4.%s", deadPID(t), host)),
	}
	for _, p := range append([]string{dead, dead + "-journal"}, keep...) {
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := BuildSession(path, DatasetInfo{Path: "x"}, manyItems(3)); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dead, dead + "-journal"} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there: %v", filepath.Base(p), err)
		}
	}
	for _, p := range keep {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(p), err)
		}
	}
}
