package sessions

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// A child that has exited but was not waited for is a zombie: it answers
// signal 0, yet must not count as holding a lock.
func TestZombieIsNotAlive(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	pid := cmd.Process.Pid
	// The child exits at once; until Wait reaps it, it is a zombie.
	deadline := time.Now().Add(30 * time.Second)
	for !isZombie(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("child %d never showed as a zombie", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if pidAlive(pid) {
		t.Errorf("pidAlive(%d) = true for a zombie", pid)
	}
	if !pidAlive(os.Getpid()) {
		t.Error("pidAlive(self) = false")
	}
}
