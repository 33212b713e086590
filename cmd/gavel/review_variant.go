package main

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/cost"
	"github.com/gavel-dev/gavel/judge/llm"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats"
	"github.com/gavel-dev/gavel/tui"
)

// variants makes the variants of a judge the review screen asks for (E:
// its judge file edited) and compares them with the judge they were made
// from (tui.Options.Variant and Compare). Both run off the screen's
// goroutine, so they may wait for a session still being written.
type variants struct {
	ctx context.Context
	// open returns the session (waiting for one written in the
	// background).
	open    func() (*sessions.Review, error)
	cfg     llm.Config
	running *judgings
	// prices are the config's, for the cost the confirmation tells
	// (none: told without a price).
	prices cost.Prices
	// ownLabels, when set, is the only annotator whose labels the
	// comparison counts (a blind queue: review_blind.go).
	ownLabels string

	mu     sync.Mutex
	client *llm.Client // the judges' shared client; made at first use when none
}

// options sets the screen's Variant and Compare.
func (vs *variants) options(o *tui.Options) {
	o.Variant = vs.variant
	o.Compare = vs.compare
	if hidesOthers(o) {
		vs.ownLabels = o.Annotator
	}
}

// clientFor returns the client variants call: the one the judges share
// (its answers cached in the session, its pace and health shared), or,
// when no LLM judge was named, one made from the flags.
func (vs *variants) clientFor(rv *sessions.Review) (*llm.Client, error) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if vs.client != nil {
		return vs.client, nil
	}
	cfg := vs.cfg
	cfg.Cache = rv.Store.ResponseCache()
	c, err := llm.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	vs.client = c
	return c, nil
}

// variant builds the edited judge file as a judge (an error of the file is
// a tui.JudgeFileError), gives it its few-shot examples from the
// calibration part of the split when its templates take {examples}, and
// names it as the session will once it is recorded.
func (vs *variants) variant(req tui.VariantRequest) (tui.Variant, error) {
	rv, err := vs.open()
	if err != nil {
		return tui.Variant{}, err
	}
	cl, err := vs.clientFor(rv)
	if err != nil {
		return tui.Variant{}, err
	}
	lj, err := llm.NewVariant(req.Definition, req.Base.Name+" (edited)", cl)
	if err != nil {
		return tui.Variant{}, &tui.JudgeFileError{Err: err}
	}
	var j judge.Judge = lj
	examples := 0
	if k := lj.NeedsExamples(); k > 0 {
		ex, err := fewShot(rv.Store, lj)
		if err != nil {
			return tui.Variant{}, err
		}
		j = lj.WithExamples(ex)
		examples = min(len(ex), k)
	}
	info := j.Info()
	runs, err := rv.Store.Runs()
	if err != nil {
		return tui.Variant{}, err
	}
	base, err := findRun(runs, req.Base)
	if err != nil {
		return tui.Variant{}, err
	}
	name, err := variantName(runs, info)
	if err != nil {
		return tui.Variant{}, err
	}
	var tasks []judge.Task
	for _, it := range req.Items {
		// The screen's items may hold their row in the session's stored
		// form (a reopened review, a new dataset's stream), whose own
		// columns are elided: a {fields.X} in the edited template must
		// read the row whole. Only the labelled items are judged here.
		tasks = append(tasks, judge.Tasks(info, sessions.WholeFields(it))...)
	}
	v := tui.Variant{
		Name:     name,
		BaseName: sessions.Variants(runs)[base.ID],
		Info:     info,
		Tasks:    len(tasks),
		Examples: examples,
	}
	v.Start = func() (tui.VariantRun, error) { return vs.start(rv, base, j, tasks) }
	if info.Model != "" {
		v.Cost = func(ctx context.Context) (string, error) {
			// The variant's run asks through the session's cache, as
			// Start does: what it answers costs nothing.
			est, err := cost.Count(ctx, j, tasks, cost.Options{Cache: rv.Store.ResponseCache(), Concurrency: runtime.NumCPU(), SampleTasks: screenCostSample})
			if err != nil {
				return "", err
			}
			return cost.Render{Prices: vs.prices}.Short(est), nil
		}
	}
	return v, nil
}

// start records the variant and judges its tasks in the background, its
// answers cached in the session as any judge's.
func (vs *variants) start(rv *sessions.Review, base sessions.Run, j judge.Judge, tasks []judge.Task) (tui.VariantRun, error) {
	before, err := rv.Store.Runs()
	if err != nil {
		return tui.VariantRun{}, err
	}
	run, err := rv.Store.EnsureRun(j.Info())
	if err != nil {
		return tui.VariantRun{}, err
	}
	after, err := rv.Store.Runs()
	if err != nil {
		return tui.VariantRun{}, err
	}
	// Another run of the same label renames the runs that share it
	// ("docqa · gpt-4o" becomes "docqa@1 · gpt-4o"): the screen follows.
	was, now := sessions.RunNames(before), sessions.RunNames(after)
	renamed := map[string]string{}
	for id, old := range was {
		if n, ok := now[id]; ok && n != old {
			renamed[old] = n
		}
	}
	vs.mu.Lock()
	cl := vs.client
	vs.mu.Unlock()
	r := tui.Run{Info: run.Info, Key: now[run.ID], Pending: len(tasks)}
	if len(tasks) > 0 {
		fctx, release := untilFatal(vs.ctx)
		jg := sessions.StartJudging(fctx, rv.Store, run, j, tasks, poolOptions(j, vs.cfg))
		release(jg)
		r.Judging = vs.running.add(jg)
	}
	r.Rejudge = func(tasks []judge.Task) (*sessions.Judging, error) {
		if cl != nil && cl.Fatal() != nil {
			return nil, fmt.Errorf("%v (quit, and start Gavel again with corrected flags)", cl.Fatal())
		}
		if cl != nil && cl.Health().GaveUp {
			cl.ResetHealth()
		}
		fctx, release := untilFatal(llm.Fresh(vs.ctx))
		jg := sessions.StartJudging(fctx, rv.Store, run, j, tasks, poolOptions(j, vs.cfg))
		release(jg)
		return vs.running.add(jg), nil
	}
	if cl != nil {
		r.Stopped = cl.Fatal
	}
	names := sessions.Variants(after)
	return tui.VariantRun{Run: r, BaseID: base.ID, ID: run.ID, Name: names[run.ID], BaseName: names[base.ID], Renamed: renamed}, nil
}

// findRun returns the session's run of a judge.
func findRun(runs []sessions.Run, info judge.Info) (sessions.Run, error) {
	key, err := sessions.RunKey(info)
	if err != nil {
		return sessions.Run{}, err
	}
	for _, r := range runs {
		if r.Key == key {
			return r, nil
		}
	}
	return sessions.Run{}, fmt.Errorf("the judge %s is not in the session (%w)", info.Name, sessions.ErrNoRun)
}

// variantName is the NAME@K a judge has, or will have once recorded
// (sessions.Variants numbers the runs of a name in the order of their
// ids: a new run comes last).
func variantName(runs []sessions.Run, info judge.Info) (string, error) {
	key, err := sessions.RunKey(info)
	if err != nil {
		return "", err
	}
	var next int64
	for _, r := range runs {
		if r.Key == key {
			return sessions.Variants(runs)[r.ID], nil
		}
		next = max(next, r.ID+1)
	}
	with := append(append([]sessions.Run(nil), runs...), sessions.Run{ID: next, Info: info, Key: key})
	return sessions.Variants(with)[next], nil
}

// compare compares two runs of the session as gavel compare does without
// flags: on the evaluation part of the split when there is one, else on
// every labelled item, and says which.
func (vs *variants) compare(a, b int64) (tui.Compared, error) {
	rv, err := vs.open()
	if err != nil {
		return tui.Compared{}, err
	}
	s := rv.Store
	in, err := s.StatsInput()
	if err != nil {
		return tui.Compared{}, err
	}
	in, used, err := selectSplit(s, in, "")
	if err != nil {
		return tui.Compared{}, err
	}
	if vs.ownLabels != "" {
		ownLabelsOnly(in.Units, vs.ownLabels)
	}
	runs, err := s.Runs()
	if err != nil {
		return tui.Compared{}, err
	}
	names := sessions.RunNames(runs)
	ka, kb := names[a], names[b]
	if ka == "" || kb == "" {
		return tui.Compared{}, fmt.Errorf("judge run %d or %d is not in the session: %w", a, b, sessions.ErrNoRun)
	}
	cmp, err := stats.Compare(in, ka, kb, "", stats.Options{Seed: statsSeed})
	if err != nil {
		return tui.Compared{}, err
	}
	items := splitLine(used)
	if items == "" {
		items = fmt.Sprintf("On every labelled item: the session has no calibration / evaluation split (gavel split %s records one; few-shot examples need it).", s.Path())
	}
	part := ""
	if used.Seed != nil {
		part = used.Part
	}
	return tui.Compared{Figures: cmp, Items: items, Part: part}, nil
}

// setRunIDs gives the screen's runs their ids in the session (found by
// their keys, sessions.RunNames), so that the comparison screen can offer
// the session's variants of a judge.
func setRunIDs(s *sessions.Store, runs []tui.Run) error {
	all, err := s.Runs()
	if err != nil {
		return err
	}
	byKey := map[string]int64{}
	for id, k := range sessions.RunNames(all) {
		byKey[k] = id
	}
	for i := range runs {
		runs[i].ID = byKey[runs[i].Key]
	}
	return nil
}
