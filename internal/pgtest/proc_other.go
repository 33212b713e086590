//go:build !unix

package pgtest

import "os/exec"

// supported says whether this system can run the servers: the watchdog
// and the user switch are written for Unix.
const supported = false

func setUser(cmd *exec.Cmd)     {}
func detach(cmd *exec.Cmd)      {}
func own(path string) error     { return nil }
func reachable(dir string) bool { return true }
