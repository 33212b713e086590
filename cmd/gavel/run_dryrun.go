package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"syscall"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/cost"
	"github.com/gavel-dev/gavel/judge/llm"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/dataset"
	"github.com/gavel-dev/gavel/sessions/safetext"
)

// dryRunNote says, on stderr, that counting a large run's prompts takes a
// while (each is tokenised).
const dryRunNote = 20_000

// syncedItems are the items a session holds once SyncDataset has taken a
// changed file in: the file's, then the held items the file no longer
// has. A file that shares no id with the session is another dataset,
// which the run refuses.
func syncedItems(file, held []judge.Item) ([]judge.Item, error) {
	in := make(map[string]bool, len(file))
	for _, it := range file {
		in[it.ID] = true
	}
	out := slices.Clip(file)
	shared := false
	for _, it := range held {
		if in[it.ID] {
			shared = true
			continue
		}
		out = append(out, it)
	}
	if !shared && len(held) > 0 && len(file) > 0 {
		return nil, errors.New("the dataset file shares no item id with the session: it is another dataset, which gavel run refuses (give --session a new file)")
	}
	return out, nil
}

// dryRun tells what `gavel run` would send and cost, sending nothing and
// writing nothing: an existing session is opened read-only (its response
// cache and verdicts say what is left and what costs nothing), a missing
// one is not made. The tasks are the ones the run would queue
// (sessions.TasksToDo), counted by judge/cost on a client that sends
// nothing.
func dryRun(ctx context.Context, e env, ds *dataset.Dataset, js judgeSet, o runFlags) error {
	prices, err := configPrices(e)
	if err != nil {
		return err
	}
	ds = sessions.RestoreExported(ds)
	items := ds.Items
	if ds.FieldsStored {
		items = make([]judge.Item, len(ds.Items))
		for i, it := range ds.Items {
			items[i] = sessions.WholeFields(it)
		}
	}
	var (
		store *sessions.Store
		cache llm.Cache
		runs  map[string]sessions.Run
		notes []string
	)
	switch _, err := os.Stat(o.session); {
	case errors.Is(err, fs.ErrNotExist):
		notes = append(notes, fmt.Sprintf("%s does not exist yet: every item is to do and no answer is cached.", safetext.SanitizeLine(o.where())))
	case err != nil:
		return err
	default:
		if store, err = sessions.Open(o.session, sessions.Options{ReadOnly: true}); err != nil {
			return err
		}
		defer store.Close()
		info, ok, err := store.Dataset()
		if err != nil {
			return err
		}
		switch {
		case ok && info.SHA256 != ds.SHA256:
			// The run first takes the file's changes in (SyncDataset):
			// the file's items, new text included, then the items the
			// file no longer has, which the session keeps.
			held, err := store.Items()
			if err != nil {
				return err
			}
			if items, err = syncedItems(items, held); err != nil {
				return fmt.Errorf("%s: %w", safetext.SanitizeLine(o.where()), err)
			}
			notes = append(notes, fmt.Sprintf("The dataset file changed since %s was made: counted on the items the run will hold once it takes the change in (%s).", safetext.SanitizeLine(o.where()), count(len(items), "item")))
		case ok && !(info.Items == len(ds.Items) && maps.Equal(info.Mapping, ds.Mapping)):
			// The session keeps its own items (another mapping, or
			// items kept from an earlier file), as OpenReview does.
			if items, err = store.Items(); err != nil {
				return err
			}
		}
		cache = store.ResponseCache()
		all, err := store.Runs()
		if err != nil {
			return err
		}
		runs = map[string]sessions.Run{}
		for _, r := range all {
			runs[r.Key] = r
		}
	}
	if cache == nil {
		// The run makes the session, and its cache: a prompt repeated
		// across items is sent once, so counted once.
		cache = emptyCache{}
	}
	judges, _, err := js.build(cache)
	if err != nil {
		return err
	}
	if store != nil {
		if judges, err = withFewShot(store, judges); err != nil {
			return err
		}
	} else if name := needsFewShot(judges); name != "" {
		return fmt.Errorf("%s takes few-shot examples ({examples}) from the session's labelled items, and %s does not exist yet: make it and label some (gavel review), then count again", safetext.SanitizeLine(name), safetext.SanitizeLine(o.where()))
	}

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	r := cost.Render{Prices: prices, Batch: o.batch}
	w := e.stdout
	fmt.Fprintf(w, "Dry run: nothing is sent to any server and %s is not written.\n", safetext.SanitizeLine(o.where()))
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	var sum, sumBatch, sumOnline []cost.Estimate
	for _, j := range judges {
		info := j.Info()
		var vs []judge.Verdict
		var batches llm.BatchStore = noBatches{cache}
		if store != nil {
			// No run yet: its requests may still be in another run's
			// batches (the same prompts), which the session knows.
			batches = readOnlyBatches{batchStore{store.APIBatches(0)}}
		}
		if key, err := sessions.RunKey(info); err == nil && store != nil {
			if run, ok := runs[key]; ok {
				batches = readOnlyBatches{batchStore{store.APIBatches(run.ID)}}
				if vs, err = store.ReviewVerdicts(run.ID); err != nil {
					return err
				}
				if info.Prefers() {
					sw, err := store.ReviewSwappedVerdicts(run.ID)
					if err != nil {
						return err
					}
					vs = append(vs, sw...)
				}
			}
		}
		tasks := sessions.TasksToDo(info, items, vs, o.swap)
		if len(tasks) >= dryRunNote && info.Model != "" {
			fmt.Fprintf(e.stderr, "Counting the prompt tokens of %s…\n", taskCount(len(tasks)))
		}
		name := info.Name
		if info.Model != "" {
			name += " · " + info.Model
		}
		if lj, ok := j.(*llm.Judge); ok && o.batch && info.Model != "" {
			// As gavel run --batch: the requests of new batches at batch
			// prices, those a batch that ended left at ordinary prices,
			// nothing for those in batches still running.
			bc, err := countBatchCost(ctx, lj, tasks, batches, cost.Options{Cache: cache, Concurrency: runtime.NumCPU()})
			if err != nil {
				if ctx.Err() != nil {
					return errors.New("interrupted while counting: nothing was sent")
				}
				return err
			}
			if bc.NBatch > 0 {
				sumBatch = append(sumBatch, bc.Batch)
			}
			if bc.NOnline > 0 {
				sumOnline = append(sumOnline, bc.Online)
			}
			fmt.Fprintf(w, "\n%s\n", safetext.SanitizeLine(name))
			for _, l := range bc.dryRunLines(prices) {
				fmt.Fprintln(w, "  "+safetext.SanitizeLine(l))
			}
			continue
		}
		est, err := cost.Count(ctx, j, tasks, cost.Options{Cache: cache, Concurrency: runtime.NumCPU()})
		if err != nil {
			if ctx.Err() != nil {
				return errors.New("interrupted while counting: nothing was sent")
			}
			return err
		}
		sum = append(sum, est)
		fmt.Fprintf(w, "\n%s\n", safetext.SanitizeLine(name))
		for _, l := range r.Lines(est) {
			fmt.Fprintln(w, "  "+safetext.SanitizeLine(l))
		}
	}
	if !o.batch && len(sum) > 1 {
		fmt.Fprintf(w, "\nAll judges: %s\n", safetext.SanitizeLine(r.Short(cost.Sum(sum))))
	}
	if o.batch && len(sum)+len(sumBatch)+len(sumOnline) > 1 {
		// Offline judges (sum) cost nothing: the two priced parts.
		if len(sumBatch) > 0 {
			fmt.Fprintf(w, "\nAll judges, in new batches: %s\n", safetext.SanitizeLine(cost.Render{Prices: prices, Batch: true}.Short(cost.Sum(sumBatch))))
		}
		if len(sumOnline) > 0 {
			fmt.Fprintf(w, "All judges, as ordinary requests: %s\n", safetext.SanitizeLine(cost.Render{Prices: prices}.Short(cost.Sum(sumOnline))))
		}
	}
	return nil
}
