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
	return err == nil || errors.Is(err, syscall.EPERM)
}
