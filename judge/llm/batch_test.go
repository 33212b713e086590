package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// memBatchStore is BatchStore in memory, writing answers into the
// client's cache as the session does.
type memBatchStore struct {
	mu     sync.Mutex
	chunks []BatchChunk
	keys   map[string]string // request key → chunk
	cache  *mapCache
}

func newMemBatchStore(cache *mapCache) *memBatchStore {
	return &memBatchStore{keys: map[string]string{}, cache: cache}
}

func (s *memBatchStore) BatchChunks() ([]BatchChunk, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.chunks), nil
}

func (s *memBatchStore) PlanBatchChunks(chunks []BatchChunk, keys [][]string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, c := range chunks {
		s.chunks = append(s.chunks, c)
		for _, k := range keys[i] {
			if _, dup := s.keys[k]; dup {
				return fmt.Errorf("key %s planned twice", k)
			}
			s.keys[k] = c.Key
		}
	}
	return nil
}

func (s *memBatchStore) BatchChunkOf(keys []string) (map[string]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	for _, k := range keys {
		if c, ok := s.keys[k]; ok {
			out[k] = c
		}
	}
	return out, nil
}

func (s *memBatchStore) BatchChunkKeys(chunk string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for k, c := range s.keys {
		if c == chunk {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out, nil
}

func (s *memBatchStore) UpdateBatchChunk(c BatchChunk) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.chunks {
		if s.chunks[i].Key == c.Key {
			s.chunks[i] = c
			return nil
		}
	}
	return fmt.Errorf("no chunk %s", c.Key)
}

func (s *memBatchStore) ReleaseBatchChunk(chunk string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	maps.DeleteFunc(s.keys, func(_, c string) bool { return c == chunk })
	return nil
}

func (s *memBatchStore) BatchAnswered(keys []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, k := range keys {
		if _, ok := s.cache.Get(k); ok {
			out[k] = true
		}
	}
	return out, nil
}

func (s *memBatchStore) SaveBatchAnswers(answers map[string]string) error {
	for k, v := range answers {
		s.cache.Put(k, v)
	}
	return nil
}

// jumpClock times the polling: every wait ends at once, moving the time
// on, and the waits are recorded.
type jumpClock struct {
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
}

func (c *jumpClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *jumpClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.waits = append(c.waits, d)
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

// batchRig is one session's view of a batch server: its cache and store
// outlive each "process" (a client and judge made by judge()).
type batchRig struct {
	t     *testing.T
	srv   *batchServer
	cache *mapCache
	store *memBatchStore
	clock *jumpClock
}

func newBatchRig(t *testing.T) *batchRig {
	cache := newMapCache()
	return &batchRig{t: t, srv: newBatchServer(t), cache: cache, store: newMemBatchStore(cache), clock: &jumpClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}}
}

func (r *batchRig) config() Config {
	return Config{
		BaseURL:     r.srv.baseURL(),
		APIKey:      testKey,
		Model:       "gpt-4o-mini",
		Concurrency: 2,
		Timeout:     10 * time.Second,
		Retry:       RetryPolicy{Attempts: 4, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond},
	}
}

// judge starts a "process": a new client on the session's cache.
func (r *batchRig) judge(name string, edit func(*Config)) *Judge {
	cfg := r.config()
	cfg.Cache = r.cache
	if edit != nil {
		edit(&cfg)
	}
	return mustJudge(r.t, name, cfg)
}

func (r *batchRig) options() BatchOptions {
	return BatchOptions{Store: r.store, Session: "session-1", PollMin: 30 * time.Second, PollMax: 4 * time.Minute, clock: r.clock}
}

func batchTasks(j *Judge, n int) []judge.Task {
	var tasks []judge.Task
	for i := range n {
		it := testItem(fmt.Sprintf("item-%02d", i))
		it.Prediction = fmt.Sprintf("Prediction %d: NASA, in %d.", i, 1980+i)
		tasks = append(tasks, judge.Tasks(j.Info(), it)...)
	}
	return tasks
}

// comparable is a verdict without what differs between two runs of the
// same answers: timing, and where the answer came from.
func comparable(v judge.Verdict) judge.Verdict {
	v.Latency, v.At = 0, time.Time{}
	if v.Extra != nil {
		v.Extra = maps.Clone(v.Extra)
		delete(v.Extra, ExtraCached)
		delete(v.Extra, ExtraBatch)
		if len(v.Extra) == 0 {
			v.Extra = nil
		}
	}
	return v
}

// verdictText is a verdict's every field, pointers followed.
func verdictText(v judge.Verdict) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	conf := "nil"
	if v.Confidence != nil {
		conf = fmt.Sprint(*v.Confidence)
	}
	return string(b) + " confidence " + conf
}

func byTask(vs []judge.Verdict) map[string]judge.Verdict {
	out := map[string]judge.Verdict{}
	for _, v := range vs {
		out[fmt.Sprintf("%s/%d/%t", v.ItemID, v.Criterion, v.Swapped)] = comparable(v)
	}
	return out
}

// judgeReady makes the verdicts of the report's Ready tasks, checking
// that no request goes out for them.
func (r *batchRig) judgeReady(j *Judge, rep BatchReport) []judge.Verdict {
	r.t.Helper()
	before := r.srv.count("chat")
	vs := runAll(r.t, context.Background(), rep.Judge(j), rep.Ready, 2)
	if n := r.srv.count("chat") - before; n != 0 {
		r.t.Errorf("judging the answered tasks sent %d requests", n)
	}
	return vs
}

func TestBatchVerdictsEqualOnline(t *testing.T) {
	cases := []struct {
		name    string
		judge   string
		samples int
		edit    func(*Config)
	}{
		{"docqa", "docqa", 1, nil},
		{"rubric per criterion", "rubric", 1, nil},
		{"three samples", "docqa", 3, nil},
		{"temperature 0.7, max tokens", "docqa", 1, func(c *Config) { c.Temperature, c.MaxTokens = 0.7, 300 }},
		{"reasoning model", "docqa", 1, func(c *Config) { c.Model, c.MaxTokens = "o3-mini", 500 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newBatchRig(t)
			edit := func(c *Config) {
				c.Samples = tc.samples
				if tc.edit != nil {
					tc.edit(c)
				}
			}
			// Online: a client without the session's cache.
			cfg := r.config()
			edit(&cfg)
			online := mustJudge(t, tc.judge, cfg)
			tasks := batchTasks(online, 7)
			want := byTask(runAll(t, context.Background(), online, tasks, 2))
			onlineBodies := slices.Clone(r.srv.online)

			j := r.judge(tc.judge, edit)
			o := r.options()
			o.MaxRequests = 4
			rep, err := j.RunBatch(context.Background(), tasks, o)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Ready) != len(tasks) || len(rep.Online)+len(rep.Left) != 0 {
				t.Fatalf("ready %d online %d left %d, want all %d ready", len(rep.Ready), len(rep.Online), len(rep.Left), len(tasks))
			}
			requests := len(onlineBodies)
			if wantBatches := (requests + 3) / 4; rep.Created != wantBatches {
				t.Errorf("created %d batches for %d requests at 4 a batch, want %d", rep.Created, requests, wantBatches)
			}
			// The batch lines are the online bodies, byte for byte.
			var lines []string
			for _, b := range r.srv.lines {
				lines = append(lines, b)
			}
			slices.Sort(lines)
			slices.Sort(onlineBodies)
			if !slices.Equal(lines, onlineBodies) {
				t.Errorf("batch bodies differ from the online ones:\nbatch  %q\nonline %q", lines, onlineBodies)
			}
			got := byTask(r.judgeReady(j, rep))
			if len(got) != len(want) {
				t.Fatalf("%d verdicts, want %d", len(got), len(want))
			}
			for k, w := range want {
				if g := got[k]; verdictText(g) != verdictText(w) {
					t.Errorf("%s:\nbatch  %s\nonline %s", k, verdictText(g), verdictText(w))
				}
			}
			for _, v := range r.judgeReady(j, rep) {
				if v.Extra[ExtraBatch] != true || v.Extra[ExtraCached] != nil {
					t.Errorf("%s: extra %v, want batch and not cached", v.ItemID, v.Extra)
				}
			}
			assertNoKey(t, r.judgeReady(j, rep)...)
		})
	}
}

// TestBatchBodyTemperatureZero: go-openai leaves a zero temperature out;
// a batch line must carry it, as the online path's doer puts it back.
func TestBatchBodyTemperatureZero(t *testing.T) {
	r := newBatchRig(t)
	j := r.judge("docqa", nil)
	calls, err := j.batchCalls(batchTasks(j, 1)[0])
	if err != nil {
		t.Fatal(err)
	}
	b, err := j.client.batchBody(calls[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), `{"temperature":0,"model":"gpt-4o-mini"`) {
		t.Errorf("body %s", b)
	}
}

func TestBatchCrashAndRestart(t *testing.T) {
	for _, point := range []string{"planned", "uploaded", "file saved", "created", "polled"} {
		t.Run(point, func(t *testing.T) {
			r := newBatchRig(t)
			j := r.judge("docqa", nil)
			tasks := batchTasks(j, 9)
			o := r.options()
			o.MaxRequests = 4
			killed := errors.New("killed")
			hits := 0
			o.crash = func(p string) error {
				if p == point {
					hits++
					// The second chunk's, or the one planning's.
					if hits == 2 || point == "planned" {
						return killed
					}
				}
				return nil
			}
			if _, err := j.RunBatch(context.Background(), tasks, o); !errors.Is(err, killed) {
				t.Fatalf("err = %v, want the kill", err)
			}
			// A new process on the same session.
			j2 := r.judge("docqa", nil)
			o2 := r.options()
			o2.MaxRequests = 4
			rep, err := j2.RunBatch(context.Background(), tasks, o2)
			if err != nil {
				t.Fatal(err)
			}
			if n := r.srv.maxCreates(); n != 1 {
				t.Errorf("a chunk was submitted %d times", n)
			}
			if len(r.srv.creates) != 3 {
				t.Errorf("%d chunks created, want 3 (9 requests, 4 a batch)", len(r.srv.creates))
			}
			if len(rep.Ready) != len(tasks) {
				t.Errorf("ready %d of %d (online %d, left %d)", len(rep.Ready), len(tasks), len(rep.Online), len(rep.Left))
			}
			if n := r.srv.count("chat"); n != 0 {
				t.Errorf("%d online requests", n)
			}
			for _, ch := range rep.Chunks {
				if !ch.Finished || ch.Answered != ch.Requests {
					t.Errorf("chunk %+v", ch)
				}
			}
			// A third run sends nothing at all.
			before := len(r.srv.log)
			rep, err = r.judge("docqa", nil).RunBatch(context.Background(), tasks, r.options())
			if err != nil || len(rep.Ready) != len(tasks) || rep.Created != 0 {
				t.Fatalf("third run: %v, %d ready, %d created", err, len(rep.Ready), rep.Created)
			}
			for _, route := range r.srv.log[before:] {
				if route != "list" {
					t.Errorf("third run sent %s", route)
				}
			}
		})
	}
}

func TestBatchServerFaults(t *testing.T) {
	cases := []struct {
		name  string
		fault func(bs *batchServer)
	}{
		{"500s everywhere once", func(bs *batchServer) {
			for _, r := range []string{"list", "create", "retrieve", "upload", "content"} {
				bs.fail500[r] = 1
			}
		}},
		{"500s twice in a row", func(bs *batchServer) { bs.fail500["retrieve"], bs.fail500["content"] = 2, 2 }},
		{"a create answered 500 after making the batch", func(bs *batchServer) { bs.lostCreates = 1 }},
		{"two creates lost", func(bs *batchServer) { bs.lostCreates = 2 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newBatchRig(t)
			tc.fault(r.srv)
			j := r.judge("docqa", nil)
			tasks := batchTasks(j, 6)
			o := r.options()
			o.MaxRequests = 3
			rep, err := j.RunBatch(context.Background(), tasks, o)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Ready) != len(tasks) {
				t.Errorf("ready %d of %d", len(rep.Ready), len(tasks))
			}
			if n := r.srv.maxCreates(); n != 1 {
				t.Errorf("a chunk was submitted %d times", n)
			}
			if len(r.srv.batches) != 2 {
				t.Errorf("%d batches, want 2", len(r.srv.batches))
			}
		})
	}
}

// TestBatchListPages: the batch a crash left unsaved is found on a later
// page of the server's list, among other sessions' batches; a list read
// newest first stops once past the chunk's planning time, one in another
// order is read to its end.
func TestBatchListPages(t *testing.T) {
	for _, oldestFirst := range []bool{false, true} {
		t.Run(fmt.Sprint("oldest first ", oldestFirst), func(t *testing.T) {
			r := newBatchRig(t)
			j := r.judge("docqa", nil)
			tasks := batchTasks(j, 3)
			o := r.options()
			killed := errors.New("killed")
			o.crash = func(p string) error {
				if p == "created" {
					return killed
				}
				return nil
			}
			if _, err := j.RunBatch(context.Background(), tasks, o); !errors.Is(err, killed) {
				t.Fatal(err)
			}
			// 250 newer batches of another session (some without
			// markers), and 1,000 from a year ago.
			r.srv.mu.Lock()
			now := time.Now().Unix()
			for i := range 1250 {
				meta := map[string]any{BatchMetaSession: "another", BatchMetaChunk: fmt.Sprint(i)}
				if i%2 == 0 {
					meta = nil
				}
				created := now + 1000 + int64(i)
				if i >= 250 {
					created = now - 365*86400 + int64(i)
				}
				r.srv.batches = append(r.srv.batches, &fakeBatch{id: fmt.Sprintf("batch-other-%d", i), status: "completed", created: created, meta: meta})
			}
			r.srv.oldestFirst = oldestFirst
			r.srv.mu.Unlock()
			lists := r.srv.count("list")
			rep, err := r.judge("docqa", nil).RunBatch(context.Background(), tasks, r.options())
			if err != nil {
				t.Fatal(err)
			}
			if n := r.srv.maxCreates(); n != 1 || rep.Created != 0 || len(rep.Ready) != len(tasks) {
				t.Errorf("creates %d, created %d, ready %d", n, rep.Created, len(rep.Ready))
			}
			// Newest first: 3 pages of 100 reach it; oldest first, the
			// year-old ones do not end the search: page 11 holds it.
			want := 3
			if oldestFirst {
				want = 11
			}
			if n := r.srv.count("list") - lists; n != want {
				t.Errorf("%d looks at the list, want %d", n, want)
			}
		})
	}
}

func TestBatchExpiredHalfDone(t *testing.T) {
	for _, end := range []string{"expired", "cancelled"} {
		t.Run(end, func(t *testing.T) {
			r := newBatchRig(t)
			r.srv.ending, r.srv.answered = end, 0.5
			j := r.judge("docqa", nil)
			tasks := batchTasks(j, 8)
			rep, err := j.RunBatch(context.Background(), tasks, r.options())
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Ready) != 4 || len(rep.Left) != 4 || len(rep.Online) != 0 {
				t.Fatalf("ready %d left %d online %d, want 4 4 0", len(rep.Ready), len(rep.Left), len(rep.Online))
			}
			if rep.Errors["batch_"+strings.TrimSuffix(end, "d")+"ed: This request could not be executed before the completion window expired."] != 4 && len(rep.Errors) != 1 {
				t.Errorf("errors %v", rep.Errors)
			}
			if rep.Chunks[0].Answered != 4 || rep.Chunks[0].Failed != 4 || rep.Chunks[0].Status != end {
				t.Errorf("chunk %+v", rep.Chunks[0])
			}
			// The next run: the rest falls back to ordinary requests, no new batch.
			r.srv.ending, r.srv.answered = "", 1
			j2 := r.judge("docqa", nil)
			rep2, err := j2.RunBatch(context.Background(), tasks, r.options())
			if err != nil {
				t.Fatal(err)
			}
			if rep2.Created != 0 || len(rep2.Ready) != 4 || len(rep2.Online) != 4 {
				t.Fatalf("second run: created %d ready %d online %d", rep2.Created, len(rep2.Ready), len(rep2.Online))
			}
			ready := byTask(runAll(t, context.Background(), rep2.Judge(j2), rep2.Ready, 2))
			on := byTask(runAll(t, context.Background(), j2, rep2.Online, 2))
			if n := r.srv.count("chat"); n != 4 {
				t.Errorf("%d online requests, want 4", n)
			}
			// Every verdict equals a fully online run's.
			fresh := r.config()
			want := byTask(runAll(t, context.Background(), mustJudge(t, "docqa", fresh), tasks, 2))
			maps.Copy(ready, on)
			for k, w := range want {
				if g := ready[k]; verdictText(g) != verdictText(w) {
					t.Errorf("%s:\ngot  %s\nwant %s", k, verdictText(g), verdictText(w))
				}
			}
		})
	}
}

// TestBatchRefusedRequests: requests the batch answered with an error
// fall back to ordinary requests on the next run; their errors are
// reported redacted.
func TestBatchRefusedRequests(t *testing.T) {
	r := newBatchRig(t)
	j := r.judge("docqa", nil)
	tasks := batchTasks(j, 4)
	plan, _ := j.batchPlan(tasks)
	r.srv.refuse = map[string]int{plan.keys[1][0]: 400}
	rep, err := j.RunBatch(context.Background(), tasks, r.options())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Ready) != 3 || len(rep.Left) != 1 || rep.Left[0].Item.ID != tasks[1].Item.ID {
		t.Fatalf("ready %d left %v", len(rep.Ready), rep.Left)
	}
	for msg := range rep.Errors {
		if strings.Contains(msg, testKey) || !strings.Contains(msg, "HTTP 400") {
			t.Errorf("error %q", msg)
		}
	}
	rep, err = r.judge("docqa", nil).RunBatch(context.Background(), tasks, r.options())
	if err != nil || len(rep.Online) != 1 || rep.Created != 0 {
		t.Fatalf("next run: %v, online %d, created %d", err, len(rep.Online), rep.Created)
	}
}

// TestBatchFailedValidation: a batch that fails as a whole ran nothing;
// its requests go in a new batch on the next run.
func TestBatchFailedValidation(t *testing.T) {
	r := newBatchRig(t)
	r.srv.failWith = "Enqueued token limit reached for gpt-4o-mini."
	j := r.judge("docqa", nil)
	tasks := batchTasks(j, 3)
	rep, err := j.RunBatch(context.Background(), tasks, r.options())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Left) != 3 || len(rep.Errors) != 1 {
		t.Fatalf("left %d errors %v", len(rep.Left), rep.Errors)
	}
	for msg := range rep.Errors {
		if !strings.Contains(msg, "Enqueued token limit") {
			t.Errorf("error %q", msg)
		}
	}
	r.srv.failWith = ""
	rep, err = r.judge("docqa", nil).RunBatch(context.Background(), tasks, r.options())
	if err != nil || rep.Created != 1 || len(rep.Ready) != 3 {
		t.Fatalf("next run: %v, created %d, ready %d", err, rep.Created, len(rep.Ready))
	}
}

func TestBatchNoBatchAPI(t *testing.T) {
	r := newBatchRig(t)
	r.srv.noBatchAPI = true
	j := r.judge("docqa", nil)
	_, err := j.RunBatch(context.Background(), batchTasks(j, 2), r.options())
	if !errors.Is(err, ErrNoBatchAPI) || !strings.Contains(err.Error(), "run without --batch") || !strings.Contains(err.Error(), "404") {
		t.Fatalf("err = %v", err)
	}
	if len(r.store.chunks) != 0 {
		t.Errorf("chunks recorded: %v", r.store.chunks)
	}
	if n := r.srv.count("upload") + r.srv.count("create"); n != 0 {
		t.Errorf("%d uploads and creates", n)
	}
}

// TestBatchPollBackoff: the waits between looks double from PollMin up
// to PollMax.
func TestBatchPollBackoff(t *testing.T) {
	r := newBatchRig(t)
	j := r.judge("docqa", nil)
	// A batch takes 4 looks to end (validating, in progress, half done,
	// finalizing), so 3 waits.
	o := r.options()
	o.PollMin, o.PollMax = 10*time.Second, 25*time.Second
	var lines []string
	o.Notify = func(l string) { lines = append(lines, l) }
	if _, err := j.RunBatch(context.Background(), batchTasks(j, 2), o); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasSuffix(l, ": 1 of 2 requests done, 0 failed.") }) {
		t.Errorf("no progress line while in progress: %q", lines)
	}
	want := []time.Duration{10 * time.Second, 20 * time.Second, 25 * time.Second}
	if !slices.Equal(r.clock.waits, want) {
		t.Errorf("waits %v, want %v", r.clock.waits, want)
	}
	r2 := newBatchRig(t)
	r2.srv.fail500["retrieve"] = 3 // the server down for a moment
	j2 := r2.judge("docqa", func(c *Config) { c.Retry.Attempts = 1 })
	o = r2.options()
	o.PollMin, o.PollMax = 10*time.Second, 25*time.Second
	if _, err := j2.RunBatch(context.Background(), batchTasks(j2, 2), o); err != nil {
		t.Fatal(err)
	}
	want = []time.Duration{10 * time.Second, 20 * time.Second, 25 * time.Second, 25 * time.Second, 25 * time.Second, 25 * time.Second}
	if !slices.Equal(r2.clock.waits, want) {
		t.Errorf("waits %v, want %v", r2.clock.waits, want)
	}
}

// TestBatchServerGone: polling gives up once the server has not answered
// for the client's Wait; the batches are resumed by the next run.
func TestBatchServerGone(t *testing.T) {
	r := newBatchRig(t)
	j := r.judge("docqa", func(c *Config) { c.Wait, c.Retry.Attempts = time.Minute, 1 })
	tasks := batchTasks(j, 2)
	r.srv.fail500["retrieve"] = 1000
	o := r.options()
	o.PollMin, o.PollMax = 10*time.Second, 20*time.Second
	_, err := j.RunBatch(context.Background(), tasks, o)
	if err == nil || !strings.Contains(err.Error(), "run the same command again") {
		t.Fatalf("err = %v", err)
	}
	// It gave up a minute after the first failed look: 10 s, 20 s, 20 s, 20 s.
	if got := r.clock.waits; len(got) != 4 {
		t.Errorf("waits %v", got)
	}
	r.srv.fail500["retrieve"] = 0
	rep, err := r.judge("docqa", nil).RunBatch(context.Background(), tasks, r.options())
	if err != nil || rep.Created != 0 || len(rep.Ready) != 2 {
		t.Fatalf("resumed: %v, created %d, ready %d", err, rep.Created, len(rep.Ready))
	}
}

// TestBatchLongWaitIsNoOutage: one failed look after a wait longer than
// the client's Wait does not end the polling; the next look answers.
func TestBatchLongWaitIsNoOutage(t *testing.T) {
	r := newBatchRig(t)
	j := r.judge("docqa", func(c *Config) { c.Wait, c.Retry.Attempts = time.Minute, 1 })
	o := r.options()
	o.PollMin, o.PollMax = 5*time.Minute, 5*time.Minute
	var fails sync.Once
	o.crash = func(p string) error {
		if p == "polled" {
			fails.Do(func() {
				r.srv.mu.Lock()
				r.srv.fail500["retrieve"] = 1
				r.srv.mu.Unlock()
			})
		}
		return nil
	}
	rep, err := j.RunBatch(context.Background(), batchTasks(j, 2), o)
	if err != nil || len(rep.Ready) != 2 {
		t.Fatalf("%v, ready %d", err, len(rep.Ready))
	}
}

// TestBatchInterrupted: a cancelled context stops the polling; the next
// run follows the same batch.
func TestBatchInterrupted(t *testing.T) {
	r := newBatchRig(t)
	j := r.judge("docqa", nil)
	tasks := batchTasks(j, 2)
	ctx, cancel := context.WithCancel(context.Background())
	o := r.options()
	o.crash = func(p string) error {
		if p == "polled" {
			cancel()
		}
		return nil
	}
	if _, err := j.RunBatch(ctx, tasks, o); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	rep, err := r.judge("docqa", nil).RunBatch(context.Background(), tasks, r.options())
	if err != nil || rep.Created != 0 || len(rep.Ready) != 2 || r.srv.maxCreates() != 1 {
		t.Fatalf("resumed: %v, created %d, ready %d", err, rep.Created, len(rep.Ready))
	}
}

// TestBatchDuplicatePrompts: two tasks with the same prompt make one
// request (custom_ids are unique within a file) and both are answered.
func TestBatchDuplicatePrompts(t *testing.T) {
	r := newBatchRig(t)
	j := r.judge("docqa", nil)
	tasks := batchTasks(j, 2)
	twin := tasks[0]
	twin.Item.ID = "twin"
	tasks = append(tasks, twin)
	rep, err := j.RunBatch(context.Background(), tasks, r.options())
	if err != nil || len(rep.Ready) != 3 {
		t.Fatalf("%v, ready %d", err, len(rep.Ready))
	}
	if len(r.srv.lines) != 2 {
		t.Errorf("%d lines, want 2", len(r.srv.lines))
	}
}

func FuzzBatchResult(f *testing.F) {
	f.Add([]byte(`{"id":"batch_req_1","custom_id":"llm2:ab","response":{"status_code":200,"request_id":"r","body":{"choices":[{"index":0,"message":{"role":"assistant","content":"result: YES"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}},"error":null}`))
	f.Add([]byte(`{"custom_id":"x","response":null,"error":{"code":"batch_expired","message":"m"}}`))
	f.Add([]byte(`{"custom_id":"x","response":{"status_code":400,"body":{"error":{"message":"bad"}}}}`))
	f.Add([]byte(`{"custom_id":"x","response":{"status_code":200,"body":{"choices":[]}}}`))
	f.Add([]byte(`not json`))
	c, err := NewClient(Config{Model: "m", APIKey: testKey})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		key, value, problem := c.batchResult(line)
		if (value == "") == (problem == "") {
			t.Fatalf("value %q and problem %q: exactly one expected", value, problem)
		}
		if strings.Contains(value, testKey) || strings.Contains(problem, testKey) {
			t.Fatalf("the key leaked: %q %q", value, problem)
		}
		if value != "" {
			if _, ok := decodeCached(value); !ok {
				t.Fatalf("value %q does not decode", value)
			}
		}
		_ = key
	})
}

// TestBatchLimits: chunks stay within the request and byte limits, and
// every request goes in exactly one.
func TestBatchLimits(t *testing.T) {
	for _, tc := range []struct {
		requests int
		bytes    int64
	}{{5, 1 << 30}, {1000, 9000}, {3, 9000}} {
		t.Run(fmt.Sprint(tc.requests, " ", tc.bytes), func(t *testing.T) {
			r := newBatchRig(t)
			j := r.judge("docqa", func(c *Config) { c.Samples = 2 })
			tasks := batchTasks(j, 11)
			o := r.options()
			o.MaxRequests, o.MaxBytes = tc.requests, tc.bytes
			rep, err := j.RunBatch(context.Background(), tasks, o)
			if err != nil || len(rep.Ready) != len(tasks) {
				t.Fatalf("%v, ready %d", err, len(rep.Ready))
			}
			total, size := 0, int64(0)
			for _, b := range r.srv.batches {
				data := r.srv.files[b.input]
				size += int64(len(data))
				n := strings.Count(string(data), "\n")
				if n > tc.requests || int64(len(data)) > tc.bytes || n == 0 {
					t.Errorf("batch %s: %d requests, %d bytes", b.id, n, len(data))
				}
				total += n
			}
			if total != 22 || len(r.srv.lines) != 22 {
				t.Errorf("%d lines in all, %d distinct; want 22 (11 tasks × 2 samples)", total, len(r.srv.lines))
			}
			var planned int64
			for _, ch := range rep.Chunks {
				planned += ch.Bytes
			}
			if planned != size {
				t.Errorf("chunks planned with %d bytes, files of %d", planned, size)
			}
			if len(rep.Chunks) < 2 && tc.requests < 22 {
				t.Errorf("%d chunks", len(rep.Chunks))
			}
		})
	}
}

// TestBatchFileGone: a file an earlier run uploaded, deleted before its
// batch was created, is uploaded again; one kept is used as it is.
func TestBatchFileGone(t *testing.T) {
	for _, gone := range []bool{false, true} {
		t.Run(fmt.Sprint("gone ", gone), func(t *testing.T) {
			r := newBatchRig(t)
			j := r.judge("docqa", nil)
			tasks := batchTasks(j, 3)
			o := r.options()
			killed := errors.New("killed")
			o.crash = func(p string) error {
				if p == "file saved" {
					return killed
				}
				return nil
			}
			if _, err := j.RunBatch(context.Background(), tasks, o); !errors.Is(err, killed) {
				t.Fatal(err)
			}
			if gone {
				r.srv.mu.Lock()
				clear(r.srv.files)
				r.srv.mu.Unlock()
			}
			rep, err := r.judge("docqa", nil).RunBatch(context.Background(), tasks, r.options())
			if err != nil || len(rep.Ready) != 3 {
				t.Fatalf("%v, ready %d", err, len(rep.Ready))
			}
			want := 1
			if gone {
				want = 2
			}
			if n := r.srv.count("upload"); n != want {
				t.Errorf("%d uploads, want %d", n, want)
			}
			if len(r.srv.batches) != 1 {
				t.Errorf("%d batches", len(r.srv.batches))
			}
		})
	}
}

// FuzzReadLines: result files are read as their non-blank lines, each
// trimmed, whatever their length against the reader's buffer.
func FuzzReadLines(f *testing.F) {
	f.Add([]byte("a\nb\r\n\n  c  \n"), 1)
	f.Add([]byte("no end"), 70000)
	f.Fuzz(func(t *testing.T, data []byte, long int) {
		if long > 0 && long < 1<<20 {
			data = append(bytes.Repeat([]byte("x"), long), data...)
		}
		var want []string
		for _, l := range bytes.Split(data, []byte("\n")) {
			if l = bytes.TrimSpace(l); len(l) > 0 {
				want = append(want, string(l))
			}
		}
		var got []string
		if err := readLines(bytes.NewReader(data), func(l []byte) error {
			got = append(got, string(l))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("got %d lines, want %d", len(got), len(want))
		}
	})
}

// TestBatchSpend: what a batch run will pay for, before it runs, matches
// what it then does.
func TestBatchSpend(t *testing.T) {
	r := newBatchRig(t)
	r.srv.ending, r.srv.answered = "expired", 0.5
	j := r.judge("docqa", nil)
	tasks := batchTasks(j, 8)
	toBatch, online, err := j.BatchSpend(tasks, r.store)
	if err != nil || len(toBatch) != 8 || len(online) != 0 {
		t.Fatalf("first: %v, %d to batch, %d online", err, len(toBatch), len(online))
	}
	if _, err := j.RunBatch(context.Background(), tasks, r.options()); err != nil {
		t.Fatal(err)
	}
	// Half answered, half left by the expired batch: those go online.
	more := batchTasks(j, 10)[8:]
	all := append(slices.Clone(tasks), more...)
	toBatch, online, err = j.BatchSpend(all, r.store)
	if err != nil || len(toBatch) != 2 || len(online) != 4 {
		t.Fatalf("second: %v, %d to batch, %d online; want 2 and 4", err, len(toBatch), len(online))
	}
	rep, err := r.judge("docqa", nil).RunBatch(context.Background(), all, r.options())
	if err != nil || len(rep.Online) != len(online) || rep.Created != 1 {
		t.Fatalf("run: %v, %d online, %d created", err, len(rep.Online), rep.Created)
	}
	// A batch still running costs nothing more.
	r2 := newBatchRig(t)
	j2 := r2.judge("docqa", nil)
	ctx, cancel := context.WithCancel(context.Background())
	o := r2.options()
	o.crash = func(p string) error {
		if p == "polled" {
			cancel()
		}
		return nil
	}
	if _, err := j2.RunBatch(ctx, tasks, o); err == nil {
		t.Fatal("not interrupted")
	}
	if toBatch, online, err := j2.BatchSpend(tasks, r2.store); err != nil || len(toBatch)+len(online) != 0 {
		t.Errorf("running batch: %v, %d to batch, %d online", err, len(toBatch), len(online))
	}
	// A chunk recorded by a run killed before its batch was made goes now.
	r3 := newBatchRig(t)
	j3 := r3.judge("docqa", nil)
	o = r3.options()
	o.crash = func(p string) error {
		if p == "planned" {
			return errors.New("killed")
		}
		return nil
	}
	if _, err := j3.RunBatch(context.Background(), tasks, o); err == nil {
		t.Fatal("not killed")
	}
	if toBatch, _, err := j3.BatchSpend(tasks, r3.store); err != nil || len(toBatch) != len(tasks) {
		t.Errorf("unsent chunk: %v, %d to batch, want %d", err, len(toBatch), len(tasks))
	}
}

// TestBatchCreateRefused: a batch the server refuses to create (a 4xx)
// was never made: the run stops saying so, the chunk ends failed, and
// its requests go again (here in a new batch once the server takes it).
func TestBatchCreateRefused(t *testing.T) {
	for _, route := range []string{"create", "upload"} {
		t.Run(route, func(t *testing.T) {
			r := newBatchRig(t)
			msg := "The model gpt-4o-mini is not supported by the Batch API for this project."
			if route == "create" {
				r.srv.refuseCreate = msg
			} else {
				r.srv.refuseUpload = msg
			}
			j := r.judge("docqa", nil)
			tasks := batchTasks(j, 3)
			_, err := j.RunBatch(context.Background(), tasks, r.options())
			if err == nil || !strings.Contains(err.Error(), "not supported by the Batch API") || !strings.Contains(err.Error(), "run without --batch") {
				t.Fatalf("err = %v", err)
			}
			if len(r.store.chunks) != 1 || !r.store.chunks[0].Finished || r.store.chunks[0].Status != BatchFailed {
				t.Fatalf("chunks %+v", r.store.chunks)
			}
			if n := r.srv.count(route); n != 1 {
				t.Errorf("%d tries, want 1 (a 4xx is not retried)", n)
			}
			toBatch, _, err := j.BatchSpend(tasks, r.store)
			if err != nil || len(toBatch) != 3 {
				t.Fatalf("%v, %d to batch after the refusal", err, len(toBatch))
			}
			r.srv.refuseCreate, r.srv.refuseUpload = "", ""
			rep, err := r.judge("docqa", nil).RunBatch(context.Background(), tasks, r.options())
			if err != nil || rep.Created != 1 || len(rep.Ready) != 3 {
				t.Fatalf("%v, created %d, ready %d", err, rep.Created, len(rep.Ready))
			}
		})
	}
}
