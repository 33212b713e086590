package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/catalog"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/dataset"
	"github.com/gavel-dev/gavel/sessions/demo"
	"github.com/gavel-dev/gavel/sessions/stats"
	"github.com/gavel-dev/gavel/tui"
)

// reviewFlags are the flags of `gavel review` (and, in part, of the demo).
type reviewFlags struct {
	judge     string
	session   string
	mapping   string
	annotator string
	skipBad   bool
	format    string
}

func newReviewCmd(e env) *cobra.Command {
	var o reviewFlags
	cmd := &cobra.Command{
		Use:   "review DATASET",
		Short: "Review a judge's verdicts on a dataset, item by item",
		Long: `Open DATASET for review. The judge runs in the background over every item
that has no verdict yet; verdicts appear as they arrive. Your labels are saved
in the session file as you make them, and reopening the same session resumes
at the first item you have not reviewed.

DATASET is a JSONL, JSON, CSV or TSV file (optionally gzip-compressed). Gavel
recognises the usual field names; --map says which field holds what.`,
		Example: `  gavel review evals.jsonl
  gavel review evals.jsonl --session team.gavel --annotator ana
  gavel review outputs.csv --map question=input,gold=target,prediction=output`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			return runReview(cmd.Context(), e, a[0], o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.judge, "judge", "match", "the judge to run (see `gavel judges`)")
	f.StringVar(&o.session, "session", "", "the session file (default: DATASET's name with .gavel, in the working directory)")
	f.StringVar(&o.mapping, "map", "", "which field holds what, e.g. gold=target,prediction=output")
	f.StringVar(&o.annotator, "annotator", "", "your name in the session (default: your OS user name)")
	f.BoolVar(&o.skipBad, "skip-bad", false, "skip rows that cannot be read instead of stopping")
	f.StringVar(&o.format, "format", "", "the dataset's format: jsonl, json, csv, tsv or lm-eval (default: from the file)")
	return cmd
}

func runReview(ctx context.Context, e env, path string, o reviewFlags) error {
	opts := dataset.Options{SkipBad: o.skipBad, Format: o.format}
	if o.mapping != "" {
		m, err := dataset.ParseMap(o.mapping)
		if err != nil {
			return usageError{err}
		}
		opts.Map = m
	}
	ds, err := dataset.Load(path, opts)
	if err != nil {
		return err
	}
	if o.session == "" {
		o.session = defaultSessionPath(path)
	}
	return review(ctx, e, ds, o)
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
	o.judge = "match"
	return review(ctx, e, ds, o)
}

// review opens the session, starts the judge and runs the review screen
// until the person quits; judging still in flight is stopped and what was
// received is saved.
func review(ctx context.Context, e env, ds *dataset.Dataset, o reviewFlags) error {
	entry, err := catalog.Find(o.judge, catalog.Builtins())
	if err != nil {
		return usageError{err}
	}
	j, err := entry.Build()
	if err != nil {
		return err
	}
	if o.annotator == "" {
		o.annotator = e.defaultAnnotator()
	}
	rv, err := sessions.OpenReview(o.session, o.annotator, ds)
	if err != nil {
		return err
	}
	defer rv.Store.Close()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	state, err := rv.StartRun(ctx, j, judge.PoolOptions{Concurrency: 4})
	if err != nil {
		return err
	}
	if state.Judging != nil {
		defer state.Judging.Stop()
	}
	history, err := rv.Store.Actions(o.annotator)
	if err != nil {
		return err
	}
	runs, err := rv.Store.Runs()
	if err != nil {
		return err
	}
	notices := append(rv.Notices, datasetNotices(ds)...)
	m := tui.New(tui.Options{
		Store:     rv.Store,
		Annotator: o.annotator,
		Dataset:   filepath.Base(ds.Name),
		Items:     rv.Items,
		Runs: []tui.Run{{Info: state.Run.Info, Key: sessions.RunNames(runs)[state.Run.ID],
			Verdicts: state.Verdicts, Judging: state.Judging, Pending: state.Pending}},
		History: history,
		Notice:  strings.Join(notices, " · "),
		Stats:   statsOf(rv.Store),
	})
	final, err := e.runTUI(ctx, m)
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("the screen stopped: %w", err)
	}
	if fm, ok := final.(tui.Model); ok {
		if n, serr := fm.Unsaved(); n > 0 {
			return fmt.Errorf("%d of your last actions could not be saved to %s: %v", n, o.session, serr)
		}
		done, total := fm.Progress()
		fmt.Fprintf(e.stderr, "Saved in %s: %d of %d items reviewed.\n", o.session, done, total)
	}
	return nil
}

// datasetNotices tells the reviewer how the dataset was read.
func datasetNotices(ds *dataset.Dataset) []string {
	out := []string{"mapped " + dataset.FormatMap(ds.Mapping)}
	if ds.Skipped > 0 {
		out = append(out, fmt.Sprintf("%d bad rows skipped", ds.Skipped))
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

// statsOf computes a session's agreement report the way `gavel stats`
// does.
func statsOf(s *sessions.Store) func() (stats.Report, error) {
	return func() (stats.Report, error) {
		in, err := s.StatsInput()
		if err != nil {
			return stats.Report{}, err
		}
		return stats.Compute(in, stats.Options{Seed: statsSeed}), nil
	}
}

// statsSeed seeds every bootstrap, so that the same session always gives
// the same intervals.
const statsSeed = 1
