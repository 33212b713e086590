package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/match"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/dataset"
	"github.com/gavel-dev/gavel/sessions/demo"
	"github.com/gavel-dev/gavel/sessions/pg"
	"github.com/gavel-dev/gavel/sessions/safetext"
	"github.com/gavel-dev/gavel/tui"
)

// reviewFlags are the flags of `gavel review` (and, in part, of the demo).
type reviewFlags struct {
	judges    []string
	session   string
	annotator string
	blind     bool
	swap      bool
	data      datasetFlags
	runner    runnerFlags
	label     labellingFlags
	plan      reviewPlanFlags
	// adjudicate opens on the adjudication queue (review_adjudicate.go).
	adjudicate bool
	// defaultJudge is set when no judge was named (flag or config): the
	// default, match, is then not run on a dataset of pairs it cannot judge.
	defaultJudge bool
}

func newReviewCmd(e env) *cobra.Command {
	var o reviewFlags
	cmd := &cobra.Command{
		Use:   "review DATASET",
		Short: "Review a judge's verdicts on a dataset, item by item",
		Long: `Open DATASET for review. The judges run in the background over every item
that has no verdict yet; verdicts appear as they arrive. Your labels are saved
in the session file as you make them, and reopening the same session resumes
at the first item you have not reviewed.

DATASET is a JSONL, JSON, CSV or TSV file (optionally gzip-compressed). Gavel
recognises the usual field names; --map says which field holds what.

Name several judges with --judge to compare them (J switches on screen). LLM
judges call an OpenAI-compatible server: --model names the model, --base-url
(or OPENAI_BASE_URL) the server, OPENAI_API_KEY (or --api-key) the key. Their
answers are cached in the session, so reopening costs nothing; r re-judges.

A session file holds its items: gavel review S.gavel reviews them without
the dataset file (moved, or sent with the session); a change to the file
is then not seen.

A team's session in PostgreSQL is reviewed by its URL instead of a dataset:
gavel review 'postgres://USER@HOST/DB?session=NAME' (no dataset file: the
session holds its items). You then see the others' labels as they make
them and, when the session has a queue (gavel assign), label the items
dealt to you; only gavel run judges a team session.`,
		Example: `  gavel review evals.jsonl
  gavel review evals.jsonl --session team.gavel --annotator ana
  gavel review outputs.csv --map question=input,gold=target,prediction=output
  gavel review evals.jsonl --judge match --judge docqa --model gpt-4o-mini
  gavel review evals.jsonl --judge docqa --base-url http://localhost:8000/v1 --model qwen2.5-7b
  gavel review pairs.jsonl --judge pairwise --model gpt-4o-mini --swap
  gavel review evals.jsonl --guidelines guidelines.md --tags "too strict,format" --retest 5% --blind-share 30%
  gavel review 'postgres://ana@db.example.com/evals?session=triviaqa' --annotator ana
  gavel review 'postgres://lead@db.example.com/evals?session=triviaqa' --annotator lead --adjudicate`,
		// $GAVEL_SESSION stands in for a team session's URL (not for a
		// dataset: a session file is no dataset).
		Args: args(func(cmd *cobra.Command, a []string) error {
			if len(a) == 0 && pg.IsURL(e.getenv(envSession)) {
				return nil
			}
			return cobra.ExactArgs(1)(cmd, a)
		}),
		RunE: func(cmd *cobra.Command, a []string) error {
			if err := applyConfig(e, cmd.Flags(), &o.judges, &o.runner); err != nil {
				return err
			}
			if err := applyLabellingConfig(e, cmd.Flags(), &o.label); err != nil {
				return err
			}
			o.defaultJudge = !cmd.Flags().Changed("judge") && len(o.judges) == 1 && o.judges[0] == match.Name
			if err := o.checkAdjudicate(cmd.Flags().Changed("plan")); err != nil {
				return err
			}
			return runReview(cmd.Context(), e, sessionArg(e, a), o)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.judges, "judge", []string{match.Name}, "a judge to run: a built-in judge's `NAME` (gavel judges lists them) or a judge file; repeat to compare")
	f.StringVar(&o.session, "session", "", "the session `FILE` (default: DATASET's name with .gavel, in the working directory)")
	f.StringVar(&o.annotator, "annotator", "", "your `NAME` in the session (default: your OS user name)")
	f.BoolVar(&o.blind, "blind", false, "hide each verdict until you have labelled the item (calibration labels; b toggles)")
	addSwap(f, &o.swap)
	addAdjudicate(f, &o.adjudicate)
	o.label.add(cmd)
	o.plan.add(f)
	o.data.add(f)
	o.runner.add(f)
	return cmd
}

func runReview(ctx context.Context, e env, path string, o reviewFlags) error {
	if path == "-" {
		return usagef("gavel review needs the dataset as a file: standard input is where your keys come from. Save the stream to a file first, or judge it without a screen with gavel run - --session FILE.gavel")
	}
	if pg.IsURL(path) {
		return reviewTeam(ctx, e, path, o) // a team session (review_team.go)
	}
	if pg.IsURL(o.session) {
		return usagef("a team session holds its items: review it with gavel review %s (no dataset file)", shellArg(o.session))
	}
	if sessions.LooksLikeSession(path) {
		return reviewSessionFile(ctx, e, path, o) // review_session.go
	}
	if o.session == "" {
		o.session = defaultSessionPath(path)
	}
	if err := o.plan.check(o.session); err != nil {
		return err
	}
	if err := o.checkAdjudicate(false); err != nil {
		return err
	}
	if rv, ds, err := reopenUnchanged(e, path, &o); err != nil || rv != nil {
		if err != nil {
			return err
		}
		return review(ctx, e, ds, o, rv)
	}
	if newSession(o.session) {
		return reviewStream(ctx, e, path, o)
	}
	ds, err := o.data.load(path)
	if err != nil {
		return err
	}
	return review(ctx, e, ds, o, nil)
}

// runDemo opens the embedded demo, its session in the state directory.
func runDemo(ctx context.Context, e env, o reviewFlags) error {
	ds, err := dataset.LoadBytes(demo.Name, demo.JSONL, dataset.Options{})
	if err != nil {
		return fmt.Errorf("the built-in demo does not load (a bug in this build): %w", err)
	}
	if o.session == "" {
		dir, err := e.stateDir()
		if err != nil {
			return fmt.Errorf("cannot find a state directory for the demo's session (%v): choose a file with --session", err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("cannot create %s for the demo's session (%v): choose a file with --session", dir, err)
		}
		o.session = filepath.Join(dir, "demo.gavel")
	}
	if err := o.plan.check(o.session); err != nil {
		return err
	}
	if err := o.checkAdjudicate(false); err != nil {
		return err
	}
	if err := o.checkAdjudicateNew(ds, "the demo", "gavel"); err != nil {
		return err
	}
	if len(o.judges) == 0 {
		o.judges = []string{match.Name}
	}
	return review(ctx, e, ds, o, nil)
}

// review opens the session, starts the judges and runs the review screen
// until the person quits; judging still in flight is stopped and what was
// received is saved. rv is the session when it is already open (an
// unchanged dataset reopened, reopenUnchanged; ds then stands for the
// file), nil to open it from ds.
func review(ctx context.Context, e env, ds *dataset.Dataset, o reviewFlags, rv *sessions.Review) (err error) {
	if rv != nil {
		defer rv.Store.Close()
	}
	cfg := o.runner.config(e.getenv)
	js, err := resolveJudges(o.judges, cfg)
	if err != nil {
		return err
	}
	if err := js.checkFields(ds); err != nil {
		return err
	}
	if o.annotator == "" {
		if o.annotator, err = e.annotatorDefault(); err != nil {
			return err
		}
	}
	if rv != nil {
		tuneGC(rv.Info.Items)
	} else {
		tuneGC(len(ds.Items))
		limitMemory(len(ds.Items), fileSize(ds))
	}
	if rv == nil && buildsInBackground(o.session, ds, o) {
		return reviewNew(ctx, e, loadedDataset(ds), o, js, cfg)
	}
	created := false
	if rv == nil {
		created = newSession(o.session)
		if rv, err = openCarrying(o.session, o.annotator, ds); err != nil {
			return err
		}
		defer rv.Store.Close()
	}
	if err := rv.ImportCarried(ds); err != nil {
		return err
	}
	if o.defaultJudge && allPairs(rv.Items) {
		if js, err = pairsWithoutJudge(js, rv, datasetName(ds)); err != nil {
			if created {
				// Refused before the screen: the session made for it
				// would only be found again by the next command.
				rv.Store.Close()
				sessions.RemoveSessionFiles(o.session)
			}
			return err
		}
	}
	judges, client, err := js.build(rv.Store.ResponseCache())
	if err != nil {
		return err
	}
	if judges, err = withFewShot(rv.Store, judges); err != nil {
		return err
	}
	rv.Swap = o.swap
	ds.Warnings = append(ds.Warnings, swapNotes(o.swap, judges, rv.Items, ds.Name)...)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var running judgings
	defer running.stop()
	runs, err := screenRuns(ctx, rv, judges, client, cfg, &running)
	if err != nil {
		return err
	}
	runs = withRejudgeCost(e, runs, judges)
	if err := setRunIDs(rv.Store, runs); err != nil {
		return err
	}
	history, err := rv.Store.Actions(o.annotator)
	if err != nil {
		return err
	}
	// The others' labels are read after the first frame (a million
	// imported ones took 8 s), except for adjudication, whose queue is
	// made of them.
	var others []sessions.Label
	var othersCantJudge []sessions.CantJudge
	var othersLater tui.OthersLater
	if o.adjudicate {
		if others, err = rv.Store.LabelsExcept(o.annotator); err != nil {
			return err
		}
		if othersCantJudge, err = cantJudgesExcept(rv.Store, o.annotator); err != nil {
			return err
		}
	} else {
		store, annotator := rv.Store, o.annotator
		othersLater = func() (*tui.OtherLabels, []sessions.CantJudge, error) {
			others, err := othersOf(store, annotator)
			if err != nil {
				return nil, nil, err
			}
			cantJudge, err := cantJudgesExcept(store, annotator)
			return others, cantJudge, err
		}
	}
	var health func() string // only LLM judges have a server to watch
	if client != nil {
		health = func() string { return client.Health().String() }
	}
	opts := tui.Options{
		Store:        rv.Store,
		Annotator:    o.annotator,
		Dataset:      filepath.Base(ds.Name),
		Items:        rv.Items,
		Runs:         runs,
		History:      history,
		Others:       others,
		OthersLater:  othersLater,
		Notices:      append(datasetNotices(ds), rv.Notices...),
		About:        fmt.Sprintf("%s · mapped %s · session %s", filepath.Base(ds.Name), dataset.FormatMap(ds.Mapping), o.session),
		Stats:        statsOf(rv.Store),
		Report:       reportOf(rv.Store),
		ServerHealth: health,
		Blind:        o.blind,
		Swap:         o.swap,
		MoreItems:    moreItems(rv),
		ItemCount:    rv.Info.Items,
		Checks:       append(fileChecks(rv, ds), serverCheck(ctx, client)),
	}
	// Their labels on those items are left out of agreement between people
	// on the screen, as the statistics leave them out.
	opts.OthersCantJudge = othersCantJudge
	if err := o.label.options(rv.Store, o.annotator, &opts); err != nil {
		return err
	}
	if err := o.plan.options(rv.Store, &opts); err != nil {
		return err
	}
	o.adjudicateOptions(&opts)
	st, qerr := rv.Store.QueueSettings()
	blindQueueOptions(st, qerr, o, &opts)
	vs := &variants{ctx: ctx, open: func() (*sessions.Review, error) { return rv, nil }, cfg: cfg, running: &running, client: client}
	vs.prices, _ = configPrices(e) // read once already: a bad file has stopped the command before
	vs.options(&opts)
	final, err := e.runTUI(ctx, tui.New(opts))
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("the review screen could not run (%w): it needs a terminal; `gavel run` judges without one, and your session is in %s", err, o.session)
	}
	cancel()
	running.stop()
	return finalReport(e, final, o.session)
}

// cantJudgesExcept returns every other annotator's current can't-judges.
func cantJudgesExcept(s *sessions.Store, annotator string) ([]sessions.CantJudge, error) {
	all, err := s.CantJudges("")
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, c := range all {
		if c.Annotator != annotator {
			out = append(out, c)
		}
	}
	return out, nil
}

// finalReport says what was saved when the screen closes: an error when
// labels could not be saved, else how far the review went.
func finalReport(e env, final tea.Model, session string) error {
	if fm, ok := final.(*tui.Model); ok {
		if n, ids := fm.UnsavedItems(); n > 0 {
			_, serr := fm.Unsaved()
			return unsavedError(n, ids, session, serr)
		}
		if fm.Loading() {
			// The counts cover the items read so far only.
			fmt.Fprintf(e.stderr, "Saved in %s.\n", session)
			return nil
		}
		done, total := fm.Progress()
		fmt.Fprintf(e.stderr, "Saved in %s: %d of %s reviewed.\n", session, done, count(total, "item"))
	}
	return nil
}

// unsavedError names the decisions lost on quitting while saving failed
// (the person answered "quit anyway", or a new session could not be
// written): how many, their items, and why.
func unsavedError(n int, ids []string, session string, serr error) error {
	shown := make([]string, 0, min(len(ids), 20))
	for _, id := range ids[:min(len(ids), 20)] {
		shown = append(shown, safetext.SanitizeLine(clipID(id)))
	}
	list := strings.Join(shown, ", ")
	if len(ids) > len(shown) {
		list += fmt.Sprintf(" and %d more", len(ids)-len(shown))
	}
	why := ""
	if serr != nil {
		why = " (" + serr.Error() + ")"
	}
	are, items, them := "are", "items", "them"
	if n == 1 {
		are = "is"
	}
	if len(ids) == 1 {
		items, them = "item", "it"
	}
	return fmt.Errorf("%s could not be saved to %s and %s lost%s: %s %s; label %s again once the session can be written",
		count(n, "decision"), session, are, why, items, list, them)
}

// clipID cuts an item id for a message.
func clipID(id string) string {
	if r := []rune(id); len(r) > 64 {
		return string(r[:63]) + "…"
	}
	return id
}

// allPairs reports whether every item compares two responses.
func allPairs(items []judge.Item) bool {
	for _, it := range items {
		if !it.Pairwise() {
			return false
		}
	}
	return len(items) > 0
}

// pairsWithoutJudge decides what a review of pairs runs when no judge was
// named: match compares an answer with a gold answer and would only fill
// the screen with errors. Runs the session already holds (imported
// preferences) are reviewed as they are; with none, the person is told
// which judge to name.
func pairsWithoutJudge(js judgeSet, rv *sessions.Review, name string) (judgeSet, error) {
	runs, err := rv.Store.Runs()
	if err != nil {
		return js, err
	}
	for _, r := range runs {
		for _, d := range r.Info.Dimensions {
			if d.Scale.Kind() == judge.KindPairwise {
				js.entries = nil
				return js, nil
			}
		}
	}
	return js, usagef("%s holds pairs of responses, which the default judge match cannot judge: review them with --judge pairwise --model MODEL (an LLM judge; --swap also judges each pair in the other order), or bring a judge's verdicts in first from a file that carries them: gavel import FILE --scale pairwise --session %s",
		name, shellWordArg(rv.Store.Path()))
}

// datasetName is how messages name the dataset.
func datasetName(ds *dataset.Dataset) string {
	if ds.Path != "" {
		return ds.Path
	}
	return ds.Name
}

// datasetNotices tells the reviewer how the dataset was read.
func datasetNotices(ds *dataset.Dataset) []string {
	out := []string{"mapped " + dataset.FormatMap(ds.Mapping)}
	if ds.Skipped > 0 {
		// Which rows: the person fixing the file needs their lines.
		line := count(ds.Skipped, "bad row") + " skipped"
		if len(ds.SkippedSamples) > 0 {
			line += ": " + strings.Join(ds.SkippedSamples, "; ")
			if ds.Skipped > len(ds.SkippedSamples) {
				line += "; …"
			}
		}
		out = append(out, line)
	}
	return append(out, ds.Warnings...)
}

// defaultSessionPath is NAME.gavel in the working directory for a dataset
// file NAME.jsonl (or .json, .csv…, compressed or not).
func defaultSessionPath(path string) string {
	base := filepath.Base(path)
	base = strings.TrimSuffix(base, ".gz")
	base = strings.TrimSuffix(base, filepath.Ext(base))
	return base + ".gavel"
}
