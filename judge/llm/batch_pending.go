package llm

import "github.com/gavel-dev/gavel/judge"

// BatchSpend sorts tasks by what RunBatch will pay for them, before it
// runs, for the cost announced first: toBatch are the tasks with a
// request that no answer and no batch covers yet (they go in new batches,
// at the batch price); online those RunBatch sends as ordinary requests
// (a batch that ended before left them unanswered, or no batch can carry
// them). The rest cost nothing more: answered already, or in a batch
// still running, paid when it was sent.
func (j *Judge) BatchSpend(tasks []judge.Task, store BatchStore) (toBatch, online []judge.Task, err error) {
	s, err := j.BatchSplit(tasks, store)
	return s.ToBatch, s.Online, err
}

// BatchSplit is what BatchSpend tells, and the requests already paid for.
type BatchSplit struct {
	ToBatch, Online []judge.Task
	// Paid are the cache keys of requests in a batch still running
	// (paid when it was sent): a task of ToBatch may have some of its
	// samples there, and only its others go in a new batch. Count them
	// as answered (cost.Options.Paid).
	Paid []string
}

// BatchSplit sorts tasks as BatchSpend does and also returns the
// requests already paid for.
func (j *Judge) BatchSplit(tasks []judge.Task, store BatchStore) (BatchSplit, error) {
	var out BatchSplit
	plan, err := j.batchPlan(tasks)
	if err != nil {
		return out, err
	}
	chunks, err := store.BatchChunks()
	if err != nil {
		return out, err
	}
	ended, unsent := map[string]bool{}, map[string]bool{}
	for _, ch := range chunks {
		ended[ch.Key] = ch.Finished
		// Recorded by a run that stopped before its batch was made, or
		// before it saved the batch's id: counted as sent now (at worst
		// an over-count, when the batch was made).
		unsent[ch.Key] = !ch.Finished && ch.BatchID == ""
	}
	var all []string
	for _, keys := range plan.keys {
		all = append(all, keys...)
	}
	missing, err := uncached(store, all)
	if err != nil {
		return out, err
	}
	in, err := store.BatchChunkOf(missing)
	if err != nil {
		return out, err
	}
	open := make(map[string]bool, len(missing))
	for _, k := range missing {
		open[k] = true
	}
	for i, t := range plan.tasks {
		if plan.online[i] {
			out.Online = append(out.Online, t)
			continue
		}
		fresh, running, left := false, false, false
		for _, k := range plan.keys[i] {
			if !open[k] {
				continue
			}
			ch, ok := in[k]
			switch {
			case !ok || unsent[ch]:
				fresh = true
			case ended[ch]:
				left = true
			default:
				// In a chunk of this run still running, or another
				// run's (whose answer this one shares).
				running = true
				out.Paid = append(out.Paid, k)
			}
		}
		switch {
		case fresh:
			out.ToBatch = append(out.ToBatch, t)
		case left && !running:
			out.Online = append(out.Online, t)
		}
	}
	return out, nil
}
