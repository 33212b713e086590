// Package tune is the optimiser of `gavel tune` (SPEC "Improving a
// judge"): it asks the model to revise a judge's instructions from the
// judge's disagreements with people on the calibration part of a split,
// scores each candidate on the validation part, keeps the best, and
// scores the winner and the original on the evaluation part, which no
// proposal ever saw. Every HTTP request is counted against a Budget.
//
// The package knows nothing of sessions: the caller hands it the labelled
// items of each part and functions that build and rewrite judges.
//
// Cost is known before it is spent: each phase is first judged on a probe
// client (ProbeTransport) that sends nothing, so the response cache
// answers what it can and the rest is counted; a phase whose count the
// budget cannot cover is not started.
package tune

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/llm"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// Labelled is one item people labelled, in one part of the split.
type Labelled struct {
	Item judge.Item
	// Label is the humans' reference value on the tuned dimension (the
	// single label, or the annotators' majority).
	Label float64
	// Note is the item's current note, "" when none.
	Note string
}

// Judges is one judge built twice: on the real client, and on a probe
// client (ProbeTransport, the same cache) that counts what the real one
// would send.
type Judges struct {
	Run, Probe judge.Judge
}

// Chat sends one chat request and returns the answer's text
// (llm.Client.Chat).
type Chat func(ctx context.Context, msgs []llm.Message) (string, error)

// Proposer sends the proposal requests, through the same two clients as
// Judges: Run on the real one, Probe on the probe one (to learn whether
// the answer is cached).
type Proposer struct {
	Run, Probe Chat
}

// Options are a tuning's inputs.
type Options struct {
	// File is the original judge file; it must have instructions.
	File []byte
	// Original is the original judge as it runs (a built-in judge, or the
	// judge of File).
	Original Judges
	// Dimension is the dimension tuned and scored.
	Dimension judge.Dimension
	// Calibration holds the labelled items of the calibration part less
	// its validation third: the only items a proposal prompt shows.
	// Validation holds the validation third: candidates are scored on it.
	// Evaluation holds the evaluation part: only the original and the
	// winner are judged on it, at the end.
	Calibration, Validation, Evaluation []Labelled
	// Rounds is the number of candidates to propose.
	Rounds int
	Budget *Budget
	// Samples is the requests an uncached task costs at least.
	Samples     int
	Concurrency int
	// Build makes the judge of a judge file.
	Build func(file []byte) (Judges, error)
	// Replace returns file with its instructions replaced.
	Replace func(file []byte, instructions string) ([]byte, error)
	// Proposer asks for revised instructions.
	Proposer Proposer
	// Seed chooses which disagreements a prompt shows when there are more
	// than Shown (10 when 0).
	Seed  uint64
	Shown int
	// Events, when set, hears what happens, from Run's goroutine.
	Events func(Event)
	// Fatal, when set, returns the error that stopped the client for
	// good (a refused key, an unknown model): checked after each phase.
	Fatal func() error
}

// EventKind says what an Event reports.
type EventKind int

// The kinds of Event.
const (
	// PhaseStarted: a phase of Total tasks needing Need requests begins.
	PhaseStarted EventKind = iota
	// Judged: Verdict arrived (Done of Total).
	Judged
	// PhaseEnded: the phase is over.
	PhaseEnded
	// Proposing: a proposal request is being made (Round).
	Proposing
	// Scored: Candidate is scored on the validation part, or cannot be
	// (Candidate.Problem); Best is the best so far.
	Scored
	// Note: Text is worth telling the user.
	Note
)

// Event is what Options.Events hears.
type Event struct {
	Kind        EventKind
	Phase       string
	Round       int
	Total, Done int
	Need        int
	Verdict     judge.Verdict
	Candidate   *Candidate
	Best        *Candidate
	Text        string
}

// Score is a judge's correctness on a part: Right of N labelled items
// (an item without an ok verdict counts as wrong, as in gavel compare).
type Score struct {
	Right, N int
	// NoVerdict counts the items without an ok verdict.
	NoVerdict int
}

// Rate is Right / N (0 when N is 0).
func (s Score) Rate() float64 {
	if s.N == 0 {
		return 0
	}
	return float64(s.Right) / float64(s.N)
}

func (s Score) String() string {
	return fmt.Sprintf("%d/%d right (%.1f%%)", s.Right, s.N, 100*s.Rate())
}

// Candidate is one judge file tried: the original (Round 0) or a round's
// proposal.
type Candidate struct {
	Round        int
	File         []byte
	Instructions string
	Judge        Judges
	// Validation is its score on the validation part, once Scored.
	Validation Score
	Scored     bool
	// Calibration is its score on the calibration part, when it was
	// judged there (the original, and each new best).
	Calibration *Score
	// Problem says why it was not scored ("" when it was).
	Problem string

	verdicts map[string]judge.Verdict
}

// Verdicts returns every verdict the candidate received, in no order.
func (c *Candidate) Verdicts() []judge.Verdict {
	out := make([]judge.Verdict, 0, len(c.verdicts))
	for _, v := range c.verdicts {
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b judge.Verdict) int { return strings.Compare(a.ItemID, b.ItemID) })
	return out
}

// Evaluation is the original and the winner on the evaluation part.
type Evaluation struct {
	Original, Winner Score
	// The paired table: both right, only the original, only the winner,
	// both wrong.
	BothRight, OnlyOriginal, OnlyWinner, BothWrong int
	// P is McNemar's exact two-sided p-value (stats.McNemarExact).
	P float64
}

// Result is what a tuning found, also when it stopped early.
type Result struct {
	// Candidates holds the original first, then each round's candidate.
	Candidates []*Candidate
	// Best is the candidate that scored best on the validation part (the
	// original when none beat it: ties keep the earlier).
	Best *Candidate
	// Stopped says why the rounds ended before Rounds ("" when not).
	Stopped string
	// Evaluation is nil when the evaluation part was not judged
	// (interrupted, or the budget could not cover it); EvalSkipped says why.
	Evaluation  *Evaluation
	EvalSkipped string
	// Interrupted is set when the context was cancelled.
	Interrupted bool
	// Fatal is the client's fatal error when one stopped the tuning (a
	// refused key, an unknown model): fix and run again.
	Fatal error
}

// Original returns the original candidate.
func (r *Result) Original() *Candidate { return r.Candidates[0] }

// BudgetError is a budget too small to start.
type BudgetError struct{ Need, Have int }

func (e *BudgetError) Error() string {
	return fmt.Sprintf("a budget of %d requests cannot cover one round: it needs at least %d", e.Have, e.Need)
}

// Check returns an error when the options cannot make a tuning.
func (o *Options) Check() error {
	switch {
	case o.Rounds < 1:
		return fmt.Errorf("--rounds %d: give 1 or more", o.Rounds)
	case o.Budget == nil || o.Budget.Limit() < 1:
		return errors.New("no request budget: give --budget N (every HTTP request counts, retries and proposals included)")
	case len(o.Calibration) == 0:
		return errors.New("no labelled item in the calibration part (less its validation third): a proposal has nothing to learn from")
	case len(o.Validation) == 0:
		return errors.New("no labelled item in the validation part (a third of the calibration part): candidates cannot be scored")
	case len(o.Evaluation) == 0:
		return errors.New("no labelled item in the evaluation part: the winner cannot be scored against the original")
	case o.Build == nil || o.Replace == nil || o.Proposer.Run == nil || o.Proposer.Probe == nil || o.Original.Run == nil || o.Original.Probe == nil:
		return errors.New("tune: Build, Replace, Proposer and Original are required (a bug)")
	}
	if _, err := Instructions(o.File); err != nil {
		return err
	}
	return nil
}

// tuner is one Run's state.
type tuner struct {
	o   Options
	ctx context.Context
	res *Result
	// origEvalNeed and bestEvalNeed are what judging the original and
	// the best candidate (0 while it is the original) on the evaluation
	// part needs (probed): requests kept back from the rounds for it.
	origEvalNeed, bestEvalNeed int
}

// Run tunes. It returns the result so far with a nil error when it is
// interrupted or stopped by the budget; the error is for what makes the
// tuning impossible (bad options, a budget too small to start).
func Run(ctx context.Context, o Options) (*Result, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	o.Samples = max(o.Samples, 1)
	o.Concurrency = max(o.Concurrency, 1)
	if o.Shown <= 0 {
		o.Shown = 10
	}
	instr, _ := Instructions(o.File)
	orig := &Candidate{Round: 0, File: o.File, Instructions: instr, Judge: o.Original, verdicts: map[string]judge.Verdict{}}
	t := &tuner{o: o, ctx: ctx, res: &Result{Candidates: []*Candidate{orig}, Best: orig}}
	res := t.res

	// What the original costs, and the least a round and the final
	// evaluation may cost: a budget that cannot cover it is refused
	// before a request is sent.
	calVal := append(slices.Clip(o.Calibration), o.Validation...)
	need0 := t.probe(orig, calVal)
	t.origEvalNeed = t.probe(orig, o.Evaluation)
	if ctx.Err() != nil {
		res.Interrupted = true
		return res, nil
	}
	// When anything must be sent, the budget must cover the original and
	// one round at worst (every task uncached), or it would be spent on
	// the original alone; when the original costs nothing, the rounds'
	// own checks decide, as a cached proposal costs nothing either.
	least := need0 + t.origEvalNeed
	if least > 0 {
		least += t.roundWorst() + len(o.Evaluation)*o.Samples
	}
	if least > o.Budget.Left() {
		return nil, &BudgetError{Need: least, Have: o.Budget.Left()}
	}
	if !t.judgePhase(orig, calVal, "original · calibration and validation", 0, need0) {
		return t.finish(), nil
	}
	orig.Scored = true
	orig.Validation = t.score(orig, o.Validation)
	cal := t.score(orig, o.Calibration)
	orig.Calibration = &cal
	t.event(Event{Kind: Scored, Candidate: orig, Best: orig})

	var tried []string
	for round := 1; round <= o.Rounds; round++ {
		best := res.Best
		if best.Calibration == nil {
			need := t.probe(best, o.Calibration)
			if ctx.Err() != nil {
				break
			}
			if need+t.reserve(0) > o.Budget.Left() {
				res.Stopped = t.spent(fmt.Sprintf("round %d needs %d requests for the best's %d calibration items and %d stay kept for the evaluation part", round, need, len(o.Calibration), t.reserve(0)))
				break
			}
			if !t.judgePhase(best, o.Calibration, fmt.Sprintf("round %d · the best's calibration items", round), round, need) {
				break
			}
			cal := t.score(best, o.Calibration)
			best.Calibration = &cal
		}
		ds := t.disagreements(best, round)
		if len(ds) == 0 {
			res.Stopped = fmt.Sprintf("the best judge agrees with every calibration label: round %d has nothing to learn from", round)
			break
		}
		msgs := proposalPrompt(o.Dimension, best.Instructions, ds, lastN(tried, 2))
		if worst := t.reserve(len(o.Evaluation) * o.Samples); !t.cached(msgs) && t.roundWorst()+worst > o.Budget.Left() {
			res.Stopped = t.spent(fmt.Sprintf("round %d needs up to %d requests (a proposal and %d validation items) and %d stay kept for the evaluation part", round, t.roundWorst(), len(o.Validation), worst))
			break
		}
		t.event(Event{Kind: Proposing, Round: round})
		answer, err := t.propose(msgs)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			if errors.Is(err, ErrBudgetSpent) {
				res.Stopped = t.spent(fmt.Sprintf("round %d's proposal", round))
				break
			}
			res.Stopped = fmt.Sprintf("round %d's proposal failed: %v", round, err)
			if f := t.fatal(); f != nil {
				res.Fatal = f
			}
			break
		}
		c := &Candidate{Round: round, verdicts: map[string]judge.Verdict{}}
		res.Candidates = append(res.Candidates, c)
		c.Instructions = extractInstructions(answer)
		if !t.prepare(c, best, tried) {
			t.event(Event{Kind: Scored, Round: round, Candidate: c, Best: res.Best})
			continue
		}
		need := t.probe(c, o.Validation)
		evalNeed := t.probe(c, o.Evaluation)
		if ctx.Err() != nil {
			break
		}
		if need+t.reserve(evalNeed) > o.Budget.Left() {
			c.Problem = fmt.Sprintf("not scored: its %d validation items need %d requests, and only %d are left with %d kept for the evaluation part", len(o.Validation), need, o.Budget.Left(), t.reserve(evalNeed))
			t.event(Event{Kind: Scored, Round: round, Candidate: c, Best: res.Best})
			res.Stopped = t.spent(fmt.Sprintf("round %d's candidate", round))
			break
		}
		if !t.judgePhase(c, o.Validation, fmt.Sprintf("round %d · validation", round), round, need) {
			c.Problem = "not scored: " + res.Stopped
			if res.Interrupted {
				c.Problem = "not scored: interrupted"
			}
			t.event(Event{Kind: Scored, Round: round, Candidate: c, Best: res.Best})
			break
		}
		c.Scored = true
		c.Validation = t.score(c, o.Validation)
		if c.Validation.Right > res.Best.Validation.Right {
			res.Best = c
			t.bestEvalNeed = evalNeed
		} else {
			// Shown to later proposals as tried and not better.
			tried = append(tried, c.Instructions)
		}
		t.event(Event{Kind: Scored, Round: round, Candidate: c, Best: res.Best})
	}
	if ctx.Err() != nil {
		res.Interrupted = true
		return t.finish(), nil
	}
	if res.Fatal != nil {
		res.EvalSkipped = "the server stopped the tuning"
		return t.finish(), nil
	}
	t.evaluate()
	return t.finish(), nil
}

// prepare builds the candidate's file and judge; false (with Problem set)
// when the proposal cannot be used.
func (t *tuner) prepare(c, best *Candidate, tried []string) bool {
	switch {
	case c.Instructions == "":
		c.Problem = "the model's answer held no instructions between " + beginMarker + " and " + endMarker
		return false
	case strings.TrimSpace(c.Instructions) == strings.TrimSpace(best.Instructions):
		c.Problem = "the model proposed the current instructions again"
		return false
	case slices.Contains(tried, c.Instructions):
		c.Problem = "the model proposed instructions already tried"
		return false
	}
	file, err := t.o.Replace(best.File, c.Instructions)
	if err != nil {
		c.Problem = "cannot write the proposal into the judge file: " + err.Error()
		return false
	}
	c.File = file
	js, err := t.o.Build(file)
	if err != nil {
		c.Problem = "the proposal does not make a judge: " + err.Error()
		return false
	}
	c.Judge = js
	return true
}

// cached reports whether the proposal's answer is in the cache: the probe
// asks for it and nothing is counted.
func (t *tuner) cached(msgs []llm.Message) bool {
	var n atomic.Int64
	_, err := t.o.Proposer.Probe(counting(t.ctx, &n), msgs)
	return err == nil && n.Load() == 0
}

// propose asks for revised instructions; ErrBudgetSpent when the budget
// refused the request (or a retry of it).
func (t *tuner) propose(msgs []llm.Message) (string, error) {
	ctx, cancel := stopOnSpent(t.ctx)
	defer cancel()
	answer, err := t.o.Proposer.Run(ctx, msgs)
	if err != nil && errors.Is(context.Cause(ctx), ErrBudgetSpent) {
		return "", ErrBudgetSpent
	}
	if err == nil {
		err = t.fatal()
	}
	return answer, err
}

// fatal is the client's fatal error, if any.
func (t *tuner) fatal() error {
	if t.o.Fatal == nil {
		return nil
	}
	return t.o.Fatal()
}

// roundWorst is the most a round's proposal and candidate may cost
// without retries: one proposal, every validation task uncached.
func (t *tuner) roundWorst() int { return 1 + len(t.o.Validation)*t.o.Samples }

// reserve is what the final evaluation may need, kept from the rounds:
// the original's and the winner's, which is the best so far or a
// candidate whose evaluation needs cand requests.
func (t *tuner) reserve(cand int) int { return t.origEvalNeed + max(t.bestEvalNeed, cand) }

func (t *tuner) spent(what string) string {
	return fmt.Sprintf("the budget stops the rounds: %s, and %d of %d requests are left", what, t.o.Budget.Left(), t.o.Budget.Limit())
}

func (t *tuner) event(e Event) {
	if t.o.Events != nil {
		t.o.Events(e)
	}
}

// tasks are the whole-item tasks of items.
func tasks(items []Labelled) []judge.Task {
	ts := make([]judge.Task, len(items))
	for i, it := range items {
		ts[i] = judge.Task{Item: it.Item}
	}
	return ts
}

// probe returns how many requests judging items with c would send: the
// candidate's probe judge answers from the cache what it can and counts
// the rest. The tasks c already has a verdict for cost nothing.
func (t *tuner) probe(c *Candidate, items []Labelled) int {
	var todo []Labelled
	for _, it := range items {
		if _, ok := c.verdicts[it.Item.ID]; !ok {
			todo = append(todo, it)
		}
	}
	if len(todo) == 0 {
		return 0
	}
	var n atomic.Int64
	ctx := counting(t.ctx, &n)
	for range judge.RunPool(ctx, c.Judge.Probe, tasks(todo), judge.PoolOptions{Concurrency: t.o.Concurrency}) {
	}
	return int(n.Load())
}

// judgePhase judges items with c on the real client, keeping each
// verdict; false when the phase did not finish (interrupted: Result's
// Interrupted is set; or the budget refused a request: Stopped says so).
func (t *tuner) judgePhase(c *Candidate, items []Labelled, phase string, round, need int) bool {
	var todo []Labelled
	for _, it := range items {
		if _, ok := c.verdicts[it.Item.ID]; !ok {
			todo = append(todo, it)
		}
	}
	total := len(todo)
	t.event(Event{Kind: PhaseStarted, Phase: phase, Round: round, Total: total, Need: need})
	ctx, cancel := stopOnSpent(t.ctx)
	defer cancel()
	done, apiErrors := 0, 0
	for v := range judge.RunPool(ctx, c.Judge.Run, tasks(todo), judge.PoolOptions{Concurrency: t.o.Concurrency}) {
		c.verdicts[v.ItemID] = v
		done++
		if v.Status == judge.StatusAPIError {
			apiErrors++
		}
		t.event(Event{Kind: Judged, Phase: phase, Round: round, Total: total, Done: done, Verdict: v})
	}
	t.event(Event{Kind: PhaseEnded, Phase: phase, Round: round, Total: total, Done: done})
	switch {
	case t.ctx.Err() != nil:
		t.res.Interrupted = true
		return false
	case t.fatal() != nil:
		t.res.Fatal = t.fatal()
		t.res.Stopped = fmt.Sprintf("%s stopped: %v", phase, t.res.Fatal)
		return false
	case errors.Is(context.Cause(ctx), ErrBudgetSpent):
		if t.res.Stopped == "" {
			t.res.Stopped = t.spent(phase + " ran out of requests (retries cost more than counted)")
		}
		return false
	}
	if apiErrors > 0 {
		t.event(Event{Kind: Note, Phase: phase, Round: round, Text: fmt.Sprintf("%s: %d of %d tasks ended api_error; they count as wrong", phase, apiErrors, total)})
	}
	return done == total
}

// score is c's correctness on items.
func (t *tuner) score(c *Candidate, items []Labelled) Score {
	var s Score
	for _, it := range items {
		s.N++
		v, ok := c.verdicts[it.Item.ID]
		switch {
		case !ok || !v.OK():
			s.NoVerdict++
		case t.right(v, it):
			s.Right++
		}
	}
	return s
}

func (t *tuner) right(v judge.Verdict, it Labelled) bool {
	x, ok := v.Values[t.o.Dimension.Name]
	return v.OK() && ok && x == it.Label
}

// disagreements are up to Shown calibration items c got wrong, in an
// order that the seed and the round fix, so each round may show others.
func (t *tuner) disagreements(c *Candidate, round int) []disagreement {
	var ds []disagreement
	for _, it := range t.o.Calibration {
		v := c.verdicts[it.Item.ID]
		// An item the server gave no answer for teaches nothing.
		if v.Status != judge.StatusAPIError && !t.right(v, it) {
			ds = append(ds, disagreement{item: it, verdict: v})
		}
	}
	key := func(id string) uint64 {
		h := sha256.New()
		h.Write(strconv.AppendUint(nil, t.o.Seed, 10))
		h.Write([]byte{0})
		h.Write(strconv.AppendInt(nil, int64(round), 10))
		h.Write([]byte{0})
		h.Write([]byte(id))
		return binary.BigEndian.Uint64(h.Sum(nil))
	}
	slices.SortStableFunc(ds, func(a, b disagreement) int {
		ka, kb := key(a.item.Item.ID), key(b.item.Item.ID)
		switch {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		}
		return 0
	})
	if len(ds) > t.o.Shown {
		ds = ds[:t.o.Shown]
	}
	return ds
}

// evaluate judges the original and the winner on the evaluation part, if
// the budget covers both.
func (t *tuner) evaluate() {
	res, o := t.res, t.o
	orig, win := res.Original(), res.Best
	needO := t.probe(orig, o.Evaluation)
	needW := 0
	if win != orig {
		needW = t.probe(win, o.Evaluation)
	}
	if t.ctx.Err() != nil {
		res.Interrupted = true
		return
	}
	if needO+needW > o.Budget.Left() {
		res.EvalSkipped = fmt.Sprintf("the evaluation part needs %d requests and %d are left", needO+needW, o.Budget.Left())
		return
	}
	if !t.judgePhase(orig, o.Evaluation, "original · evaluation", 0, needO) {
		res.EvalSkipped = "the original's evaluation did not finish"
		return
	}
	if win != orig && !t.judgePhase(win, o.Evaluation, fmt.Sprintf("winner (round %d) · evaluation", win.Round), win.Round, needW) {
		res.EvalSkipped = "the winner's evaluation did not finish"
		return
	}
	ev := &Evaluation{Original: t.score(orig, o.Evaluation), Winner: t.score(win, o.Evaluation)}
	for _, it := range o.Evaluation {
		ro := t.right(orig.verdicts[it.Item.ID], it)
		rw := t.right(win.verdicts[it.Item.ID], it)
		switch {
		case ro && rw:
			ev.BothRight++
		case ro:
			ev.OnlyOriginal++
		case rw:
			ev.OnlyWinner++
		default:
			ev.BothWrong++
		}
	}
	ev.P = stats.McNemarExact(ev.OnlyOriginal, ev.OnlyWinner)
	res.Evaluation = ev
}

func (t *tuner) finish() *Result {
	if t.ctx.Err() != nil {
		t.res.Interrupted = true
	}
	return t.res
}

func lastN(s []string, n int) []string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
