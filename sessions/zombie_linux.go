package sessions

import (
	"bytes"
	"os"
	"strconv"
)

// isZombie reports whether a process has exited and waits to be reaped,
// read from /proc/PID/stat: the state follows the command name, which is
// in parentheses and may itself hold spaces or parentheses.
func isZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	return b[i+2] == 'Z'
}
