package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gavel-dev/gavel/sessions"
)

// exportFlags are the flags of `gavel export`.
type exportFlags struct {
	format    string
	only      string
	output    string
	judge     string
	cantJudge bool
	reason    string
	tag       string
	// onlySet: --only was given (the can't-judge and tag filters
	// otherwise look at every item, labelled or not).
	onlySet bool
}

func newExportCmd(e env) *cobra.Command {
	var o exportFlags
	cmd := &cobra.Command{
		Use:   "export SESSION",
		Short: "Write the reviewed items with every verdict and label as JSONL or CSV: a calibration set",
		Long: `Write one row per item of SESSION: the item's fields, each judge run's
current verdict (value per dimension, status, reason, error) and each
annotator's label, how they reached the item, and their note. The session
is only read (one from an older Gavel is upgraded first), so this works
while a review is open.

Columns, in order (RUN is the judge as ` + "`gavel stats`" + ` names it, e.g. "docqa · gpt-4o"):
  id, question, gold, prediction, rubric
  segment:FIELD                 one per segment field
  verdict:RUN:DIMENSION         YES/NO (binary), 0/0.5/1 (ternary), 1-5 (Likert)
  verdict_status:RUN            ok, parse_error, api_error or truncated (the server
                                read only part of the prompt; the values are kept)
  verdict_reason:RUN, verdict_error:RUN
  verdict_confidence:RUN        the answer's probability from logprobs, and
  verdict_confidence_withheld:RUN  why there is none (both for runs that have any)
  label:ANNOTATOR:DIMENSION     like verdicts
  label_via:ANNOTATOR           order, random, filter:NAME or imported
  note:ANNOTATOR
  label_guidelines:ANNOTATOR    the guidelines version of the latest label (a number)
  label_shown:ANNOTATOR         shown or blind: was the verdict on screen
  label_shown_run:ANNOTATOR     the run whose verdict was on screen
  retest:ANNOTATOR:DIMENSION    the re-test label, made blind
  cant_judge:ANNOTATOR          gold-wrong, ambiguous, unreadable or other
  cant_judge_note:ANNOTATOR     what was said about it
  tags:ANNOTATOR                the failure tags, separated by commas
  fields                        the original row, every field it had
The label_guidelines to tags columns are written for annotators who have
such a record.
Judges that rate rubric criteria one by one hold a list per cell: element 0
the whole item, element k criterion k. ` + "`gavel import`" + ` reads the file back.

--judge NAME writes one run's verdict columns and leaves the other runs'
out (item and label columns stay); --only disagreements then compares that
run alone with the labels. NAME is found as in ` + "`gavel stats --judge`" + `: the
run's label, else, ignoring case, the name after " · " or the judge's
name; when several runs match, they are listed.

--cant-judge writes the items someone marked as impossible to judge, with
their reasons (--reason gold-wrong: the dataset's fix list); --tag NAME the
items someone tagged NAME. They look at every item unless --only is given.`,
		Example: `  gavel export evals.gavel --output calibration.jsonl
  gavel export evals.gavel --format csv --only disagreements > disagreements.csv
  gavel export evals.gavel --only all --output everything.csv
  gavel export evals.gavel --judge gpt-4o --only disagreements -o gpt4o.csv
  gavel export evals.gavel --cant-judge --reason gold-wrong -o fix-the-gold.csv
  gavel export evals.gavel --tag "too strict" --only disagreements`,
		Args: sessionArgs(e),
		RunE: func(cmd *cobra.Command, a []string) error {
			o.onlySet = cmd.Flags().Changed("only")
			return runExport(e, sessionArg(e, a), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.format, "format", "", "the `FORMAT` to write: jsonl or csv (default: from --output's extension, else jsonl)")
	f.StringVar(&o.only, "only", sessions.OnlyReviewed, "`WHICH` items: reviewed (someone labelled them), disagreements (a judge and a person differ) or all")
	f.StringVarP(&o.output, "output", "o", "", "the `FILE` to write (default: standard output)")
	f.BoolVar(&o.cantJudge, "cant-judge", false, "only the items someone marked as impossible to judge, with the reasons")
	f.StringVar(&o.reason, "reason", "", "with --cant-judge, only this `REASON`: "+strings.Join(sessions.CantJudgeReasons, ", "))
	f.StringVar(&o.tag, "tag", "", "only the items someone tagged with the failure tag `NAME`")
	_ = cmd.RegisterFlagCompletionFunc("reason", cobra.FixedCompletions(sessions.CantJudgeReasons, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("tag", cobra.NoFileCompletions)
	f.StringVar(&o.judge, "judge", "", "only this run's verdicts: its label as gavel stats shows it (e.g. \"docqa · gpt-4o\"), or, ignoring case, its variant (\"docqa@2\"), the `NAME` after \" · \" or the judge's name")
	return cmd
}

func runExport(e env, path string, o exportFlags) error {
	format := strings.ToLower(strings.TrimSpace(o.format))
	if format == "" {
		format = "jsonl"
		if strings.EqualFold(filepath.Ext(o.output), ".csv") {
			format = "csv"
		}
	}
	if format == "ndjson" {
		format = "jsonl"
	}
	if format != "jsonl" && format != "csv" {
		return usagef("unknown --format %q: use jsonl or csv", o.format)
	}
	only := strings.ToLower(strings.TrimSpace(o.only))
	switch only {
	case sessions.OnlyReviewed, sessions.OnlyDisagreements, sessions.OnlyAll:
	default:
		return usagef("unknown --only %q: use reviewed, disagreements or all", o.only)
	}
	if o.reason != "" && !slices.Contains(sessions.CantJudgeReasons, o.reason) {
		return usagef("unknown --reason %q: use %s", o.reason, strings.Join(sessions.CantJudgeReasons, ", "))
	}
	filtered := o.cantJudge || o.reason != "" || o.tag != ""
	if filtered && !o.onlySet {
		only = sessions.OnlyAll
	}
	s, err := openRead(path)
	if err != nil {
		return err
	}
	defer s.Close()
	if n := s.Notice(); n != "" {
		fmt.Fprintln(e.stderr, n)
	}
	opts := sessions.ExportOptions{Format: format, Only: only, CantJudge: o.cantJudge || o.reason != "", Reason: o.reason, Tag: o.tag}
	if o.tag != "" {
		tags, err := s.TagSet()
		if err != nil {
			return err
		}
		if !slices.Contains(tags, o.tag) {
			return usagef("--tag %q: %s has no such tag (its tags: %s)", o.tag, shownPath(path), listOrNone(tags))
		}
	}
	if strings.TrimSpace(o.judge) != "" {
		runs, err := s.Runs()
		if err != nil {
			return err
		}
		label, err := matchJudge(runs, nil, o.judge, shownPath(path))
		if err != nil {
			return err
		}
		opts.Runs = []string{label}
	}
	var sum sessions.ExportSummary
	err = writeOutput(e, o.output, func(w io.Writer) error {
		var err error
		sum, err = sessions.Export(s, w, opts)
		return err
	})
	if err != nil {
		return err
	}
	where := o.output
	if where == "" || where == "-" {
		where = "standard output"
	}
	what := only
	switch {
	case opts.Reason != "":
		what += ", can't judge: " + opts.Reason
	case opts.CantJudge:
		what += ", can't judge"
	}
	if opts.Tag != "" {
		what += fmt.Sprintf(", tagged %q", opts.Tag)
	}
	if len(opts.Runs) == 1 {
		what += ", verdicts of " + opts.Runs[0]
	}
	fmt.Fprintf(e.stderr, "Wrote %d of %s (%s) to %s.\n", sum.Rows, count(sum.Items, "item"), what, where)
	if sum.Rows == 0 && filtered {
		fmt.Fprintf(e.stderr, "No item matches: mark items as impossible to judge, or tag them, on the review screen or with gavel label --cant-judge or --tag.\n")
	} else if sum.Rows == 0 && only != sessions.OnlyAll {
		fmt.Fprintf(e.stderr, "No item is %s yet: label some with `gavel review`, or export every item with --only all.\n", only)
	}
	return nil
}

// writeOutput runs write on standard output (path "" or "-") or on a new
// file that replaces path only once it is complete, so an interrupted
// export never leaves half a file.
func writeOutput(e env, path string, write func(w io.Writer) error) error {
	if path == "" || path == "-" {
		return write(e.stdout)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s is a folder: give --output a file name", path)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %v", path, err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cannot write %s: %v", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("cannot write %s: %v", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("cannot write %s: %v", path, err)
	}
	done = true
	return nil
}
