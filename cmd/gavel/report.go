package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gavel-dev/gavel/report"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/pg"
	"github.com/gavel-dev/gavel/sessions/safetext"
	"github.com/gavel-dev/gavel/sessions/stats"
	"github.com/gavel-dev/gavel/sessions/stats/render"
)

// reportFlags are the flags of `gavel report`.
type reportFlags struct {
	out    string
	format string
	judges []string
	split  string
	figureFlags
	noDate   bool
	disagree int
}

func newReportCmd(e env) *cobra.Command {
	var o reportFlags
	cmd := &cobra.Command{
		Use:   "report SESSION [-o FILE]",
		Short: "Write one self-contained HTML (or Markdown) file of how far the session's judges can be trusted, to send to someone",
		Long: `Write the audit of a session as one file that anyone can open offline: a
team lead, a paper's reviewers, a pull request.

The HTML report is a single page: the verdict in a paragraph, the judge
table ranked by Cohen's kappa with every interval, and for each judge its
confusion matrix as a heat map, its values beside the humans', agreement per
segment as a forest plot, the false-pass and false-fail rates, the corrected
pass rate, and agreement as the labels accumulated (does it settle?); then
judge against judge, the annotators' agreement, the swap audit of pairwise
judges, every item where a judge disagrees with the humans (question, gold,
prediction, verdict, reason, the humans' labels and notes; collapsed, found
by the browser's find), and the provenance: the dataset's name and hash, its
field mapping, each judge's full prompt, model and parameters, the
annotators and how they reached the items, Gavel's version and the seed.

The page runs no script and loads nothing: its style sheet and charts (SVG)
are inline, its fonts the reader's own, and a Content-Security-Policy
forbids any script or fetch. It reads on a phone and prints. Every text from
the session is escaped, so a hostile dataset cannot add to the page.

--format markdown writes the same figures as tables (no charts), for a pull
request or a paper's appendix.

The figures are gavel stats' for the same session and flags: --judge,
--seed, --resamples, --parse-errors, --split, --swap-ties,
--include-truncated and --guidelines mean what they mean there. The
session is only read (one from an older Gavel is upgraded first).

With no -o, the report is written beside the session: evals.gavel gives
evals-report.html (or .md); a team session's (a postgres:// URL) goes in
the working directory, named after the session: NAME-report.html. -o -
writes it to standard output. On the statistics screen of a review (s), w
writes the same report beside the session.`,
		Example: `  gavel report evals.gavel
  gavel report evals.gavel -o audit.html
  gavel report evals.gavel --judge gpt-4o --judge docqa@2 -o two-judges.html
  gavel report evals.gavel --format markdown -o AUDIT.md`,
		Args: sessionArgs(e),
		RunE: func(cmd *cobra.Command, a []string) error {
			return runReport(e, sessionArg(e, a), o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "output", "o", "", "the `FILE` to write (default: beside the session, SESSION-report.html or .md; - for standard output)")
	f.StringVar(&o.format, "format", "html", "the `FORMAT`: html or markdown")
	f.StringArrayVar(&o.judges, "judge", nil, "report on this judge only (repeat for several): its label as gavel stats shows it, or, ignoring case, its variant (\"docqa@2\"), the `NAME` after \" · \" or the judge's name")
	f.StringVar(&o.split, "split", splitAll, "the `PART` of the session's split (gavel split) to report on: all, evaluation or calibration")
	o.figureFlags.add(f)
	f.IntVar(&o.disagree, "disagreements", report.DefaultMaxDisagreements, "list at most `N` items where a judge disagrees with the humans, a seeded random sample when there are more; 0 lists them all")
	f.BoolVar(&o.noDate, "no-date", false, "leave the date out, so that the same session always gives the same file")
	cmd.ValidArgsFunction = first(completeExts(sessionExts))
	_ = cmd.RegisterFlagCompletionFunc("judge", completeRunLabels(e))
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"html", "markdown"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("parse-errors", cobra.FixedCompletions([]string{parseErrorsExclude, parseErrorsFailed}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("split", cobra.FixedCompletions([]string{splitEvaluation, splitCalibration, splitAll}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("guidelines", cobra.FixedCompletions([]string{guidelinesAll, guidelinesCurrent}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"html", "md"}, cobra.ShellCompDirectiveFilterFileExt))
	return cmd
}

func runReport(e env, path string, o reportFlags) error {
	format := strings.ToLower(strings.TrimSpace(o.format))
	ext := ".html"
	switch format {
	case "html":
	case "markdown", "md":
		format, ext = "markdown", ".md"
	default:
		return usagef("unknown --format %q: use html or markdown", o.format)
	}
	opts, err := o.options()
	if err != nil {
		return err
	}
	if o.disagree < 0 {
		return usagef("--disagreements %d is negative: use 0 to list every item, or a count", o.disagree)
	}
	out := o.out
	team := ""
	if pg.IsURL(path) {
		t, err := pg.ParseURL(path)
		if err != nil {
			return err
		}
		team = t.Session
	}
	switch {
	case out == "" && team != "":
		// Not beside the URL: in the working directory, after the
		// session's name.
		out = report.DefaultPath(team, format)
	case out == "":
		out = report.DefaultPath(path, format)
	}
	if out != "-" {
		if same, _ := samePath(out, path); same {
			return usagef("-o %s is the session itself: name another file", safetext.SanitizeLine(out))
		}
		if st, err := os.Stat(out); err == nil && st.IsDir() {
			return usagef("-o %s is a directory: name a file, e.g. -o %s", safetext.SanitizeLine(out), filepath.Join(out, "report"+ext))
		}
	}
	s, in, used, err := readFiguresInput(e, path, o.split, o.figureFlags)
	if err != nil {
		return err
	}
	defer s.Close()
	var keys []string
	if len(o.judges) > 0 {
		labels := make([]string, 0, len(in.Judges))
		for _, j := range in.Judges {
			labels = append(labels, j.Key)
		}
		runs, err := s.Runs()
		if err != nil {
			return err
		}
		for _, want := range o.judges {
			k, err := matchJudge(runs, labels, want, shownPath(path))
			if err != nil {
				return err
			}
			keys = append(keys, k)
		}
	}
	rep := render.Select(stats.Compute(in, opts), keys)
	rep.Split = &used
	ro := report.Options{Version: version(), Stats: opts, MaxDisagreements: o.disagree}
	if used.Seed != nil {
		ro.Split = &used
	}
	if !o.noDate {
		ro.Generated = time.Now()
	}
	d, err := report.Gather(s, in, rep, ro)
	if err != nil {
		return err
	}
	if team != "" {
		d.Session = team // not its local copy's file name
	}
	var b bytes.Buffer
	if format == "markdown" {
		err = report.WriteMarkdown(&b, d)
	} else {
		err = report.WriteHTML(&b, d)
	}
	if err != nil {
		return err
	}
	if out == "-" {
		if _, err := e.stdout.Write(b.Bytes()); err != nil {
			return fmt.Errorf("cannot write the report: %w", err)
		}
		return nil
	}
	if err := report.WriteFile(out, b.Bytes()); err != nil {
		return fmt.Errorf("cannot write the report to %s: %w (choose another file with -o)", safetext.SanitizeLine(out), err)
	}
	listed := ""
	if len(d.Disagreements) < d.DisagreeingItems {
		listed = fmt.Sprintf(" (%d listed: --disagreements 0 lists all)", len(d.Disagreements))
	}
	fmt.Fprintf(e.stdout, "%s: %s, %s with disagreements%s\n", safetext.SanitizeLine(out),
		plural(len(d.Judges), "judge", "judges"), plural(d.DisagreeingItems, "item", "items"), listed)
	return nil
}

// reportOf writes the report of a session beside it, as `gavel report
// SESSION` does with its defaults, and returns where: the statistics
// screen's w key.
func reportOf(s *sessions.Store) func() (string, error) {
	return func() (string, error) {
		path := report.DefaultPath(s.Path(), "html")
		_, err := report.Session(s, path, report.Options{Version: version(), Generated: time.Now(), Stats: stats.Options{Seed: statsSeed}, MaxDisagreements: report.DefaultMaxDisagreements})
		return path, err
	}
}

// plural is "1 judge", "3 judges".
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// samePath reports whether a and b name the same existing file.
func samePath(a, b string) (bool, error) {
	sa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(sa, sb), nil
}
