package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/pg"
	"github.com/gavel-dev/gavel/sessions/plan"
	"github.com/gavel-dev/gavel/sessions/safetext"
)

// planFlags are the flags of `gavel plan`.
type planFlags struct {
	design   string
	n        int
	seed     uint64
	judge    string
	stratify string
	extend   int64
	show     int64
	format   string
}

// planAnnotator is the name `gavel plan` holds the session's lock under.
const planAnnotator = "gavel plan"

// The values of gavel plan --format.
const (
	planFormatText  = "text"
	planFormatJSONL = "jsonl"
)

func newPlanCmd(e env) *cobra.Command {
	var o planFlags
	cmd := &cobra.Command{
		Use:   "plan [SESSION] [--design active|uniform|stratified] [-n N] [--seed S]",
		Short: "Choose which items people should label, each with a known probability, so that labels on the items that count still give unbiased estimates",
		Long: `Record a labelling plan in SESSION: which N items to label, and each item's
inclusion probability, drawn from the current verdicts of one judge (--judge,
needed when several judges have verdicts, whatever the design: the plan's
estimates read that judge's dimension, and its verdicts correct the score;
a session without judges takes a uniform or stratified plan without one, whose
estimates are the labels' alone). Statistics weight each label made
on the plan by the inverse of its probability, so the estimates stay
unbiased whatever the design.

  --design active      (default) items the judge is unsure of are more likely
                       to be chosen: each item's probability is a floor
                       0.2·N/ITEMS plus a share of the rest in proportion to
                       its uncertainty, capped at 1. Uncertainty: √(1−c) for a
                       verdict given with probability c (the probability its
                       samples give it, or its logprob confidence),
                       for an ordinal score its closeness to the scale's
                       midpoint, else √(1−c) with c the share of the
                       session's judges of the same dimension that agree
                       with it; the mean of those for a verdict that says
                       none of these
  --design uniform     every item alike: a simple random sample
  --design stratified  N shared among the values of --stratify FIELD in
                       proportion to their size, at least two each when N
                       allows (else one each); its order takes each
                       value's first item, then each one's second, …

Exactly N items are chosen (sequential Poisson sampling with permanent random
numbers: the same --seed chooses the same items). --extend ID -n M makes plan
ID choose M items, every item it had chosen among them. The plan keeps the
verdicts it was drawn from: a re-judge afterwards changes nothing it reads.

The chosen items go to standard output, most wanted first, as JSON lines
(id, rank, probability, why) or a table (--format text); a summary goes to
standard error. Label them with gavel label SESSION ID VALUE --via plan:ID
(plan:ID tells the statistics the label followed the plan). Without -n, the
session's plans are listed; --show ID prints a plan's items again. Without
SESSION, the demo's session (the one gavel with no arguments labels).`,
		Example: `  gavel plan evals.gavel -n 60 --seed 7
  gavel plan evals.gavel --design uniform -n 100 --seed 1 --format text
  gavel plan evals.gavel --design stratified --stratify category -n 80
  gavel plan evals.gavel --judge "docqa · gpt-4o" -n 60 > plan.jsonl
  gavel plan evals.gavel --extend 1 -n 120
  gavel plan evals.gavel`,
		Args: args(cobra.RangeArgs(0, 1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			var path string
			if len(a) == 1 {
				path = a[0]
			} else if path = sessionOr(e, ""); path == "" {
				var err error
				if path, err = demoSessionPath(e); err != nil {
					return err
				}
			}
			return runPlan(e, path, o, cmd.Flags().Changed)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.design, "design", string(plan.Active), "the `DESIGN`: active, uniform or stratified")
	f.IntVarP(&o.n, "n", "n", 0, "how many items to label, `N`")
	f.Uint64Var(&o.seed, "seed", 0, "the plan's `SEED` (default: a random one, printed and recorded)")
	f.StringVar(&o.judge, "judge", "", "the judge whose verdicts the plan reads, by its `NAME` in gavel stats (needed when several have verdicts, whatever the design)")
	f.StringVar(&o.stratify, "stratify", "", "the `FIELD` a stratified plan shares N among, e.g. category")
	f.Int64Var(&o.extend, "extend", 0, "extend plan `ID` to -n items, keeping every item it chose")
	f.Int64Var(&o.show, "show", 0, "print the items of plan `ID` again")
	f.StringVar(&o.format, "format", planFormatJSONL, "the `FORMAT` of the items on standard output: jsonl or text")
	cmd.ValidArgsFunction = first(completeExts(sessionExts))
	_ = cmd.RegisterFlagCompletionFunc("design", cobra.FixedCompletions([]string{string(plan.Active), string(plan.Uniform), string(plan.Stratified)}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{planFormatJSONL, planFormatText}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("judge", completeRunLabels(e))
	for _, name := range []string{"n", "seed", "stratify", "extend", "show"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
	return cmd
}

func runPlan(e env, path string, o planFlags, set func(string) bool) error {
	o.format = strings.ToLower(strings.TrimSpace(o.format))
	if o.format != planFormatJSONL && o.format != planFormatText {
		return usagef("unknown --format %q: use jsonl or text", o.format)
	}
	design, err := plan.ParseDesign(o.design)
	if err != nil {
		return usagef("--design: %v", err)
	}
	var given []string
	for _, name := range []string{"design", "seed", "judge", "stratify"} {
		if set(name) {
			given = append(given, "--"+name)
		}
	}
	switch {
	case set("extend") && set("show"):
		return usagef("--extend and --show: give one of them")
	case set("extend") && len(given) > 0:
		return usagef("--extend keeps the plan's design, seed, judge and strata: leave out %s", strings.Join(given, ", "))
	case set("extend") && !set("n"):
		return usagef("--extend %d needs the plan's new size: -n N", o.extend)
	case set("show") && (len(given) > 0 || set("n")):
		return usagef("--show prints a plan as it is: leave out the other flags but --format")
	case set("n") && o.n < 1:
		return usagef("-n %d: a plan chooses 1 item or more", o.n)
	case !set("n") && !set("show") && len(given) > 0:
		return usagef("say how many items to label with -n N")
	}
	if err := fileOnly("plan -n", path); err != nil && (set("n") || set("extend")) {
		return err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) && !pg.IsURL(path) {
		return usagef("no session %s: make one with gavel review, gavel run or gavel import first", path)
	}
	if !set("n") && !set("show") {
		return listPlans(e, path)
	}
	// Drawing or extending writes the session; --show only reads it (a
	// team session's too).
	var s *sessions.Store
	if set("show") {
		s, err = openRead(path)
	} else {
		s, err = sessions.Open(path, sessions.Options{Annotator: planAnnotator})
	}
	if err != nil {
		return err
	}
	defer s.Close()
	var dr sessions.PlanDraw
	switch {
	case set("show"):
		dr, err = s.Plan(o.show)
	case set("extend"):
		dr, err = s.ExtendPlan(o.extend, o.n)
	default:
		opts := sessions.PlanOptions{Design: design, N: o.n, Seed: o.seed, Stratify: o.stratify}
		if !set("seed") {
			if opts.Seed, err = randomSeed(); err != nil {
				return err
			}
		}
		if set("judge") {
			if opts.Judge, err = planJudge(s, path, o.judge); err != nil {
				return err
			}
		}
		dr, err = s.CreatePlan(opts)
	}
	if errors.Is(err, sessions.ErrPlan) {
		return namingTeam(usageError{err}, s.Path(), path)
	}
	if err != nil {
		return err
	}
	// The review that follows the plan opens the session's dataset.
	data := "DATASET"
	if info, ok, err := s.Dataset(); err == nil && ok && info.Path != "" {
		data = shellArg(info.Path)
	}
	writePlanSummary(e.stderr, path, data, dr, set("extend"), set("show"))
	if o.format == planFormatText {
		return writePlanText(e.stdout, dr)
	}
	return writePlanJSONL(e.stdout, dr)
}

// planJudge resolves --judge among the runs a plan may read, as gavel
// stats --judge does.
func planJudge(s *sessions.Store, path, want string) (string, error) {
	runs, err := s.Runs()
	if err != nil {
		return "", err
	}
	allowed, err := s.PlanJudges()
	if err != nil {
		return "", err
	}
	if allowed == nil {
		allowed = []string{}
	}
	return matchJudge(runs, allowed, want, path)
}

// planRow is one chosen item as --format jsonl writes it.
type planRow struct {
	ID          string  `json:"id"`
	Rank        int     `json:"rank"`
	StratumRank int     `json:"stratum_rank,omitempty"`
	Probability float64 `json:"probability"`
	Why         string  `json:"why"`
	Stratum     string  `json:"stratum,omitempty"`
}

// writePlanJSONL writes the chosen items in the plan's order, one JSON
// object a line.
func writePlanJSONL(w io.Writer, dr sessions.PlanDraw) error {
	for _, k := range dr.Selected {
		u := dr.Units[k]
		row := planRow{ID: u.ItemID, Rank: u.Rank, Probability: roundProb(u.Probability), Why: u.Why, Stratum: u.Stratum}
		if dr.Plan.Design == plan.Stratified {
			row.StratumRank = u.StratumRank
		}
		b, err := json.Marshal(row)
		if err != nil {
			return err
		}
		if _, err := w.Write(append(escapeJSONControls(b), '\n')); err != nil {
			return err
		}
	}
	return nil
}

// escapeJSONControls writes, as \uXXXX escapes, the characters of encoded
// JSON that encoding/json leaves as they are and a terminal acts on: DEL,
// the C1 controls (U+009B starts an escape sequence on some terminals)
// and the bidirectional controls that reorder what is shown. The JSON
// means the same; ids and strata come from the dataset.
func escapeJSONControls(b []byte) []byte {
	if !hasJSONControls(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for _, r := range string(b) {
		if jsonControl(r) {
			out = fmt.Appendf(out, "\\u%04x", r)
			continue
		}
		out = utf8.AppendRune(out, r)
	}
	return out
}

func hasJSONControls(b []byte) bool {
	for _, r := range string(b) {
		if jsonControl(r) {
			return true
		}
	}
	return false
}

// jsonControl reports whether escapeJSONControls escapes r.
func jsonControl(r rune) bool {
	switch {
	case r >= 0x7f && r <= 0x9f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069,
		r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

// roundProb keeps 6 significant digits of a probability: enough to
// weight a label, and readable.
func roundProb(p float64) float64 {
	x, _ := strconv.ParseFloat(strconv.FormatFloat(p, 'g', 6, 64), 64)
	return x
}

// writePlanText writes the chosen items as a table; ids and reasons may
// hold dataset text, escaped for the terminal.
func writePlanText(w io.Writer, dr sessions.PlanDraw) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	// A stratified plan's rank is its place in the plan's order, which
	// interleaves the strata; its place within its stratum goes beside.
	strat := dr.Plan.Design == plan.Stratified
	if strat {
		fmt.Fprintln(tw, "rank\tin stratum\tid\tprobability\twhy")
	} else {
		fmt.Fprintln(tw, "rank\tid\tprobability\twhy")
	}
	for _, k := range dr.Selected {
		u := dr.Units[k]
		if strat {
			fmt.Fprintf(tw, "%d\t%d\t", u.Rank, u.StratumRank)
		} else {
			fmt.Fprintf(tw, "%d\t", u.Rank)
		}
		fmt.Fprintf(tw, "%s\t%.4f\t%s\n", safetext.SanitizeLine(u.ItemID), u.Probability, safetext.SanitizeLine(u.Why))
	}
	return tw.Flush()
}

// writePlanSummary says what the plan is, on stderr.
func writePlanSummary(w io.Writer, path, data string, dr sessions.PlanDraw, extended, shown bool) {
	p := dr.Plan
	verb := "Recorded"
	switch {
	case extended:
		verb = "Extended"
	case shown:
		verb = "Showing"
	}
	from := "no judge's verdicts"
	if p.Judge != "" {
		from = fmt.Sprintf("the verdicts of %s on %s", strconv.Quote(p.Judge), p.Dimension)
	}
	fmt.Fprintf(w, "%s plan %d of %s: %s, %d of %d items, seed %d, drawn from %s.\n",
		verb, p.ID, safetext.SanitizeLine(shownPath(path)), p.Design, len(dr.Selected), p.Items, p.Seed, safetext.SanitizeLine(from))
	if len(p.Dimensions) > 1 {
		// A plan reads its judge's first dimension (tour finding 7):
		// said, so that labels go on it.
		quoted := make([]string, len(p.Dimensions))
		for i, d := range p.Dimensions {
			quoted[i] = strconv.Quote(d)
		}
		fmt.Fprintf(w, "Its estimates are on %s, the first of the judge's %d dimensions (%s): label that one on the plan.\n",
			safetext.SanitizeLine(strconv.Quote(p.Dimension)), len(p.Dimensions), safetext.SanitizeLine(strings.Join(quoted, ", ")))
	}
	if p.Design == plan.Stratified {
		fmt.Fprintf(w, "Strata: the values of %s.\n", safetext.SanitizeLine(strconv.Quote(p.Stratify)))
	}
	if p.Design == plan.Active && dr.Known > 0 {
		certain := 0
		for _, k := range dr.Selected {
			if dr.Units[k].Probability >= 1 {
				certain++
			}
		}
		known := fmt.Sprintf("%d of %d verdicts say how unsure they are (mean uncertainty %.2f); the others are given that mean.", dr.Known, p.Items, dr.MeanUncertainty)
		if dr.Known == p.Items {
			known = fmt.Sprintf("All %d verdicts say how unsure they are (mean uncertainty %.2f).", p.Items, dr.MeanUncertainty)
		}
		fmt.Fprintf(w, "%s Every item's probability is at least %.4f (the floor); %d of the chosen are certain (probability 1).\n",
			known, p.Floor*float64(p.N)/float64(max(p.Items, 1)), certain)
	}
	for _, n := range dr.Notes {
		fmt.Fprintln(w, safetext.SanitizeLine(n))
	}
	review := "gavel review " + data + " --session " + shellArg(path)
	if pg.IsURL(path) {
		review = "gavel review " + shellArg(path)
	}
	fmt.Fprintf(w, "Label them on the review screen (%s follows the plan), or with: gavel label %s ID VALUE --via %s (gavel stats then weights each label by its probability).\n",
		safetext.SanitizeLine(review), safetext.SanitizeLine(shellArg(path)), sessions.PlanVia(p.ID))
}

// shellArg is a session argument for a command line shown to the user:
// shownPath (no password), quoted for a shell when needed (a URL's ? and
// & always are).
func shellArg(path string) string { return shellWordArg(shownPath(path)) }

// drawPlanHint says how to draw a labelling plan on the session at path:
// gavel plan PATH -n N on a file; gavel plan -n works on files only, so a
// team session's plans are drawn on a copy in a file, copied back.
func drawPlanHint(path string) string {
	if !pg.IsURL(path) {
		return "draw one with gavel plan " + shellArg(path) + " -n N"
	}
	u := shellArg(path)
	return "plans are drawn on session files: copy it to one (gavel copy " + u + " FILE.gavel), draw the plan there (gavel plan FILE.gavel -n N), then copy it back (gavel copy FILE.gavel " + u + " --replace) while nobody labels or judges"
}

// shellWordArg quotes a path for a command line shown to the user when
// it holds anything a shell would split.
func shellWordArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`*?[]{}()<>|&;!#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// listPlans prints the session's plans, one line each.
func listPlans(e env, path string) error {
	s, err := openRead(path)
	if err != nil {
		return err
	}
	defer s.Close()
	plans, err := s.Plans()
	if err != nil {
		return err
	}
	if len(plans) == 0 {
		fmt.Fprintf(e.stderr, "%s has no labelling plan yet: %s.\n", safetext.SanitizeLine(shownPath(path)), safetext.SanitizeLine(drawPlanHint(path)))
		return nil
	}
	labelled, err := s.PlanLabelled()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "plan\tdesign\tn\tlabelled\titems\tseed\tjudge\tcreated")
	for _, p := range plans {
		judge := p.Judge
		if p.Stratify != "" {
			judge += " (strata: " + p.Stratify + ")"
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%d\t%d\t%s\t%s\n", p.ID, p.Design, p.N, labelled[p.ID], p.Items, p.Seed, safetext.SanitizeLine(judge), p.Created.Format("2006-01-02 15:04 UTC"))
	}
	return tw.Flush()
}
