package sessions

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// fakeJudge answers the first free tasks (by item index) at once and holds
// the others until the run is cancelled. A verdict took Index%3 retries.
// It remembers every verdict it returned, which is what the pool hands on.
type fakeJudge struct {
	free int

	mu       sync.Mutex
	returned []judge.Verdict
	answered chan struct{} // receives once per verdict, if not nil
}

func (f *fakeJudge) Info() judge.Info { return binaryInfo("fake", "fake-1") }

func (f *fakeJudge) Judge(ctx context.Context, t judge.Task) judge.Verdict {
	if t.Item.Index >= f.free {
		<-ctx.Done()
		return judge.Verdict{ItemID: t.Item.ID, Criterion: t.Criterion, Status: judge.StatusAPIError, Error: "cancelled"}
	}
	v := judge.Verdict{ItemID: t.Item.ID, Criterion: t.Criterion, Status: judge.StatusOK,
		Values: map[string]float64{"correct": float64(t.Item.Index % 2)}, PromptTokens: 10, CompletionTokens: 2, At: t0}
	if t.Item.Index%10 == 9 {
		v = judge.Verdict{ItemID: t.Item.ID, Status: judge.StatusParseError, Raw: "??", At: t0}
	}
	v.Retries = t.Item.Index % 3
	f.mu.Lock()
	f.returned = append(f.returned, v)
	f.mu.Unlock()
	if f.answered != nil {
		f.answered <- struct{}{}
	}
	return v
}

func (f *fakeJudge) got() []judge.Verdict {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]judge.Verdict(nil), f.returned...)
}

// judgingSession makes a session of n items, a run for fakeJudge, and the
// tasks.
func judgingSession(t *testing.T, n int) (*Store, Run, []judge.Task) {
	t.Helper()
	s := openStore(t, sessionPath(t), "ann")
	items := make([]judge.Item, n)
	var tasks []judge.Task
	for i := range items {
		items[i] = judge.Item{Index: i, ID: fmt.Sprintf("i%04d", i)}
		tasks = append(tasks, judge.Task{Item: items[i]})
	}
	if err := s.InitDataset(DatasetInfo{}, items); err != nil {
		t.Fatal(err)
	}
	run, err := s.EnsureRun((&fakeJudge{}).Info())
	if err != nil {
		t.Fatal(err)
	}
	return s, run, tasks
}

// ids renders verdicts as a sorted list of item ids, to compare sets.
func ids(vs []judge.Verdict) string {
	var out []string
	for _, v := range vs {
		out = append(out, v.ItemID)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// drain reads batches until the channel closes, failing if that takes
// absurdly long (a deadlock).
func drain(t *testing.T, ch <-chan Batch) []Batch {
	t.Helper()
	var out []Batch
	deadline := time.After(time.Minute)
	for {
		select {
		case b, ok := <-ch:
			if !ok {
				return out
			}
			out = append(out, b)
		case <-deadline:
			t.Fatal("Batches was never closed")
		}
	}
}

// stopWithin calls Stop and fails if it does not return (a deadlock).
func stopWithin(t *testing.T, jg *Judging) {
	t.Helper()
	done := make(chan struct{})
	go func() { jg.Stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("Stop deadlocked")
	}
}

// noGoroutineLeak fails if goroutines started after baseline outlive the
// run.
func noGoroutineLeak(t *testing.T, baseline int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for runtime.NumGoroutine() > baseline {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines left, %d before the run:\n%s", runtime.NumGoroutine(), baseline, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestJudgingCommitsEveryVerdict(t *testing.T) {
	const n = 300
	s, run, tasks := judgingSession(t, n)
	fj := &fakeJudge{free: n}
	baseline := runtime.NumGoroutine()
	jg := StartJudging(context.Background(), s, run, fj, tasks, judge.PoolOptions{Concurrency: 4})
	summaries := make(chan Batch)
	go func() { // Summary may be read while the run goes on
		var b Batch
		for {
			select {
			case <-jg.Done():
				summaries <- b
				return
			default:
				b = jg.Summary()
			}
		}
	}()
	batches := drain(t, jg.Batches())
	jg.Stop()
	jg.Stop() // twice is fine
	if b := <-summaries; b.Done > n || b.Retries > n {
		t.Errorf("summary while running: %+v", b)
	}

	var delivered []judge.Verdict
	for _, b := range batches {
		if b.Err != nil || len(b.Unsaved) > 0 {
			t.Errorf("batch error: %v (%d unsaved)", b.Err, len(b.Unsaved))
		}
		delivered = append(delivered, b.Verdicts...)
	}
	last := batches[len(batches)-1]
	if last.Done != n || last.Total != n || last.Errors != n/10 || last.Retries != n || last.Tokens != (n-n/10)*12 || last.Stopped != nil {
		t.Errorf("final counts = done %d total %d errors %d retries %d tokens %d, stopped %v", last.Done, last.Total, last.Errors, last.Retries, last.Tokens, last.Stopped)
	}
	if sum := jg.Summary(); sum.Done != last.Done || sum.Retries != last.Retries || sum.Tokens != last.Tokens || sum.Err != nil || sum.Stopped != nil || sum.Verdicts != nil {
		t.Errorf("Summary %+v, last batch %+v", sum, last)
	}
	stored, err := s.Verdicts(run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != n || ids(stored) != ids(fj.got()) || ids(delivered) != ids(stored) {
		t.Errorf("stored %d verdicts, delivered %d, judged %d", len(stored), len(delivered), len(fj.got()))
	}
	total := 0
	for _, c := range jg.c.commits {
		if c > batchSize {
			t.Errorf("a transaction held %d verdicts, more than %d", c, batchSize)
		}
		total += c
	}
	if total != n || len(jg.c.commits) < n/batchSize {
		t.Errorf("commits %v: %d verdicts in %d transactions", jg.c.commits, total, len(jg.c.commits))
	}
	noGoroutineLeak(t, baseline)
}

func TestJudgingCommitsASlowTrickle(t *testing.T) {
	// Three verdicts arrive, then nothing: they must be committed and
	// handed over without waiting for more (the ~100 ms flush).
	s, run, tasks := judgingSession(t, 20)
	jg := StartJudging(context.Background(), s, run, &fakeJudge{free: 3}, tasks, judge.PoolOptions{Concurrency: 2})
	defer jg.Stop()
	seen := 0
	deadline := time.After(time.Minute)
	for seen < 3 {
		select {
		case b := <-jg.Batches():
			seen += len(b.Verdicts)
		case <-deadline:
			t.Fatalf("only %d of 3 verdicts handed over while the run goes on", seen)
		}
	}
	if got, _ := s.Verdicts(run.ID); len(got) != 3 {
		t.Errorf("%d verdicts stored, want 3", len(got))
	}
}

func TestJudgingStopLosesNothingReceived(t *testing.T) {
	for _, tc := range []struct {
		name string
		free int
		// readFirst: batches read before Stop; -1 reads none.
		readFirst int
	}{
		{"stop after some batches", 150, 1},
		{"stop with verdicts still pending", 10, -1},
		{"stop before anything arrived", 0, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, run, tasks := judgingSession(t, 300)
			fj := &fakeJudge{free: tc.free, answered: make(chan struct{}, 300)}
			baseline := runtime.NumGoroutine()
			jg := StartJudging(context.Background(), s, run, fj, tasks, judge.PoolOptions{Concurrency: 3})
			for range tc.free {
				<-fj.answered // every free task has been answered
			}
			var delivered []judge.Verdict
			for range tc.readFirst {
				delivered = append(delivered, (<-jg.Batches()).Verdicts...)
			}
			stopWithin(t, jg)

			stored, err := s.Verdicts(run.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(stored) != tc.free || ids(stored) != ids(fj.got()) {
				t.Errorf("after Stop %d verdicts stored, %d were judged", len(stored), len(fj.got()))
			}
			// The rest is still readable, then the channel closes.
			for _, b := range drain(t, jg.Batches()) {
				delivered = append(delivered, b.Verdicts...)
			}
			if ids(delivered) != ids(stored) {
				t.Errorf("delivered %d verdicts, stored %d", len(delivered), len(stored))
			}
			noGoroutineLeak(t, baseline)
		})
	}
}

func TestJudgingReaderThatStopsReading(t *testing.T) {
	s, run, tasks := judgingSession(t, 400)
	fj := &fakeJudge{free: 400}
	baseline := runtime.NumGoroutine()
	jg := StartJudging(context.Background(), s, run, fj, tasks, judge.PoolOptions{Concurrency: 8})
	<-jg.Batches() // read one, then never again while the run goes on
	select {
	case <-jg.Done():
	case <-time.After(time.Minute):
		t.Fatal("the run blocked on a reader that stopped reading")
	}
	stopWithin(t, jg)
	if got, _ := s.Verdicts(run.ID); len(got) != 400 {
		t.Errorf("%d verdicts stored, want 400", len(got))
	}
	// What the reader missed waits merged in one batch.
	rest := drain(t, jg.Batches())
	if len(rest) > 1 {
		t.Errorf("%d batches waited for the reader; they should have been merged into one", len(rest))
	}
	noGoroutineLeak(t, baseline)
}

func TestJudgingCommitFailure(t *testing.T) {
	s, _, tasks := judgingSession(t, 200)
	fj := &fakeJudge{free: 100}
	bogus := Run{ID: 9999}
	jg := StartJudging(context.Background(), s, bogus, fj, tasks, judge.PoolOptions{Concurrency: 2})
	batches := drain(t, jg.Batches()) // ends: a failed commit stops the run
	jg.Stop()
	var unsaved []judge.Verdict
	var sawErr bool
	for _, b := range batches {
		if len(b.Verdicts) > 0 {
			t.Errorf("batch claims %d committed verdicts", len(b.Verdicts))
		}
		if b.Err != nil {
			sawErr = true
			if !strings.Contains(b.Err.Error(), "no judge run 9999") {
				t.Errorf("Err = %v", b.Err)
			}
		}
		unsaved = append(unsaved, b.Unsaved...)
	}
	if !sawErr || ids(unsaved) != ids(fj.got()) {
		t.Errorf("err seen %v; %d unsaved handed back, %d judged", sawErr, len(unsaved), len(fj.got()))
	}
}

func TestJudgingCallerCancels(t *testing.T) {
	s, run, tasks := judgingSession(t, 50)
	fj := &fakeJudge{free: 20, answered: make(chan struct{}, 50)}
	ctx, cancel := context.WithCancel(context.Background())
	jg := StartJudging(ctx, s, run, fj, tasks, judge.PoolOptions{Concurrency: 2})
	for range 20 {
		<-fj.answered
	}
	cancel()
	drain(t, jg.Batches())
	if got, _ := s.Verdicts(run.ID); len(got) != 20 {
		t.Errorf("%d verdicts stored after the caller cancelled, want 20", len(got))
	}
	jg.Stop()
}

func TestMergeBatches(t *testing.T) {
	v := func(id string) judge.Verdict { return judge.Verdict{ItemID: id} }
	old := Batch{Verdicts: []judge.Verdict{v("a")}, Done: 1, Total: 9}
	b := Batch{Verdicts: []judge.Verdict{v("b")}, Unsaved: []judge.Verdict{v("c")}, Done: 3, Total: 9, Errors: 1, Retries: 4, Tokens: 5, Err: fmt.Errorf("disk full"), Stopped: fmt.Errorf("bad key")}
	m := merge(old, b)
	if ids(m.Verdicts) != "a,b" || ids(m.Unsaved) != "c" || m.Done != 3 || m.Errors != 1 || m.Retries != 4 || m.Tokens != 5 || m.Err == nil || m.Stopped == nil {
		t.Errorf("merge = %+v", m)
	}
	if ids(old.Verdicts) != "a" {
		t.Error("merge changed the older batch")
	}
}

// orderJudge holds its first call until released, then answers every task
// at once, recording the order the calls started in.
type orderJudge struct {
	first   chan string // receives the first task's item
	release chan struct{}

	mu    sync.Mutex
	order []string
}

func (o *orderJudge) Info() judge.Info { return binaryInfo("fake", "fake-1") }

func (o *orderJudge) Judge(_ context.Context, t judge.Task) judge.Verdict {
	o.mu.Lock()
	o.order = append(o.order, t.Item.ID)
	n := len(o.order)
	o.mu.Unlock()
	if n == 1 {
		o.first <- t.Item.ID
		<-o.release
	}
	return judge.Verdict{ItemID: t.Item.ID, Status: judge.StatusOK, Values: map[string]float64{"correct": 1}, At: t0}
}

func TestJudgingPrioritize(t *testing.T) {
	for _, tc := range []struct {
		name       string
		prioritize []string // while the first task is judged, in this order
		want       string   // the first items judged
	}{
		{"queue order", nil, "i0000 i0001 i0002 i0003"},
		{"the item on screen next", []string{"i0042"}, "i0000 i0042 i0001 i0002"},
		{"the last item shown first", []string{"i0042", "i0007"}, "i0000 i0007 i0042 i0001"},
		{"an item under way stays where it is", []string{"i0000"}, "i0000 i0001 i0002 i0003"},
		{"an unknown item changes nothing", []string{"nope"}, "i0000 i0001 i0002 i0003"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, run, tasks := judgingSession(t, 100)
			oj := &orderJudge{first: make(chan string), release: make(chan struct{})}
			jg := StartJudging(context.Background(), s, run, oj, tasks, judge.PoolOptions{Concurrency: 1})
			<-oj.first
			for _, id := range tc.prioritize {
				jg.Prioritize(id)
			}
			close(oj.release)
			var delivered []string
			for _, b := range drain(t, jg.Batches()) {
				for _, v := range b.Verdicts {
					delivered = append(delivered, v.ItemID)
				}
			}
			jg.Stop()
			jg.Prioritize("i0099") // after the end: nothing to do, no harm

			if got := strings.Join(oj.order[:4], " "); got != tc.want {
				t.Errorf("judged first %s, want %s", got, tc.want)
			}
			// Completion order is start order with one call at a time.
			if strings.Join(delivered, " ") != strings.Join(oj.order, " ") || len(delivered) != 100 {
				t.Errorf("delivered %d verdicts in another order than judged", len(delivered))
			}
			if got, _ := s.Verdicts(run.ID); len(got) != 100 {
				t.Errorf("%d verdicts stored, want 100", len(got))
			}
		})
	}
}

// The last batch, and Summary after the end, say why a run stopped before
// its end, in full; a run that stopped with nothing judged still sends it.
func TestJudgingStopped(t *testing.T) {
	fatal := errors.New("the server refused the API key (HTTP 401: Incorrect API key provided): set the right key with --api-key or OPENAI_API_KEY")
	for _, tc := range []struct {
		name string
		free int
		// end ends the run once the free tasks are answered.
		end         func(jg *Judging, cancel context.CancelCauseFunc)
		wantStopped error
	}{
		{"every task judged", 30, func(*Judging, context.CancelCauseFunc) {}, nil},
		{"a fatal error", 12, func(_ *Judging, cancel context.CancelCauseFunc) { cancel(fatal) }, fatal},
		{"a fatal error before any verdict", 0, func(_ *Judging, cancel context.CancelCauseFunc) { cancel(fatal) }, fatal},
		{"Stop", 12, func(jg *Judging, _ context.CancelCauseFunc) { jg.Stop() }, nil},
		{"cancelled without a cause", 12, func(_ *Judging, cancel context.CancelCauseFunc) { cancel(nil) }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, run, tasks := judgingSession(t, 30)
			fj := &fakeJudge{free: tc.free, answered: make(chan struct{}, 30)}
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			jg := StartJudging(ctx, s, run, fj, tasks, judge.PoolOptions{Concurrency: 3})
			for range tc.free {
				<-fj.answered
			}
			tc.end(jg, cancel)
			batches := drain(t, jg.Batches())
			<-jg.Done()

			if len(batches) == 0 {
				t.Fatal("no batch: the final counts were never sent")
			}
			last, sum := batches[len(batches)-1], jg.Summary()
			for name, b := range map[string]Batch{"last batch": last, "Summary": sum} {
				if b.Stopped != tc.wantStopped || b.Done != tc.free || b.Total != 30 || b.Retries != retriesOf(fj.got()) {
					t.Errorf("%s: stopped %v, done %d of %d, retries %d; want stopped %v, done %d of 30, retries %d",
						name, b.Stopped, b.Done, b.Total, b.Retries, tc.wantStopped, tc.free, retriesOf(fj.got()))
				}
			}
			for _, b := range batches[:len(batches)-1] {
				if b.Stopped != nil {
					t.Errorf("a batch before the last says the run stopped: %v", b.Stopped)
				}
			}
			if tc.wantStopped != nil && last.Stopped.Error() != fatal.Error() {
				t.Errorf("Stopped = %q, want the whole advice %q", last.Stopped, fatal)
			}
		})
	}
}

func retriesOf(vs []judge.Verdict) int {
	n := 0
	for _, v := range vs {
		n += v.Retries
	}
	return n
}
