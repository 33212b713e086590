package main

import (
	"context"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/llm"
	"github.com/gavel-dev/gavel/sessions"
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
