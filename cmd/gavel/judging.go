package main

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/catalog"
	"github.com/gavel-dev/gavel/judge/llm"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/tui"
)

// judgeSet is the judges a command was asked to run, resolved in the
// catalog before any file is touched, so that a wrong name or a missing
// --model fails fast.
type judgeSet struct {
	cat     *catalog.Catalog
	entries []catalog.Entry
	cfg     llm.Config
}

func resolveJudges(names []string, cfg llm.Config) (judgeSet, error) {
	js := judgeSet{cat: catalog.New(), cfg: cfg}
	seen := map[string]bool{}
	for _, n := range names {
		e, err := js.cat.Find(n)
		if err != nil {
			return js, usageError{err}
		}
		// Key, not Name: a variant file of a built-in (output.parser:
		// docqa, name: docqa) is another judge than the built-in.
		if seen[e.Key] {
			continue
		}
		seen[e.Key] = true
		if e.NeedsModel && strings.TrimSpace(cfg.Model) == "" {
			return js, usagef("%s calls a model: name it with --model (and the server with --base-url, or OPENAI_BASE_URL, unless it is OpenAI)", e.Name)
		}
		js.entries = append(js.entries, e)
	}
	return js, nil
}

// entry returns the named judge's entry (zero when it is not in the set).
func (js judgeSet) entry(name string) catalog.Entry {
	for _, e := range js.entries {
		if e.Name == name {
			return e
		}
	}
	return catalog.Entry{}
}

// needsModel reports whether any judge calls a model.
func (js judgeSet) needsModel() bool {
	for _, e := range js.entries {
		if e.NeedsModel {
			return true
		}
	}
	return false
}

// build makes the judges. LLM judges share one client whose answers are
// cached in the session, so reopening or re-running costs nothing.
func (js judgeSet) build(cache llm.Cache) ([]judge.Judge, *llm.Client, error) {
	var client *llm.Client
	if js.needsModel() {
		cfg := js.cfg
		cfg.Cache = cache
		c, err := llm.NewClient(cfg)
		if err != nil {
			return nil, nil, usageError{err}
		}
		client = c
	}
	var out []judge.Judge
	for _, e := range js.entries {
		j, err := js.cat.Build(e.Key, js.cfg, client)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, j)
	}
	return out, client, nil
}

// withFewShot gives each judge whose templates use {examples} its
// few-shot examples from the session (fewShot); the others are returned as
// they are.
func withFewShot(s *sessions.Store, judges []judge.Judge) ([]judge.Judge, error) {
	out := make([]judge.Judge, len(judges))
	for i, j := range judges {
		out[i] = j
		lj, ok := j.(*llm.Judge)
		if !ok || lj.NeedsExamples() == 0 {
			continue
		}
		ex, err := fewShot(s, lj)
		if err != nil {
			return nil, err
		}
		out[i] = lj.WithExamples(ex)
	}
	return out, nil
}

// fewShot reads the examples a judge's {examples} takes:
// sessions.Store.FewShot reads only the calibration part of the split, so
// no item the judge is scored on is ever shown to it as an example. No
// split, or no labelled calibration item, is an error that says what to
// do. Every place that gives a judge its examples (gavel run and review,
// the review screen's variants, gavel tune) goes through here.
func fewShot(s *sessions.Store, lj *llm.Judge) ([]judge.Example, error) {
	info := lj.Info()
	ex, err := s.FewShot(info.Dimensions, lj.NeedsExamples())
	if err != nil {
		return nil, fmt.Errorf("%s takes few-shot examples ({examples}): %w", info.Name, err)
	}
	if len(ex) == 0 {
		return nil, fmt.Errorf("%s takes few-shot examples ({examples}), and no item of the calibration part of %s's split has a label on every dimension it rates: label some (gavel review %s; examples come from the calibration part less its validation third, about a third of the items with the default split), then try again", info.Name, s.Path(), s.Path())
	}
	return ex, nil
}

// needsFewShot names the first judge that takes few-shot examples, "" when none does.
func needsFewShot(judges []judge.Judge) string {
	for _, j := range judges {
		if lj, ok := j.(*llm.Judge); ok && lj.NeedsExamples() > 0 {
			return lj.Info().Name
		}
	}
	return ""
}

// poolOptions is how many tasks a judge works on at once: LLM judges as
// many as --concurrency allows (the client paces --rpm itself), the
// offline judge one per core.
func poolOptions(j judge.Judge, cfg llm.Config) judge.PoolOptions {
	if j.Info().Model == "" {
		return judge.PoolOptions{Concurrency: runtime.NumCPU()}
	}
	return cfg.PoolOptions()
}

// startRun starts a judge over what it has left to do in the session.
// Its context stops the whole run at the first fatal server error (a
// refused key, an unknown model); the tasks it did not reach stay to do.
func startRun(ctx context.Context, rv *sessions.Review, j judge.Judge, cfg llm.Config) (sessions.RunState, error) {
	fctx, release := untilFatal(ctx)
	st, err := rv.StartRun(fctx, j, poolOptions(j, cfg))
	release(st.Judging)
	return st, err
}

// untilFatal returns a context that the first fatal server error cancels,
// with the *llm.FatalError as its cause, so that the run started with it
// stops at once and its last batch says why (sessions.Batch.Stopped).
// Call release with that run (nil if none started) to free the context
// once the run is over.
func untilFatal(ctx context.Context) (fctx context.Context, release func(*sessions.Judging)) {
	fctx, cancel := llm.StopOnFatal(ctx)
	return fctx, func(jg *sessions.Judging) {
		if jg == nil {
			cancel()
			return
		}
		go func() {
			<-jg.Done()
			cancel()
		}()
	}
}

// judgings are the judge runs a command started, so that all can be
// stopped (and what they received saved) before the session closes. A run
// that starts after stop (its screen already closed) is stopped at once.
type judgings struct {
	mu      sync.Mutex
	list    []*sessions.Judging
	stopped bool
}

func (js *judgings) add(j *sessions.Judging) *sessions.Judging {
	if j == nil {
		return nil
	}
	js.mu.Lock()
	late := js.stopped
	if !late {
		js.list = append(js.list, j)
	}
	js.mu.Unlock()
	if late {
		j.Stop()
	}
	return j
}

// stop cancels every run and waits until what each received is committed.
func (js *judgings) stop() {
	js.mu.Lock()
	list := js.list
	js.list, js.stopped = nil, true
	js.mu.Unlock()
	for _, j := range list {
		j.Stop()
	}
}

// screenRuns is every run the review screen shows: the judges named on the
// command line, judging in the background (in both orders with rv.Swap)
// and ready to re-judge, then the session's other runs, read-only; each
// with its swapped-order verdicts when it has any. Their verdicts are read after the
// first frame (tui.Run.Load), so that a large session opens at once.
func screenRuns(ctx context.Context, rv *sessions.Review, judges []judge.Judge, client *llm.Client, cfg llm.Config, running *judgings) ([]tui.Run, error) {
	var runs []tui.Run
	var ids []int64
	started := map[int64]bool{}
	for _, j := range judges {
		run, err := rv.Store.EnsureRun(j.Info())
		if err != nil {
			return nil, err
		}
		started[run.ID] = true
		ids = append(ids, run.ID)
		r := tui.Run{Info: run.Info, ID: run.ID}
		r.LoadEach = func(put func([]judge.Verdict, bool)) (tui.Loaded, error) {
			fctx, release := untilFatal(ctx)
			st, err := rv.ResumeRunEach(fctx, run, j, poolOptions(j, cfg), putting(put))
			release(st.Judging)
			return tui.Loaded{Judging: running.add(st.Judging), Pending: st.Pending}, err
		}
		r.Rejudge = func(tasks []judge.Task) (*sessions.Judging, error) {
			if client != nil && client.Fatal() != nil {
				return nil, fmt.Errorf("%v (quit, and start Gavel again with corrected flags)", client.Fatal())
			}
			if client != nil && client.Health().GaveUp {
				// Asked again: try the server again.
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
	all, err := rv.Store.Runs()
	if err != nil {
		return nil, err
	}
	names := sessions.RunNames(all)
	for i, id := range ids {
		runs[i].Key = names[id]
	}
	for _, r := range all {
		if started[r.ID] {
			continue
		}
		runs = append(runs, sessionRun(ctx, rv, r, names[r.ID]))
	}
	return runs, nil
}

// sessionRun is a run of the session that no judge named here runs (an
// imported one, another judge's): read-only, its verdicts read after the
// first frame.
func sessionRun(ctx context.Context, rv *sessions.Review, run sessions.Run, key string) tui.Run {
	return tui.Run{Info: run.Info, Key: key, ID: run.ID, LoadEach: func(put func([]judge.Verdict, bool)) (tui.Loaded, error) {
		_, err := rv.ResumeRunEach(ctx, run, nil, judge.PoolOptions{}, putting(put))
		return tui.Loaded{}, err
	}}
}

// putting is a tui.Run.LoadEach's put as sessions.Review.ResumeRunEach
// takes it.
func putting(put func([]judge.Verdict, bool)) func([]judge.Verdict, bool) error {
	return func(vs []judge.Verdict, swapped bool) error {
		put(vs, swapped)
		return nil
	}
}
