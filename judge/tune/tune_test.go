package tune

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/llm"
)

// The scripted world: an item's human label is in its Gold ("1" YES,
// "0" NO). The server's judge says YES to everything unless the judge's
// instructions hold the phrase; with it, it says the label.
const phrase = "Check the gold answer."

var dim = judge.Dimension{Name: "correct", Scale: judge.Scale("binary")}

// server answers judge requests ({"instructions", "gold"} → "1" or "0")
// and counts every request; fail makes every fail-th request a 500.
type server struct {
	*httptest.Server
	hits atomic.Int64
	fail int64
}

func newServer(t *testing.T, fail int64) *server {
	s := &server{fail: fail}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := s.hits.Add(1)
		if s.fail > 0 && n%s.fail == 0 {
			http.Error(w, "scripted failure", http.StatusInternalServerError)
			return
		}
		var q struct{ Instructions, Gold string }
		if err := json.NewDecoder(r.Body).Decode(&q); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if strings.Contains(q.Instructions, phrase) {
			io.WriteString(w, q.Gold)
			return
		}
		io.WriteString(w, "1")
	}))
	t.Cleanup(s.Close)
	return s
}

// fakeJudge sends one request per task through rt, retrying 500s up to 3
// tries, with an answer cache shared by its Run and Probe twins, as the
// LLM client does.
type fakeJudge struct {
	instr string
	rt    http.RoundTripper
	url   string
	cache *sync.Map
}

func (f *fakeJudge) Info() judge.Info {
	return judge.Info{Name: "fake", Dimensions: []judge.Dimension{dim}}
}

func (f *fakeJudge) Judge(ctx context.Context, t judge.Task) judge.Verdict {
	key := f.instr + "\x00" + t.Item.ID
	ok := func(s string) judge.Verdict {
		x := 0.0
		if s == "1" {
			x = 1
		}
		return judge.Verdict{ItemID: t.Item.ID, Status: judge.StatusOK, Values: map[string]float64{dim.Name: x}}
	}
	if s, hit := f.cache.Load(key); hit {
		return ok(s.(string))
	}
	fail := func(msg string) judge.Verdict {
		return judge.Verdict{ItemID: t.Item.ID, Status: judge.StatusAPIError, Error: msg}
	}
	for range 3 {
		body, _ := json.Marshal(map[string]string{"instructions": f.instr, "gold": t.Item.Gold})
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.url, strings.NewReader(string(body)))
		resp, err := (&http.Client{Transport: f.rt}).Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return fail("cancelled")
			}
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusOK:
			f.cache.Store(key, string(b))
			return ok(string(b))
		case http.StatusInternalServerError:
			continue
		}
		return fail(resp.Status)
	}
	return fail("gave up")
}

// world builds a tuning's options against srv: n items per part, human
// labels alternating YES / NO, each part's texts marked with its name.
type world struct {
	srv     *server
	budget  *Budget
	cache   *sync.Map
	prompts []string
	mu      sync.Mutex
	// answer is what the proposer answers (phrase-bearing by default).
	answer string
}

const judgeFile = "name: fake\ninstructions: Say YES when the prediction is right.\n"

func (w *world) judges(instr string) Judges {
	return Judges{
		Run:   &fakeJudge{instr: instr, rt: w.budget.Transport(nil), url: w.srv.URL, cache: w.cache},
		Probe: &fakeJudge{instr: instr, rt: ProbeTransport(), url: w.srv.URL, cache: w.cache},
	}
}

// chat is a proposer's client over rt: the request goes through it (a
// proposal is a request too) unless its answer is cached.
func (w *world) chat(rt http.RoundTripper, record bool) Chat {
	return func(ctx context.Context, msgs []llm.Message) (string, error) {
		key := "chat\x00" + msgs[len(msgs)-1].Content
		if s, ok := w.cache.Load(key); ok {
			return s.(string), nil
		}
		if record {
			w.mu.Lock()
			for _, m := range msgs {
				w.prompts = append(w.prompts, m.Content)
			}
			w.mu.Unlock()
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, w.srv.URL, strings.NewReader(`{"instructions":"","gold":"1"}`))
		resp, err := (&http.Client{Transport: rt}).Do(req)
		if err != nil {
			return "", err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return "", errors.New(resp.Status)
		}
		w.cache.Store(key, w.answer)
		return w.answer, nil
	}
}

func part(name string, n int) []Labelled {
	out := make([]Labelled, n)
	for i := range out {
		label := float64(i % 2)
		out[i] = Labelled{
			Item: judge.Item{ID: fmt.Sprintf("%s-%02d", name, i), Question: "question of " + name + fmt.Sprint(i),
				Gold: fmt.Sprint(label), Prediction: "prediction of " + name},
			Label: label,
			Note:  "note of " + name,
		}
	}
	return out
}

func newWorld(t *testing.T, budget int, fail int64) (*world, Options) {
	w := &world{srv: newServer(t, fail), budget: NewBudget(budget), cache: &sync.Map{},
		answer: "Here you go.\n" + beginMarker + "\nSay YES when the prediction is right. " + phrase + "\n" + endMarker + "\n"}
	o := Options{
		File:        []byte(judgeFile),
		Original:    w.judges("Say YES when the prediction is right."),
		Dimension:   dim,
		Calibration: part("cal", 20),
		Validation:  part("val", 10),
		Evaluation:  part("eval", 30),
		Rounds:      3,
		Budget:      w.budget,
		Concurrency: 3,
		Build: func(file []byte) (Judges, error) {
			instr, err := Instructions(file)
			if err != nil {
				return Judges{}, err
			}
			return w.judges(instr), nil
		},
		Replace: func(file []byte, instr string) ([]byte, error) {
			return []byte("name: fake\ninstructions: " + strings.ReplaceAll(instr, "\n", " ") + "\n"), nil
		},
		Proposer: Proposer{Run: w.chat(w.budget.Transport(nil), true), Probe: w.chat(ProbeTransport(), false)},
	}
	return w, o
}

func TestTuneImprovesTheEvaluationPart(t *testing.T) {
	w, o := newWorld(t, 1000, 0)
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Best.Round != 1 {
		t.Fatalf("best is round %d, want 1 (problems: %v)", res.Best.Round, problems(res))
	}
	ev := res.Evaluation
	if ev == nil {
		t.Fatalf("no evaluation: %s", res.EvalSkipped)
	}
	// The original says YES to all: right on the 15 YES of 30.
	if ev.Original != (Score{Right: 15, N: 30}) || ev.Winner != (Score{Right: 30, N: 30}) {
		t.Errorf("evaluation original %+v winner %+v, want 15/30 then 30/30", ev.Original, ev.Winner)
	}
	if ev.OnlyWinner != 15 || ev.OnlyOriginal != 0 || ev.BothRight != 15 {
		t.Errorf("table %+v", ev)
	}
	if ev.P > 1e-4 {
		t.Errorf("McNemar p %g for 15 vs 0, want 2/2^15", ev.P)
	}
	// Original on calibration and validation (30) + round 1 (1 proposal,
	// 10 validation) + round 2: the winner's calibration (20) and then
	// nothing to learn + evaluation 2 × 30.
	if got, want := w.srv.hits.Load(), int64(30+11+20+60); got != want {
		t.Errorf("server hits %d, want %d", got, want)
	}
	if res.Stopped == "" || !strings.Contains(res.Stopped, "nothing to learn") {
		t.Errorf("stopped %q", res.Stopped)
	}
	if int64(w.budget.Used()) != w.srv.hits.Load() {
		t.Errorf("budget used %d, server hits %d", w.budget.Used(), w.srv.hits.Load())
	}
}

func problems(res *Result) []string {
	var out []string
	for _, c := range res.Candidates {
		out = append(out, c.Problem)
	}
	return out
}

// No proposal prompt ever holds an evaluation or validation item's text,
// label note or id.
func TestProposalsNeverSeeHeldOutItems(t *testing.T) {
	w, o := newWorld(t, 1000, 0)
	// Proposals that never help, so every round proposes.
	w.answer = beginMarker + "\nround instructions\n" + endMarker
	n := 0
	o.Replace = func(file []byte, instr string) ([]byte, error) {
		n++
		return fmt.Appendf(nil, "name: fake\ninstructions: %s %d\n", instr, n), nil
	}
	o.Rounds = 5
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.prompts) < 2*o.Rounds {
		t.Fatalf("%d prompt messages for %d rounds (stopped: %s)", len(w.prompts), o.Rounds, res.Stopped)
	}
	sawCal := false
	for _, p := range w.prompts {
		for _, bad := range []string{"eval", "val-", "of val", "note of val"} {
			if strings.Contains(p, bad) {
				t.Errorf("a proposal prompt holds %q:\n%s", bad, p)
			}
		}
		sawCal = sawCal || strings.Contains(p, "question of cal") && strings.Contains(p, "note of cal")
	}
	if !sawCal {
		t.Error("no prompt shows a calibration item and its note")
	}
}

// The budget is never passed, retries included, and what was done is
// kept when it runs out.
func TestBudgetIsNeverExceeded(t *testing.T) {
	for _, tc := range []struct {
		name   string
		budget int
		fail   int64
		err    bool
	}{
		{"too small to start", 50, 0, true},
		{"exactly one round", 30 + 11 + 60, 0, false},
		{"retries eat it", 30 + 11 + 60, 4, false},
		{"retries, roomy", 200, 3, false},
		{"every 2nd fails", 150, 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, o := newWorld(t, tc.budget, tc.fail)
			res, err := Run(context.Background(), o)
			if tc.err {
				var be *BudgetError
				if !errors.As(err, &be) || w.srv.hits.Load() != 0 {
					t.Fatalf("err %v, hits %d: want a BudgetError before any request", err, w.srv.hits.Load())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// Used may pass the hits by the requests in flight when a phase
			// ended (cancelled, perhaps before they left), never the other
			// way: the budget never undercounts.
			hits, used := w.srv.hits.Load(), int64(w.budget.Used())
			if hits > int64(tc.budget) || used > int64(tc.budget) || hits > used || used-hits > int64(o.Concurrency) {
				t.Errorf("server hits %d, budget %d, used %d (concurrency %d)", hits, tc.budget, used, o.Concurrency)
			}
			t.Logf("hits %d; stopped: %s; eval skipped: %s; eval %+v", w.srv.hits.Load(), res.Stopped, res.EvalSkipped, res.Evaluation)
			if res.Original().Validation.N != 10 && res.Stopped == "" {
				t.Errorf("original not scored and no reason")
			}
		})
	}
}

func TestInterruptKeepsWhatIsDone(t *testing.T) {
	w, o := newWorld(t, 1000, 0)
	ctx, cancel := context.WithCancel(context.Background())
	o.Events = func(e Event) {
		if e.Kind == Scored && e.Candidate.Round == 1 {
			cancel()
		}
	}
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.Best.Round != 1 || len(res.Candidates) != 2 || res.Evaluation != nil {
		t.Errorf("interrupted %v best %d candidates %d eval %v", res.Interrupted, res.Best.Round, len(res.Candidates), res.Evaluation)
	}
	_ = w
}

func TestBadProposals(t *testing.T) {
	for _, tc := range []struct{ answer, problem string }{
		{"no markers at all", "no instructions"},
		{beginMarker + "\nSay YES when the prediction is right.\n" + endMarker, "current instructions again"},
		{beginMarker + "\n```\n\n```\n" + endMarker, "no instructions"},
	} {
		w, o := newWorld(t, 1000, 0)
		w.answer = tc.answer
		o.Rounds = 1
		res, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Candidates) != 2 || !strings.Contains(res.Candidates[1].Problem, tc.problem) || res.Best.Round != 0 {
			t.Errorf("%q: problems %v, best %d", tc.answer, problems(res), res.Best.Round)
		}
		if res.Evaluation == nil || res.Evaluation.Original != res.Evaluation.Winner {
			t.Errorf("%q: the original alone is evaluated: %+v", tc.answer, res.Evaluation)
		}
	}
}

func TestOptionsCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"rounds", func(o *Options) { o.Rounds = 0 }, "--rounds"},
		{"budget", func(o *Options) { o.Budget = NewBudget(0) }, "--budget"},
		{"calibration", func(o *Options) { o.Calibration = nil }, "calibration part"},
		{"validation", func(o *Options) { o.Validation = nil }, "validation part"},
		{"evaluation", func(o *Options) { o.Evaluation = nil }, "evaluation part"},
		{"instructions", func(o *Options) { o.File = []byte("name: x\nuser: hi\n") }, "no instructions field"},
		{"empty instructions", func(o *Options) { o.File = []byte("name: x\ninstructions: \" \"\nuser: hi\n") }, "no instructions field"},
	} {
		_, o := newWorld(t, 100, 0)
		tc.edit(&o)
		if err := o.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestExtractInstructions(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"x\nBEGIN INSTRUCTIONS\nbe fair\nEND INSTRUCTIONS\n", "be fair"},
		{"BEGIN INSTRUCTIONS\nold\nEND INSTRUCTIONS\nnow:\nBEGIN INSTRUCTIONS\r\nnew {x}\r\nEND INSTRUCTIONS", "new {x}"},
		{"BEGIN INSTRUCTIONS\n```text\nfenced\n```\nEND INSTRUCTIONS", "fenced"},
		{"END INSTRUCTIONS BEGIN INSTRUCTIONS", ""},
		{"nothing", ""},
	} {
		if got := extractInstructions(tc.in); got != tc.want {
			t.Errorf("extractInstructions(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A fatal client error (a refused key) stops the tuning with the error,
// keeping what was done, and the evaluation part is not judged.
func TestFatalStops(t *testing.T) {
	w, o := newWorld(t, 1000, 0)
	refused := errors.New("the server refused the API key")
	o.Fatal = func() error {
		if w.srv.hits.Load() > 35 {
			return refused
		}
		return nil
	}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(res.Fatal, refused) || res.Evaluation != nil || res.Best.Round != 0 || !res.Original().Scored {
		t.Errorf("fatal %v, evaluation %+v, best %d, stopped %q", res.Fatal, res.Evaluation, res.Best.Round, res.Stopped)
	}
	if hits := w.srv.hits.Load(); hits > 30+11 {
		t.Errorf("%d requests: the evaluation part was judged after the fatal error", hits)
	}
}

func TestProposalPromptShowsTheRowWhenNoStandardField(t *testing.T) {
	ds := []disagreement{{item: Labelled{Item: judge.Item{ID: "x", Fields: []byte(`{"doc":{"title":"Tides"}}`)}, Label: 1, Note: "the title is right"},
		verdict: judge.Verdict{Status: judge.StatusOK, Values: map[string]float64{dim.Name: 0}, Reason: "looks off"}}}
	p := proposalPrompt(dim, "Rate the title.", ds, []string{"tried before"})[1].Content
	for _, want := range []string{`Item: {"doc":{"title":"Tides"}}`, "Judge's answer: NO — looks off", "Human's label: YES", "Human's note: the title is right",
		"tried before", beginMarker + "\nRate the title.\n" + endMarker} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
}
