package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/cost"
	"github.com/gavel-dev/gavel/judge/llm"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/dataset"
	"github.com/gavel-dev/gavel/tui"
)

// The review screen's runs that R can re-judge with an LLM judge get a
// Cost that counts every sample (a re-judge bypasses the cache) at the
// config's prices; the offline judge and read-only runs get none.
func TestRejudgeCost(t *testing.T) {
	e, _ := configEnv(t, "prices:\n  gpt-4o-mini: {input: 0.15, output: 0.60}\n", nil)
	js, err := resolveJudges([]string{"docqa", "match"}, llm.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "gpt-4o-mini", Samples: 2, MaxTokens: 10})
	if err != nil {
		t.Fatal(err)
	}
	judges, _, err := js.build(nil)
	if err != nil {
		t.Fatal(err)
	}
	rejudge := func([]judge.Task) (*sessions.Judging, error) { return nil, nil }
	runs := withRejudgeCost(e, []tui.Run{
		{Info: judges[0].Info(), Rejudge: rejudge},
		{Info: judges[1].Info(), Rejudge: rejudge},
		{Info: judges[0].Info()}, // read-only: no re-judge, no cost
	}, judges)
	if runs[0].Cost == nil || runs[1].Cost != nil || runs[2].Cost != nil {
		t.Fatalf("costs: docqa %t, match %t, read-only %t", runs[0].Cost != nil, runs[1].Cost != nil, runs[2].Cost != nil)
	}
	tasks := []judge.Task{
		{Item: judge.Item{ID: "a", Question: "2+2?", Gold: "4", Prediction: "4"}},
		{Item: judge.Item{ID: "b", Question: "3+3?", Gold: "6", Prediction: "6"}},
	}
	got, err := runs[0].Cost(context.Background(), tasks)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"4 requests · ", " prompt tokens · ≤ 40 output tokens · $0.0"} {
		if !strings.Contains(got, want) {
			t.Errorf("cost %q, want %q in it", got, want)
		}
	}
}

// An edited judge's confirmation (E) counts what its run will send:
// the labelled items' requests, less the session's cached answers.
func TestVariantCost(t *testing.T) {
	srv, calls := strictServer(t)
	var data strings.Builder
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&data, `{"id":"q%d","question":"Capital of France, take %d?","answer":"Paris","prediction":"It is Paris."}`+"\n", i, i)
	}
	ds, err := dataset.LoadBytes("capitals.jsonl", []byte(data.String()), dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rv, err := sessions.OpenReview(filepath.Join(t.TempDir(), "c.gavel"), "tester", ds)
	if err != nil {
		t.Fatal(err)
	}
	defer rv.Store.Close()
	cfg := llm.Config{BaseURL: srv.URL + "/v1", APIKey: "k", Model: "gpt-4o-mini", Concurrency: 2}
	js, _ := resolveJudges([]string{"docqa"}, cfg)
	judges, client, err := js.build(rv.Store.ResponseCache())
	if err != nil {
		t.Fatal(err)
	}
	st, err := startRun(context.Background(), rv, judges[0], cfg)
	if err != nil {
		t.Fatal(err)
	}
	drain(st.Judging)
	running := &judgings{}
	defer running.stop()
	vs := &variants{ctx: context.Background(), open: func() (*sessions.Review, error) { return rv, nil }, cfg: cfg, running: running, client: client,
		prices: cost.Prices{"gpt-4o-mini": {Input: 0.15, Output: 0.6}}}
	base := judges[0].Info()
	edited := strings.Replace(base.Definition, "You are an expert evaluator", "STRICT. You are an expert evaluator", 1)
	for _, tc := range []struct {
		def  string
		want string
	}{
		{edited, "4 requests · "},
		{base.Definition, "0 requests"}, // the same prompts: all cached
	} {
		v, err := vs.variant(tui.VariantRequest{Base: base, Definition: []byte(tc.def), Items: rv.Items[:4]})
		if err != nil {
			t.Fatal(err)
		}
		before := calls.Load()
		got, err := v.Cost(context.Background())
		if err != nil || !strings.HasPrefix(got, tc.want) || calls.Load() != before {
			t.Fatalf("cost %q, %v (%d requests sent), want %q", got, err, calls.Load()-before, tc.want)
		}
		if tc.want != "0 requests" && !strings.Contains(got, "$0.0") {
			t.Errorf("no price in %q", got)
		}
		run, err := v.Start()
		if err != nil {
			t.Fatal(err)
		}
		drain(run.Run.Judging)
		if want, _ := strconv.Atoi(strings.Fields(got)[0]); int(calls.Load()-before) != want {
			t.Errorf("the variant sent %d requests, its cost said %q", calls.Load()-before, got)
		}
	}
}
