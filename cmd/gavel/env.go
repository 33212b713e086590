package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"os/user"
	"path/filepath"
	"runtime"

	tea "charm.land/bubbletea/v2"
)

// env is everything the commands take from the outside world, so that
// tests can run them without a terminal.
type env struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	// runTUI runs a screen until the person quits and returns its final
	// state.
	runTUI func(ctx context.Context, m tea.Model) (tea.Model, error)
}

func newEnv() env {
	return env{
		stdout: os.Stdout,
		stderr: os.Stderr,
		getenv: os.Getenv,
		runTUI: func(ctx context.Context, m tea.Model) (tea.Model, error) {
			// The screen ends through ctx alone: SIGHUP and SIGTERM
			// (quitSignals) and, here, SIGINT (sent from outside; a ^C
			// typed is a key). Bubble Tea's own handler of SIGINT and
			// SIGTERM hands its quit to the event loop that the same
			// SIGTERM, through ctx, may already have ended: it then waits
			// forever, Run waits for it, and the next SIGTERM is caught
			// by it too. A review was seen idle so after kill and a
			// closed terminal.
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
			defer stop()
			return tea.NewProgram(m, tea.WithContext(ctx), tea.WithoutSignalHandler()).Run()
		},
	}
}

// defaultAnnotator is the OS user's name.
func (e env) defaultAnnotator() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	for _, k := range []string{"USER", "USERNAME"} {
		if v := e.getenv(k); v != "" {
			return v
		}
	}
	return "annotator"
}

// stateDir is where Gavel keeps the demo's session: $XDG_STATE_HOME/gavel,
// else ~/.local/state/gavel on Unix, the platform's application data
// folder elsewhere.
func (e env) stateDir() (string, error) {
	if d := e.getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "gavel"), nil
	}
	switch runtime.GOOS {
	case "windows", "darwin", "ios":
		d, err := os.UserConfigDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(d, "gavel"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "state", "gavel"), nil
}
