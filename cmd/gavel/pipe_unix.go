//go:build unix

package main

import (
	"os"
	"os/signal"
	"syscall"
)

// A reader that stops early (gavel export … | head) breaks the pipe.
// Left to Go's default, the first write after that kills gavel on the
// spot, with no deferred work done: an upgraded copy of an old session
// stayed in the temporary folder, a session's -wal was not checkpointed.
// With SIGPIPE ignored the write fails with EPIPE instead, the command
// ends as on any error (quietly: see quietError), and main then dies of
// SIGPIPE, as the shell expects of a program whose reader went away.

// catchBrokenPipe makes writes to a broken pipe fail instead of killing.
func catchBrokenPipe() { signal.Ignore(syscall.SIGPIPE) }

// dieOfBrokenPipe ends the process by SIGPIPE. Go's runtime lets no
// SIGPIPE sent by kill end a process; it dies of one only when a write to
// standard output or error fails on a broken pipe with the signal not
// ignored. So it writes again; were that to succeed, it exits with the
// status a shell gives such a death.
func dieOfBrokenPipe() {
	signal.Reset(syscall.SIGPIPE)
	os.Stdout.Write([]byte{'\n'})
	os.Exit(128 + int(syscall.SIGPIPE))
}
