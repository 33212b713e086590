//go:build unix

package pgtest

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// supported says whether this system can run the servers.
const supported = true

// runAs is the user the binaries run as when we are root (initdb refuses
// root): nobody, looked up, else uid and gid 65534. Nil when not root.
var runAs = func() *syscall.Credential {
	if os.Geteuid() != 0 {
		return nil
	}
	c := &syscall.Credential{Uid: 65534, Gid: 65534, NoSetGroups: true}
	if u, err := user.Lookup("nobody"); err == nil {
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err1 == nil && err2 == nil {
			c.Uid, c.Gid = uint32(uid), uint32(gid)
		}
	}
	return c
}()

// setUser makes cmd run as runAs.
func setUser(cmd *exec.Cmd) {
	if runAs == nil {
		return
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Credential = runAs
}

// detach puts cmd in a session of its own, out of reach of a Ctrl-C sent to
// the test's process group (pg_ctl detaches the server the same way).
func detach(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
}

// own gives a file we made to runAs.
func own(path string) error {
	if runAs == nil {
		return nil
	}
	return os.Lchown(path, int(runAs.Uid), int(runAs.Gid))
}

// reachable says whether runAs can reach into dir: every directory on
// the way is searchable by others (a rough check, by mode bits).
func reachable(dir string) bool {
	if runAs == nil {
		return true
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for {
		info, err := os.Stat(dir)
		if err != nil || info.Mode().Perm()&0o001 == 0 {
			return false
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return true
		}
		dir = parent
	}
}
