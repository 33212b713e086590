//go:build unix

package sessions

import (
	"errors"
	"syscall"
)

// pidAlive reports whether a process with this id runs on this machine.
// Signal 0 checks without sending anything; EPERM means the process exists
// but belongs to someone else.
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	// A killed process whose parent has not reaped it yet still answers
	// signal 0; in containers without an init that reaps, it stays a
	// zombie for good. It holds nothing, so it must not keep a lock.
	return !isZombie(pid)
}
