package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gavel-dev/gavel/tui"
)

// Exit codes: 0 success, 1 runtime error, 2 usage error.
const (
	exitOK      = 0
	exitRuntime = 1
	exitUsage   = 2
)

// usageError marks a mistake in how gavel was called.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// exitCode maps an error to the process exit code.
func exitCode(err error) int {
	var u usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &u), strings.HasPrefix(err.Error(), "unknown command"),
		strings.HasPrefix(err.Error(), "unknown flag"), strings.HasPrefix(err.Error(), "unknown shorthand flag"):
		return exitUsage
	}
	return exitRuntime
}

// args returns a cobra argument check whose errors are usage errors.
func args(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if err := check(cmd, a); err != nil {
			return usageError{err}
		}
		return nil
	}
}

// safeStderr writes messages for a person at a terminal: errors, notices
// and summaries carry file names, judge names, dataset fields and server
// answers, any of which may hold escape sequences (a hyperlink, a
// clipboard write, a title change), C1 controls or bidi overrides. Each
// write is one message of one line: it goes through tui.SanitizeLine,
// which shows such text inert (ESC as ␛) and a line break inside it as ⏎,
// so that a file name cannot start a line of its own that looks like
// Gavel's; the newlines that end the write are kept. The only sequences
// that pass are the carriage return and erase-line that frame a progress
// line redrawn in place ("\r…\x1b[K"), whose text is sanitised too.
type safeStderr struct{ w io.Writer }

// terminalSafe wraps the writer the messages go to.
func terminalSafe(w io.Writer) io.Writer { return safeStderr{w} }

const eraseLine = "\x1b[K"

func (s safeStderr) Write(p []byte) (int, error) {
	msg := string(p)
	body := strings.TrimRight(msg, "\n")
	end := msg[len(body):]
	var head, tail string
	if strings.HasPrefix(body, "\r") && strings.HasSuffix(body, eraseLine) {
		head, tail, body = "\r", eraseLine, body[1:len(body)-len(eraseLine)]
	}
	if _, err := io.WriteString(s.w, head+tui.SanitizeLine(body)+tail+end); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Fd is the file descriptor of the writer beneath, so that a check for a
// terminal sees through the wrapper.
func (s safeStderr) Fd() uintptr {
	if f, ok := s.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}
