package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/llm"
	"github.com/gavel-dev/gavel/judge/match"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/pg"
)

// runAnnotator is the lock name of headless runs: one `gavel run` at a
// time per session, while people go on labelling under their own names.
const runAnnotator = "gavel run"

type runFlags struct {
	judges  []string
	session string
	swap    bool
	// dryRun counts what the run would send and cost, and sends nothing
	// (run_dryrun.go); batch (--batch, run_batch.go) prices it at batch
	// prices.
	dryRun bool
	batch  bool
	data   datasetFlags
	runner runnerFlags
	// datasetName names the items in notes: the dataset file's name, or
	// the team session's.
	datasetName string
	// shown, when set, names the session in the dry run's messages (a
	// team session's URL, counted on its local copy, o.session).
	shown string
}

func newRunCmd(e env) *cobra.Command {
	var o runFlags
	cmd := &cobra.Command{
		Use:   "run DATASET --judge NAME",
		Short: "Judge a dataset headlessly, into the session `gavel review` opens",
		Long: `Run a judge over every item of DATASET that has no verdict yet, without a
screen: progress goes to stderr, verdicts to the session file as they arrive.
` + "`gavel review`" + ` on the same session then shows them. Interrupting keeps every
verdict received; running again judges only what is left. LLM answers are
cached in the session: a second run costs nothing. --dry-run says what
the run would send and cost — requests, prompt tokens (the model's
tokenizer where Gavel knows it, else an estimate), the most output tokens,
the price from the config's prices — and sends nothing.

A team session's URL (postgres://…?session=NAME) in place of DATASET judges
the items the team session holds: each verdict is written to PostgreSQL as
it comes, so the reviewers' screens on other machines show it within
seconds, and running again judges only the items the team session has no
verdict for. One gavel run at a time judges a team session.`,
		Example: `  OPENAI_API_KEY=… gavel run evals.jsonl --judge docqa --model gpt-4o-mini
  gavel run evals.jsonl --judge bbh --base-url http://127.0.0.1:8000/v1 --model qwen2.5-7b --concurrency 16
  gavel run evals.jsonl --judge ./judges/polite.yaml --model gpt-4o-mini --samples 3
  gavel run evals.jsonl --judge docqa --model gpt-4o-mini --dry-run   # what it would cost
  gavel run pairs.jsonl --judge pairwise --model gpt-4o-mini --swap
  gavel run 'postgres://ana@db.example.com/evals?session=triviaqa' --judge docqa --model gpt-4o-mini`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if err := applyConfig(e, cmd.Flags(), &o.judges, &o.runner); err != nil {
				return err
			}
			return runHeadless(cmd.Context(), e, a[0], o)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.judges, "judge", []string{match.Name}, "the judge to run: a built-in judge's `NAME` (gavel judges lists them) or a judge file; repeat for several")
	f.StringVar(&o.session, "session", "", "the session `FILE` (default: DATASET's name with .gavel, in the working directory)")
	addSwap(f, &o.swap)
	f.BoolVar(&o.dryRun, "dry-run", false, "say how many requests the run would send, their prompt tokens and the price (the config's prices), and send nothing")
	o.data.add(f)
	o.runner.add(f)
	addBatchFlag(f, &o.batch)
	return cmd
}

func runHeadless(ctx context.Context, e env, path string, o runFlags) error {
	cfg := o.runner.config(e.getenv)
	js, err := resolveJudges(o.judges, cfg)
	if err != nil {
		return err
	}
	if pg.IsURL(path) || pg.IsURL(o.session) {
		return runTeam(ctx, e, path, js, cfg, o) // a team session (run_team.go)
	}
	if path == "-" && o.session == "" {
		return usagef("gavel run - reads the dataset from standard input, so there is no file name to name the session after: give --session FILE.gavel")
	}
	ds, err := o.data.load(path)
	if err != nil {
		return err
	}
	for _, w := range ds.Warnings {
		fmt.Fprintln(e.stderr, w)
	}
	warnings, err := checkJudgeFields(js.entries, ds)
	for _, w := range warnings {
		fmt.Fprintln(e.stderr, w)
	}
	if err != nil {
		return err
	}
	if o.session == "" {
		o.session = defaultSessionPath(path)
	}
	if o.dryRun {
		return dryRun(ctx, e, ds, js, o)
	}
	o.datasetName = ds.Name
	rv, err := sessions.OpenReview(o.session, runAnnotator, ds)
	if err != nil {
		return err
	}
	defer rv.Store.Close()
	return judgeSession(ctx, e, rv, js, cfg, o)
}

// judgeSession runs the judges over the session rv holds (a file, or a
// team session's replica), saying in o.session where the verdicts go.
func judgeSession(ctx context.Context, e env, rv *sessions.Review, js judgeSet, cfg llm.Config, o runFlags) error {
	for _, n := range rv.Notices {
		fmt.Fprintln(e.stderr, n)
	}
	judges, client, err := js.build(rv.Store.ResponseCache())
	if err != nil {
		return err
	}
	if judges, err = withFewShot(rv.Store, judges); err != nil {
		return err
	}
	rv.Swap = o.swap
	for _, n := range swapNotes(o.swap, judges, rv.Items, o.datasetName) {
		fmt.Fprintln(e.stderr, n)
	}

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.batch {
		return runBatch(ctx, e, rv, judges, client, cfg, o)
	}
	for _, n := range batchNotes(rv, judges) {
		fmt.Fprintln(e.stderr, n)
	}
	// The server's context, where it tells it: items that cannot fit are
	// not sent, and named at the end.
	serverNote(ctx, e.stderr, client, cmp.Or(cfg.Wait, llm.DefaultWait))
	prices, err := configPrices(e)
	if err != nil {
		return err
	}
	var failed []string
	for _, j := range judges {
		// What it will cost, before its first request (run_cost.go).
		if err := announceCost(ctx, e, rv, j, prices, o.batch); err != nil {
			return err
		}
		st, err := startRun(ctx, rv, j, cfg)
		if err != nil {
			return err
		}
		name := runName(rv.Store, st.Run)
		if st.Judging == nil {
			fmt.Fprintf(e.stderr, "%s: every item already has a verdict in %s.\n", name, o.session)
			continue
		}
		var health func() llm.Health
		if client != nil && j.Info().Model != "" {
			health = client.Health
		}
		t, errs := follow(st.Judging, newProgressLine(e.stderr, name, st.Pending), health)
		st.Judging.Stop()
		sum := st.Judging.Summary()
		bothOrders := o.swap && j.Info().Prefers()
		fmt.Fprintf(e.stderr, "%s: %d of %s judged", name, t.done(), count(st.Pending, "task"))
		if bothOrders {
			fmt.Fprint(e.stderr, " (each pair in both orders)")
		}
		fmt.Fprintf(e.stderr, " — %d ok, %s", t.ok, count(t.parseErrors, "parse error"))
		if t.skipped > 0 {
			fmt.Fprintf(e.stderr, " (%s skipped, not sent: %s)", count(t.skipped, skippedUnit(bothOrders)), skippedWhy(js.entry(j.Info().Name)))
		}
		fmt.Fprintf(e.stderr, ", %s", count(t.apiErrors, "API error"))
		if t.truncated > 0 {
			fmt.Fprintf(e.stderr, ", %d truncated", t.truncated)
		}
		fmt.Fprintf(e.stderr, "; %s", count(t.tokens, "token"))
		if sum.Retries > 0 {
			fmt.Fprintf(e.stderr, ", %s", count(sum.Retries, "retry"))
		}
		if t.cached > 0 {
			fmt.Fprintf(e.stderr, ", %s from the cache", count(t.cached, "answer"))
		}
		fmt.Fprintf(e.stderr, ". Saved in %s.\n", o.session)
		if t.apiErrors > 0 {
			// One write a line: stderr's sanitiser shows a line break
			// inside a write as ⏎.
			for _, line := range tooLongNote(rv.Store, st.Run.ID) {
				fmt.Fprintln(e.stderr, line)
			}
		}
		if len(errs) > 0 {
			return errors.Join(errs...)
		}
		if sum.Stopped != nil {
			return fmt.Errorf("judging stopped: %v. The %s not judged stay to do: run again once fixed", sum.Stopped, count(st.Pending-t.done(), "task"))
		}
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted: %s not judged stay to do; run the same command again to finish", count(st.Pending-t.done(), "task"))
		}
		if t.apiErrors > 0 {
			failed = append(failed, apiErrorSummary(rv.Store, st.Run.ID, name, t.apiErrors, st.Pending))
		}
		if t.truncated > 0 {
			failed = append(failed, truncatedSummary(name, t, st.Pending))
		}
	}
	if len(failed) > 0 {
		return errors.New(strings.Join(failed, "; ") + ". Run the same command again to judge what is left: only those tasks are sent")
	}
	return nil
}

// apiErrorSummary says how many of a run's tasks ended api_error and the
// error most of them met, whole: the run's work is left undone, and
// `gavel run` exits 1 (a parse_error is an answer: it alone exits 0).
func apiErrorSummary(st *sessions.Store, runID int64, name string, n, pending int) string {
	msg := fmt.Sprintf("%s: %d of %s ended api_error", name, n, count(pending, "task"))
	switch {
	case n == 1 && pending == 1:
		msg = fmt.Sprintf("%s: the only task ended api_error", name)
	case n == pending:
		msg = fmt.Sprintf("%s: every one of the %d tasks ended api_error", name, n)
	}
	vs, err := st.ReviewVerdicts(runID)
	if err != nil {
		return msg
	}
	// The swapped order's failures are the run's too (--swap).
	if sw, err := st.ReviewSwappedVerdicts(runID); err == nil {
		vs = append(vs, sw...)
	}
	count := map[string]int{}
	total := 0
	for _, v := range vs {
		if v.Status == judge.StatusAPIError {
			count[v.Error]++
			total++
		}
	}
	top, most := "", 0
	for text, c := range count {
		if c > most || c == most && text < top {
			top, most = text, c
		}
	}
	if most == 0 {
		return msg
	}
	return fmt.Sprintf("%s; the most common error (%d of %d): %s", msg, most, total, strings.TrimRight(top, ". "))
}

// runName is how the session's reports name a run: its label, or, when
// another run shares the label (a variant of a judge on the same model),
// its variant's (docqa@2 · gpt-4o), so that the two lines of a run of a
// judge and its variant can be told apart.
func runName(s *sessions.Store, r sessions.Run) string {
	runs, err := s.Runs()
	if err != nil {
		return sessions.RunLabel(r)
	}
	if n, ok := sessions.RunNames(runs)[r.ID]; ok {
		return n
	}
	return sessions.RunLabel(r)
}
