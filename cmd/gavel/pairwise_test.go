package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// pairServer is an OpenAI-compatible server whose model always prefers
// the response shown first, [[A]] (a judge with a position bias), and
// keeps every user message it was sent.
type pairServer struct {
	*httptest.Server
	mu    sync.Mutex
	users []string
}

func newPairServer(t *testing.T) *pairServer {
	t.Helper()
	ps := &pairServer{}
	ps.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role, Content string
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		ps.mu.Lock()
		ps.users = append(ps.users, req.Messages[len(req.Messages)-1].Content)
		ps.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{
			"id": "c", "object": "chat.completion", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": "The first response is better.\n\n[[A]]"}}},
			"usage": map[string]any{"prompt_tokens": 3000, "completion_tokens": 5, "total_tokens": 3005}, // the whole prompt: never truncated
		})
	}))
	t.Cleanup(ps.Close)
	return ps
}

func (ps *pairServer) requests() []string {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return append([]string(nil), ps.users...)
}

// writePairs writes a pairwise dataset: a question and two responses per
// row, the second row with a reference answer.
func writePairs(t *testing.T, dir string) string {
	t.Helper()
	rows := `{"id":"p1","question":"Name the capital of France in one word.","response_a":"Paris","response_b":"Lyon is the capital."}
{"id":"p2","question":"What is 2+2? Answer with a number.","response_a":"5","response_b":"4"}
`
	path := filepath.Join(dir, "pairs.jsonl")
	if err := os.WriteFile(path, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// sessionVerdicts reads a session's pairwise run: both orders.
func sessionVerdicts(t *testing.T, path string) (orig, swapped []judge.Verdict) {
	t.Helper()
	st, err := sessions.Open(path, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.Runs()
	if err != nil || len(runs) != 1 || runs[0].Info.Name != "pairwise" {
		t.Fatalf("runs %+v, %v", runs, err)
	}
	orig, _ = st.Verdicts(runs[0].ID)
	swapped, _ = st.SwappedVerdicts(runs[0].ID)
	return orig, swapped
}

func preferences(vs []judge.Verdict) string {
	var parts []string
	for _, v := range vs {
		parts = append(parts, fmt.Sprintf("%s=%s", v.ItemID, judge.Pairwise.Format(v.Values["preference"])))
	}
	return strings.Join(parts, " ")
}

// gavel run --judge pairwise judges each pair once; with --swap it then
// judges only the second order, shows response B first, and stores the
// verdict in the original A/B terms: a model that always says "the first"
// prefers A in one order and B in the other.
func TestRunPairwiseWithAndWithoutSwap(t *testing.T) {
	ps := newPairServer(t)
	dir := t.TempDir()
	data := writePairs(t, dir)
	session := filepath.Join(dir, "pairs.gavel")
	e, _, errb, _ := testEnv(t)
	run := func(extra ...string) {
		t.Helper()
		errb.Reset()
		argv := append([]string{"run", data, "--judge", "pairwise", "--base-url", ps.URL + "/v1", "--model", "m", "--session", session}, extra...)
		if code := execute(context.Background(), e, argv); code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, errb)
		}
	}

	run()
	if !strings.Contains(errb.String(), "2 of 2 tasks judged — 2 ok") {
		t.Errorf("summary: %s", errb)
	}
	orig, swapped := sessionVerdicts(t, session)
	if got := preferences(orig); got != "p1=A p2=A" || len(swapped) != 0 {
		t.Errorf("without --swap: %s and %d swapped verdicts", got, len(swapped))
	}
	reqs := ps.requests()
	if len(reqs) != 2 || !strings.Contains(reqs[0]+reqs[1], "[Response A]\nParis\n[End of response A]\n\n[Response B]\nLyon is the capital.") {
		t.Fatalf("requests in the original order: %q", reqs)
	}

	run("--swap")
	if !strings.Contains(errb.String(), "2 of 2 tasks judged (each pair in both orders) — 2 ok") {
		t.Errorf("summary with --swap: %s", errb)
	}
	reqs = ps.requests()[2:]
	if len(reqs) != 2 {
		t.Fatalf("%d requests for the second order, want 2", len(reqs))
	}
	joined := strings.Join(reqs, "\n")
	for _, want := range []string{
		"[Response A]\nLyon is the capital.\n[End of response A]\n\n[Response B]\nParis\n",
		"[Response A]\n4\n[End of response A]\n\n[Response B]\n5\n",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("no swapped request shows %q:\n%s", want, joined)
		}
	}
	orig, swapped = sessionVerdicts(t, session)
	if got := preferences(orig); got != "p1=A p2=A" {
		t.Errorf("the original order changed: %s", got)
	}
	if got := preferences(swapped); got != "p1=B p2=B" {
		t.Errorf("swapped verdicts %s, want B (the model's [[A]] was response B)", got)
	}
	for _, v := range swapped {
		if !v.Swapped || !strings.HasSuffix(v.Raw, "[[A]]") {
			t.Errorf("swapped verdict %+v", v)
		}
	}

	// Everything is done in both orders: no request.
	run("--swap")
	if n := len(ps.requests()); n != 4 || !strings.Contains(errb.String(), "every item already has a verdict") {
		t.Errorf("%d requests; %s", n, errb)
	}
}

// A fresh session with --swap counts both orders in its progress.
func TestRunPairwiseSwapFromTheStart(t *testing.T) {
	ps := newPairServer(t)
	dir := t.TempDir()
	data := writePairs(t, dir)
	session := filepath.Join(dir, "s.gavel")
	e, _, errb, _ := testEnv(t)
	argv := []string{"run", data, "--judge", "pairwise", "--base-url", ps.URL + "/v1", "--model", "m", "--session", session, "--swap"}
	if code := execute(context.Background(), e, argv); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if !strings.Contains(errb.String(), "4 of 4 tasks judged (each pair in both orders) — 4 ok") {
		t.Errorf("summary: %s", errb)
	}
	orig, swapped := sessionVerdicts(t, session)
	if preferences(orig) != "p1=A p2=A" || preferences(swapped) != "p1=B p2=B" {
		t.Errorf("orders: %s / %s", preferences(orig), preferences(swapped))
	}
}

// --swap says so when it cannot do anything: a judge that rates one
// answer, or a dataset without pairs.
func TestRunSwapNotes(t *testing.T) {
	dir := t.TempDir()
	e, _, errb, _ := testEnv(t)
	plain := writeDataset(t, dir, 2)
	if code := execute(context.Background(), e, []string{"run", plain, "--swap", "--session", filepath.Join(dir, "a.gavel")}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if !strings.Contains(errb.String(), "--swap: no item of") {
		t.Errorf("no note for a dataset without pairs: %s", errb)
	}
	errb.Reset()
	pairs := writePairs(t, dir)
	ps := newPairServer(t)
	argv := []string{"run", pairs, "--swap", "--judge", "pairwise", "--judge", "match", "--base-url", ps.URL + "/v1", "--model", "m", "--session", filepath.Join(dir, "b.gavel")}
	if code := execute(context.Background(), e, argv); code != 0 && !strings.Contains(errb.String(), "match") {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if !strings.Contains(errb.String(), "--swap: match rates a single answer") {
		t.Errorf("no note for match: %s", errb)
	}
}

// gavel review --swap judges both orders in the background, as run does.
func TestReviewPairwiseSwap(t *testing.T) {
	t.Parallel() // long: beside the other long tests once the short ones are done
	ps := newPairServer(t)
	dir := t.TempDir()
	data := writePairs(t, dir)
	session := filepath.Join(dir, "pairs.gavel")
	e, _, errb, _ := testEnv(t)
	argv := []string{"review", data, "--judge", "pairwise", "--base-url", ps.URL + "/v1", "--model", "m", "--session", session, "--swap"}
	if code := execute(context.Background(), e, argv); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	orig, swapped := sessionVerdicts(t, session)
	if preferences(orig) != "p1=A p2=A" || preferences(swapped) != "p1=B p2=B" {
		t.Errorf("orders: %q / %q", preferences(orig), preferences(swapped))
	}
	if n := len(ps.requests()); n != 4 {
		t.Errorf("%d requests, want 4", n)
	}
	// Both orders are done: a run with --swap on the same session has
	// nothing to send.
	errb.Reset()
	argv = []string{"run", data, "--judge", "pairwise", "--base-url", ps.URL + "/v1", "--model", "m", "--session", session, "--swap"}
	if code := execute(context.Background(), e, argv); code != 0 || !strings.Contains(errb.String(), "every item already has a verdict") {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if n := len(ps.requests()); n != 4 {
		t.Errorf("%d more requests after review judged both orders", n-4)
	}
}

// A judge that compares two responses, on a dataset without pairs, is
// warned about before anything is sent.
func TestPairwiseJudgeOnADatasetWithoutPairs(t *testing.T) {
	dir := t.TempDir()
	plain := writeDataset(t, dir, 2)
	e, _, errb, _ := testEnv(t)
	if code := execute(context.Background(), e, []string{"judges", "pairwise", "--dataset", plain}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if !strings.Contains(errb.String(), "judge pairwise compares two responses, but no item of") || !strings.Contains(errb.String(), "--map response_a=FIELD,response_b=FIELD") {
		t.Errorf("no warning: %s", errb)
	}
	errb.Reset()
	pairs := writePairs(t, dir)
	if code := execute(context.Background(), e, []string{"judges", "pairwise", "--dataset", pairs}); code != 0 || strings.Contains(errb.String(), "compares two responses") {
		t.Errorf("exit %d, a warning for a dataset of pairs: %s", code, errb)
	}
}

// A review of pairs with no judge named is refused before the screen, and
// the session it made for it is gone: the next command does not find a
// session with no judge to reopen.
func TestReviewPairsWithoutJudgeLeavesNoSession(t *testing.T) {
	dir := t.TempDir()
	data := writePairs(t, dir)
	session := filepath.Join(dir, "pairs.gavel")
	code, _, errs := run(t, "review", data, "--session", session)
	if code != 2 || !strings.Contains(errs, "holds pairs of responses, which the default judge match cannot judge") {
		t.Fatalf("review of pairs with no judge: exit %d: %s", code, errs)
	}
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		if _, err := os.Stat(session + suffix); err == nil {
			t.Errorf("the refused review left %s", session+suffix)
		}
	}
}
