package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gavel-dev/gavel/sessions/dataset"
	"github.com/gavel-dev/gavel/sessions/safetext"
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
	case errors.As(err, &u), errors.Is(err, dataset.ErrFlag), strings.HasPrefix(err.Error(), "unknown command"),
		strings.HasPrefix(err.Error(), "unknown flag"), strings.HasPrefix(err.Error(), "unknown shorthand flag"):
		return exitUsage
	}
	return exitRuntime
}

// args returns a cobra argument check whose errors are usage errors that
// say what the command needs, with its first example, instead of cobra's
// "accepts 1 arg(s), received 0"; an unknown command names the commands
// it may be a typo of.
func args(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		err := check(cmd, a)
		var u usageError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &u):
			return err
		case !cmd.HasParent() && len(a) > 0:
			return unknownCommand(cmd, a[0])
		}
		need := argsNeeded(cmd)
		var msg string
		switch {
		case need == "":
			msg = fmt.Sprintf("%s takes no arguments, but got %s", cmd.Name(), countArgs(a))
		case len(a) == 0:
			msg = fmt.Sprintf("%s needs %s", cmd.Name(), need)
		default:
			msg = fmt.Sprintf("%s takes %s, but got %s", cmd.Name(), need, countArgs(a))
		}
		if ex := firstExample(cmd, need != ""); ex != "" {
			msg += "; e.g. " + ex
		}
		return usageError{errors.New(msg)}
	}
}

// unknownCommand is the error for a word that is no command of root,
// with the commands it may be a typo of.
func unknownCommand(root *cobra.Command, word string) error {
	msg := fmt.Sprintf("unknown command %q for %q", word, root.CommandPath())
	if s := root.SuggestionsFor(word); len(s) > 0 {
		msg += ": did you mean " + strings.Join(quoteEach(s), " or ") + "?"
	}
	return usageError{errors.New(msg)}
}

// argsNeeded is the arguments part of a command's Use line, its flags
// left out: "DATASET" for "run DATASET --judge NAME".
func argsNeeded(cmd *cobra.Command) string {
	words := strings.Fields(cmd.Use)
	var need []string
	for _, w := range words[min(1, len(words)):] {
		if strings.HasPrefix(strings.TrimLeft(w, "["), "-") {
			break
		}
		need = append(need, w)
	}
	return strings.Join(need, " ")
}

// countArgs is "2 arguments (\"a\", \"b\")".
func countArgs(a []string) string {
	n := "1 argument"
	if len(a) != 1 {
		n = fmt.Sprintf("%d arguments", len(a))
	}
	return n + " (" + strings.Join(quoteEach(a), ", ") + ")"
}

// firstExample is the first line of a command's examples (with an
// argument, if withArg), without its comment or the variables set before
// it.
func firstExample(cmd *cobra.Command, withArg bool) string {
	var found string
	for _, line := range strings.Split(cmd.Example, "\n") {
		line, _, _ = strings.Cut(line, " #")
		words := strings.Fields(line)
		for len(words) > 1 && strings.Contains(words[0], "=") {
			words = words[1:]
		}
		ex := strings.Join(words, " ")
		if found == "" {
			found = ex
		}
		rest := strings.TrimPrefix(ex, cmd.CommandPath())
		if !withArg || rest != ex && rest != "" && !strings.HasPrefix(strings.TrimSpace(rest), "-") {
			return ex
		}
	}
	return found
}

func quoteEach(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// safeStderr writes messages for a person at a terminal: errors, notices
// and summaries carry file names, judge names, dataset fields and server
// answers, any of which may hold escape sequences (a hyperlink, a
// clipboard write, a title change), C1 controls or bidi overrides. Each
// write is one message of one line: it goes through safetext.SanitizeLine,
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
	if _, err := io.WriteString(s.w, head+safetext.SanitizeLine(body)+tail+end); err != nil {
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
