package cost

import (
	"context"
	"fmt"
	"strings"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/llm"
)

// ModelCost is what the requests to one model cost.
type ModelCost struct {
	Model    string
	Requests int
	// PromptTokens are the prompts' tokens in Encoding; Exact says the
	// encoding is the model's own and every prompt was counted (else the
	// count is an estimate). Counted is how many prompts' texts were
	// tokenised: fewer than Requests when a large run is counted on a
	// sample (Options.Exact), the rest scaled by their length.
	PromptTokens int64
	Encoding     string
	Exact        bool
	Counted      int
	// MaxOutput is the sum of the requests' max tokens: an upper bound of
	// the output tokens when Unbounded is 0 (the model may stop earlier;
	// a reasoning model's hidden tokens count within it). Unbounded
	// counts the requests sent without a max tokens, whose output only
	// the server's default bounds.
	MaxOutput int64
	Unbounded int
}

// Estimate is what judging a set of tasks will send and cost.
type Estimate struct {
	// Judge is the judge's name; Offline is set when it calls no model.
	Judge   string
	Offline bool
	// Tasks are the tasks to do; Samples the requests each costs at
	// least (--samples).
	Tasks   int
	Samples int
	// Requests is how many requests a server that answers each one would
	// receive: every sample of every task, less Cached and Skipped.
	Requests int
	// Cached counts the samples the session's response cache answers.
	// Repeated counts the samples whose prompt another task of the
	// count asks too: sent once, the others answered from the cache.
	// Paid counts those in a Batch API batch still running
	// (Options.Paid): paid when it was sent.
	Cached, Repeated, Paid int
	// Skipped counts the tasks whose item lacks what the prompt needs:
	// nothing is sent for them. Unbuilt counts those whose prompt cannot
	// be made (a template error): nothing is sent either.
	Skipped, Unbuilt int
	// TooLong counts the tasks whose prompt the server's context cannot
	// hold, as the client learned it from the server (a run checks
	// before its first request; a dry run asks the server nothing, so
	// never): not sent.
	TooLong int
	// Models is the cost per model, by name.
	Models []ModelCost
	// Unread counts requests not read as chat requests (their tokens are
	// not counted).
	Unread int
	// Sampled, when above 0, is how many of the Tasks were counted
	// (Options.SampleTasks): every other figure is scaled from them, an
	// estimate.
	Sampled int
}

// Options tune Count.
type Options struct {
	// Cache is the session's response cache, whose answers cost
	// nothing; nil for a re-judge, which asks the model afresh.
	Cache llm.Cache
	// Concurrency is how many tasks are counted at once (the count
	// tokenises every prompt: a core each); at least 1.
	Concurrency int
	// Exact is how many prompts (tasks × samples) are tokenised in full;
	// above it, about Exact of them, chosen by a hash of each request,
	// and the others' tokens are scaled from theirs by length (an
	// estimate, labelled). 0 means DefaultExact; below 0, every one.
	Exact int
	// SampleTasks, when above 0 and below the number of tasks, counts
	// about that many of them, chosen by a hash of each task (its item's
	// id, criterion and order, whatever the dataset's order), and scales
	// the figures to all: an estimate, for a run about to start, where
	// counting a million tasks would hold it up for minutes.
	SampleTasks int
	// Item, when set, is applied to each counted task's item before its
	// prompt is made (the session's stored rows made whole): only to the
	// tasks counted, so a sample of a million stays small.
	Item func(judge.Item) judge.Item
	// Progress, when set, hears how many tasks are counted, from Count's
	// goroutine.
	Progress func(done, total int)
	// Paid are the cache keys of requests already paid for (in a Batch
	// API batch still running: llm.BatchSplit): counted as answered
	// from the cache, with Cache set.
	Paid []string
}

// DefaultExact is how many prompts Count tokenises in full by default:
// at about 4 MB of text a second and a core, 50,000 prompts of a few
// kilobytes take under a minute on two cores.
const DefaultExact = 50_000

// Count says what judging tasks with j would send, sending nothing: for
// an LLM judge it judges them on a counting client (see the package
// doc); any other judge calls no model. The error is ctx's when it ends
// first.
func Count(ctx context.Context, j judge.Judge, tasks []judge.Task, o Options) (Estimate, error) {
	if n := len(tasks); o.SampleTasks > 0 && n > o.SampleTasks {
		k := uint64((n + o.SampleTasks - 1) / o.SampleTasks)
		var some []judge.Task
		for _, t := range tasks {
			if pick(fmt.Appendf(nil, "%s\x00%d\x00%t", t.Item.ID, t.Criterion, t.Swapped), k) {
				some = append(some, t)
			}
		}
		o.SampleTasks = 0
		if len(some) == 0 {
			// The hash chose none (a tiny k and bad luck): a sample of
			// nothing would announce "0 requests"; everything is
			// counted instead, slower but true.
			return Count(ctx, j, tasks, o)
		}
		e, err := Count(ctx, j, some, o)
		if err != nil {
			e.Tasks = n
			return e, err
		}
		return e.scaled(n), nil
	}
	info := j.Info()
	e := Estimate{Judge: info.Name, Tasks: len(tasks), Samples: samplesOf(info)}
	lj, ok := j.(*llm.Judge)
	if !ok || info.Model == "" {
		e.Offline, e.Samples = true, 0
		return e, nil
	}
	if o.Item != nil {
		made := make([]judge.Task, len(tasks))
		for i, t := range tasks {
			t.Item = o.Item(t.Item)
			made[i] = t
		}
		tasks = made
	}
	t := NewTally()
	exact := o.Exact
	if exact == 0 {
		exact = DefaultExact
	}
	if prompts := len(tasks) * e.Samples; exact > 0 && prompts > exact {
		t.SampleEvery((prompts + exact - 1) / exact)
	}
	cl, err := lj.Client().Counting(t, o.Cache)
	if err != nil {
		return e, err
	}
	cl.CountPaid(o.Paid)
	probe := lj.OnClient(cl)
	cctx := ctx
	if o.Cache == nil {
		cctx = llm.Fresh(ctx)
	}
	done := 0
	for v := range judge.RunPool(cctx, probe, tasks, judge.PoolOptions{Concurrency: max(o.Concurrency, 1)}) {
		done++
		switch {
		case llm.Skipped(v):
			e.Skipped++
		case v.Status == judge.StatusAPIError && strings.HasPrefix(v.Error, "cannot build the prompt"):
			e.Unbuilt++
		case llm.TooLong(v):
			e.TooLong++
		}
		if o.Progress != nil {
			o.Progress(done, len(tasks))
		}
	}
	if err := ctx.Err(); err != nil {
		return e, err
	}
	e.Models = t.Models()
	e.Requests = t.Requests()
	e.Unread = t.Unread()
	e.Repeated, e.Paid = cl.NotCounted()
	e.Cached = max((e.Tasks-e.Skipped-e.Unbuilt-e.TooLong)*e.Samples-e.Requests-e.Repeated-e.Paid, 0)
	return e, nil
}

// scaled is e, counted on a sample of its tasks, scaled to n tasks.
func (e Estimate) scaled(n int) Estimate {
	f := float64(n) / float64(e.Tasks)
	up := func(x int) int { return int(float64(x)*f + 0.5) }
	up64 := func(x int64) int64 { return int64(float64(x)*f + 0.5) }
	s := e
	s.Sampled, s.Tasks = e.Tasks, n
	s.Requests, s.Cached, s.Skipped, s.Unbuilt, s.Unread = up(e.Requests), up(e.Cached), up(e.Skipped), up(e.Unbuilt), up(e.Unread)
	s.TooLong, s.Repeated, s.Paid = up(e.TooLong), up(e.Repeated), up(e.Paid)
	s.Models = make([]ModelCost, len(e.Models))
	for i, m := range e.Models {
		m.Requests, m.Counted, m.Unbounded = up(m.Requests), up(m.Counted), up(m.Unbounded)
		m.PromptTokens, m.MaxOutput = up64(m.PromptTokens), up64(m.MaxOutput)
		m.Exact = false
		s.Models[i] = m
	}
	return s
}

// samplesOf is the samples each task is judged with (Info.Params).
func samplesOf(info judge.Info) int {
	switch n := info.Params["samples"].(type) {
	case int:
		return max(n, 1)
	case float64:
		return max(int(n), 1)
	}
	return 1
}

// PromptTokens is the prompt tokens of every model; exact is false when
// any of them is an estimate.
func (e Estimate) PromptTokens() (n int64, exact bool) {
	exact = true
	for _, m := range e.Models {
		n += m.PromptTokens
		exact = exact && m.Exact
	}
	return n, exact
}

// MaxOutput is the most output tokens the requests may ask for; bounded
// is false when a request has no max tokens.
func (e Estimate) MaxOutput() (n int64, bounded bool) {
	bounded = true
	for _, m := range e.Models {
		n += m.MaxOutput
		bounded = bounded && m.Unbounded == 0
	}
	return n, bounded
}

// Price is the estimate's price from prices: input for the prompts (an
// estimate when a tokenizer is), output at most (when every request has
// a max tokens). ok is false when a model with requests has no price.
func (e Estimate) Price(p Prices, batch bool) (input, output float64, ok bool) {
	ok = true
	for _, m := range e.Models {
		in, out, has := p.For(m.Model, batch)
		if !has {
			ok = false
			continue
		}
		input += float64(m.PromptTokens) * in / 1e6
		output += float64(m.MaxOutput) * out / 1e6
	}
	return input, output, ok
}

// Sum adds estimates up (the judges of one run): their tasks, requests
// and per-model costs.
func Sum(es []Estimate) Estimate {
	var s Estimate
	s.Offline = len(es) > 0
	byModel := map[string]int{}
	for _, e := range es {
		s.Offline = s.Offline && e.Offline
		s.Tasks += e.Tasks
		s.Requests += e.Requests
		s.Cached += e.Cached
		s.Repeated += e.Repeated
		s.Paid += e.Paid
		s.Skipped += e.Skipped
		s.Unbuilt += e.Unbuilt
		s.TooLong += e.TooLong
		s.Unread += e.Unread
		for _, m := range e.Models {
			i, ok := byModel[m.Model]
			if !ok {
				i = len(s.Models)
				byModel[m.Model] = i
				s.Models = append(s.Models, ModelCost{Model: m.Model, Encoding: m.Encoding, Exact: true})
			}
			t := &s.Models[i]
			t.Exact = t.Exact && m.Exact
			t.Counted += m.Counted
			t.Requests += m.Requests
			t.PromptTokens += m.PromptTokens
			t.MaxOutput += m.MaxOutput
			t.Unbounded += m.Unbounded
		}
	}
	return s
}
