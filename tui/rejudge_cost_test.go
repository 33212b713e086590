package tui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
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
	if h := hintLineOf(m); !strings.Contains(h, "Re-judge all 4 items with match? counting the tasks…") {
		t.Fatalf("as the tasks are made: %q", h)
	}
	// The tasks are made off the loop; the question counts them then.
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

// The question of R opens at once, before its tasks are made: a y typed
// meanwhile (the label key) neither labels nor confirms; any other key
// cancels, and the tasks made for a question answered are dropped.
func TestRejudgeAllWaitsForItsTasks(t *testing.T) {
	items := testItems(4)
	rj := &rejudged{}
	m := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items), Rejudge: rj.fn}}, nil, 160, 30)
	next, cmd := m.Update(keyMsg("R"))
	m = next.(*Model)
	next, yes := m.Update(keyMsg("y"))
	m = next.(*Model)
	if yes != nil || m.top() == nil || !strings.Contains(hintLineOf(m), "counting the tasks…") {
		t.Fatalf("y before the tasks: %q (a command: %v)", hintLineOf(m), yes != nil)
	}
	if _, ok := m.labels.Label(m.workspace.key(m.cur, m.rows(m.cur)[0])); ok {
		t.Fatal("the y before the tasks labelled the item")
	}
	made := cmd() // made while the question is open…
	m = press(t, m, "esc")
	m = update(t, m, made) // …and given after it was answered
	if m.top() != nil || len(rj.tasks) != 0 {
		t.Fatalf("the tasks of a cancelled question: dialog %v, re-judged %d tasks", m.top() != nil, len(rj.tasks))
	}
	// A count still running when the question is answered stops.
	next, cmd = m.Update(keyMsg("R"))
	m = next.(*Model)
	m = press(t, m, "n")
	if msg := cmd(); msg != nil {
		t.Errorf("the tasks were made for a question answered: %T", msg)
	}
	m = press(t, m, "R")
	if h := hintLineOf(m); m.top() == nil || !strings.Contains(h, "Re-judge all 4 items with match (4 tasks)?") {
		t.Fatalf("R after the answers: %q", h)
	}
	m = press(t, m, "y")
	if len(rj.tasks) != 4 {
		t.Fatalf("y on the whole question re-judged %d tasks, want 4", len(rj.tasks))
	}
}

// R refuses at once where nothing can re-judge: an imported judge's
// verdicts, and while the items are still being read.
func TestRejudgeAllRefusals(t *testing.T) {
	items := testItems(4)
	imported := judge.Info{Name: sessions.ImportedJudge, Model: "judge_verdict", Dimensions: matchInfo.Dimensions}
	m := newTestModel(t, &fakeStore{}, items, []Run{{Info: imported, Verdicts: verdictsFor(items)}}, nil, 160, 30)
	m = press(t, m, "R")
	if h := hintLineOf(m); m.top() != nil || !strings.Contains(h, "holds verdicts imported from the file") {
		t.Errorf("R on an imported judge: %q", h)
	}
	rj := &rejudged{}
	m = update(t, New(Options{Store: &fakeStore{}, Annotator: "tester", Dataset: "big.jsonl", Items: items[:2],
		Runs: []Run{{Info: matchInfo, Rejudge: rj.fn}}, ItemCount: 4,
		MoreItems: func() ([]judge.Item, bool, error) { select {} }}), tea.WindowSizeMsg{Width: 160, Height: 30})
	m = press(t, m, "R")
	if h := hintLineOf(m); m.top() != nil || !strings.Contains(h, "Re-judging the filter waits until every item is read (2 of 4 so far)") {
		t.Errorf("R while reading: %q", h)
	}
}
