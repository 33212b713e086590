package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

func TestReviewShowsItemAndVerdict(t *testing.T) {
	items := testItems(6)
	m := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}, nil, 120, 40)
	s := plain(m)
	for _, want := range []string{"Question number 1?", "gold 1", "pred 1", "judge YES", "you —", "item 1/6 · q1", "reviewed 0/6", "Verdict · match"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
}

func TestLabelAdvancesAndSaves(t *testing.T) {
	items := testItems(6)
	st := &fakeStore{}
	m := newTestModel(t, st, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}, nil, 120, 40)
	// q1: judge YES, label NO (disagree); q2: judge NO, accept; q3: YES.
	m = press(t, m, "n", "a", "y")
	if got := strings.Join(st.labels(), " "); got != "q1=0 q2=0 q3=1" {
		t.Fatalf("store holds %q", got)
	}
	if m.cur != 3 {
		t.Errorf("on item %d after three labels, want index 3", m.cur)
	}
	s := plain(m)
	for _, want := range []string{"reviewed 3/6", "agreement 2/3 = 67%", "✓ saved", "item 4/6 · q4"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	// Back to q1: the disagreement is visible.
	m = press(t, m, "<")
	if s := plain(m); !strings.Contains(s, "you NO ✗ disagree") {
		t.Errorf("q1 does not show the disagreement:\n%s", s)
	}
}

func TestUndoRevertsTheLastAction(t *testing.T) {
	items := testItems(4)
	st := &fakeStore{}
	m := newTestModel(t, st, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}, nil, 100, 30)
	m = press(t, m, "y", "y", "u")
	if got := strings.Join(st.labels(), " "); got != "q1=1" {
		t.Fatalf("after undo the store holds %q, want q1=1", got)
	}
	if m.cur != 1 || m.nReviewed != 1 {
		t.Errorf("after undo: cur=%d reviewed=%d, want the undone item (1) and 1 reviewed", m.cur, m.nReviewed)
	}
	m = press(t, m, "u", "u")
	if len(st.labels()) != 0 || m.nReviewed != 0 {
		t.Errorf("undo past the start: store %v, reviewed %d", st.labels(), m.nReviewed)
	}
	if s := plain(m); !strings.Contains(s, "Nothing to undo") {
		t.Errorf("no 'Nothing to undo' message:\n%s", s)
	}
}

func TestResumeAtFirstUnreviewed(t *testing.T) {
	items := testItems(8)
	var history []sessions.Action
	for i := range 5 {
		history = append(history, sessions.Action{ID: int64(i + 1), Group: int64(i + 1), Kind: sessions.KindLabel,
			ItemID: items[i].ID, Dimension: "correct", Value: 1})
	}
	// An undone label on q6 does not count.
	history = append(history,
		sessions.Action{ID: 6, Group: 6, Kind: sessions.KindLabel, ItemID: "q6", Dimension: "correct", Value: 0},
		sessions.Action{ID: 7, Group: 7, Kind: sessions.KindUndo, ItemID: "q6", Undoes: 6})
	m := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}, history, 120, 40)
	if m.cur != 5 {
		t.Errorf("opened on item index %d, want 5 (q6, the first unreviewed)", m.cur)
	}
	if s := plain(m); !strings.Contains(s, "reviewed 5/8") {
		t.Errorf("status does not say reviewed 5/8:\n%s", s)
	}
}

func TestSkipAndFirstUnreviewed(t *testing.T) {
	items := testItems(5)
	m := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}, nil, 120, 40)
	m = press(t, m, "right", "y") // label q2, land on q3
	m = press(t, m, "space")      // skip q3 → q4
	if m.cur != 3 {
		t.Fatalf("space went to index %d, want 3", m.cur)
	}
	m = press(t, m, "g")
	if m.cur != 0 {
		t.Errorf("g went to index %d, want 0 (q1 is unreviewed)", m.cur)
	}
}

func TestNoteIsSavedAndShown(t *testing.T) {
	items := testItems(3)
	st := &fakeStore{}
	m := newTestModel(t, st, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}, nil, 120, 40)
	m = press(t, m, "c")
	m = update(t, m, tea.PasteMsg{Content: "judge missed the date"})
	m = press(t, m, "enter")
	if len(st.groups) != 1 || st.groups[0][0].Note != "judge missed the date" {
		t.Fatalf("note not recorded: %+v", st.groups)
	}
	if s := plain(m); !strings.Contains(s, "judge missed the date") {
		t.Errorf("note not on screen:\n%s", s)
	}
}

func TestSaveFailureIsShownAndRetried(t *testing.T) {
	items := testItems(3)
	st := &fakeStore{fail: errDiskFull}
	m := newTestModel(t, st, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}, nil, 120, 40)
	m = press(t, m, "y")
	s := plain(m)
	if !strings.Contains(s, "✗ not saved") || !strings.Contains(s, "no space left on device") {
		t.Fatalf("failure not shown:\n%s", s)
	}
	if n, _ := m.Unsaved(); n != 1 {
		t.Errorf("Unsaved() = %d, want 1", n)
	}
	st.fail = nil
	m = update(t, m, retrySaveMsg{})
	if got := strings.Join(st.labels(), " "); got != "q1=1" {
		t.Errorf("after retry the store holds %q", got)
	}
	if s := plain(m); !strings.Contains(s, "✓ saved") {
		t.Errorf("not confirmed after retry:\n%s", s)
	}
}

func TestParseErrorShowsRawOutput(t *testing.T) {
	items := testItems(2)
	vs := []judge.Verdict{{ItemID: "q1", Status: judge.StatusParseError, Error: "expected result: YES or NO", Raw: "I think it is fine"}}
	m := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo, Verdicts: vs}}, nil, 120, 40)
	s := plain(m)
	for _, want := range []string{"parse_error", "raw output:", "I think it is fine", "expected result: YES or NO"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	m = press(t, m, "a")
	if !strings.Contains(plain(m), "nothing to accept") {
		t.Errorf("accepting a parse error gave no message:\n%s", plain(m))
	}
}

func TestHostileTextIsInert(t *testing.T) {
	items := testItems(1)
	items[0].Question = "\x1b[2J\x1b]0;owned\x07 clear?"
	items[0].Prediction = "ok\x1b[31m red \u202e evil"
	m := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo}}, nil, 120, 40)
	raw := m.View().Content
	for _, bad := range []string{"\x1b[2J", "\x1b]0;", "\x07", "\u202e", "\x1b[31m red"} {
		if strings.Contains(raw, bad) {
			t.Errorf("raw screen contains %q", bad)
		}
	}
	if !strings.Contains(plain(m), "␛[2J") {
		t.Errorf("escape not shown inert:\n%s", plain(m))
	}
}

func TestEveryScreenFits(t *testing.T) {
	items := testItems(3)
	items[1].Prediction = "<think>" + strings.Repeat("step by step reasoning ", 200) + "</think>The answer is pred 2."
	items[2].Question = strings.Repeat("a very long question ", 100)
	sizes := [][2]int{{80, 24}, {200, 50}, {100, 30}, {60, 20}, {120, 40}, {50, 16}, {79, 16}}
	for _, sz := range sizes {
		m := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}, nil, sz[0], sz[1])
		for _, keys := range [][]string{nil, {"right"}, {"right", "right"}, {"?"}, {"s"}, {"tab", "down", "down"}, {"right", "t"}} {
			mm := press(t, m, keys...)
			checkFits(t, plain(mm), sz[0], sz[1])
		}
	}
}

func TestTooSmall(t *testing.T) {
	m := newTestModel(t, &fakeStore{}, testItems(2), []Run{{Info: matchInfo}}, nil, 40, 10)
	if s := plain(m); !strings.Contains(s, "Gavel needs") {
		t.Errorf("no size message:\n%s", s)
	}
}

func TestHelpListsEveryKey(t *testing.T) {
	m := newTestModel(t, &fakeStore{}, testItems(2), []Run{{Info: matchInfo}}, nil, 200, 50)
	m = press(t, m, "?")
	s := plain(m)
	// At 80×24 the help scrolls, and every key can be reached.
	small := press(t, newTestModel(t, &fakeStore{}, testItems(2), []Run{{Info: matchInfo}}, nil, 80, 24), "?")
	seen := plain(small)
	for range 10 {
		small = press(t, small, "pgdown")
		seen += plain(small)
	}
	every := append(m.review.FullHelp(), m.keys.all())
	for _, g := range every {
		for _, b := range g {
			if !strings.Contains(seen, b.Help().Desc) {
				t.Errorf("help at 80×24 never shows %q", b.Help().Desc)
			}
		}
	}
	for _, g := range every {
		for _, b := range g {
			if !strings.Contains(s, b.Help().Desc) {
				t.Errorf("help lacks %q", b.Help().Desc)
			}
		}
	}
	m = press(t, m, "esc")
	if m.top() != nil {
		t.Error("esc did not close the help")
	}
}

func TestThinkTraceFoldsAndHighlights(t *testing.T) {
	items := testItems(1)
	items[0].Prediction = "<think>first I add\nthen I check</think>So the answer is (B)."
	vs := []judge.Verdict{{ItemID: "q1", Status: judge.StatusOK, Values: map[string]float64{"correct": 1}, Extra: map[string]any{"extracted_answer": "(B)"}}}
	m := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo, Verdicts: vs}}, nil, 120, 40)
	s := plain(m)
	if !strings.Contains(s, "<think> 2 lines folded") || strings.Contains(s, "first I add") {
		t.Errorf("trace not folded:\n%s", s)
	}
	if !strings.Contains(m.View().Content, m.styles.Highlight.Render("(B)")) {
		t.Errorf("extracted answer not highlighted")
	}
	m = press(t, m, "t")
	if !strings.Contains(plain(m), "first I add") {
		t.Errorf("t did not unfold the trace:\n%s", plain(m))
	}
}

// A rubric item: one row per criterion, labelled one by one, with the
// item's score the mean over its criteria.
func TestRubricRowsAndItemScore(t *testing.T) {
	items := testItems(2)
	items[0].Rubric = []string{"Mentions the deadline", "Gives no legal advice", "Under 100 words"}
	rubric := judge.Info{Name: "rubric", PerCriterion: true, Dimensions: []judge.Dimension{{Name: "score", Scale: judge.Ternary}}}
	vs := []judge.Verdict{
		{ItemID: "q1", Criterion: 1, Status: judge.StatusOK, Values: map[string]float64{"score": 1}},
		{ItemID: "q1", Criterion: 2, Status: judge.StatusOK, Values: map[string]float64{"score": 0.5}},
		{ItemID: "q1", Criterion: 3, Status: judge.StatusOK, Values: map[string]float64{"score": 0}},
	}
	st := &fakeStore{}
	m := newTestModel(t, st, items, []Run{{Info: rubric, Verdicts: vs}}, nil, 120, 40)
	s := plain(m)
	for _, want := range []string{"1. Mentions the deadline", "judge 0.5", "item mean judge 0.50 (3/3)"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	// 1 labels the first criterion, 5 (= 0.5) the second, 0 the third;
	// the item is then reviewed and the screen moves on.
	m = press(t, m, "1")
	if m.review.row != 1 || m.cur != 0 {
		t.Fatalf("after the first criterion: row %d item %d", m.review.row, m.cur)
	}
	m = press(t, m, "5", "0")
	if m.cur != 1 {
		t.Errorf("not moved on after every criterion was labelled (item %d)", m.cur)
	}
	if len(st.groups) != 3 || st.groups[1][0].Value != 0.5 || st.groups[1][0].Criterion != 2 {
		t.Errorf("recorded %+v", st.groups)
	}
	// y on a ternary scale is an error message, not a label.
	m = press(t, m, "<", "3")
	if !strings.Contains(plain(m), "3 is not a score") {
		t.Errorf("3 on a ternary scale gave no message:\n%s", plain(m))
	}
}

// A run whose verdicts are read after the first frame: the screen opens
// saying so, and shows them once they arrive.
func TestVerdictsLoadAfterTheFirstFrame(t *testing.T) {
	items := testItems(4)
	release := make(chan struct{})
	run := Run{Info: matchInfo, Load: func() (Loaded, error) {
		<-release
		return Loaded{Verdicts: verdictsFor(items)}, nil
	}}
	m := newTestModel(t, &fakeStore{}, items, []Run{run}, nil, 120, 40)
	if s := plain(m); !strings.Contains(s, "reading verdicts…") || !strings.Contains(s, "Reading verdicts…") {
		t.Fatalf("no sign of loading:\n%s", s)
	}
	close(release)
	m = runCmd(t, m, m.Init(), 0)
	if s := plain(m); !strings.Contains(s, "judge YES") || strings.Contains(s, "reading verdicts") {
		t.Errorf("verdicts not shown after loading:\n%s", s)
	}
}

// With several judges, the verdict pane compares the others on the item.
func TestOtherJudgesAreCompared(t *testing.T) {
	items := testItems(2)
	other := judge.Info{Name: "docqa", Model: "m", Dimensions: matchInfo.Dimensions}
	theirs := verdictsFor(items)
	theirs[0].Values = map[string]float64{"correct": 0} // match says YES on q1
	m := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}, {Info: other, Verdicts: theirs}}, nil, 120, 40)
	if s := plain(m); !strings.Contains(s, "also docqa · m  NO ≠") {
		t.Errorf("the other judge is not compared:\n%s", s)
	}
	m = press(t, m, "J")
	if s := plain(m); !strings.Contains(s, "also match  YES ≠ docqa · m") || !strings.Contains(s, "judge docqa · m (2/2)") {
		t.Errorf("after J, the judge it differs from is not named with its model:\n%s", s)
	}
}
