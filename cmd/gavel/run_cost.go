package main

import (
	"context"
	"fmt"
	"runtime"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/cost"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/safetext"
)

// runCostSample is how many tasks gavel run counts before it starts: all
// of them up to this many, else a sample of about this many, scaled and
// said to be an estimate (--dry-run counts them all). A few seconds at
// most: the run is about to spend, not to wait.
const runCostSample = 5_000

// announceCost says on stderr, before a judge's first request, what its
// run will send and cost: the tasks it has left (as ResumeRun will make
// them), counted by judge/cost through the session's cache. Offline
// judges send nothing and are not announced, nor a run with nothing left.
func announceCost(ctx context.Context, e env, rv *sessions.Review, j judge.Judge, prices cost.Prices, batch bool) error {
	info := j.Info()
	if info.Model == "" {
		return nil
	}
	run, err := rv.Store.EnsureRun(info)
	if err != nil {
		return err
	}
	vs, err := rv.Store.ReviewVerdicts(run.ID)
	if err != nil {
		return err
	}
	if info.Prefers() {
		sw, err := rv.Store.ReviewSwappedVerdicts(run.ID)
		if err != nil {
			return err
		}
		vs = append(vs, sw...)
	}
	tasks := sessions.TasksToDo(info, rv.Items, vs, rv.Swap)
	if len(tasks) == 0 {
		return nil
	}
	est, err := cost.Count(ctx, j, tasks, cost.Options{Cache: rv.Store.ResponseCache(), Concurrency: runtime.NumCPU(),
		SampleTasks: runCostSample, Item: sessions.WholeFields})
	if err != nil {
		return err
	}
	line := fmt.Sprintf("%s: %s; retries come on top.", runName(rv.Store, run), cost.Render{Prices: prices, Batch: batch}.Short(est))
	fmt.Fprintln(e.stderr, safetext.SanitizeLine(line))
	return nil
}
