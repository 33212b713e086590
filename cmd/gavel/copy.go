package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/pg"
	"github.com/gavel-dev/gavel/sessions/safetext"
)

func newCopyCmd(e env) *cobra.Command {
	var replace bool
	cmd := &cobra.Command{
		Use:   "copy SRC DST [--replace]",
		Short: "Copy a session between a file and PostgreSQL, either way, losing nothing",
		Long: `Copy the session SRC to DST. Each is a session file or a PostgreSQL
session URL, postgres://USER[:PASSWORD]@HOST:PORT/DATABASE?session=NAME
(the session lives in the database's schema gavel_NAME; NAME is lower-case
letters, digits and _).

A file copied to PostgreSQL becomes a session a team labels together;
copied back, it gives a file whose every table, and so whose gavel export,
is the same as before. Everything is copied: items, judge runs and
verdicts, every annotator's labels, notes, undos, "can't judge" and tags,
guidelines, splits, plans and the response cache; texts with NUL bytes or
invalid UTF-8 too. SRC is only read (a review of it may go on; a session from an older
Gavel is upgraded first, as every command upgrades it): the copy is one
snapshot of it.

The copy is all or nothing. DST must not exist yet; --replace overwrites
a PostgreSQL session that does (a file is never overwritten: delete it
first). Copying from PostgreSQL needs a session made by a Gavel of the same
schema version. Passwords in URLs are never printed: write
postgres://USER@HOST/DB?session=NAME and set PGPASSWORD to keep it out of
your shell's history.`,
		Example: `  gavel copy evals.gavel 'postgres://ana@db.example.com:5432/evals?session=triviaqa'
  gavel copy 'postgres://ana@db.example.com:5432/evals?session=triviaqa' backup.gavel
  gavel copy evals.gavel 'postgres://ana@db.example.com/evals?session=triviaqa' --replace
  gavel copy evals.gavel evals-copy.gavel`,
		Args: args(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, a []string) error {
			return runCopy(cmd.Context(), e, a[0], a[1], replace)
		},
	}
	cmd.Flags().BoolVar(&replace, "replace", false, "overwrite the PostgreSQL session DST when it exists")
	cmd.ValidArgsFunction = completeExts(sessionExts)
	return cmd
}

// copyEnd is one end of a copy: a file or a PostgreSQL session.
type copyEnd struct {
	arg    string
	url    bool
	target pg.Target
}

func (c copyEnd) shown() string {
	if c.url {
		return c.target.Shown
	}
	return c.arg
}

func parseCopyEnd(arg, which string) (copyEnd, error) {
	if arg == "" {
		return copyEnd{}, usagef("the %s is empty: give a session file or a postgres:// URL", which)
	}
	if !pg.IsURL(arg) {
		return copyEnd{arg: arg}, nil
	}
	t, err := pg.ParseURL(arg)
	if err != nil {
		return copyEnd{}, usageError{err}
	}
	return copyEnd{arg: arg, url: true, target: t}, nil
}

func runCopy(ctx context.Context, e env, srcArg, dstArg string, replace bool) error {
	if ctx == nil {
		ctx = context.Background()
	}
	src, err := parseCopyEnd(srcArg, "source")
	if err != nil {
		return err
	}
	dst, err := parseCopyEnd(dstArg, "destination")
	if err != nil {
		return err
	}
	if replace && !dst.url {
		return usagef("--replace overwrites a PostgreSQL session only: %s is a file, and gavel copy never overwrites one; delete it first", dst.arg)
	}
	var sum pg.CopySummary
	switch {
	case !src.url && !dst.url:
		if err := sessions.CopyFile(src.arg, dst.arg); err != nil {
			return err
		}
		sum, err = countFile(dst.arg)
	case !src.url:
		sum, err = copyToPostgres(ctx, src.arg, dst, replace)
	case !dst.url:
		sum, err = copyFromPostgres(ctx, src, dst.arg)
	default:
		sum, err = copyBetweenPostgres(ctx, src, dst, replace)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, safetext.SanitizeLine(fmt.Sprintf("%s -> %s: %s, %s, %s, %s", src.shown(), dst.shown(),
		count(int(sum.Count("items")), "item"), count(int(sum.Count("runs")), "run"),
		count(int(sum.Count("verdicts")), "verdict"), count(int(sum.Count("actions")), "action"))))
	return nil
}

func connectEnd(ctx context.Context, c copyEnd) (*pg.Store, error) {
	return pg.Connect(ctx, c.arg)
}

func copyToPostgres(ctx context.Context, file string, dst copyEnd, replace bool) (pg.CopySummary, error) {
	st, err := connectEnd(ctx, dst)
	if err != nil {
		return pg.CopySummary{}, err
	}
	defer st.Close()
	return pg.CopyFromSQLite(ctx, file, st, pg.CopyOptions{Replace: replace, CreatedBy: "gavel " + version()})
}

func copyFromPostgres(ctx context.Context, src copyEnd, file string) (pg.CopySummary, error) {
	st, err := connectEnd(ctx, src)
	if err != nil {
		return pg.CopySummary{}, err
	}
	defer st.Close()
	return pg.CopyToSQLite(ctx, st, file)
}

// copyBetweenPostgres copies through a session file in a temporary folder.
func copyBetweenPostgres(ctx context.Context, src, dst copyEnd, replace bool) (pg.CopySummary, error) {
	if src.target.Conn == dst.target.Conn && src.target.Session == dst.target.Session {
		return pg.CopySummary{}, usagef("%s and %s are the same session", src.shown(), dst.shown())
	}
	dir, err := os.MkdirTemp("", "gavel-copy-*")
	if err != nil {
		return pg.CopySummary{}, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, src.target.Session+".gavel")
	if _, err := copyFromPostgres(ctx, src, file); err != nil {
		return pg.CopySummary{}, err
	}
	return copyToPostgres(ctx, file, dst, replace)
}

// countFile counts the rows of a session file's tables, for the summary.
func countFile(path string) (pg.CopySummary, error) {
	sum := pg.CopySummary{Rows: map[string]int64{}}
	s, err := sessions.Open(path, sessions.Options{ReadOnly: true})
	if err != nil {
		return sum, err
	}
	defer s.Close()
	err = s.ReadSnapshot(func(tx *sql.Tx) error {
		for _, t := range []string{"items", "runs", "verdicts", "actions"} {
			var n int64
			if err := tx.QueryRow(`SELECT count(*) FROM ` + t).Scan(&n); err != nil {
				return err
			}
			sum.Rows[t] = n
		}
		return nil
	})
	return sum, err
}
