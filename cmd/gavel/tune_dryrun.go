package main

import (
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/cost"
	"github.com/gavel-dev/gavel/judge/llm"
	"github.com/gavel-dev/gavel/judge/tune"
)

// tuneDryRun tells what gavel tune would send, sending nothing: the
// original's phases exactly (judge/cost, with the session's cache, as
// tune's own probe counts them), and for the rest — the rounds'
// proposals and validation, the winner on the evaluation part — the most
// requests, their prompt tokens estimated from the original's (the
// candidates' instructions are not written yet). --budget caps it all.
//
// With brief set (a tuning about to start) it writes only the total, on
// w: the tuning's phases then say their own requests as they start.
func tuneDryRun(ctx context.Context, e env, w io.Writer, o tuneFlags, orig judge.Judge, cache llm.Cache, parts labelledParts, brief bool) error {
	prices, err := configPrices(e)
	if err != nil {
		return err
	}
	count := func(items []tune.Labelled, cache llm.Cache) (cost.Estimate, error) {
		ts := make([]judge.Task, len(items))
		for i, it := range items {
			ts[i] = judge.Task{Item: it.Item}
		}
		return cost.Count(ctx, orig, ts, cost.Options{Cache: cache, Concurrency: runtime.NumCPU()})
	}
	calVal, err := count(append(append([]tune.Labelled(nil), parts.cal...), parts.val...), cache)
	if err != nil {
		return err
	}
	eval, err := count(parts.eval, cache)
	if err != nil {
		return err
	}
	// A candidate's requests are the original's with other instructions,
	// none cached: the original's prompts counted afresh, an estimate.
	val, err := count(parts.val, nil)
	if err != nil {
		return err
	}
	evalFresh, err := count(parts.eval, nil)
	if err != nil {
		return err
	}
	calFresh, err := count(parts.cal, nil)
	if err != nil {
		return err
	}
	r := cost.Render{Prices: prices}
	perRound, newBest, winner := asCandidate(val), asCandidate(calFresh), asCandidate(evalFresh)
	all := cost.Sum([]cost.Estimate{calVal, eval, scale(perRound, o.rounds), scale(newBest, o.rounds-1), winner})
	all.Requests += o.rounds // the proposals
	if brief {
		fmt.Fprintf(w, "Tuning may send at most %s (the proposals' prompts not counted); --budget %d caps it, retries included.\n", r.Short(all), o.budget)
		return nil
	}
	fmt.Fprintln(w, "Dry run: nothing is sent to any server and no candidate is written.")
	fmt.Fprintf(w, "\nThe original on the calibration and validation parts (%d items):\n", len(parts.cal)+len(parts.val))
	for _, l := range r.Lines(calVal) {
		fmt.Fprintln(w, "  "+l)
	}
	fmt.Fprintf(w, "\nThe original on the evaluation part (%d items):\n", len(parts.eval))
	for _, l := range r.Lines(eval) {
		fmt.Fprintln(w, "  "+l)
	}
	fmt.Fprintf(w, "\nEach of the %d rounds, at most: a proposal (1 request), the candidate on the validation part (%s)", o.rounds, r.Short(perRound))
	if o.rounds > 1 {
		fmt.Fprintf(w, " and, from round 2 on when the last candidate won, the new best on the calibration part (%s)", r.Short(newBest))
	}
	fmt.Fprintf(w, ".\nThe winner on the evaluation part, at most: %s.\n", r.Short(winner))
	fmt.Fprintf(w, "\nIn all, at most: %s; the proposals' prompts are not counted (they show the disagreements found on the way).\n", r.Short(all))
	if o.budget > 0 && o.budget < all.Requests {
		fmt.Fprintf(w, "--budget %d stops it sooner; retries count within it.\n", o.budget)
	}
	return nil
}

// asCandidate marks a count of the original's prompts as an estimate of
// a candidate's: the same items and samples, other instructions.
func asCandidate(e cost.Estimate) cost.Estimate {
	e.Models = append([]cost.ModelCost(nil), e.Models...)
	for i := range e.Models {
		e.Models[i].Exact = false
	}
	return e
}

// scale is e n times over (the rounds).
func scale(e cost.Estimate, n int) cost.Estimate {
	es := make([]cost.Estimate, n)
	for i := range es {
		es[i] = e
	}
	return cost.Sum(es)
}
