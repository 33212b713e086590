package tui

import (
	"math"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats"
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
			Runs:    []Run{{Info: likertInfo, Key: "likert", Verdicts: qualityVerdicts(items)}, {Info: matchInfo, Key: "match", Verdicts: verdictsFor(items)}},
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

// stopStats is a plan estimate whose stop rule the test sets.
type stopStats struct {
	stop   stats.StopRule
	census bool
}

func (s *stopStats) report() (stats.Report, error) {
	return stats.Report{Plan: &stats.PlanReport{ID: 1, Design: "stratified", Scale: judge.Binary, Measure: stats.MeasurePassRate, Census: s.census, Stop: s.stop}}, nil
}

// The header while a plan is followed (tour finding 10): the plan's
// progress, and the item by its id alone (no second "x/N" beside the
// plan's); the left title does not change as the plan's word grows; the
// width reached reads "aim met", not the ✓ that marks a reviewed item;
// with no ± it says why in a few words (finding 6).
func TestPlanHeaderWords(t *testing.T) {
	cases := []struct {
		name string
		stop stats.StopRule
		want string
	}{
		{"strata", stats.StopRule{TargetWidth: 0.05, HalfWidth: stats.Estimate{Value: math.NaN(), Reason: "every stratum needs a label"}, Wait: "strata unlabelled"}, "plan 1 · 0/4 · strata unlabelled"},
		{"no label", stats.StopRule{TargetWidth: 0.05, HalfWidth: stats.Estimate{Value: math.NaN(), Reason: "none"}, Wait: "no label yet"}, "plan 1 · 0/4 · q7"},
		{"wide", stats.StopRule{TargetWidth: 0.05, HalfWidth: stats.Estimate{Value: 0.428}}, "plan 1 · 0/4 · ±42.8 pts (aim ±5.0)"},
		{"met", stats.StopRule{TargetWidth: 0.05, HalfWidth: stats.Estimate{Value: 0.048}, Reached: true}, "plan 1 · 0/4 · ±4.8 pts (aim met)"},
	}
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		var left string
		for _, c := range cases {
			ss := &stopStats{stop: c.stop}
			m := planModel(t, &fakeStore{}, nil, ss.report, size[0], size[1])
			l := lines(m)[0]
			if !strings.Contains(l, c.want) {
				t.Errorf("%v %s: header %q, want %q", size, c.name, l, c.want)
			}
			if strings.Contains(l, "item 7/10") || strings.Contains(l, "✓") {
				t.Errorf("%v %s: header %q has the item's position or a ✓", size, c.name, l)
			}
			title, _, _ := strings.Cut(l, "  ")
			if left == "" {
				left = title
			} else if title != left {
				t.Errorf("%v %s: left title %q, was %q", size, c.name, title, left)
			}
			checkFits(t, plain(m), size[0], size[1])
			// Off the plan the item's position is back.
			m = press(t, m, "F")
			if l := lines(m)[0]; !strings.Contains(l, "item 7/10") {
				t.Errorf("%v %s: off the plan, header %q lacks the position", size, c.name, l)
			}
		}
	}
	// A census done: no sampling error.
	ss := &stopStats{stop: stats.StopRule{TargetWidth: 0.05, HalfWidth: stats.Estimate{Value: 0}, Reached: true}, census: true}
	m := planModel(t, &fakeStore{}, nil, ss.report, 80, 24)
	if l := lines(m)[0]; !strings.Contains(l, "plan 1 · 0/4 · no sampling error") {
		t.Errorf("census: header %q", l)
	}
}

// A plan chosen for the person says in the log why, and how to pick
// another (tour finding 9), inert.
func TestPlanChosenSaid(t *testing.T) {
	items := testItems(10)
	m := New(Options{Store: &fakeStore{}, Annotator: "tester", Dataset: "t.jsonl", Items: items,
		Runs: []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}},
		Plan: &Plan{ID: 1, Items: plannedIDs, Design: "uniform", Chosen: "It is the newest plan with items left; --plan 2 follows the other.\x1b[2J"}})
	m = update(t, m, windowSize(80, 24))
	if logHas(m, "its 4 items in its order, 0 done. Labels made here record via plan:1") != 1 ||
		logHas(m, "It is the newest plan with items left; --plan 2 follows the other.") != 1 {
		t.Errorf("log %v", m.log.entries)
	}
	for _, e := range m.log.entries {
		if strings.Contains(e.text, "\x1b") {
			t.Errorf("log entry not inert: %q", e.text)
		}
	}
}
