package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/pg"
)

// envSession names the session a command opens when none is given (a
// file, or a team's postgres://…?session=NAME), before the demo's.
const envSession = "GAVEL_SESSION"

// sessionOr is the session a command was given, else $GAVEL_SESSION, else
// "" (the caller's default, the demo's session).
func sessionOr(e env, given string) string {
	if given != "" {
		return given
	}
	return e.getenv(envSession)
}

// openRead opens a session read-only: a file as it is, a team session
// (a postgres:// URL) through its local copy, brought up to date first
// (pg.SyncReplica), so that stats, export, report, compare, plan --show
// and split read a team session as they read a file. Ctrl-C stops the
// copy.
func openRead(path string) (*sessions.Store, error) {
	if !pg.IsURL(path) {
		return sessions.Open(path, sessions.Options{ReadOnly: true})
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	local, err := pg.SyncReplica(ctx, path)
	if err != nil {
		return nil, err
	}
	return sessions.Open(local, sessions.Options{ReadOnly: true})
}

// shownPath is a session argument fit to print: a team session's URL
// with its password replaced (pg.Redact), a file's path as it is.
func shownPath(path string) string {
	if pg.IsURL(path) {
		return pg.Redact(path)
	}
	return path
}

// passwordInURL finds the password of a postgres:// URL's user info, and
// password= parameters, in any text; a URL made a file path
// (postgres:/user:password@…, its // cleaned to /) too.
var (
	passwordInURL   = regexp.MustCompile(`(postgres(?:ql)?:/{1,2}[^:/@\s]*):[^@\s]*@`)
	passwordInQuery = regexp.MustCompile(`([?&]password=)[^&\s]*`)
)

// redactURLs replaces the password of every PostgreSQL URL in a message
// with xxxxx: a last guard for messages that name the session as given
// (a file path check, say) before any code knew it was a URL.
func redactURLs(msg string) string {
	if !strings.Contains(msg, "postgres") {
		return msg
	}
	msg = passwordInURL.ReplaceAllString(msg, "${1}:xxxxx@")
	return passwordInQuery.ReplaceAllString(msg, "${1}xxxxx")
}

// fileOnly refuses a team session's URL for a command that works on
// session files alone, saying what to do instead.
func fileOnly(command, path string) error {
	if !pg.IsURL(path) {
		return nil
	}
	return usagef("gavel %s works on session files, and %s is a team session in PostgreSQL (%s): copy it to a file first (gavel copy URL FILE.gavel)", command, pg.Redact(path), sessions.TeamCommands)
}

// namingTeam has err name the team session at raw (its password
// replaced) where it names the session's local copy, at local: the
// checks shared with session files say the session's path. A labelling
// plan the session lacks is said with how a team session gets one
// (gavel plan -n works on files). A file's errors are left as they are.
func namingTeam(err error, local, raw string) error {
	if err == nil || !pg.IsURL(raw) || !strings.Contains(err.Error(), local) {
		return err
	}
	msg := strings.ReplaceAll(err.Error(), local, pg.Redact(raw))
	if errors.Is(err, sessions.ErrPlan) {
		msg = strings.ReplaceAll(msg, " (draw one with gavel plan)", ": "+drawPlanHint(raw))
	}
	if errors.Is(err, sessions.ErrNoSplit) {
		// gavel split works on files alone.
		msg = strings.ReplaceAll(msg, "record one with `gavel split "+pg.Redact(raw)+"`",
			"a team session cannot record one yet (gavel split works on session files): judge a copy of it (gavel copy "+pg.Redact(raw)+" FILE.gavel, then gavel split FILE.gavel)")
	}
	var u usageError
	if errors.As(err, &u) {
		return usageError{errors.New(msg)}
	}
	return errors.New(msg)
}

// sessionArgs checks a command's one SESSION argument, which
// $GAVEL_SESSION stands in for when it is not given.
func sessionArgs(e env) cobra.PositionalArgs {
	return args(func(cmd *cobra.Command, a []string) error {
		if len(a) == 0 && e.getenv(envSession) != "" {
			return nil
		}
		return cobra.ExactArgs(1)(cmd, a)
	})
}

// sessionArg is the SESSION argument a command was given, else
// $GAVEL_SESSION (sessionArgs let it through only when set).
func sessionArg(e env, a []string) string {
	if len(a) > 0 {
		return a[0]
	}
	return e.getenv(envSession)
}
