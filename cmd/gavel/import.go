package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/catalog"
	"github.com/gavel-dev/gavel/sessions"
)

// importAnnotator is the name `gavel import` holds the session's lock
// under; the labels it writes belong to the dataset's human columns.
const importAnnotator = "gavel import"

// importFlags are the flags of `gavel import`.
type importFlags struct {
	datasetFlags
	session string
	judge   string
}

func newImportCmd(e env) *cobra.Command {
	var o importFlags
	cmd := &cobra.Command{
		Use:   "import DATASET",
		Short: "Make a session from rows that already carry verdicts and labels, without calling any model",
		Long: `Read DATASET and put what it already holds into a session, with no model
call, so that ` + "`gavel stats`" + ` can compare the judges with the humans.

  - each verdict column (is_correct, verdict, score, gpt4_result, or any
    true/false column such as GPT-4 or EM) becomes a judge run named
    "imported · COLUMN": true/false, yes/no, 1/0, correct/incorrect,
    pass/fail read as a binary "correct"; 0/0.5/1 as ternary; whole numbers
    1-5 as a Likert "score". A blank cell is no verdict; a value that cannot
    be read is kept as a parse error.
  - a column of a judge's raw output (judge_output) is read with the parser
    of the judge named by --judge.
  - each human column (human_label, label, annotator1, HumanJudgement…)
    becomes the labels of an annotator named after the column.
  - a file written by ` + "`gavel export`" + ` gives back its runs, labels and notes.

Importing again is safe: what the session already has is not added twice,
and a value that changed in the file is added as the newer one. If the
file changed since the session began, new rows are added and the change is
reported. --map says which field holds what (verdict=COL+COL, human=COL).`,
		Example: `  gavel import judged.csv
  gavel import judged.csv --session team.gavel && gavel stats team.gavel
  gavel import outputs.jsonl --judge docqa          # judge_output holds docqa's raw answers
  gavel import evals.jsonl --map verdict=gpt4_says,human=gold_label
  zcat evals.jsonl.gz | gavel import - --session evals.gavel   # - reads standard input`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			return runImport(e, a[0], o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.session, "session", "", "the session `FILE` (default: DATASET's name with .gavel, in the working directory)")
	f.StringVar(&o.judge, "judge", "", "the LLM judge (its `NAME`, or a judge file) whose parser reads a column of raw judge output")
	o.datasetFlags.add(f)
	return cmd
}

func runImport(e env, path string, o importFlags) error {
	parser, err := importParser(o.judge)
	if err != nil {
		return err
	}
	if path == "-" && o.session == "" {
		return usagef("the dataset comes from standard input (-), so there is no file name to name the session after: give one with --session FILE")
	}
	ds, err := o.load(path)
	if err != nil {
		return err
	}
	if o.session == "" {
		o.session = defaultSessionPath(path)
	}
	rv, err := sessions.OpenReview(o.session, importAnnotator, ds)
	if err != nil {
		return err
	}
	defer rv.Store.Close()
	sum, err := sessions.ImportDataset(rv.Store, ds, parser)
	if err != nil {
		return err
	}
	for _, n := range append(rv.Notices, datasetNotices(ds)...) {
		fmt.Fprintln(e.stderr, n)
	}
	for _, s := range sum.Skipped {
		fmt.Fprintln(e.stderr, s)
	}
	printImport(e, filepath.Base(ds.Name), o.session, len(rv.Items), sum)
	if err := rv.Store.Close(); err != nil {
		return err
	}
	if len(sum.Runs) == 0 && len(sum.Annotators) == 0 {
		fmt.Fprintf(e.stderr, "%s carries no verdicts or labels Gavel could read: name its columns with --map verdict=COLUMN,human=COLUMN, or judge it with `gavel run %s --judge NAME`.\n", filepath.Base(ds.Name), path)
	} else {
		fmt.Fprintf(e.stderr, "See the agreement with: gavel stats %s\n", o.session)
	}
	return nil
}

// printImport writes the summary scripts read: one line of totals, then a
// line per run and per annotator.
func printImport(e env, file, session string, items int, sum sessions.ImportSummary) {
	fmt.Fprintf(e.stdout, "%s -> %s: %s, %s created, %s, %s\n", file, session, count(items, "item"),
		count(sum.CreatedRuns(), "run"), count(sum.VerdictCount(), "verdict"), count(sum.LabelCount(), "label"))
	for _, r := range sum.Runs {
		line := fmt.Sprintf("  run %s: %s", r.Name, count(r.Verdicts, "verdict"))
		if r.ParseErrors > 0 {
			line += fmt.Sprintf(" (%s)", count(r.ParseErrors, "parse error"))
		}
		if r.Unchanged > 0 {
			line += fmt.Sprintf(", %d already there", r.Unchanged)
		}
		fmt.Fprintln(e.stdout, line)
	}
	for _, a := range sum.Annotators {
		line := fmt.Sprintf("  annotator %s: %s", a.Name, count(a.Labels, "label"))
		if a.Notes > 0 {
			line += ", " + count(a.Notes, "note")
		}
		if a.Unreadable > 0 {
			line += fmt.Sprintf(" (%s unreadable, left out)", count(a.Unreadable, "value"))
		}
		if a.Unchanged > 0 {
			line += fmt.Sprintf(", %d already there", a.Unchanged)
		}
		fmt.Fprintln(e.stdout, line)
	}
	if sum.Unknown > 0 {
		if sum.Unknown == 1 {
			fmt.Fprintln(e.stdout, "  1 row left out: the session does not hold its id")
		} else {
			fmt.Fprintf(e.stdout, "  %s left out: the session does not hold their ids\n", count(sum.Unknown, "row"))
		}
	}
}

// importParser returns the parser of the judge named by --judge, or nil
// when none is named.
func importParser(name string) (*sessions.OutputParser, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, nil
	}
	cat := catalog.New()
	entry, err := cat.Find(name)
	if err != nil {
		return nil, usageError{err}
	}
	if !entry.NeedsModel {
		return nil, usagef("--judge %s: %s reads predictions, not a judge's output; name the LLM judge whose raw output the file holds (see `gavel judges`)", name, entry.Name)
	}
	return &sessions.OutputParser{
		Judge:      entry.Name,
		Dimensions: entry.Dimensions,
		Parse: func(raw string) (judge.Verdict, error) {
			return cat.ParseOutput(entry.Name, raw)
		},
	}, nil
}

// count writes "1 run", "2 runs", "1 retry", "2 retries".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if k := len(noun); k > 1 && noun[k-1] == 'y' && !strings.ContainsRune("aeiou", rune(noun[k-2])) {
		return fmt.Sprintf("%d %sies", n, noun[:k-1])
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
