package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/catalog"
	"github.com/gavel-dev/gavel/judge/llm"
	"github.com/gavel-dev/gavel/judge/tune"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/safetext"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// tuneAnnotator is the lock name `gavel tune` holds the session under, as
// gavel run does: people go on labelling under their own names.
const tuneAnnotator = "gavel tune"

// tuneWarnBelow is the number of labelled items below which tuning warns
// before it runs (SPEC "Improving a judge").
const tuneWarnBelow = 50

// tuneRetry, when its Attempts is set, replaces the client's retry policy
// (tests: retries without a second's backoff each).
var tuneRetry llm.RetryPolicy

// tuneFlags are the flags of `gavel tune`.
type tuneFlags struct {
	judge     string
	rounds    int
	budget    int
	seed      uint64
	out       string
	dimension string
	// dryRun tells what the tuning would send and cost, and sends
	// nothing (tune_dryrun.go).
	dryRun bool
	runner runnerFlags
}

func newTuneCmd(e env) *cobra.Command {
	var o tuneFlags
	cmd := &cobra.Command{
		Use:   "tune SESSION --judge NAME|FILE --rounds N --budget REQUESTS",
		Short: "Improve a judge's instructions from its disagreements with people, scored on items no proposal saw",
		Long: `Ask the model to revise a judge's instructions, round after round, and keep
the revision that agrees best with the people who labelled the session.

The session needs a calibration / evaluation split (gavel split SESSION).
Each round shows the model the current best judge's disagreements with
the humans on calibration items (the item, the judge's answer and reason,
the human's label and note) and asks for revised instructions. The
candidate is scored on the validation third of the calibration part, and
kept when it is right more often than the best so far (a tie keeps the
earlier). At the end, the winner and the original are judged on the
evaluation part, which no proposal ever showed, and compared with
McNemar's exact test. Their verdicts are recorded in the session as two
runs, so that gavel compare shows the whole comparison; the command says
which names to give it.

The judge is a built-in (tuning starts from the file gavel judges NAME
--save writes) or a judge file with an instructions field: tuning rewrites
only that field. Proposals are asked of --model, on the judge's server.
Every candidate is saved as a judge file, DIR/NAME-tune-R.yaml (the
original as round 0), its scores in a comment at its top.

--budget caps the HTTP requests sent, every one counted: judge requests,
their retries and samples, and the proposals. Answers already in the
session's cache cost nothing. Before each phase the requests it needs
are counted without sending anything, and a phase the budget cannot
cover is not started; requests are kept back for the final evaluation.

--dry-run sends nothing and says what the tuning may cost at most:
the original's requests counted as the tuning would send them, the
candidates' estimated from the original's prompts, their prompt tokens
and the price from the config's prices; it needs no --budget.

Interrupting (Ctrl-C) keeps what is done: the candidates saved, the
verdicts received, and a report of the best so far.`,
		Example: `  gavel split evals.gavel --seed 7
  gavel tune evals.gavel --judge docqa --model gpt-4o-mini --rounds 5 --dry-run
  gavel tune evals.gavel --judge docqa --model gpt-4o-mini --rounds 5 --budget 2000
  gavel tune evals.gavel --judge ./judges/polite.yaml --rounds 3 --budget 500 --out tuned/
  gavel compare evals.gavel --judge docqa@1 --judge docqa@2 --format markdown`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			var judges []string
			if err := applyConfig(e, cmd.Flags(), &judges, &o.runner); err != nil {
				return err
			}
			if !cmd.Flags().Changed("judge") {
				return usagef("name the judge to tune: --judge NAME (a built-in, see gavel judges) or --judge FILE (a judge file with an instructions field)")
			}
			if !cmd.Flags().Changed("budget") && !o.dryRun {
				return usagef("give a request budget: --budget N caps the HTTP requests tuning sends, retries and proposals included (each round costs about one request per validation item, plus one)")
			}
			return runTune(cmd.Context(), e, a[0], o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.judge, "judge", "", "the judge to tune: a built-in LLM judge's `NAME` or a judge file with an instructions field")
	f.IntVar(&o.rounds, "rounds", 5, "how many candidates to propose, `N`, one per round")
	f.IntVar(&o.budget, "budget", 0, "the most HTTP `REQUESTS` to send, retries and proposals included (required, but for --dry-run)")
	f.Uint64Var(&o.seed, "seed", 1, "the `SEED` choosing which disagreements each proposal shows when there are more than 10")
	f.StringVar(&o.out, "out", "", "the `DIR` the candidates are saved in (default: SESSION's name with -tune, beside it)")
	f.StringVar(&o.dimension, "dimension", "", "the `DIMENSION` to tune on (default: the judge's first)")
	f.BoolVar(&o.dryRun, "dry-run", false, "say how many requests the tuning would send at most, their prompt tokens and the price (the config's prices), and send nothing")
	o.runner.add(f)
	cmd.ValidArgsFunction = first(completeExts(sessionExts))
	for _, name := range []string{"rounds", "budget", "seed", "dimension"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
	_ = cmd.RegisterFlagCompletionFunc("out", cobra.FixedCompletions(nil, cobra.ShellCompDirectiveFilterDirs))
	return cmd
}

// tuneJudge is the judge to tune, resolved: its file, how to build it
// and its variants, and its name for files and messages.
type tuneJudge struct {
	name   string
	source string // the file's path, or NAME.yaml for a built-in
	file   []byte
	entry  catalog.Entry
	cat    *catalog.Catalog
}

func resolveTuneJudge(name string) (tuneJudge, error) {
	cat := catalog.New()
	en, err := cat.Find(name)
	if err != nil {
		return tuneJudge{}, usageError{err}
	}
	if !en.NeedsModel {
		return tuneJudge{}, usagef("--judge %s: %s is the offline judge, with no instructions to tune; name an LLM judge (gavel judges lists them)", name, en.Name)
	}
	if en.PerCriterion {
		return tuneJudge{}, usagef("--judge %s: %s rates each rubric criterion on its own; gavel tune tunes judges that rate whole items", name, en.Name)
	}
	tj := tuneJudge{name: en.Name, entry: en, cat: cat}
	if en.Source == "built-in" {
		if tj.file, err = llm.ExportBuiltin(en.Name); err != nil {
			return tuneJudge{}, usageError{err}
		}
		tj.source = en.Name + ".yaml"
	} else {
		tj.source = en.Source
		if tj.file, err = os.ReadFile(en.Source); err != nil {
			return tuneJudge{}, fmt.Errorf("cannot read the judge file: %w", err)
		}
	}
	if _, err := tune.Instructions(tj.file); err != nil {
		return tuneJudge{}, usagef("--judge %s: %v", name, err)
	}
	return tj, nil
}

func runTune(ctx context.Context, e env, path string, o tuneFlags) error {
	if o.rounds < 1 {
		return usagef("--rounds %d: give 1 or more", o.rounds)
	}
	if o.budget < 1 && !o.dryRun {
		return usagef("--budget %d: give the most requests tuning may send, 1 or more", o.budget)
	}
	cfg := o.runner.config(e.getenv)
	if strings.TrimSpace(cfg.Model) == "" {
		return usagef("gavel tune calls a model: name it with --model (and the server with --base-url, or OPENAI_BASE_URL, unless it is OpenAI)")
	}
	tj, err := resolveTuneJudge(o.judge)
	if err != nil {
		return err
	}
	if err := fileOnly("tune", path); err != nil {
		return err
	}
	if _, err := os.Stat(path); err != nil {
		return usagef("no session %s: gavel tune reads a session that gavel review, run or import made (%v)", path, err)
	}
	s, err := sessions.Open(path, sessions.Options{Annotator: tuneAnnotator})
	if err != nil {
		return err
	}
	defer s.Close()
	if n := s.Notice(); n != "" {
		fmt.Fprintln(e.stderr, n)
	}
	sp, has, err := s.Split()
	if err != nil {
		return err
	}
	if !has {
		return usagef("%s has no calibration / evaluation split: record one first with `gavel split %s` (tuning learns on the calibration part and is scored on the evaluation part)", path, path)
	}

	if tuneRetry.Attempts > 0 {
		cfg.Retry = tuneRetry
	}
	budget := tune.NewBudget(o.budget)
	cache := s.ResponseCache()
	realCfg := cfg
	realCfg.Cache, realCfg.Transport = cache, budget.Transport(nil)
	client, err := llm.NewClient(realCfg)
	if err != nil {
		return usageError{err}
	}
	// The probe client sends nothing (tune.ProbeTransport) and reads the
	// same cache: it counts what a phase would cost.
	probeCfg := cfg
	probeCfg.Cache, probeCfg.Transport, probeCfg.RPM = cache, tune.ProbeTransport(), 0
	probe, err := llm.NewClient(probeCfg)
	if err != nil {
		return usageError{err}
	}

	var origRun, origProbe judge.Judge
	if tj.entry.Source == "built-in" {
		// The built-in itself, so that its verdicts join (and its cached
		// answers serve) a `gavel run --judge NAME` run of the session.
		if origRun, err = tj.cat.Build(tj.entry.Name, cfg, client); err == nil {
			origProbe, err = tj.cat.Build(tj.entry.Name, probeCfg, probe)
		}
	} else {
		var a, b *llm.Judge
		if a, err = llm.NewVariant(tj.file, tj.source, client); err == nil {
			b, err = llm.NewVariant(tj.file, tj.source, probe)
		}
		origRun, origProbe = a, b
	}
	if err != nil {
		return usagef("--judge %s: %v", o.judge, err)
	}
	info := origRun.Info()
	dim, err := tuneDimension(info, o.dimension)
	if err != nil {
		return err
	}
	withExamples, err := examplesFor(s, origRun)
	if err != nil {
		return err
	}
	if lj, ok := origRun.(*llm.Judge); ok {
		origRun = withExamples(lj)
	}
	if lj, ok := origProbe.(*llm.Judge); ok {
		origProbe = withExamples(lj)
	}

	parts, err := readTuneParts(s, sp, dim)
	if err != nil {
		return err
	}
	labelled := len(parts.cal) + len(parts.val) + len(parts.eval)
	if labelled == 0 {
		return fmt.Errorf("no item of %s has a human label on %q (%s), which %s rates: label some (gavel review %s), or name another dimension with --dimension", path, dim.Name, dim.Scale, safetext.SanitizeLine(tj.name), path)
	}
	fmt.Fprintf(e.stderr, "%s: %d labelled items on %q: %d to learn from (calibration), %d to choose on (validation), %d to report on (evaluation).\n",
		path, labelled, dim.Name, len(parts.cal), len(parts.val), len(parts.eval))
	if labelled < tuneWarnBelow {
		fmt.Fprintf(e.stderr, "Warning: only %s. Below %d, the validation part is too small to tell candidates apart reliably and the evaluation figures are not stable: label more items (gavel review %s) for a tuning worth trusting.\n",
			count(labelled, "labelled item"), tuneWarnBelow, path)
	}
	for _, c := range []struct {
		n    int
		what string
	}{{len(parts.cal), "calibration part (less its validation third): a proposal has nothing to learn from"},
		{len(parts.val), "validation part (a third of the calibration part): candidates cannot be scored"},
		{len(parts.eval), "evaluation part: the winner cannot be scored against the original"}} {
		if c.n == 0 {
			return fmt.Errorf("no item of the %s. Label more items (gavel review %s), then tune again", c.what, path)
		}
	}

	if o.dryRun {
		return tuneDryRun(ctx, e, e.stdout, o, origRun, cache, parts, false)
	}
	if err := tuneDryRun(ctx, e, e.stderr, o, origRun, cache, parts, true); err != nil {
		return err
	}
	out := o.out
	if out == "" {
		out = strings.TrimSuffix(path, filepath.Ext(path)) + "-tune"
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("cannot make the candidates' directory: %w", err)
	}
	saver := &candidateSaver{dir: out, name: tj.name, session: path, seed: sp.Seed, ext: ".yaml"}

	build := func(file []byte) (tune.Judges, error) {
		a, err := llm.NewVariant(file, tj.source, client)
		if err != nil {
			return tune.Judges{}, err
		}
		b, err := llm.NewVariant(file, tj.source, probe)
		if err != nil {
			return tune.Judges{}, err
		}
		return tune.Judges{Run: withExamples(a), Probe: withExamples(b)}, nil
	}
	rep := &tuneReporter{w: e.stderr}
	opts := tune.Options{
		File:        tj.file,
		Original:    tune.Judges{Run: origRun, Probe: origProbe},
		Dimension:   dim,
		Calibration: parts.cal,
		Validation:  parts.val,
		Evaluation:  parts.eval,
		Rounds:      o.rounds,
		Budget:      budget,
		Samples:     max(cfg.Samples, 1),
		Concurrency: cfg.PoolOptions().Concurrency,
		Build:       build,
		Replace: func(file []byte, instructions string) ([]byte, error) {
			return llm.ReplaceInstructions(file, tj.source, instructions)
		},
		Proposer: tune.Proposer{Run: client.Chat, Probe: probe.Chat},
		Seed:     o.seed,
		Fatal:    client.Fatal,
		Events: func(ev tune.Event) {
			rep.event(ev)
			if ev.Kind == tune.Scored {
				if err := saver.save(ev.Candidate, ev.Best, nil); err != nil {
					rep.note(err.Error())
				}
			}
		},
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	healthDone := make(chan struct{})
	go rep.watchHealth(client.Health, healthDone)
	res, err := tune.Run(ctx, opts)
	close(healthDone)
	if err != nil {
		var be *tune.BudgetError
		if errors.As(err, &be) {
			return usagef("--budget %d is too small: the original's calibration and validation items, one round (a proposal and %s) and the final evaluation (%s, for the original and the winner) need up to %d requests; give --budget %d or more",
				o.budget, count(len(parts.val), "validation item"), count(len(parts.eval), "item"), be.Need+budget.Used(), be.Need+budget.Used())
		}
		return usageError{err}
	}
	if res.Fatal != nil && !res.Original().Scored {
		// Nothing was learnt: the error alone says what to fix.
		return fmt.Errorf("tuning stopped: %w", res.Fatal)
	}
	// The original and the winner are saved again with their evaluation
	// scores.
	if err := saver.save(res.Original(), res.Best, res); err != nil {
		rep.note(err.Error())
	}
	if res.Best != res.Original() {
		if err := saver.save(res.Best, res.Best, res); err != nil {
			rep.note(err.Error())
		}
	}
	names, recErr := recordTune(s, res)
	printTune(e.stdout, path, tj.name, dim, res, budget, names, saver)
	if recErr != nil {
		return fmt.Errorf("the tuning's verdicts could not be recorded in %s: %w", path, recErr)
	}
	switch {
	case res.Fatal != nil:
		return fmt.Errorf("tuning stopped: %w", res.Fatal)
	case res.Interrupted:
		return errors.New("interrupted: the candidates scored so far are saved and their verdicts kept; run the same command again to go on (cached answers cost nothing)")
	}
	return nil
}

// tuneDimension is the dimension tuned: --dimension, else the judge's
// first.
func tuneDimension(info judge.Info, want string) (judge.Dimension, error) {
	if len(info.Dimensions) == 0 {
		return judge.Dimension{}, fmt.Errorf("judge %s rates no dimension", info.Name)
	}
	if want == "" {
		return info.Dimensions[0], nil
	}
	var names []string
	for _, d := range info.Dimensions {
		if strings.EqualFold(d.Name, strings.TrimSpace(want)) {
			return d, nil
		}
		names = append(names, d.Name)
	}
	return judge.Dimension{}, usagef("--dimension %q: %s rates %s", want, info.Name, strings.Join(names, ", "))
}

// examplesFor returns what gives a judge its few-shot examples: when the
// judge's templates use {examples}, the session's calibration examples
// (fewShot: never a validation or evaluation item). Candidates keep
// the original's examples field, so one set serves them all.
func examplesFor(s *sessions.Store, j judge.Judge) (func(*llm.Judge) *llm.Judge, error) {
	lj, ok := j.(*llm.Judge)
	if !ok || lj.NeedsExamples() == 0 {
		return func(j *llm.Judge) *llm.Judge { return j }, nil
	}
	ex, err := fewShot(s, lj)
	if err != nil {
		return nil, err
	}
	return func(j *llm.Judge) *llm.Judge {
		if j.NeedsExamples() == 0 {
			return j
		}
		return j.WithExamples(ex)
	}, nil
}

// labelledParts are the labelled items of each part of the split, with their
// humans' reference label on dim and their note.
type labelledParts struct {
	cal, val, eval []tune.Labelled
}

func readTuneParts(s *sessions.Store, sp sessions.Split, dim judge.Dimension) (labelledParts, error) {
	var p labelledParts
	in, err := s.StatsInput()
	if err != nil {
		return p, err
	}
	items, err := s.Items()
	if err != nil {
		return p, err
	}
	byID := make(map[string]judge.Item, len(items))
	for _, it := range items {
		byID[it.ID] = it
	}
	notes, err := s.Notes("")
	if err != nil {
		return p, err
	}
	note := map[string]sessions.Note{}
	for _, n := range notes {
		if old, ok := note[n.ItemID]; !ok || n.At.After(old.At) {
			note[n.ItemID] = n
		}
	}
	refs := stats.References(in, dim)
	for u, ref := range refs {
		unit := in.Units[u]
		if unit.Criterion != 0 || !ref.Labelled || ref.Tie {
			continue
		}
		it, ok := byID[unit.ItemID]
		if !ok {
			continue
		}
		l := tune.Labelled{Item: it, Label: ref.Value, Note: note[it.ID].Text}
		switch sp.PartOf(it.ID) {
		case sessions.PartCalibration:
			p.cal = append(p.cal, l)
		case sessions.PartValidation:
			p.val = append(p.val, l)
		default:
			p.eval = append(p.eval, l)
		}
	}
	return p, nil
}

// recordTune records the original's and the winner's verdicts in the
// session as their runs, so that gavel compare and the review screen see
// them, and returns their names (sessions.Variants: "docqa@1").
func recordTune(s *sessions.Store, res *tune.Result) (names [2]string, err error) {
	var ids [2]int64
	for i, c := range []*tune.Candidate{res.Original(), res.Best} {
		if i == 1 && c == res.Original() {
			break
		}
		vs := c.Verdicts()
		run, err := s.EnsureRun(c.Judge.Run.Info())
		if err != nil {
			return names, err
		}
		ids[i] = run.ID
		// A verdict the run holds already (gavel run, an earlier tuning)
		// is not added again: only what is new or mended.
		have, err := s.ReviewVerdicts(run.ID)
		if err != nil {
			return names, err
		}
		held := map[string]bool{}
		for _, v := range have {
			if v.Criterion == 0 && !v.Swapped && v.Status != judge.StatusAPIError {
				held[v.ItemID] = true
			}
		}
		var add []judge.Verdict
		for _, v := range vs {
			// An api_error is no answer: the run keeps the task to do.
			if !held[v.ItemID] && v.Status != "" && v.Status != judge.StatusAPIError {
				add = append(add, v)
			}
		}
		if len(add) > 0 {
			if err := s.SaveVerdicts(run.ID, add); err != nil {
				return names, err
			}
		}
	}
	runs, err := s.Runs()
	if err != nil {
		return names, err
	}
	vn := sessions.Variants(runs)
	for i, id := range ids {
		if id != 0 {
			names[i] = vn[id]
		}
	}
	return names, nil
}

// candidateSaver writes each candidate as DIR/NAME-tune-R.yaml with its
// scores in a comment at the top.
type candidateSaver struct {
	dir, name, session string
	seed               uint64
	ext                string
	saved              []string
}

var unsafeFileChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func (cs *candidateSaver) path(round int) string {
	name := unsafeFileChars.ReplaceAllString(cs.name, "-")
	return filepath.Join(cs.dir, fmt.Sprintf("%s-tune-%d%s", name, round, cs.ext))
}

func (cs *candidateSaver) save(c, best *tune.Candidate, res *tune.Result) error {
	if c == nil || len(c.File) == 0 {
		return nil
	}
	var h strings.Builder
	what := fmt.Sprintf("round %d's candidate", c.Round)
	if c.Round == 0 {
		what = "the original"
	}
	fmt.Fprintf(&h, "# gavel tune: %s for judge %s (session %s, split seed %d).\n", what, cs.name, safetext.SanitizeLine(filepath.Base(cs.session)), cs.seed)
	switch {
	case c.Scored:
		fmt.Fprintf(&h, "# Validation part: %s", c.Validation)
		if c == best {
			h.WriteString(", the best so far")
		}
		h.WriteString(".\n")
		if c.Calibration != nil {
			fmt.Fprintf(&h, "# Calibration part: %s.\n", *c.Calibration)
		}
	case c.Problem != "":
		fmt.Fprintf(&h, "# Not scored: %s.\n", safetext.SanitizeLine(c.Problem))
	}
	if res != nil && res.Evaluation != nil {
		ev := res.Evaluation
		sc := ev.Original
		if c == res.Best && c != res.Original() {
			sc = ev.Winner
		}
		fmt.Fprintf(&h, "# Evaluation part: %s; McNemar's exact p = %.4g (winner vs original).\n", sc, ev.P)
	}
	h.WriteString("\n")
	p := cs.path(c.Round)
	if err := os.WriteFile(p, append([]byte(h.String()), c.File...), 0o644); err != nil {
		return fmt.Errorf("cannot save round %d's candidate: %w", c.Round, err)
	}
	for _, s := range cs.saved {
		if s == p {
			return nil
		}
	}
	cs.saved = append(cs.saved, p)
	return nil
}

// tuneReporter shows a tuning's progress on stderr: a progress line per
// phase, a line per candidate.
type tuneReporter struct {
	// mu keeps the health notes (from their own goroutine) and the
	// tuning's lines apart.
	mu sync.Mutex
	w  io.Writer
	p  *progressLine
	t  tally
}

func (r *tuneReporter) note(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.noteLocked(s)
}

func (r *tuneReporter) noteLocked(s string) {
	if r.p != nil {
		r.p.note(s)
		return
	}
	fmt.Fprintln(r.w, s)
}

// watchHealth says on stderr, until stop is closed, when the server stops
// answering and when it answers again, as gavel run does: a paused
// tuning would otherwise look hung for up to --wait.
func (r *tuneReporter) watchHealth(health func() llm.Health, stop <-chan struct{}) {
	tk := time.NewTicker(time.Second)
	defer tk.Stop()
	var hn healthNote
	for {
		select {
		case <-stop:
			return
		case <-tk.C:
			if s := hn.text(health(), time.Now()); s != "" {
				r.note(s)
			}
		}
	}
}

func (r *tuneReporter) event(ev tune.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch ev.Kind {
	case tune.PhaseStarted:
		if ev.Total == 0 {
			return
		}
		cost := "all from the cache"
		if ev.Need > 0 {
			cost = count(ev.Need, "request") + ", the rest from the cache"
			if ev.Need >= ev.Total {
				cost = count(ev.Need, "request")
			}
		}
		fmt.Fprintf(r.w, "%s: %s (%s).\n", ev.Phase, count(ev.Total, "item"), cost)
		r.p, r.t = newProgressLine(r.w, ev.Phase, ev.Total), tally{}
	case tune.Judged:
		if r.p != nil {
			r.t.add([]judge.Verdict{ev.Verdict})
			r.p.update(r.t)
		}
	case tune.PhaseEnded:
		if r.p != nil {
			r.p.end()
		}
		r.p = nil
	case tune.Proposing:
		fmt.Fprintf(r.w, "round %d: asking the model for revised instructions…\n", ev.Round)
	case tune.Scored:
		c := ev.Candidate
		switch {
		case c.Round == 0:
			fmt.Fprintf(r.w, "original: validation %s.\n", c.Validation)
		case !c.Scored && c.Problem == "":
			fmt.Fprintf(r.w, "round %d: not scored.\n", c.Round)
		case !c.Scored:
			fmt.Fprintf(r.w, "round %d: %s.\n", c.Round, safetext.SanitizeLine(c.Problem))
		case ev.Best == c:
			fmt.Fprintf(r.w, "round %d: validation %s — the best so far.\n", c.Round, c.Validation)
		default:
			fmt.Fprintf(r.w, "round %d: validation %s — not better than %s (%s).\n", c.Round, c.Validation, candidateName(ev.Best), ev.Best.Validation)
		}
	case tune.Note:
		r.noteLocked(ev.Text)
	}
}

func candidateName(c *tune.Candidate) string {
	if c.Round == 0 {
		return "the original"
	}
	return fmt.Sprintf("round %d", c.Round)
}

// printTune writes the tuning's report.
func printTune(w io.Writer, path, name string, dim judge.Dimension, res *tune.Result, b *tune.Budget, names [2]string, cs *candidateSaver) {
	// The judge's and the dimension's names come from a judge file.
	fmt.Fprintf(w, "Tuning %s on %q (%s).\n\n", safetext.SanitizeLine(name), dim.Name, path)
	fmt.Fprintln(w, "Validation part (candidates chosen on it):")
	for _, c := range res.Candidates {
		mark := "  "
		if c == res.Best {
			mark = "* "
		}
		score := "not scored"
		if c.Problem != "" {
			score += ": " + safetext.SanitizeLine(c.Problem)
		}
		if c.Scored {
			score = c.Validation.String()
		}
		name := "original"
		if c.Round > 0 {
			name = fmt.Sprintf("round %d", c.Round)
		}
		fmt.Fprintf(w, "%s%-12s %s\n", mark, name, score)
	}
	fmt.Fprintln(w)
	if res.Stopped != "" {
		fmt.Fprintf(w, "The rounds stopped early: %s.\n\n", safetext.SanitizeLine(res.Stopped))
	}
	win := res.Best
	switch ev := res.Evaluation; {
	case ev != nil && win == res.Original():
		fmt.Fprintf(w, "No candidate beat the original on the validation part. The original on the evaluation part: %s.\n", ev.Original)
	case ev != nil:
		fmt.Fprintf(w, "Evaluation part (no proposal saw it), %d items:\n", ev.Original.N)
		fmt.Fprintf(w, "  original     %s\n", ev.Original)
		fmt.Fprintf(w, "  %-12s %s\n", candidateName(win), ev.Winner)
		fmt.Fprintf(w, "  difference   %+.1f points; right only with the winner %d, only with the original %d; McNemar's exact p = %.4g\n",
			100*(ev.Winner.Rate()-ev.Original.Rate()), ev.OnlyWinner, ev.OnlyOriginal, ev.P)
		if ev.Original.N < stats.MinReliableItems {
			fmt.Fprintf(w, "  Only %d evaluation items: below %d the figures are not yet stable.\n", ev.Original.N, stats.MinReliableItems)
		}
	case res.Interrupted:
		fmt.Fprintln(w, "Interrupted before the evaluation part: the best so far is not yet scored on items no proposal saw.")
	case res.Fatal != nil:
		fmt.Fprintln(w, "The server stopped the tuning before the evaluation part (the error follows).")
	default:
		fmt.Fprintf(w, "The evaluation part was not judged: %s.\n", safetext.SanitizeLine(res.EvalSkipped))
	}
	fmt.Fprintf(w, "\n%d of %d requests used (--budget).\n", b.Used(), b.Limit())
	if len(cs.saved) > 0 {
		fmt.Fprintf(w, "Candidates saved in %s (%s).\n", cs.dir, count(len(cs.saved), "file"))
	}
	if win != res.Original() && res.Evaluation == nil {
		fmt.Fprintf(w, "The best so far is %s. It is not yet judged on the evaluation part: run the same command again (cached answers cost nothing) to finish.\n", cs.path(win.Round))
	}
	if win != res.Original() && res.Evaluation != nil && names[0] != "" && names[1] != "" {
		fmt.Fprintf(w, "The winner is %s; use it with --judge %s.\n", cs.path(win.Round), cs.path(win.Round))
		fmt.Fprintf(w, "In the session, the original is %s and the winner %s:\n  gavel compare %s --judge %s --judge %s --format markdown\n",
			names[0], names[1], path, names[0], names[1])
	}
}
