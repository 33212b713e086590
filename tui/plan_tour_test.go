package tui

import (
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// qualityVerdicts gives every item a Likert score of 3 on "quality".
func qualityVerdicts(items []judge.Item) []judge.Verdict {
	vs := make([]judge.Verdict, len(items))
	for i, it := range items {
		vs[i] = judge.Verdict{ItemID: it.ID, Status: judge.StatusOK, Values: map[string]float64{"quality": 3}}
	}
	return vs
}

// The plan's progress counts the plan's labels on its dimension whatever
// judge is on screen (tour finding 1): with a judge of another dimension
// shown first, the two items labelled on the plan's "correct" still count,
// and a label on the screen judge's "quality" made on the plan does not.
func TestPlanProgressWhateverJudge(t *testing.T) {
	items := testItems(10)
	var history []sessions.Action
	for k, id := range []string{"q7", "q2"} {
		history = append(history, sessions.Action{ID: int64(k + 1), Group: int64(k + 1), Kind: sessions.KindLabel, ItemID: id, Dimension: "correct", Value: 1, Via: "plan:1"})
	}
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		st := &fakeStore{}
		m := New(Options{Store: st, Annotator: "tester", Dataset: "test.jsonl", Items: items,
			Runs: []Run{{Info: likertInfo, Key: "likert", Verdicts: qualityVerdicts(items)}, {Info: matchInfo, Key: "match", Verdicts: verdictsFor(items)}},
			History: history, Plan: &Plan{ID: 1, Items: plannedIDs, Design: "uniform", Judge: "match", Dimension: "correct"}})
		m = runCmd(t, m, m.Init(), 0)
		m = update(t, m, windowSize(size[0], size[1]))
		if l := lines(m)[0]; !strings.Contains(l, "plan 1 · 2/4") {
			t.Errorf("%v: header %q, want 2/4 with the likert judge on screen", size, l)
		}
		if logHas(m, "its 4 items in its order, 2 done") != 1 {
			t.Errorf("%v: log %v", size, m.log.entries)
		}
		if got := m.items[m.cur].ID; got != "q9" {
			t.Errorf("%v: opened on %s, want q9 (the first not done)", size, got)
		}
		m = press(t, m, "3") // a score on quality, on the plan: not the plan's dimension
		if l := lines(m)[0]; !strings.Contains(l, "plan 1 · 2/4") {
			t.Errorf("%v: after a quality score, header %q, want 2/4", size, l)
		}
		m = press(t, m, "J") // the plan's judge: the same count
		if l := lines(m)[0]; !strings.Contains(l, "plan 1 · 2/4") {
			t.Errorf("%v: with match on screen, header %q, want 2/4", size, l)
		}
		checkFits(t, plain(m), size[0], size[1])
	}
}
