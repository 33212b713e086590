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
)

func main() {
	os.Exit(execute(context.Background(), mainEnv(), os.Args[1:]))
}

// mainEnv is the outside world of the gavel process: its messages on
// stderr pass through the sanitiser (see safeStderr).
func mainEnv() env {
	e := newEnv()
	e.stderr = terminalSafe(e.stderr)
	return e
}
