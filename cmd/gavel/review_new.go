package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/llm"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/dataset"
	"github.com/gavel-dev/gavel/sessions/stats"
	"github.com/gavel-dev/gavel/tui"
)

// sessionBuild is a new session being written in the background while the
// screen shows the items from memory (sessions.BuildSession, then opened
// as any session). Everything that writes — labels, judging, the response
// cache — waits for it.
type sessionBuild struct {
	done chan struct{}
	rv   *sessions.Review
	err  error
	ds   *dataset.Dataset // read whole
	// late, set before the screen starts, says what the screen is
	// told with the store (newDataset.late).
	late func(ds *dataset.Dataset) []string
	// labelling is stored in the session once it is written: the tags
	// and the guidelines the screen opened with.
	labelling *pendingLabelling
	// carrying: the dataset's verdict and label columns are imported
	// as the session is written (startCarryingBuild), and arrivals is
	// what that brought the screen.
	carrying bool
	arrivals tui.Arrivals
}

// backgroundBuildFrom is the size from which a new dataset's session is
// written behind the screen: a smaller one is written in well under a
// second before it, so that whatever starts with the screen (another
// process included) finds the session there.
const backgroundBuildFrom = 20_000

// buildsInBackground reports whether a review of ds can show the screen
// before its session is written: a large dataset whose session does not
// exist yet, and nothing needs the session before the first frame — no
// verdict or label carried by the file to import, not an export to
// restore, and not a dataset of pairs reviewed with the default judge
// (which asks the session's runs).
func buildsInBackground(session string, ds *dataset.Dataset, o reviewFlags) bool {
	if len(ds.Items) < backgroundBuildFrom {
		return false
	}
	if _, err := os.Stat(session); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	return len(ds.Imported) == 0 && sessions.RestoreExported(ds) == ds && !(o.defaultJudge && allPairs(ds.Items))
}

// newDataset is a new dataset as the review screen takes it: the first
// page of items at once, the rest in pages, and the whole once read.
type newDataset struct {
	// head names the dataset, its mapping and the warnings known when
	// the screen opens (dataset.Stream.Head, or the loaded dataset).
	head  *dataset.Dataset
	first []judge.Item
	more  func() ([]judge.Item, bool, error)
	count int // the items, or at most that many while they are read
	// whole waits for every item and returns the dataset, or what is
	// wrong with it (a bad row further on, a duplicate id).
	whole func() (*dataset.Dataset, error)
	// late says what only the whole dataset can tell (the warnings the
	// end of the file gave, the judges' notes on its items); nil when
	// head already says it all.
	late func(ds *dataset.Dataset) []string
	// carrying is the stream of a dataset that carries verdict or label
	// columns to import (startCarryingBuild); nil for the others.
	carrying *dataset.Stream
}

// loadedDataset is a new dataset already read whole.
func loadedDataset(ds *dataset.Dataset) newDataset {
	return newDataset{
		head:  ds,
		first: ds.Items[:min(firstPage, len(ds.Items))],
		more:  pagesOf(ds.Items),
		count: len(ds.Items),
		whole: func() (*dataset.Dataset, error) { return ds, nil },
	}
}

// datasetError is a dataset found bad once its screen was open: no
// session is written from it.
type datasetError struct{ err error }

func (e datasetError) Error() string { return e.err.Error() }
func (e datasetError) Unwrap() error { return e.err }

// startBuild writes the session of the dataset at path in the
// background, once it is read whole.
func startBuild(path, annotator string, nd newDataset) *sessionBuild {
	b := &sessionBuild{done: make(chan struct{})}
	go func() {
		defer close(b.done)
		ds, err := nd.whole()
		if err != nil {
			b.err = datasetError{err}
			return
		}
		b.ds = ds
		info := sessions.DatasetInfo{Path: datasetName(ds), SHA256: ds.SHA256, Format: ds.Format, Mapping: ds.Mapping, Items: len(ds.Items)}
		if b.err = sessions.BuildSession(path, info, ds.Items); b.err != nil {
			return
		}
		// The same items as ds: OpenReview keeps ds's and records the
		// file's size and time beside the hash.
		b.rv, b.err = sessions.OpenReview(path, annotator, ds)
	}()
	return b
}

// wait returns the written session.
func (b *sessionBuild) wait() (*sessions.Review, error) {
	<-b.done
	return b.rv, b.err
}

// written reports whether the write has ended (well or not).
func (b *sessionBuild) written() bool {
	select {
	case <-b.done:
		return true
	default:
		return false
	}
}

// recorder is tui.Options.StoreReady: the session's store, with the
// guidelines and tags the screen opened with stored, its decisions
// stamped with that guidelines version, and the notices found once the
// dataset was read whole (tui.LateNotices).
func (b *sessionBuild) recorder() (tui.Recorder, error) {
	rv, err := b.wait()
	if err != nil {
		return nil, err
	}
	st := stampingStore{Store: rv.Store}
	if st.guidelines, err = b.labelling.ready(rv.Store); err != nil {
		return nil, err
	}
	if b.late != nil {
		st.notices = b.late(b.ds)
	}
	st.notices = append(st.notices, rv.Notices...) // what was imported
	if b.carrying {
		return arrivingStore{st, b.arrivals}, nil
	}
	return st, nil
}

// lateCache is the session's response cache once it is written: an LLM
// judge's call made before then (none is: judging waits for the session)
// would miss the cache and put nothing.
type lateCache struct{ b *sessionBuild }

func (c lateCache) cache() llm.Cache {
	if !c.b.written() || c.b.err != nil {
		return nil
	}
	return c.b.rv.Store.ResponseCache()
}

func (c lateCache) Get(key string) (string, bool) {
	if k := c.cache(); k != nil {
		return k.Get(key)
	}
	return "", false
}

func (c lateCache) Put(key, response string) {
	if k := c.cache(); k != nil {
		k.Put(key, response)
	}
}

// reviewNew runs the review screen on a new dataset at once, from the
// items in memory (the first page, the others as they are read), while
// its session is written in the background once every item is read; the
// judges start once it is written. Quitting before then waits for the
// write, so that the session is whole and every label made is in it. A
// dataset found bad after the screen opened writes no session: the
// screen says so, and the command ends with the dataset's error.
func reviewNew(ctx context.Context, e env, nd newDataset, o reviewFlags, js judgeSet, cfg llm.Config) error {
	var b *sessionBuild
	if nd.carrying != nil {
		b = startCarryingBuild(ctx, o.session, o.annotator, nd.carrying)
	} else {
		b = startBuild(o.session, o.annotator, nd)
	}
	defer func() {
		if rv, err := b.wait(); err == nil {
			rv.Store.Close()
		}
	}()
	judges, client, err := js.build(lateCache{b})
	if err != nil {
		return err
	}
	if name := needsFewShot(judges); name != "" {
		return usagef("%s takes few-shot examples ({examples}) from the labelled calibration items of a session, and %s has no session yet: review it with another judge first, label some items, record a split (gavel split %s), then run %s", name, nd.head.Name, o.session, name)
	}
	ds := nd.head
	notices := datasetNotices(ds)
	if nd.carrying != nil {
		if n := carriedNotice(ds); n != "" {
			notices = append(notices, n)
		}
	}
	if nd.late == nil {
		notices = append(notices, swapNotes(o.swap, judges, ds.Items, ds.Name)...)
	} else {
		b.late = func(all *dataset.Dataset) []string {
			return append(nd.late(all), swapNotes(o.swap, judges, all.Items, all.Name)...)
		}
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var running judgings
	defer running.stop()
	var health func() string
	if client != nil {
		health = func() string { return client.Health().String() }
	}
	more := func() ([]judge.Item, bool, error) {
		items, done, err := nd.more()
		if err != nil {
			// The dataset is bad further on: the build ends with the
			// error, which the screen tells (StoreReady). The items
			// stay as they are until the screen closes.
			<-ctx.Done()
			return nil, false, ctx.Err()
		}
		return items, done, nil
	}
	opts := tui.Options{
		Annotator:    o.annotator,
		Dataset:      filepath.Base(ds.Name),
		Items:        nd.first,
		MoreItems:    more,
		ItemCount:    nd.count,
		Runs:         withRejudgeCost(e, newRuns(ctx, b, judges, client, cfg, o.swap, &running), judges),
		Notices:      notices,
		About:        fmt.Sprintf("%s · mapped %s · session %s", filepath.Base(ds.Name), dataset.FormatMap(ds.Mapping), o.session),
		Stats:        func() (stats.Report, error) { return lateStats(b) },
		Report:       func() (string, error) { return lateReport(b) },
		ServerHealth: health,
		Blind:        o.blind,
		Swap:         o.swap,
		StoreReady:   b.recorder,
		Checks:       []func() (string, error){serverCheck(ctx, client)},
	}
	if b.labelling, err = o.label.pendingOptions(&opts); err != nil {
		return err
	}
	vs := &variants{ctx: ctx, open: b.wait, cfg: cfg, running: &running, client: client}
	vs.prices, _ = configPrices(e) // read once already: a bad file has stopped the command before
	vs.options(&opts)
	final, err := e.runTUI(ctx, tui.New(opts))
	cancel()
	running.stop()
	if !b.written() {
		fmt.Fprintf(e.stderr, "Writing the session %s…\n", o.session)
	}
	if _, berr := b.wait(); berr != nil {
		var bad datasetError
		if errors.As(berr, &bad) {
			return fmt.Errorf("%w; no session was written to %s, nothing was saved", bad.err, o.session)
		}
		return fmt.Errorf("the session %s could not be written (%w): nothing was saved", o.session, berr)
	}
	saveLeft(e, b, final)
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("the review screen could not run (%w): it needs a terminal; `gavel run` judges without one, and your session is in %s", err, o.session)
	}
	return finalReport(e, final, o.session)
}

// saveLeft saves, into the written session, the decisions made while it
// was being written when the screen closed before it was (SIGTERM,
// SIGHUP: a quit waits for the session itself).
func saveLeft(e env, b *sessionBuild, final tea.Model) {
	fm, ok := final.(*tui.Model)
	if !ok {
		return
	}
	// An error leaves the decisions unsaved: finalReport says so.
	if n, _ := fm.SaveLeft(b.recorder); n > 0 {
		fmt.Fprintf(e.stderr, "Saved %s made while the session was being written.\n", count(n, "decision"))
	}
}

// newRuns are the judges' runs for a session being written: each reads its
// verdicts and starts judging once the session is there (tui.Run.Load runs
// off the screen's goroutine, so it may wait); a re-judge asked before
// then is refused.
func newRuns(ctx context.Context, b *sessionBuild, judges []judge.Judge, client *llm.Client, cfg llm.Config, swap bool, running *judgings) []tui.Run {
	var infos []sessions.Run
	for i, j := range judges {
		infos = append(infos, sessions.Run{ID: int64(i + 1), Info: j.Info()})
	}
	names := sessions.RunNames(infos)
	var runs []tui.Run
	for i, j := range judges {
		ensure := func() (*sessions.Review, sessions.Run, error) {
			rv, err := b.wait()
			if err != nil {
				return nil, sessions.Run{}, err
			}
			rv.Swap = swap
			run, err := rv.Store.EnsureRun(j.Info())
			return rv, run, err
		}
		r := tui.Run{Info: j.Info(), Key: names[int64(i+1)]}
		r.LoadEach = func(put func([]judge.Verdict, bool)) (tui.Loaded, error) {
			rv, run, err := ensure()
			if err != nil {
				return tui.Loaded{}, err
			}
			fctx, release := untilFatal(ctx)
			st, err := rv.ResumeRunEach(fctx, run, j, poolOptions(j, cfg), putting(put))
			release(st.Judging)
			// The run's id is known only now, the session written.
			return tui.Loaded{ID: run.ID, Judging: running.add(st.Judging), Pending: st.Pending}, err
		}
		r.Rejudge = func(tasks []judge.Task) (*sessions.Judging, error) {
			if !b.written() {
				return nil, errors.New("the session is still being written: re-judge once it is")
			}
			rv, run, err := ensure()
			if err != nil {
				return nil, err
			}
			if client != nil && client.Fatal() != nil {
				return nil, fmt.Errorf("%v (quit, and start Gavel again with corrected flags)", client.Fatal())
			}
			if client != nil && client.Health().GaveUp {
				client.ResetHealth()
			}
			fctx, release := untilFatal(llm.Fresh(ctx))
			jg := sessions.StartJudging(fctx, rv.Store, run, j, tasks, poolOptions(j, cfg))
			release(jg)
			return running.add(jg), nil
		}
		if client != nil {
			r.Stopped = client.Fatal
		}
		runs = append(runs, r)
	}
	return runs
}

// pagesOf hands the screen items already in memory page by page after
// its first frame, as a reopened session's are read: taking in a million
// items at once (positions, review state) would delay the first frame by
// about a second.
func pagesOf(items []judge.Item) func() ([]judge.Item, bool, error) {
	n := min(firstPage, len(items))
	return func() ([]judge.Item, bool, error) {
		n = min(n+nextPage, len(items))
		return items[:n], n == len(items), nil
	}
}

// lateStats computes the statistics once the session is written.
// lateReport writes the report once the new session is written.
func lateReport(b *sessionBuild) (string, error) {
	rv, err := b.wait()
	if err != nil {
		return "", err
	}
	return reportOf(rv.Store)()
}

func lateStats(b *sessionBuild) (stats.Report, error) {
	rv, err := b.wait()
	if err != nil {
		return stats.Report{}, err
	}
	return statsOf(rv.Store)()
}
