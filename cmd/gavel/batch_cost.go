package main

import (
	"context"
	"fmt"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/cost"
	"github.com/gavel-dev/gavel/judge/llm"
)

// batchCost is what gavel run --batch pays for a judge's tasks, in its two
// parts: the requests that go in new batches (at batch prices) and those
// sent as ordinary requests (a batch that ended before left them
// unanswered, or no batch can carry them). Rest counts the tasks that cost
// nothing more: answered already, or in a batch still running (paid when
// it was sent).
type batchCost struct {
	Batch, Online       cost.Estimate
	NBatch, NOnline     int
	Rest                int
	HasBatch, HasOnline bool
}

// announce is the cost gavel run --batch tells before it sends: a line
// per part that costs anything.
func (bc batchCost) announce(name string, prices cost.Prices) []string {
	var lines []string
	if bc.NBatch > 0 {
		lines = append(lines, fmt.Sprintf("%s: %s in new batches; retries come on top.", name, cost.Render{Prices: prices, Batch: true}.Short(bc.Batch)))
	}
	if bc.NOnline > 0 {
		lines = append(lines, fmt.Sprintf("%s: %s as ordinary requests; retries come on top.", name, cost.Render{Prices: prices}.Short(bc.Online)))
	}
	if bc.Rest > 0 {
		lines = append(lines, fmt.Sprintf("%s: %s answered already or waiting on batches still running (paid when sent): nothing more to pay for them.", name, taskCount(bc.Rest)))
	}
	return lines
}

// dryRunLines tells a judge's --batch cost in full, part by part.
func (bc batchCost) dryRunLines(prices cost.Prices) []string {
	var lines []string
	if bc.NBatch > 0 {
		lines = append(lines, fmt.Sprintf("In new batches (%s):", taskCount(bc.NBatch)))
		for _, l := range (cost.Render{Prices: prices, Batch: true}).Lines(bc.Batch) {
			lines = append(lines, "  "+l)
		}
	}
	if bc.NOnline > 0 {
		lines = append(lines, fmt.Sprintf("As ordinary requests (%s a batch that ended left unanswered, or no batch can carry):", taskCount(bc.NOnline)))
		for _, l := range (cost.Render{Prices: prices}).Lines(bc.Online) {
			lines = append(lines, "  "+l)
		}
	}
	if bc.Rest > 0 {
		lines = append(lines, fmt.Sprintf("%s answered already or waiting on batches still running (paid when sent): nothing more to pay for them.", taskCount(bc.Rest)))
	}
	if len(lines) == 0 {
		lines = append(lines, "requests: 0 — nothing is left to do")
	}
	return lines
}

// taskCount is "1 task", "20,000 tasks".
func taskCount(n int) string {
	if n == 1 {
		return "1 task"
	}
	return cost.Group(int64(n)) + " tasks"
}

// countBatchCost splits tasks as RunBatch will (llm.Judge.BatchSplit on the
// run's recorded batches) and counts each part; the requests already in a
// running batch are not counted again (cost.Options.Paid).
func countBatchCost(ctx context.Context, j *llm.Judge, tasks []judge.Task, store llm.BatchStore, o cost.Options) (batchCost, error) {
	var bc batchCost
	split, err := j.BatchSplit(tasks, store)
	if err != nil {
		return bc, err
	}
	o.Paid = split.Paid
	bc.NBatch, bc.NOnline = len(split.ToBatch), len(split.Online)
	bc.Rest = len(tasks) - bc.NBatch - bc.NOnline
	if bc.NBatch > 0 {
		if bc.Batch, err = cost.Count(ctx, j, split.ToBatch, o); err != nil {
			return bc, err
		}
	}
	if bc.NOnline > 0 {
		if bc.Online, err = cost.Count(ctx, j, split.Online, o); err != nil {
			return bc, err
		}
	}
	return bc, nil
}

// noBatches is the BatchStore of a run that has none yet (a dry run on a
// session without the run, or without a session): every request is to
// send, and the cache says which are answered.
type noBatches struct{ cache llm.Cache }

func (noBatches) BatchChunks() ([]llm.BatchChunk, error)             { return nil, nil }
func (noBatches) PlanBatchChunks([]llm.BatchChunk, [][]string) error { return errReadOnly }
func (noBatches) BatchChunkOf([]string) (map[string]string, error)   { return nil, nil }
func (noBatches) BatchChunkKeys(string) ([]string, error)            { return nil, nil }
func (noBatches) UpdateBatchChunk(llm.BatchChunk) error              { return errReadOnly }
func (noBatches) ReleaseBatchChunk(string) error                     { return errReadOnly }
func (noBatches) SaveBatchAnswers(map[string]string) error           { return errReadOnly }
func (s noBatches) BatchAnswered(keys []string) (map[string]bool, error) {
	out := map[string]bool{}
	if s.cache == nil {
		return out, nil
	}
	for _, k := range keys {
		if _, ok := s.cache.Get(k); ok {
			out[k] = true
		}
	}
	return out, nil
}

// readOnlyBatches is a session's batches as a dry run reads them: it
// writes nothing.
type readOnlyBatches struct{ batchStore }

func (readOnlyBatches) PlanBatchChunks([]llm.BatchChunk, [][]string) error { return errReadOnly }
func (readOnlyBatches) UpdateBatchChunk(llm.BatchChunk) error              { return errReadOnly }
func (readOnlyBatches) ReleaseBatchChunk(string) error                     { return errReadOnly }
func (readOnlyBatches) SaveBatchAnswers(map[string]string) error           { return errReadOnly }

type readOnlyError struct{}

func (readOnlyError) Error() string { return "a dry run writes nothing" }

var errReadOnly error = readOnlyError{}

// emptyCache is the response cache of a session not made yet.
type emptyCache struct{}

func (emptyCache) Get(string) (string, bool) { return "", false }
func (emptyCache) Put(string, string)        {}
