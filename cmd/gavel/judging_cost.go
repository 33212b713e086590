package main

import (
	"context"
	"runtime"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/cost"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/tui"
)

// screenCostSample is how many tasks a confirmation on the review screen
// counts: all up to this many, else about this many, scaled and said to
// be an estimate — an R over a million items would otherwise keep the
// question waiting for its cost for minutes.
const screenCostSample = 20_000

// withRejudgeCost gives each run the screen can re-judge (Rejudge set)
// with an LLM judge a Cost: what R would send and cost, counted with
// judge/cost and told in R's confirmation. A re-judge asks the model
// afresh, so no cached answer is counted out; the prices are the
// config's. It returns runs.
func withRejudgeCost(e env, runs []tui.Run, judges []judge.Judge) []tui.Run {
	prices, _ := configPrices(e) // read once already: a bad file has stopped the command before
	byKey := map[string]judge.Judge{}
	for _, j := range judges {
		if key, err := sessions.RunKey(j.Info()); err == nil && j.Info().Model != "" {
			byKey[key] = j
		}
	}
	for i, r := range runs {
		key, err := sessions.RunKey(r.Info)
		j, ok := byKey[key]
		if err != nil || !ok || r.Rejudge == nil {
			continue
		}
		runs[i].Cost = func(ctx context.Context, tasks []judge.Task) (string, error) {
			est, err := cost.Count(ctx, j, tasks, cost.Options{Concurrency: runtime.NumCPU(), SampleTasks: screenCostSample})
			if err != nil {
				return "", err
			}
			return cost.Render{Prices: prices}.Short(est), nil
		}
	}
	return runs
}
