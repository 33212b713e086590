//go:build unix

package sessions

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestConfirmedLabelsSurviveKill kills a labelling process with SIGKILL
// right after it confirmed a label, several times over, and checks each
// time that the session opens cleanly (taking over the dead process's
// lock) and holds every confirmed label.
func TestConfirmedLabelsSurviveKill(t *testing.T) {
	path := labelSession(t, 7)
	type confirmed struct {
		id    int64
		item  string
		value float64
	}
	var all []confirmed
	for round, killAfter := range []int{1, 13, 40} {
		c := startChild(t, "label", path, "ann")
		c.expect(t, "ready")
		for range killAfter {
			line := c.expect(t, "confirmed ")
			var k confirmed
			if _, err := fmt.Sscanf(line, "confirmed %d %s %g", &k.id, &k.item, &k.value); err != nil {
				t.Fatalf("bad line %q: %v", line, err)
			}
			all = append(all, k)
		}
		if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		err := c.cmd.Wait()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("round %d: child did not die by SIGKILL: %v", round, err)
		}

		s, err := Open(path, Options{Annotator: "ann"})
		if err != nil {
			t.Fatalf("round %d: reopening after kill -9: %v", round, err)
		}
		hist, err := s.Actions("ann")
		if err != nil {
			t.Fatal(err)
		}
		byID := map[int64]Action{}
		for _, a := range hist {
			byID[a.ID] = a
		}
		for _, k := range all {
			a, ok := byID[k.id]
			if !ok || a.ItemID != k.item || a.Value != k.value || a.Kind != KindLabel {
				t.Errorf("round %d: confirmed label %+v is missing or changed: %+v", round, k, a)
			}
		}
		if _, err := s.Labels("ann"); err != nil {
			t.Errorf("round %d: Labels: %v", round, err)
		}
		var check string
		if err := s.db.QueryRow("PRAGMA quick_check").Scan(&check); err != nil || check != "ok" {
			t.Errorf("round %d: quick_check = %q, %v", round, check, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// deadPID returns the id of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestLockOfDeadProcessOnThisHostIsTakenOver(t *testing.T) {
	s, path := newSession(t)
	s.Close()
	host, _ := os.Hostname()
	plantLock(t, path, deadPID(t), host, stamp(time.Now()))
	s2, err := Open(path, Options{Annotator: "ann"})
	if err != nil {
		t.Fatalf("lock of a dead process not taken over: %v", err)
	}
	s2.Close()

	// The same row naming a live process on this host (our parent) is respected.
	plantLock(t, path, os.Getppid(), host, stamp(time.Now()))
	if _, err := Open(path, Options{Annotator: "ann"}); !errors.Is(err, ErrLocked) {
		t.Errorf("lock of a live process on this host: %v, want ErrLocked", err)
	}
}

func TestPidAlive(t *testing.T) {
	for _, tc := range []struct {
		name string
		pid  int
		want bool
	}{
		{"this process", os.Getpid(), true},
		{"init, owned by root", 1, true},
		{"exited process", deadPID(t), false},
		{"zero", 0, false},
		{"negative", -5, false},
	} {
		if got := pidAlive(tc.pid); got != tc.want {
			t.Errorf("%s: pidAlive(%d) = %v, want %v", tc.name, tc.pid, got, tc.want)
		}
	}
}
