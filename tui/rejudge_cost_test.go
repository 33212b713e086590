package tui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
)

// R's confirmation tells what the re-judge would cost once Run.Cost has
// counted it (off the screen's goroutine), or why it cannot.
func TestRejudgeAllTellsTheCost(t *testing.T) {
	items := testItems(4)
	rj := &rejudged{}
	cases := []struct {
		name string
		cost func(context.Context, []judge.Task) (string, error)
		want string
	}{
		{"counted", func(_ context.Context, tasks []judge.Task) (string, error) {
			if len(tasks) != 4 {
				return "", errors.New("wrong tasks")
			}
			return "4 requests · 1,234 prompt tokens · $0.01 for the prompts", nil
		}, "Re-judge all 4 items with match (4 tasks)? 4 requests · 1,234 prompt tokens · $0.01 for the prompts"},
		{"failed", func(context.Context, []judge.Task) (string, error) {
			return "", errors.New("no tokenizer\x1b[31m")
		}, "(4 tasks)? cost unknown: no tokenizer"},
		{"none", nil, "(4 tasks)?"},
	}
	for _, tc := range cases {
		m := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items), Rejudge: rj.fn, Cost: tc.cost}}, nil, 160, 30)
		m = press(t, m, "R")
		hint := hintLineOf(m)
		if !strings.Contains(hint, tc.want) || strings.Contains(hint, "\x1b") {
			t.Errorf("%s: the confirmation reads %q, want %q in it", tc.name, hint, tc.want)
		}
		if tc.cost == nil && strings.Contains(hint, "cost") {
			t.Errorf("%s: a run without Cost tells one: %q", tc.name, hint)
		}
	}
}

// The count runs off the screen's goroutine: the question shows at once
// with "counting the cost…", and answering it cancels the count.
func TestRejudgeAllAnsweredBeforeTheCost(t *testing.T) {
	items := testItems(4)
	rj := &rejudged{}
	counting := make(chan context.Context, 1)
	cost := func(ctx context.Context, _ []judge.Task) (string, error) {
		counting <- ctx
		<-ctx.Done()
		return "", ctx.Err()
	}
	m := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items), Rejudge: rj.fn, Cost: cost}}, nil, 160, 30)
	next, cmd := m.Update(keyMsg("R"))
	m = next.(*Model)
	if h := hintLineOf(m); !strings.Contains(h, "Counting what to re-judge…") {
		t.Fatalf("as the tasks are made: %q", h)
	}
	// The tasks are made off the loop; the question comes with them.
	next, cmd = m.Update(cmd())
	m = next.(*Model)
	if h := hintLineOf(m); !strings.Contains(h, "(4 tasks)? counting the cost…") {
		t.Fatalf("before the count: %q", h)
	}
	msgs := make(chan tea.Msg, 1)
	go func() { msgs <- cmd() }()
	ctx := <-counting
	m = press(t, m, "n")
	select {
	case msg := <-msgs:
		if ctx.Err() == nil {
			t.Fatal("the count went on after the answer")
		}
		m = update(t, m, msg)
	case <-time.After(10 * time.Second):
		t.Fatal("answering did not cancel the count")
	}
	if m.top() != nil || !strings.Contains(hintLineOf(m), "Cancelled") {
		t.Errorf("after n: %q", hintLineOf(m))
	}
}

// A variant's confirmation tells its cost the same way.
func TestVariantConfirmationTellsTheCost(t *testing.T) {
	items := testItems(4)
	m := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}, nil, 160, 30)
	m.edit = &judgeEdit{base: m.runs[0]}
	v := Variant{Name: "docqa@2", Tasks: 3, Info: judge.Info{Name: "docqa", Model: "gpt-4o-mini"},
		Cost: func(context.Context) (string, error) { return "3 requests · 2,001 prompt tokens", nil }}
	cmd := m.gotVariant(variantMsg{base: m.runs[0], v: v})
	if h := hintLineOf(m); !strings.Contains(h, "(3 tasks · gpt-4o-mini)? counting the cost…") {
		t.Fatalf("before the count: %q", h)
	}
	m = runCmd(t, m, cmd, 0)
	if h := hintLineOf(m); !strings.Contains(h, "(3 tasks · gpt-4o-mini)? 3 requests · 2,001 prompt tokens") {
		t.Errorf("after the count: %q", h)
	}
}

// A second R while the tasks of the first are being made says so and
// starts nothing; the question comes once, with the first one's tasks.
func TestRejudgeAllTwiceWhileCounting(t *testing.T) {
	items := testItems(4)
	rj := &rejudged{}
	m := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items), Rejudge: rj.fn}}, nil, 160, 30)
	next, cmd := m.Update(keyMsg("R"))
	m = next.(*Model)
	next, again := m.Update(keyMsg("R"))
	m = next.(*Model)
	if again != nil || !strings.Contains(hintLineOf(m), "Still counting what to re-judge…") {
		t.Fatalf("a second R while counting: %q (command %v)", hintLineOf(m), again != nil)
	}
	m = update(t, m, cmd())
	if h := hintLineOf(m); m.top() == nil || !strings.Contains(h, "Re-judge all 4 items with match (4 tasks)?") {
		t.Fatalf("the question: %q", h)
	}
	m = press(t, m, "esc", "R")
	if h := hintLineOf(m); m.top() == nil || !strings.Contains(h, "(4 tasks)?") {
		t.Fatalf("R after the answer: %q", h)
	}
}
