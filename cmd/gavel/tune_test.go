package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge/llm"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// The tuning world: an item's prediction is its gold answer, or the word
// tuneWrong; people label the first YES and the second NO. The scripted
// judge says YES to everything unless its prompt holds tuneRule; with it,
// it says NO to a wrong prediction and so agrees with people. A proposal
// request (its prompt holds the markers) is answered with instructions
// holding the rule.
const (
	tuneRule  = "A prediction that is not the gold answer is wrong."
	tuneWrong = "zzwrongzz"
)

type tuneServer struct {
	*httptest.Server
	hits atomic.Int64
	// failEvery makes every n-th request a 500 (0: none).
	failEvery int64
	mu        sync.Mutex
	proposals []string
	// onProposal, when set, is called as a proposal request arrives.
	onProposal func()
}

func newTuneServer(t *testing.T, failEvery int64) *tuneServer {
	t.Helper()
	ts := &tuneServer{failEvery: failEvery}
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := ts.hits.Add(1)
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		if ts.failEvery > 0 && n%ts.failEvery == 0 {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `{"error":{"message":"scripted failure","type":"server_error"}}`)
			return
		}
		// The body as OpenAI's clients send it.
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" || len(req.Messages) == 0 {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"message":"bad request body"}}`)
			return
		}
		var all strings.Builder
		for _, m := range req.Messages {
			all.WriteString(m.Content + "\n")
		}
		prompt := all.String()
		var content string
		switch {
		case strings.Contains(prompt, "BEGIN INSTRUCTIONS") && strings.Contains(prompt, "disagreed"):
			ts.mu.Lock()
			ts.proposals = append(ts.proposals, prompt)
			on := ts.onProposal
			ts.mu.Unlock()
			if on != nil {
				on()
			}
			content = "Here are revised instructions.\nBEGIN INSTRUCTIONS\nSay whether the prediction answers the question as the gold answer does. " + tuneRule + "\nEND INSTRUCTIONS\n"
		case strings.Contains(prompt, tuneRule) && strings.Contains(judged(prompt), tuneWrong):
			content = "reason: the prediction is not the gold answer.\nresult: NO"
		default:
			content = "reason: looks fine.\nresult: YES"
		}
		json.NewEncoder(w).Encode(map[string]any{
			"id": fmt.Sprint("cmpl-", n), "object": "chat.completion", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content}}},
			"usage": map[string]any{"prompt_tokens": 3000, "completion_tokens": 10, "total_tokens": 3010}, // the whole prompt: a small count would read as a prompt the server cut (truncated)
		})
	}))
	t.Cleanup(ts.Close)
	return ts
}

// judged is the part of a judge prompt about the judged item: after the
// few-shot examples, when it shows some.
func judged(prompt string) string {
	if i := strings.LastIndex(prompt, "END OF EXAMPLES"); i >= 0 {
		return prompt[i:]
	}
	return prompt
}

// tuneSession imports n labelled items (every third one wrong, labelled
// NO), records a split with seed 7 and returns the session's path.
func tuneSession(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("id,question,answer,prediction,human_label\n")
	for i := range n {
		id := fmt.Sprintf("item-%03d", i)
		pred, label := "gold of "+id, "yes"
		if i%3 == 0 {
			pred, label = tuneWrong, "no"
		}
		fmt.Fprintf(&b, "%s,question of %s,gold of %s,%s,%s\n", id, id, id, pred, label)
	}
	session := importCSV(t, dir, "tune", b.String())
	if code, _, errs := run(t, "split", session, "--seed", "7"); code != 0 {
		t.Fatalf("split: exit %d: %s", code, errs)
	}
	return session
}

// partCounts returns, for the split of seed 7, the labelled items of each
// part and how many of them people labelled YES.
func partCounts(n int) (ids map[sessions.Part][]string, yes map[sessions.Part]int) {
	sp := sessions.Split{Seed: 7, Calibration: sessions.DefaultCalibrationShare}
	ids, yes = map[sessions.Part][]string{}, map[sessions.Part]int{}
	for i := range n {
		id := fmt.Sprintf("item-%03d", i)
		p := sp.PartOf(id)
		ids[p] = append(ids[p], id)
		if i%3 != 0 {
			yes[p]++
		}
	}
	return ids, yes
}

func withFastRetries(t *testing.T) {
	old := tuneRetry
	tuneRetry = llm.RetryPolicy{Attempts: 6, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}
	t.Cleanup(func() { tuneRetry = old })
}

// gavel tune against the scripted server takes docqa from its start
// agreement on the evaluation part (YES to all: right on the YES items)
// to every item right, within the budget; the session then compares the
// two as docqa@1 and docqa@2 with the same figures; every candidate is
// saved; no proposal shows a validation or evaluation item.
func TestTuneEndToEnd(t *testing.T) {
	withFastRetries(t)
	const n = 120
	dir := t.TempDir()
	session := tuneSession(t, dir, n)
	srv := newTuneServer(t, 0)
	out := filepath.Join(dir, "cands")
	const budget = 400
	code, stdout, stderr := run(t, "tune", session, "--judge", "docqa", "--model", "judge-model", "--base-url", srv.URL+"/v1",
		"--api-key", testKey, "--rounds", "3", "--budget", fmt.Sprint(budget), "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	ids, yes := partCounts(n)
	e := len(ids[sessions.PartEvaluation])
	ey := yes[sessions.PartEvaluation]
	for _, want := range []string{
		fmt.Sprintf("original     %d/%d right", ey, e),
		fmt.Sprintf("round 1      %d/%d right", e, e),
		fmt.Sprintf("McNemar's exact p = %.4g", stats.McNemarExact(0, e-ey)),
		"gavel compare " + session + " --judge docqa@1 --judge docqa@2 --format markdown",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if hits := srv.hits.Load(); hits > budget || !strings.Contains(stdout, fmt.Sprintf("%d of %d requests used", hits, budget)) {
		t.Errorf("server hits %d, budget %d:\n%s", hits, budget, stdout)
	}
	// The numbers gavel compare gives on the recorded runs are the same.
	cmp := compareJSON(t, "compare", session, "--judge", "docqa@1", "--judge", "docqa@2", "--format", "json")
	p := cmp.Dimensions[0].Paired
	if p.N != e || p.BothRight != ey || p.OnlyB != e-ey || p.OnlyA != 0 || p.McNemarP.Value != stats.McNemarExact(0, e-ey) {
		t.Errorf("gavel compare: %+v, want N %d, both right %d, only B %d", p, e, ey, e-ey)
	}
	// Every candidate saved, the winner with its scores and the rule.
	for _, f := range []string{"docqa-tune-0.yaml", "docqa-tune-1.yaml"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), "# gavel tune: ") || !strings.Contains(string(b), "# Validation part: ") {
			t.Errorf("%s has no score header:\n%s", f, b)
		}
		if _, err := llm.ParseCustom(b, f); err != nil {
			t.Errorf("%s does not load: %v", f, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(out, "docqa-tune-1.yaml")); !strings.Contains(string(b), tuneRule) || !strings.Contains(string(b), "# Evaluation part: ") {
		t.Errorf("the winner's file:\n%s", b)
	}
	// No proposal prompt holds a held-out item.
	if len(srv.proposals) == 0 {
		t.Fatal("no proposal was asked")
	}
	for _, prompt := range srv.proposals {
		for _, part := range []sessions.Part{sessions.PartValidation, sessions.PartEvaluation} {
			for _, id := range ids[part] {
				if strings.Contains(prompt, id) {
					t.Errorf("a proposal prompt shows %s item %s", part, id)
				}
			}
		}
	}
	// Run again: everything is cached, so it costs nothing.
	before := srv.hits.Load()
	code, stdout, stderr = run(t, "tune", session, "--judge", "docqa", "--model", "judge-model", "--base-url", srv.URL+"/v1",
		"--api-key", testKey, "--rounds", "3", "--budget", "50", "--out", out)
	if code != 0 || srv.hits.Load() != before {
		t.Errorf("second tune: exit %d, %d more hits\n%s\n%s", code, srv.hits.Load()-before, stdout, stderr)
	}
}

// The budget is never passed, however many requests fail and are
// retried: the server's count of requests is the limit at most.
func TestTuneBudgetUnderRetries(t *testing.T) {
	withFastRetries(t)
	const n = 90
	for _, tc := range []struct {
		budget    int
		failEvery int64
	}{{200, 3}, {160, 2}, {140, 5}} {
		t.Run(fmt.Sprint(tc.budget, "-", tc.failEvery), func(t *testing.T) {
			dir := t.TempDir()
			session := tuneSession(t, dir, n)
			srv := newTuneServer(t, tc.failEvery)
			code, stdout, stderr := run(t, "tune", session, "--judge", "docqa", "--model", "m", "--base-url", srv.URL+"/v1",
				"--rounds", "4", "--budget", fmt.Sprint(tc.budget), "--out", filepath.Join(dir, "c"))
			t.Logf("exit %d, %d hits\n%s\n%s", code, srv.hits.Load(), stdout, stderr)
			if hits := srv.hits.Load(); hits > int64(tc.budget) {
				t.Errorf("server hits %d > budget %d\n%s\n%s", hits, tc.budget, stdout, stderr)
			}
		})
	}
}

func TestTuneMistakes(t *testing.T) {
	withFastRetries(t)
	dir := t.TempDir()
	session := tuneSession(t, dir, 120)
	small := tuneSession(t, t.TempDir(), 30)
	unsplit := importCSV(t, dir, "unsplit", "id,question,answer,prediction,human_label\na,q,g,p,yes\n")
	unlabelled := importCSV(t, dir, "unlabelled", "id,question,answer,prediction\na,q,g,p\nb,q,g,p\n")
	if code, _, errs := run(t, "split", unlabelled); code != 0 {
		t.Fatal(errs)
	}
	noInstr := writeFile(t, dir, "plain.yaml", "name: plain\nuser: \"Q: {question} A: {prediction}. YES or NO?\"\noutput: {format: word}\ndimensions: [{name: correct, scale: binary}]\n")
	srv := newTuneServer(t, 0)
	server := []string{"--model", "m", "--base-url", srv.URL + "/v1"}
	keyed, _ := fakeServer(t)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"no judge", []string{"tune", session, "--budget", "10"}, exitUsage, []string{"--judge NAME"}},
		{"no budget", []string{"tune", session, "--judge", "docqa"}, exitUsage, []string{"--budget N"}},
		{"no model", []string{"tune", session, "--judge", "docqa", "--budget", "10"}, exitUsage, []string{"--model"}},
		{"no split", append([]string{"tune", unsplit, "--judge", "docqa", "--budget", "100"}, server...), exitUsage, []string{"gavel split " + unsplit}},
		{"no session", append([]string{"tune", filepath.Join(dir, "none.gavel"), "--judge", "docqa", "--budget", "100"}, server...), exitUsage, []string{"no session"}},
		{"no labels", append([]string{"tune", unlabelled, "--judge", "docqa", "--budget", "100"}, server...), exitRuntime, []string{"no item of " + unlabelled + " has a human label on \"correct\""}},
		{"unknown dimension", append([]string{"tune", session, "--judge", "docqa", "--budget", "100", "--dimension", "tone"}, server...), exitUsage, []string{"--dimension \"tone\": docqa rates correct"}},
		{"offline judge", append([]string{"tune", session, "--judge", "match", "--budget", "100"}, server...), exitUsage, []string{"offline judge"}},
		{"no instructions", append([]string{"tune", session, "--judge", noInstr, "--budget", "100"}, server...), exitUsage, []string{"no instructions field"}},
		{"zero rounds", append([]string{"tune", session, "--judge", "docqa", "--budget", "100", "--rounds", "0"}, server...), exitUsage, []string{"--rounds 0"}},
		{"budget too small", append([]string{"tune", session, "--judge", "docqa", "--budget", "20"}, server...), exitUsage, []string{"--budget 20 is too small", "or more"}},
		{"refused key", []string{"tune", session, "--judge", "docqa", "--budget", "400", "--model", "m", "--base-url", keyed.URL + "/v1", "--api-key", "sk-wrong-key-000000000"}, exitRuntime, []string{"refused the API key"}},
		{"few labels warn", append([]string{"tune", small, "--judge", "docqa", "--budget", "5"}, server...), exitUsage, []string{"Warning: only 30 labelled items", "is too small"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := srv.hits.Load()
			code, stdout, stderr := run(t, tc.args...)
			t.Logf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s\n%s", code, tc.code, stdout, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if srv.hits.Load() != before {
				t.Errorf("%d requests sent by a command that should send none", srv.hits.Load()-before)
			}
		})
	}
}

// A judge file that shows few-shot examples is tuned with the session's
// calibration examples: every example any judge request shows is a
// calibration item (never a validation or evaluation one), and the
// tuning still goes from its start to its end agreement.
func TestTuneFewShotJudge(t *testing.T) {
	withFastRetries(t)
	const n = 120
	dir := t.TempDir()
	session := tuneSession(t, dir, n)
	file := writeFile(t, dir, "fewshot.yaml", `name: fewshot
instructions: |
  Say whether the prediction answers the question as the gold answer does.
system: "{instructions}"
user: |
  Examples:
  {examples}
  END OF EXAMPLES
  Question: {question}
  Gold answer: {gold}
  Prediction: {prediction}
  Write a line "reason: ..." and then a line "result: YES" or "result: NO".
examples:
  count: 3
output:
  parser: docqa
`)
	srv := newTuneServer(t, 0)
	var seen sync.Map // every example id shown
	srv.Config.Handler = exampleSpy(srv.Config.Handler, &seen)
	code, stdout, stderr := run(t, "tune", session, "--judge", file, "--model", "m", "--base-url", srv.URL+"/v1",
		"--rounds", "2", "--budget", "400", "--out", filepath.Join(dir, "c"))
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	ids, yes := partCounts(n)
	e, ey := len(ids[sessions.PartEvaluation]), yes[sessions.PartEvaluation]
	for _, want := range []string{fmt.Sprintf("original     %d/%d right", ey, e), fmt.Sprintf("round 1      %d/%d right", e, e),
		"--judge fewshot@1 --judge fewshot@2"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	sp := sessions.Split{Seed: 7, Calibration: sessions.DefaultCalibrationShare}
	shown := 0
	seen.Range(func(k, _ any) bool {
		shown++
		if p := sp.PartOf(k.(string)); p != sessions.PartCalibration {
			t.Errorf("item %s of the %s part was shown as an example", k, p)
		}
		return true
	})
	if shown == 0 {
		t.Error("no example was shown")
	}
}

// exampleSpy records the ids of the items a judge request shows between
// "Examples:" and "END OF EXAMPLES", then serves the request.
func exampleSpy(next http.Handler, seen *sync.Map) http.Handler {
	re := regexp.MustCompile(`question of (item-\d+)`)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		if json.Unmarshal(body, &req) == nil {
			for _, m := range req.Messages {
				start := strings.Index(m.Content, "Examples:")
				end := strings.Index(m.Content, "END OF EXAMPLES")
				if start < 0 || end < start {
					continue
				}
				for _, sub := range re.FindAllStringSubmatch(m.Content[start:end], -1) {
					seen.Store(sub[1], true)
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// Interrupting keeps what is done: here the interrupt comes as the first
// proposal is asked, so the original is scored and saved, its verdicts
// are in the session, and the command says it was interrupted.
func TestTuneInterruptKeepsWhatIsDone(t *testing.T) {
	withFastRetries(t)
	dir := t.TempDir()
	session := tuneSession(t, dir, 120)
	srv := newTuneServer(t, 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv.onProposal = cancel
	e, out, errb, _ := testEnv(t)
	cands := filepath.Join(dir, "c")
	code := execute(ctx, e, []string{"tune", session, "--judge", "docqa", "--model", "m", "--base-url", srv.URL + "/v1",
		"--rounds", "3", "--budget", "400", "--out", cands})
	if code != exitRuntime || !strings.Contains(errb.String(), "interrupted") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errb)
	}
	if !strings.Contains(out.String(), "original     20/30 right") || strings.Contains(out.String(), "gavel compare") {
		t.Errorf("report:\n%s", out)
	}
	if b, err := os.ReadFile(filepath.Join(cands, "docqa-tune-0.yaml")); err != nil || !strings.Contains(string(b), "# Validation part: 20/30") {
		t.Errorf("the original's file: %v\n%s", err, b)
	}
	s, err := sessions.Open(session, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, err := s.Runs()
	if err != nil || len(runs) != 1 || runs[0].Info.Name != "docqa" {
		t.Fatalf("runs %+v, %v", runs, err)
	}
	vs, err := s.ReviewVerdicts(runs[0].ID)
	if err != nil || len(vs) != 61 {
		t.Errorf("%d verdicts of the original recorded (%v), want its 61 calibration and validation ones", len(vs), err)
	}
}
