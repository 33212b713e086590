package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/cost"
	"github.com/gavel-dev/gavel/judge/llm"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/safetext"
)

// batchPollMin and batchPollMax, when set (tests), replace the waits
// between two looks at the running batches (llm.BatchOptions).
var batchPollMin, batchPollMax time.Duration

// addBatchFlag adds gavel run's --batch.
func addBatchFlag(f *pflag.FlagSet, on *bool) {
	f.BoolVar(on, "batch", false, "send the requests through OpenAI's Batch API (cheaper, answered within 24 hours): the command waits for the batches; interrupted, they run on and the same command collects them")
}

// runBatch is gavel run --batch: each LLM judge's requests go through the
// Batch API (llm.Judge.RunBatch, its state kept in the session), and the
// tasks the batches answered are then judged from the session's cache by
// the ordinary code, so their verdicts are the online path's. Tasks a
// batch that ended before this run left unanswered are sent as ordinary
// requests; those left by a batch that ended during it wait for the next
// run. A judge that calls no model runs as gavel run runs it.
func runBatch(ctx context.Context, e env, rv *sessions.Review, judges []judge.Judge, client *llm.Client, cfg llm.Config, o runFlags) error {
	prices, err := configPrices(e)
	if err != nil {
		return err
	}
	var left []string
	for _, j := range judges {
		lj, ok := j.(*llm.Judge)
		if !ok {
			if err := runOrdinary(ctx, e, rv, j, cfg, o); err != nil {
				return err
			}
			continue
		}
		msg, err := runJudgeBatch(ctx, e, rv, lj, client, cfg, prices, o)
		if err != nil {
			return err
		}
		if msg != "" {
			left = append(left, msg)
		}
	}
	if len(left) > 0 {
		return errors.New(strings.Join(left, "; "))
	}
	return nil
}

// runJudgeBatch runs one LLM judge through the Batch API; msg says what
// work is left, if any.
func runJudgeBatch(ctx context.Context, e env, rv *sessions.Review, j *llm.Judge, client *llm.Client, cfg llm.Config, prices cost.Prices, o runFlags) (msg string, err error) {
	run, err := rv.Store.EnsureRun(j.Info())
	if err != nil {
		return "", err
	}
	name := runName(rv.Store, run)
	st, err := rv.ResumeRun(ctx, run, nil, judge.PoolOptions{})
	if err != nil {
		return "", err
	}
	tasks := sessions.TasksToDo(run.Info, rv.Items, append(st.Verdicts, st.Swapped...), rv.Swap)
	if len(tasks) == 0 {
		fmt.Fprintf(e.stderr, "%s: every item already has a verdict in %s.\n", name, o.session)
		return "", nil
	}
	for i := range tasks {
		// Items kept in their stored form get their whole row back: the
		// prompt may use any field.
		tasks[i].Item = sessions.WholeFields(tasks[i].Item)
	}
	store := rv.Store.APIBatches(run.ID)
	marker, err := store.SessionMarker()
	if err != nil {
		return "", err
	}
	fmt.Fprintf(e.stderr, "%s: %s left to judge.\n", name, count(len(tasks), "task"))
	// A server without the Batch API is refused before any cost is
	// told: no cost line for batches never made.
	if err := j.Client().CheckBatchAPI(ctx); err != nil {
		if errors.Is(err, llm.ErrNoBatchAPI) {
			return "", usageError{err}
		}
		return "", fmt.Errorf("%s: %w", name, err)
	}
	// What it will cost, before anything is sent: the requests that go
	// in new batches at the batch price, and those a batch that ended
	// left, sent as ordinary requests (those in batches still running
	// were paid for when sent, and are not counted again).
	bc, err := countBatchCost(ctx, j, tasks, batchStore{store}, cost.Options{Cache: rv.Store.ResponseCache(), Concurrency: runtime.NumCPU(),
		SampleTasks: runCostSample, Item: sessions.WholeFields})
	if err != nil {
		return "", err
	}
	for _, line := range bc.announce(name, prices) {
		fmt.Fprintln(e.stderr, safetext.SanitizeLine(line))
	}
	rep, err := j.RunBatch(ctx, tasks, llm.BatchOptions{
		Store:   batchStore{store},
		Session: marker,
		Notify:  func(line string) { fmt.Fprintf(e.stderr, "%s: %s\n", name, line) },
		PollMin: batchPollMin,
		PollMax: batchPollMax,
	})
	switch {
	case errors.Is(err, llm.ErrNoBatchAPI):
		return "", usageError{err}
	case err != nil && ctx.Err() != nil:
		return "", fmt.Errorf("interrupted: the batches run on at the server; run the same command again to collect their answers (nothing is sent twice)")
	case err != nil:
		return "", fmt.Errorf("%s: %w", name, err)
	}
	for _, line := range batchErrorLines(rep.Errors) {
		fmt.Fprintf(e.stderr, "%s: %s\n", name, line)
	}
	var health func() llm.Health
	if client != nil {
		health = client.Health
	}
	var t tally
	for _, part := range []struct {
		tasks []judge.Task
		j     judge.Judge
		what  string
	}{
		{rep.Ready, rep.Judge(j), "from the batches' answers"},
		{rep.Online, j, "as ordinary requests (a batch that ended before this run left them unanswered)"},
	} {
		if len(part.tasks) == 0 {
			continue
		}
		fctx, release := untilFatal(ctx)
		jg := sessions.StartJudging(fctx, rv.Store, run, part.j, part.tasks, poolOptions(j, cfg))
		release(jg)
		pt, errs := follow(jg, newProgressLine(e.stderr, name, len(part.tasks)), health)
		jg.Stop()
		sum := jg.Summary()
		fmt.Fprintf(e.stderr, "%s: %d of %s judged %s — %d ok, %s, %s", name, pt.done(), count(len(part.tasks), "task"), part.what, pt.ok, count(pt.parseErrors, "parse error"), count(pt.apiErrors, "API error"))
		if pt.truncated > 0 {
			fmt.Fprintf(e.stderr, ", %d truncated", pt.truncated)
		}
		fmt.Fprintf(e.stderr, ". Saved in %s.\n", o.session)
		if len(errs) > 0 {
			return "", errors.Join(errs...)
		}
		if sum.Stopped != nil {
			return "", fmt.Errorf("judging stopped: %v. The tasks not judged stay to do: run again once fixed", sum.Stopped)
		}
		if ctx.Err() != nil {
			return "", fmt.Errorf("interrupted: the tasks not judged stay to do; run the same command again to finish")
		}
		t.apiErrors += pt.apiErrors
	}
	var parts []string
	if n := len(rep.Left); n > 0 {
		parts = append(parts, fmt.Sprintf("%s the batches left unanswered (expired, cancelled, failed or refused requests): the next run sends them, as ordinary requests unless their batch failed as a whole", count(n, "task")))
	}
	if t.apiErrors > 0 {
		parts = append(parts, count(t.apiErrors, "task")+" ended api_error")
	}
	if len(parts) == 0 {
		return "", nil
	}
	return name + ": " + strings.Join(parts, "; ") + ". Run the same command again to judge what is left", nil
}

// runOrdinary judges with a judge that calls no model, as gavel run does.
func runOrdinary(ctx context.Context, e env, rv *sessions.Review, j judge.Judge, cfg llm.Config, o runFlags) error {
	st, err := startRun(ctx, rv, j, cfg)
	if err != nil {
		return err
	}
	name := runName(rv.Store, st.Run)
	if st.Judging == nil {
		fmt.Fprintf(e.stderr, "%s: every item already has a verdict in %s.\n", name, o.session)
		return nil
	}
	t, errs := follow(st.Judging, newProgressLine(e.stderr, name, st.Pending), nil)
	st.Judging.Stop()
	fmt.Fprintf(e.stderr, "%s: %d of %s judged — %d ok, %s. Saved in %s.\n", name, t.done(), count(st.Pending, "task"), t.ok, count(t.parseErrors, "parse error"), o.session)
	return errors.Join(errs...)
}

// batchErrorLines says what the failed requests of the batches read met,
// the most common first, at most three.
func batchErrorLines(errs map[string]int) []string {
	msgs := make([]string, 0, len(errs))
	total := 0
	for m, n := range errs {
		msgs = append(msgs, m)
		total += n
	}
	sort.Slice(msgs, func(i, k int) bool {
		if errs[msgs[i]] != errs[msgs[k]] {
			return errs[msgs[i]] > errs[msgs[k]]
		}
		return msgs[i] < msgs[k]
	})
	var out []string
	for i, m := range msgs {
		if i == 3 {
			out = append(out, "and "+count(total, "failed request")+" in all")
			break
		}
		out = append(out, fmt.Sprintf("%s: %s", count(errs[m], "request"), strings.TrimRight(m, ". ")))
	}
	return out
}

// batchStore is the session's APIBatches as llm.BatchStore.
type batchStore struct{ b *sessions.APIBatches }

func (s batchStore) BatchChunks() ([]llm.BatchChunk, error) {
	cs, err := s.b.Chunks()
	out := make([]llm.BatchChunk, len(cs))
	for i, c := range cs {
		out[i] = llm.BatchChunk{Key: c.Chunk, Requests: c.Requests, Bytes: c.Bytes, PlannedAt: c.PlannedAt, InputFile: c.InputFile,
			BatchID: c.BatchID, Status: c.Status, Answered: c.Answered, Failed: c.Failed, Finished: c.Finished}
	}
	return out, err
}

func apiBatch(c llm.BatchChunk) sessions.APIBatch {
	return sessions.APIBatch{Chunk: c.Key, Requests: c.Requests, Bytes: c.Bytes, PlannedAt: c.PlannedAt, InputFile: c.InputFile,
		BatchID: c.BatchID, Status: c.Status, Answered: c.Answered, Failed: c.Failed, Finished: c.Finished}
}

func (s batchStore) PlanBatchChunks(chunks []llm.BatchChunk, keys [][]string) error {
	cs := make([]sessions.APIBatch, len(chunks))
	for i, c := range chunks {
		cs[i] = apiBatch(c)
	}
	return s.b.Plan(cs, keys)
}

func (s batchStore) BatchChunkOf(keys []string) (map[string]string, error) { return s.b.ChunkOf(keys) }
func (s batchStore) BatchChunkKeys(chunk string) ([]string, error)         { return s.b.ChunkKeys(chunk) }
func (s batchStore) UpdateBatchChunk(c llm.BatchChunk) error               { return s.b.Update(apiBatch(c)) }
func (s batchStore) ReleaseBatchChunk(chunk string) error                  { return s.b.Release(chunk) }
func (s batchStore) BatchAnswered(keys []string) (map[string]bool, error)  { return s.b.Answered(keys) }
func (s batchStore) SaveBatchAnswers(answers map[string]string) error {
	return s.b.SaveAnswers(answers)
}

// batchNotes warns a run without --batch about batches of the same runs
// still at the server (or planned) while the runs have tasks left: those
// tasks are now sent again as ordinary requests, paid twice, where
// `gavel run --batch` would collect them.
func batchNotes(rv *sessions.Review, judges []judge.Judge) []string {
	var notes []string
	for _, j := range judges {
		if _, ok := j.(*llm.Judge); !ok {
			continue
		}
		run, err := rv.Store.EnsureRun(j.Info())
		if err != nil {
			continue
		}
		n, err := rv.Store.APIBatches(run.ID).Running()
		if err != nil || n == 0 {
			continue
		}
		// Nothing left to judge: nothing is paid twice.
		st, err := rv.ResumeRun(context.Background(), run, nil, judge.PoolOptions{})
		if err != nil || len(sessions.TasksToDo(run.Info, rv.Items, append(st.Verdicts, st.Swapped...), rv.Swap)) == 0 {
			continue
		}
		what := fmt.Sprintf("%d batches of this run sent with --batch are not collected: the tasks in them", n)
		if n == 1 {
			what = "a batch of this run sent with --batch is not collected: the tasks in it"
		}
		notes = append(notes, fmt.Sprintf("%s: %s are now sent again as ordinary requests (paid twice). To collect them instead, stop and run the same command with --batch.", runName(rv.Store, run), what))
	}
	return notes
}
