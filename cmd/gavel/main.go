// Command gavel audits LLM-as-a-judge evaluators by hand: it loads a
// dataset of model outputs, runs a judge over them in the background, and
// lets a person accept, override or re-judge each verdict, saving every
// decision in a SQLite session file.
//
// This package only parses the command line and wires the judge, sessions
// and tui packages together.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() { os.Exit(gavelMain(os.Args[1:])) }

// gavelMain runs gavel as a process does and returns its exit code; it
// does not return when standard output's reader went away (pipe_unix.go).
func gavelMain(argv []string) int {
	catchBrokenPipe()
	ctx, stop := quitSignals(context.Background())
	endProfile := startProfile(os.Getenv)
	e := mainEnv()
	noticeUpgrades(e.stderr, upgradeNoticeAfter)
	out := &pipeWatch{w: e.stdout}
	e.stdout = out
	code := execute(ctx, e, argv)
	endProfile()
	stop()
	if out.broken.Load() {
		dieOfBrokenPipe()
	}
	return code
}

// quitSignals returns a context cancelled when the terminal closes (SIGHUP)
// or the system asks gavel to stop (SIGTERM). The commands then end as when
// the person quits: the screen closes, judging stops, and the session's
// Close checkpoints its -wal file into the .gavel file, so that a copy of
// the .gavel file alone holds every label. A second such signal kills at
// once, as without gavel's handler.
func quitSignals(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(parent, syscall.SIGHUP, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx, stop
}

// mainEnv is the outside world of the gavel process: its messages on
// stderr pass through the sanitiser (see safeStderr).
func mainEnv() env {
	e := newEnv()
	e.stderr = terminalSafe(e.stderr)
	return e
}
