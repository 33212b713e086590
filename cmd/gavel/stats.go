package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats"
	"github.com/gavel-dev/gavel/sessions/stats/render"
)

// statsFlags are the flags of `gavel stats`.
type statsFlags struct {
	format string
	judge  string
	split  string
	figureFlags
}

// maxResamples bounds --resamples: beyond it an interval gains nothing
// but time.
const maxResamples = 100_000

func newStatsCmd(e env) *cobra.Command {
	var o statsFlags
	cmd := &cobra.Command{
		Use:   "stats [SESSION]",
		Short: "Print how far the session's judges can be trusted: agreement with the humans, each other and themselves",
		Long: `Print the agreement statistics of a session: for each judge and dimension,
percent agreement, Cohen's kappa, Gwet's AC1, Krippendorff's alpha (and the
ordinal figures on ordinal scales, per-category precision, recall and F1 on
nominal and pairwise ones), the confusion matrix, the judge as a
classifier, the score bias, the corrected pass rate, flip rates, the swap
audit of pairwise judges run with --swap, the per-segment table; judge
against judge; agreement between annotators.

The figures are the statistics screen's (press s in a review), computed the
same way with the same seed. The session is only read (one from an older
Gavel is upgraded first), so this works while a review of it is open. With
no SESSION, the demo's session is read.

--judge NAME keeps one judge: its label as the report shows it, else,
ignoring case, its variant NAME@K (the K-th run of that judge, oldest
first: docqa@2 after a changed prompt or model), else the name after " · "
(the model, or an imported column: --judge GPT-4 finds "imported · GPT-4",
not "imported · GPT-4 Turbo") or the judge's name. When several judges
match, they are listed: pass the full label. The ranking of the judges
stays whole, to show where the one kept stands.

A parse error (an answer the judge's output parser could not read) is left
out of agreement and pass rates and only counted (--parse-errors exclude,
the default); --parse-errors fail counts a binary judge's parse error as
NO, the judge's score as deployed. API errors are always left out. A
truncated verdict (the server read only part of the prompt: it cut it to
its context without saying so, and the judge never saw the whole task) is
counted and left out of agreement; --include-truncated counts its values.

--split evaluation (or calibration) reports on that part of the session's
split (gavel split) only; the default, all, reports on every item.

A person's labels on an item they marked "can't judge" are left out of
every agreement figure. --guidelines current counts only the labels made
under the newest version of the guidelines (gavel review --guidelines
FILE), --guidelines N those made under version N; the default, all, counts
every label. When the session records how people labelled (guidelines,
"can't judge", failure tags, re-tests, blind and shown decisions), a
Labelling section follows: the versions, "can't judge" by reason, tags
overall and among each judge's disagreements, and each annotator's
decisions, time per decision, first against last quarter of each sitting,
agreement with themselves on re-tests and with the judge blind against
shown.

Formats:
  text      the screen's lines, without colour
  json      every figure, for scripts: stable, documented output
            (schema_version 2: a "judge_table" ranking the judges by
            Cohen's kappa comes before the judges, every coefficient has
            an interval, "parse_errors" says exclude or fail,
            "truncated" exclude or include, and each judging counts
            "truncated" beside "parse_errors" and "api_errors";
            "guidelines" says which labels count; "labelling" holds how
            people labelled, left out when the session records none of
            it; undefined figures are null with a reason)
  markdown  tables for reports`,
		Example: `  gavel stats evals.gavel
  gavel stats evals.gavel --format json > stats.json
  gavel stats evals.gavel --judge "docqa · gpt-4o" --format markdown
  gavel stats evals.gavel --judge gpt-4o --parse-errors fail
  gavel stats evals.gavel --split evaluation   # the items no tuning saw (gavel split)
  gavel stats evals.gavel --guidelines current # only labels made under the newest guidelines
  gavel stats                              # the demo's session`,
		Args: args(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			path := ""
			if len(a) == 1 {
				path = a[0]
			}
			return runStats(e, path, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.format, "format", "text", "the `FORMAT`: text, json or markdown")
	f.StringVar(&o.judge, "judge", "", "only this judge: its label as the report shows it (e.g. \"docqa · gpt-4o\"), or, ignoring case, its variant (\"docqa@2\"), the `NAME` after \" · \" (\"gpt-4o\") or the judge's name")
	f.StringVar(&o.split, "split", splitAll, "the `PART` of the session's calibration / evaluation split (gavel split) to report on: all, evaluation or calibration")
	o.figureFlags.add(f)
	_ = cmd.RegisterFlagCompletionFunc("guidelines", cobra.FixedCompletions([]string{guidelinesAll, guidelinesCurrent}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func runStats(e env, path string, o statsFlags) error {
	o.format = strings.ToLower(strings.TrimSpace(o.format))
	switch o.format {
	case "text", "json", "markdown", "md":
	default:
		return usagef("unknown --format %q: use text, json or markdown", o.format)
	}
	opts, err := o.options()
	if err != nil {
		return err
	}
	if path = sessionOr(e, path); path == "" {
		var err error
		if path, err = demoSessionPath(e); err != nil {
			return err
		}
	}
	s, in, used, err := readFiguresInput(e, path, o.split, o.figureFlags)
	if err != nil {
		return err
	}
	defer s.Close()
	var keys []string
	if o.judge != "" {
		if keys, err = judgeKeys(s, in, o.judge, path); err != nil {
			return err
		}
	}
	rep := render.Select(stats.Compute(in, opts), keys)
	rep.Split = &used
	out, err := renderStats(rep, o.format, textWidth(e.stdout))
	if err != nil {
		return err
	}
	if line := splitLine(used); line != "" && used.Part != splitAll && o.format != "json" {
		if o.format == "text" {
			out = append([]byte(line+"\n\n"), out...)
		} else {
			out = append([]byte("_"+line+"_\n\n"), out...)
		}
	}
	if _, err := e.stdout.Write(out); err != nil {
		return fmt.Errorf("cannot write the statistics: %w", err)
	}
	return nil
}

// renderStats writes a report in one of the formats.
func renderStats(rep stats.Report, format string, width int) ([]byte, error) {
	switch format {
	case "json":
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("cannot write the statistics as JSON (a bug in this build): %w", err)
		}
		return append(b, '\n'), nil
	case "markdown", "md":
		return []byte(render.Markdown(rep)), nil
	}
	return []byte(render.TextAt(rep, width)), nil
}

// Widths `gavel stats` prints text at on a terminal; piped, it prints at
// render.TextWidth, the same whatever the reader's screen.
const (
	minTextWidth = 60
	maxTextWidth = 160
)

// textWidth is the width of the terminal w writes to, kept within
// minTextWidth and maxTextWidth, or render.TextWidth when w is not a
// terminal.
func textWidth(w io.Writer) int {
	f, ok := w.(interface{ Fd() uintptr })
	if !ok || !term.IsTerminal(f.Fd()) {
		return render.TextWidth
	}
	cols, _, err := term.GetSize(f.Fd())
	if err != nil || cols <= 0 {
		return render.TextWidth
	}
	return min(max(cols, minTextWidth), maxTextWidth)
}

// demoSessionPath is the demo's session, which `gavel` with no arguments
// writes.
func demoSessionPath(e env) (string, error) {
	dir, err := e.stateDir()
	if err != nil {
		return "", usagef("cannot find the state directory of the demo's session (%v): name a session file", err)
	}
	path := filepath.Join(dir, "demo.gavel")
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return "", usagef("no session given, and the demo has no session yet at %s: run `gavel` to label the demo, or name a session file", path)
	}
	return path, nil
}

// judgeKeys finds the judge --judge names among the report's judges
// (matchJudge).
func judgeKeys(s *sessions.Store, in stats.Input, want, path string) ([]string, error) {
	labels := make([]string, 0, len(in.Judges))
	for _, j := range in.Judges {
		labels = append(labels, j.Key)
	}
	runs, err := s.Runs()
	if err != nil {
		return nil, err
	}
	label, err := matchJudge(runs, labels, want, shownPath(path))
	if err != nil {
		return nil, err
	}
	return []string{label}, nil
}
