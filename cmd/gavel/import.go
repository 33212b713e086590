package main

import (
	"fmt"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/catalog"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/pg"
	"github.com/gavel-dev/gavel/sessions/safetext"
)

// importAnnotator is the name `gavel import` holds the session's lock
// under; the labels it writes belong to the dataset's human columns.
const importAnnotator = "gavel import"

// importGCPercent is the GC target (GOGC) once the dataset is loaded: the
// heap may grow a twentieth over what is live.
const importGCPercent = 5

// importFlags are the flags of `gavel import`.
type importFlags struct {
	datasetFlags
	session string
	judge   string
	// scales are the --scale arguments: SCALE, or COLUMN=SCALE.
	scales []string
	// join adds the file's columns to an existing session's items by id.
	join bool
	// shown names the session in the summary, when session is a file
	// standing in for it (a new team session: import_team.go), and then
	// runs once the file is written and closed, before the summary.
	shown string
	then  func() error
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
    "imported · COLUMN"; each human column (human_label, label,
    annotator1, HumanJudgement…) the labels of an annotator named after it.
  - a column's values are read on its scale: --scale SCALE for every
    column, --scale COLUMN=SCALE for one (binary, ternary, likert,
    ordinal:1-10, nominal:A,B,C, pairwise, pairwise:notie). Without
    --scale, only values that leave no doubt are read: true/false, yes/no,
    1/0 as a binary "correct"; 0/0.5/1 as ternary; 1-5 with a value above 2
    as a Likert "score"; A/B/tie or model_a/model_b as a pairwise
    "preference". A column of 1 and 2, or 0, 1 and 2, is a preference or a
    score: it is listed with the --scale that reads it, not guessed.
    A blank cell is no verdict; a value off the scale is kept as a parse
    error (a verdict) or counted (a label).
  - pairwise datasets: the two responses are response_a and response_b
    (recognised: response1/response2, output_1/output_2, answer_a/answer_b…);
    no prediction is needed. A column of the same judge's verdicts made
    with the responses swapped (already in the original A/B terms) goes
    into the same run: --map swapped=COLUMN pairs it with the only verdict
    column, --map swapped=VERDICT:COLUMN+VERDICT2:COLUMN2 with several.
    --map reason=COLUMN (or VERDICT:COLUMN) gives the verdicts' reasons.
  - --map confidence=COLUMN (or VERDICT:COLUMN+VERDICT2:COLUMN2) gives the
    probability, 0 to 1, the judge gave its own verdict, as a logprob
    confidence is: the reliability curve and an active labelling plan
    (gavel plan) read it. A value outside 0 to 1, or no number, stops the
    import with its row; a blank cell is no confidence.
  - --join adds to an existing --session the columns of a file that shares
    its ids (a judge's results file, a second annotator's labels): rows are
    matched by the id field, and the file need not repeat the question or
    the responses. Rows whose id the session lacks are counted.
  - a column of a judge's raw output (judge_output) is read with the parser
    of the judge named by --judge.
  - a file written by ` + "`gavel export`" + ` gives back its runs (in both
    orders), labels and notes; a dimension's scale is read from its values,
    and --scale DIMENSION=SCALE gives it when they do not show it all (an
    ordinal range, a category no one used).

--session postgres://…?session=NAME makes a new team session in PostgreSQL
holding what the import into a file would hold (an existing team session is
not added to: gavel copy it to a file, import there, and copy it back).

Importing again is safe: what the session already has is not added twice,
and a value that changed in the file is added as the newer one. If the
file changed since the session began, new rows are added and the change is
reported. --map says which field holds what (verdict=COL+COL, human=COL).`,
		Example: `  gavel import judged.csv
  gavel import judged.csv --session team.gavel && gavel stats team.gavel
  gavel import outputs.jsonl --judge docqa          # judge_output holds docqa's raw answers
  gavel import evals.jsonl --map verdict=gpt4_says,human=gold_label
  gavel import pairs.jsonl --scale pairwise --map swapped=verdict_swapped
  gavel import testset.json --session p.gavel --scale pairwise
  gavel import judge-results.json --session p.gavel --join --scale pairwise
  gavel import graded.csv --scale grade=nominal:CORRECT,INCORRECT,NOT_ATTEMPTED
  zcat evals.jsonl.gz | gavel import - --session evals.gavel   # - reads standard input`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			return runImport(e, a[0], o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.session, "session", "", "the session `FILE` (default: DATASET's name with .gavel, in the working directory)")
	f.StringVar(&o.judge, "judge", "", "the LLM judge (its `NAME`, or a judge file) whose parser reads a column of raw judge output")
	f.StringArrayVar(&o.scales, "scale", nil, "the scale of every verdict and human column (`SCALE`: binary, ternary, likert, ordinal:1-10, nominal:A,B,C, pairwise, pairwise:notie), or of one as COLUMN=SCALE; repeat for several")
	f.BoolVar(&o.join, "join", false, "add the file's verdict and label columns to the items of the existing --session, matched by id")
	o.datasetFlags.add(f)
	_ = cmd.RegisterFlagCompletionFunc("scale", cobra.FixedCompletions(
		[]string{"binary", "ternary", "likert", "ordinal:1-10", "ordinal:0-10", "nominal:", "pairwise", "pairwise:notie"},
		cobra.ShellCompDirectiveNoFileComp|cobra.ShellCompDirectiveNoSpace))
	return cmd
}

func runImport(e env, path string, o importFlags) error {
	parser, err := importParser(o.judge)
	if err != nil {
		return err
	}
	scales, err := sessions.ParseImportScales(o.scales)
	if err != nil {
		return usageError{err}
	}
	opts := sessions.ImportOptions{Parser: parser, Scales: scales}
	if pg.IsURL(o.session) {
		return importTeam(e, path, o) // a new team session (import_team.go)
	}
	if o.join {
		return runImportJoin(e, path, o, opts)
	}
	if path == "-" && o.session == "" {
		return usagef("the dataset comes from standard input (-), so there is no file name to name the session after: give one with --session FILE")
	}
	session := o.session
	if session == "" {
		session = defaultSessionPath(path)
	}
	fresh := sessions.IsNewSession(session)
	ds, st, err := o.readImport(path, fresh)
	if err != nil {
		return joinHint(o, path, err)
	}
	var sum sessions.ImportSummary
	built := false
	if st != nil {
		// A new session from a file still parsed: its items are written
		// as they come (importStreamed), the rest as below.
		if ds, sum, err = o.importStreamed(path, session, st, opts); err != nil {
			return err
		}
		o.session = session
		built = true
		debug.SetGCPercent(importGCPercent)
	} else {
		o.session = session
		if err := sessions.CheckImportScales(ds, scales); err != nil {
			return usageError{err}
		}
		// From here the whole dataset stays in memory while the session is
		// written: with the default GC target (twice the live heap) the peak
		// would be twice the dataset's memory, so collect more often instead.
		debug.SetGCPercent(importGCPercent)
	}
	if fresh && !built {
		// A new session is built whole in one go, its verdicts and labels
		// included, far faster than rows added to an open one; OpenReview
		// then finds it all there.
		err := sessions.BuildDatasetSessionThen(o.session, ds, func(s *sessions.Store) error {
			var err error
			sum, err = sessions.ImportDatasetWith(s, ds, opts)
			return err
		})
		if err != nil {
			return err
		}
		built = true
	}
	rv, err := sessions.OpenReview(o.session, importAnnotator, ds)
	if err != nil {
		return err
	}
	defer rv.Store.Close()
	if !built {
		if sum, err = sessions.ImportDatasetWith(rv.Store, ds, opts); err != nil {
			return err
		}
	}
	for _, n := range append(rv.Notices, datasetNotices(ds)...) {
		fmt.Fprintln(e.stderr, n)
	}
	for _, s := range sum.Skipped {
		fmt.Fprintln(e.stderr, s)
	}
	if err := rv.Store.Close(); err != nil {
		return err
	}
	if o.then != nil {
		if err := o.then(); err != nil {
			return err
		}
	}
	where, runOn := o.session, path
	if o.shown != "" {
		where, runOn = o.shown, o.shown
	}
	printImport(e, filepath.Base(ds.Name), where, len(rv.Items), sum)
	switch {
	case len(sum.Runs) == 0 && len(sum.Annotators) == 0 && len(sum.Skipped) > 0:
		fmt.Fprintf(e.stderr, "Nothing was imported from %s: see above.\n", filepath.Base(ds.Name))
	case len(sum.Runs) == 0 && len(sum.Annotators) == 0:
		fmt.Fprintf(e.stderr, "%s carries no verdicts or labels Gavel could read: name its columns with --map verdict=COLUMN,human=COLUMN, or judge it with `gavel run %s --judge NAME`.\n", filepath.Base(ds.Name), shellWordArg(runOn))
	default:
		fmt.Fprintf(e.stderr, "See the agreement with: gavel stats %s\n", shellWordArg(where))
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
		var notes []string
		if r.Swapped > 0 {
			notes = append(notes, fmt.Sprintf("%d swapped", r.Swapped))
		}
		if r.ParseErrors > 0 {
			notes = append(notes, count(r.ParseErrors, "parse error"))
		}
		if r.Confidences > 0 {
			notes = append(notes, fmt.Sprintf("%d with a confidence", r.Confidences))
		}
		if len(notes) > 0 {
			line += " (" + strings.Join(notes, ", ") + ")"
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
		// An export's labelling record (gavel export's cant_judge:, tags:
		// and retest: columns).
		if a.CantJudges > 0 {
			line += fmt.Sprintf(", %d can't judge", a.CantJudges)
		}
		if a.Tags > 0 {
			line += ", " + count(a.Tags, "tag")
		}
		if a.Retests > 0 {
			line += ", " + count(a.Retests, "re-test")
		}
		if a.Unreadable > 0 {
			line += fmt.Sprintf(" (%s off the %s scale, left out; the first: %s)", count(a.Unreadable, "value"), a.Scale,
				strconv.Quote(safetext.Clip(a.FirstUnreadable, 60)))
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
	for _, end := range []string{"s", "x", "z", "ch", "sh"} {
		if strings.HasSuffix(noun, end) {
			// "batches", not "batchs".
			return fmt.Sprintf("%d %ses", n, noun)
		}
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
