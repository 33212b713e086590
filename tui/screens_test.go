package tui

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats"
)

var likert15 = judge.Info{Name: "quality", Dimensions: []judge.Dimension{{Name: "helpfulness", Scale: judge.Likert}}}

// likertVerdicts gives every item a 4.
func likertVerdicts(items []judge.Item) []judge.Verdict {
	vs := make([]judge.Verdict, len(items))
	for i, it := range items {
		vs[i] = judge.Verdict{ItemID: it.ID, Status: judge.StatusOK, Values: map[string]float64{"helpfulness": 4}}
	}
	return vs
}

// hintLineOf is the last line of the screen.
func hintLineOf(m *Model) string {
	lines := strings.Split(plain(m), "\n")
	return lines[len(lines)-1]
}

// Keys follow the item's scale: on a 1–5 item y and n are refused with a
// hint and save nothing, digits score, and the hint line offers 1–5, even
// at 80 columns.
func TestLikertRefusesYesNo(t *testing.T) {
	items := testItems(3)
	st := &fakeStore{}
	m := newTestModel(t, st, items, []Run{{Info: likert15, Verdicts: likertVerdicts(items)}}, nil, 80, 24)
	first := hintLineOf(m)
	if !strings.Contains(first, "1–5 score") || strings.Contains(first, "y yes") {
		t.Errorf("hint line of a 1–5 item at 80 columns: %q", first)
	}
	for _, k := range []string{"y", "n"} {
		m = press(t, m, k)
		if len(st.groups) != 0 {
			t.Fatalf("%s on a 1–5 item saved %+v", k, st.groups)
		}
		if hint := hintLineOf(m); !strings.Contains(hint, "y and n label YES/NO items") || !strings.Contains(hint, "1 to 5") {
			t.Errorf("%s on a 1–5 item: hint line %q", k, hint)
		}
	}
	m = press(t, m, "7")
	if len(st.groups) != 0 || !strings.Contains(hintLineOf(m), "7 is not a score") {
		t.Errorf("7 on a 1–5 item: saved %+v, hint %q", st.groups, hintLineOf(m))
	}
	m = press(t, m, "2")
	if len(st.groups) != 1 || st.groups[0][0].Value != 2 {
		t.Fatalf("2 on a 1–5 item saved %+v", st.groups)
	}
	// The help overlay shows the same keys as the hint line.
	m = press(t, m, "?")
	if s := plain(m); !strings.Contains(s, "label this item: score") || strings.Contains(s, "label YES") {
		t.Errorf("help of a 1–5 item:\n%s", s)
	}
}

// The hint line follows the item: y · n on YES/NO items, 0 · 5 · 1 on
// ternary ones.
func TestHintsFollowTheScale(t *testing.T) {
	items := testItems(2)
	ternary := judge.Info{Name: "t", Dimensions: []judge.Dimension{{Name: "score", Scale: judge.Ternary}}}
	tests := []struct {
		info judge.Info
		want string
	}{
		{matchInfo, "y yes · n no"},
		{ternary, "0 · 5 · 1 score"},
		{likert15, "1–5 score"},
	}
	for _, tc := range tests {
		m := newTestModel(t, &fakeStore{}, items, []Run{{Info: tc.info}}, nil, 80, 24)
		if got := hintLineOf(m); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: hint line %q, want it to start with %q", tc.info.Name, got, tc.want)
		}
	}
}

// The list screen's hint line offers the list's keys, not the review
// screen's.
func TestListScreenHints(t *testing.T) {
	items := testItems(5)
	m := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}, nil, 80, 24)
	m = press(t, m, "L")
	h := hintLineOf(m)
	for _, want := range []string{"enter open", "filter", "esc/L back", "? help"} {
		if !strings.Contains(h, want) {
			t.Errorf("list hint line lacks %q: %q", want, h)
		}
	}
	for _, bad := range []string{"y yes", "a accept", "u undo"} {
		if strings.Contains(h, bad) {
			t.Errorf("list hint line offers %q, which does nothing there: %q", bad, h)
		}
	}
	// y, a and u do nothing on the list.
	st := m.store.(*fakeStore)
	m = press(t, m, "y", "a", "u")
	if len(st.groups) != 0 || m.screen != screenList {
		t.Errorf("label keys acted on the list: %+v, screen %d", st.groups, m.screen)
	}
}

// A filter that holds no item says so, shows no item, and the label keys
// do nothing.
func TestEmptyFilterShowsNoItem(t *testing.T) {
	items := testItems(3)
	st := &fakeStore{}
	m := newTestModel(t, st, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}, nil, 120, 30)
	m = press(t, m, "f", "f") // judge ≠ you: nothing labelled yet
	if m.sel.filter.id != "disagreements" || len(m.sel.items) != 0 {
		t.Fatalf("filter %q holds %d items", m.sel.filter.id, len(m.sel.items))
	}
	s := plain(m)
	if !strings.Contains(s, "No item: no item matches the filter judge ≠ you") || strings.Contains(s, "Question number") {
		t.Errorf("empty filter screen:\n%s", s)
	}
	m = press(t, m, "y", "a", "n")
	if len(st.groups) != 0 {
		t.Errorf("labels made with no item on screen: %+v", st.groups)
	}
	if h := hintLineOf(m); !strings.Contains(h, "No item on screen") {
		t.Errorf("hint line: %q", h)
	}
	// One judge: "judge ≠ judge" is not offered.
	for _, f := range m.filters() {
		if f.id == "judges-differ" || f.id == "annotators-differ" {
			t.Errorf("filter %q offered though it cannot match", f.id)
		}
	}
}

// An empty search says so and shows no item.
func TestSearchWithoutMatch(t *testing.T) {
	items := testItems(4)
	m := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}, nil, 120, 30)
	m = press(t, m, "/")
	for _, r := range "zebra" {
		m = press(t, m, string(r))
	}
	m = press(t, m, "enter")
	if s := plain(m); !strings.Contains(s, `No item: no item matches the filter text "zebra"`) {
		t.Errorf("search without a match:\n%s", s)
	}
	// q is text in the search prompt, not quit.
	m = press(t, m, "/", "q", "3", "enter")
	if m.sel.filter.id != "search" || len(m.sel.items) != 1 || m.cur != 2 {
		t.Errorf("search q3: filter %q, %d items, on %d", m.sel.filter.id, len(m.sel.items), m.cur)
	}
}

// A label is only made through a filter the item is in: an item that
// left "unreviewed" cannot be labelled again under that filter.
func TestLabelOnlyThroughItsFilter(t *testing.T) {
	items := testItems(3)
	st := &fakeStore{}
	m := newTestModel(t, st, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}, nil, 120, 30)
	m = press(t, m, "f", "y", "h") // unreviewed; label q1, back to it
	if m.cur != 0 {
		t.Fatalf("on item %d", m.cur)
	}
	m = press(t, m, "n")
	if len(st.groups) != 1 || !strings.Contains(hintLineOf(m), "no longer in the filter") {
		t.Errorf("relabelled outside the filter: %+v, hint %q", st.groups, hintLineOf(m))
	}
}

// rejudgeStore records which tasks a re-judge was asked for.
type rejudged struct {
	mu    sync.Mutex
	tasks []judge.Task
}

func (r *rejudged) fn(tasks []judge.Task) (*sessions.Judging, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tasks = append(r.tasks, tasks...)
	return nil, nil
}

// R asks first; y confirms, and the re-judge starts with its message, on
// the one model the program runs (a copy changed in a callback would lose
// both). Through a real program, so the key after R really goes to the
// confirmation.
func TestRejudgeAllConfirmed(t *testing.T) {
	items := testItems(4)
	rj := &rejudged{}
	m := New(Options{Store: &fakeStore{}, Annotator: "tester", Dataset: "test.jsonl", Items: items,
		Runs: []Run{{Info: matchInfo, Verdicts: verdictsFor(items), Rejudge: rj.fn}}})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	tm.Type("R")
	// The question opens at once; y is taken once its tasks are counted.
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("(4 tasks)?")) },
		teatest.WithDuration(5*time.Second))
	tm.Type("y")
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("Re-judging all 4 items")) },
		teatest.WithDuration(5*time.Second))
	tm.Type("q")
	final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	rj.mu.Lock()
	n := len(rj.tasks)
	rj.mu.Unlock()
	if n != 4 {
		t.Errorf("re-judged %d tasks, want 4", n)
	}
	if s := logText(final); !strings.Contains(s, "Re-judging all 4 items (4 tasks) with match") {
		t.Errorf("the log does not keep the re-judge:\n%s", s)
	}
	// Any other key cancels.
	m2 := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items), Rejudge: rj.fn}}, nil, 120, 30)
	m2 = press(t, m2, "R", "n")
	if !strings.Contains(hintLineOf(m2), "Cancelled") || m2.top() != nil {
		t.Errorf("n did not cancel: %q", hintLineOf(m2))
	}
}

// logText is every message of the log, as the log dialog shows it.
func logText(m *Model) string {
	var b strings.Builder
	for _, e := range m.log.entries {
		b.WriteString(e.text + "\n")
	}
	return b.String()
}

// A judge that stops on a fatal error: the log keeps the error's whole
// advice, however long, and the status line says there is something new.
func TestLogKeepsFatalErrorWhole(t *testing.T) {
	items := testItems(3)
	advice := "the server answered 401 Unauthorized: the API key was refused. Check OPENAI_API_KEY (or --api-key) " +
		"for this server, and --base-url: a key for one provider does not work on another. Nothing was judged; " +
		"your labels are safe, and the judge resumes where it stopped when you reopen the session."
	ch := make(chan sessions.Batch)
	close(ch)
	m := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo, Stopped: func() error { return errors.New(advice) }}}, nil, 80, 24)
	m.runs[0].streams[0] = &stream{ch: ch, last: sessions.Batch{Total: 3}}
	m = update(t, m, batchMsg{run: 0, stream: 0, closed: true})
	if h := hintLineOf(m); !strings.Contains(h, "match stopped judging") || !strings.HasSuffix(h, "(m: all)") {
		t.Errorf("hint line: %q", h)
	}
	m = press(t, m, "l") // the next key clears the hint line…
	if s := plain(m); !strings.Contains(s, "● 1 message · m") {
		t.Errorf("status line does not count the message:\n%s", s)
	}
	m = press(t, m, "m") // …the log keeps it whole
	s := strings.Join(strings.Fields(strings.ReplaceAll(plain(m), "│", " ")), " ")
	for _, part := range []string{"match stopped judging", "Check OPENAI_API_KEY (or --api-key)", "resumes where it stopped when you reopen the session."} {
		if !strings.Contains(s, part) {
			t.Errorf("the log lacks %q:\n%s", part, plain(m))
		}
	}
	m = press(t, m, "q") // q closes the log, it does not quit
	if m.top() != nil {
		t.Error("q did not close the log")
	}
	if s := plain(m); strings.Contains(s, "● 1 message") {
		t.Errorf("the message is still unread after the log was opened:\n%s", s)
	}
}

// Notes: confirmed when saved, kept in the log, shown at the top of the
// verdict pane.
func TestNoteConfirmedAndOnTop(t *testing.T) {
	items := testItems(2)
	m := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}, nil, 120, 30)
	m = press(t, m, "c")
	m = update(t, m, tea.PasteMsg{Content: "gold looks wrong"})
	m = press(t, m, "enter")
	if h := hintLineOf(m); !strings.Contains(h, "Note on q1: gold looks wrong") {
		t.Errorf("hint line after a note: %q", h)
	}
	var verdictTop string
	for _, l := range strings.Split(plain(m), "\n") {
		if i := strings.Index(l, "╭─ Verdict"); i >= 0 {
			verdictTop = "found"
		} else if verdictTop == "found" {
			verdictTop = l
			break
		}
	}
	if !strings.Contains(verdictTop, "note") || !strings.Contains(verdictTop, "gold looks wrong") {
		t.Errorf("first line of the verdict pane: %q", verdictTop)
	}
}

// Other annotators' labels show in the verdict pane, and "annotators
// disagree" finds the items where they differ.
func TestOtherAnnotators(t *testing.T) {
	items := testItems(3)
	others := []sessions.Label{
		{Annotator: "imported · HumanJudgement", ItemID: "q1", Dimension: "correct", Value: 0},
		{Annotator: "bo", ItemID: "q2", Dimension: "correct", Value: 1},
		{Annotator: "cy", ItemID: "q2", Dimension: "correct", Value: 0},
	}
	m := New(Options{Store: &fakeStore{}, Annotator: "tester", Dataset: "t.jsonl", Items: items, Others: others,
		Runs: []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}})
	m = update(t, m, tea.WindowSizeMsg{Width: 120, Height: 30})
	if s := plain(m); !strings.Contains(s, "human imported · HumanJudgement  NO") {
		t.Errorf("imported human's label not shown:\n%s", s)
	}
	m = press(t, m, "y") // q1: you YES, the import says NO
	var f filter
	for _, x := range m.filters() {
		if x.id == "annotators-differ" {
			f = x
		}
	}
	if f.id == "" {
		t.Fatal("annotators disagree is not offered")
	}
	m.sel.filter = f
	m.reselect()
	if got := ids(m); strings.Join(got, ",") != "q1,q2" {
		t.Errorf("annotators disagree on %v, want q1,q2", got)
	}
	// Blind mode hides them too until the item is labelled.
	m = press(t, m, "b")
	m.show(1)
	if s := plain(m); strings.Contains(s, "human bo") {
		t.Errorf("blind mode shows other annotators' labels:\n%s", s)
	}
}

// Panes: heights do not change with the focus; z zooms the focused pane;
// G and end go to a pane's end; a long few-shot question opens at its end.
func TestPanesFollowTheirContent(t *testing.T) {
	items := testItems(2)
	var q strings.Builder
	for i := range 50 {
		q.WriteString("Example " + string(rune('A'+i%26)) + ": some few-shot question and answer\n")
	}
	q.WriteString("\nQ: the real question at the end?")
	items[0].Question = q.String()
	items[0].Prediction = strings.Repeat("a long prediction line that wraps\n", 60)
	m := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}, nil, 80, 24)
	if s := plain(m); !strings.Contains(s, "Q: the real question at the end?") || !strings.Contains(s, "lines above (tab to it, home: top)") {
		t.Errorf("the question's end is not shown:\n%s", s)
	}
	before := m.review.layout(m.width, m.height-chromeRows)
	m = press(t, m, "tab", "tab")
	if after := m.review.layout(m.width, m.height-chromeRows); after != before {
		t.Errorf("pane sizes moved with the focus: %v → %v", before, after)
	}
	m = press(t, m, "z")
	if s := plain(m); !strings.Contains(s, "Gold answer · z unzooms") && !strings.Contains(s, "z unzooms") {
		t.Errorf("z did not zoom:\n%s", s)
	}
	m = press(t, m, "z")
	m.review.focus = panePrediction
	m = press(t, m, "G")
	rows := m.review.paneRows(panePrediction)
	if got, want := m.review.scroll[panePrediction], m.review.paneLen(panePrediction, m.review.layout(m.width, m.height-chromeRows)[panePrediction].w-4)-rows; got != want {
		t.Errorf("G scrolled the prediction to %d, want its end %d", got, want)
	}
	m = press(t, m, "<") // the first item: q1 itself, nothing moves
	m = press(t, m, "end")
	if m.cur != 0 || m.review.scroll[panePrediction] == 0 {
		t.Errorf("end moved to item %d / scroll %d; it should scroll the pane", m.cur, m.review.scroll[panePrediction])
	}
}

// At 80×24 a rubric criterion's scores are visible however long its text:
// the text is cut, not the scores.
func TestRubricScoresNeverCut(t *testing.T) {
	items := testItems(1)
	items[0].Rubric = []string{strings.Repeat("A very long criterion about the answer's tone and completeness ", 4), "Short"}
	rubric := judge.Info{Name: "rubric", PerCriterion: true, Dimensions: []judge.Dimension{{Name: "score", Scale: judge.Ternary}}}
	vs := []judge.Verdict{
		{ItemID: "q1", Criterion: 1, Status: judge.StatusOK, Values: map[string]float64{"score": 0.5}},
		{ItemID: "q1", Criterion: 2, Status: judge.StatusOK, Values: map[string]float64{"score": 1}},
	}
	m := newTestModel(t, &fakeStore{}, items, []Run{{Info: rubric, Verdicts: vs}}, nil, 80, 24)
	m = press(t, m, "1")
	s := plain(m)
	if !strings.Contains(s, "judge 0.5 you 1   ✗") || !strings.Contains(s, "judge 1   you —") {
		t.Errorf("rubric scores cut at 80×24:\n%s", s)
	}
}

// A server that stops answering is said in the log and on the status
// line whatever is on screen, and its recovery too.
func TestServerNotAnswering(t *testing.T) {
	items := testItems(2)
	m := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}, nil, 120, 30)
	m = press(t, m, "s") // on the statistics screen
	next, _ := m.Update(healthMsg{text: "the server at http://127.0.0.1:9/v1 has not answered for 1m30s; waiting up to 10m0s (--wait)"})
	m = next.(*Model)
	if s := plain(m); !strings.Contains(s, "⚠ server not answering") {
		t.Errorf("status line does not say the server is not answering:\n%s", s)
	}
	if s := logText(m); !strings.Contains(s, "has not answered for 1m30s; waiting up to 10m0s (--wait). Your labels are saved") {
		t.Errorf("log: %s", s)
	}
	next, _ = m.Update(healthMsg{text: "the server at http://127.0.0.1:9/v1 has not answered for 1m31s; waiting up to 10m0s (--wait)"})
	m = next.(*Model)
	if n := strings.Count(logText(m), "has not answered"); n != 1 {
		t.Errorf("the log says it %d times, want once while it lasts", n)
	}
	next, _ = m.Update(healthMsg{})
	m = next.(*Model)
	if s := plain(m); strings.Contains(s, "server not answering") || !strings.Contains(logText(m), "answers again") {
		t.Errorf("recovery not shown:\n%s\n%s", s, logText(m))
	}
}

// Blind mode hides every trace of the verdicts: a rubric's item mean, and
// the filters that compare verdicts.
func TestBlindModeHidesEveryTrace(t *testing.T) {
	items := testItems(2)
	items[0].Rubric = []string{"Gives the date", "Cites the page"}
	rubric := judge.Info{Name: "rubric", PerCriterion: true, Dimensions: []judge.Dimension{{Name: "score", Scale: judge.Ternary}}}
	vs := []judge.Verdict{
		{ItemID: "q1", Criterion: 1, Status: judge.StatusOK, Values: map[string]float64{"score": 1}},
		{ItemID: "q1", Criterion: 2, Status: judge.StatusOK, Values: map[string]float64{"score": 0}},
	}
	m := New(Options{Store: &fakeStore{}, Annotator: "tester", Dataset: "t.jsonl", Items: items, Blind: true,
		Others: []sessions.Label{{Annotator: "bo", ItemID: "q1", Criterion: 1, Dimension: "score", Value: 1}},
		Runs:   []Run{{Info: rubric, Verdicts: vs}, {Info: rubric, Verdicts: vs}}})
	m = update(t, m, tea.WindowSizeMsg{Width: 120, Height: 30})
	if s := plain(m); strings.Contains(s, "0.50") || !strings.Contains(s, "item mean judge hidden") {
		t.Errorf("blind mode shows the item mean:\n%s", s)
	}
	for _, f := range m.filters() {
		switch f.id {
		case "judges-differ", "annotators-differ", "humans-differ", "judge-top", "judge-bottom":
			t.Errorf("blind mode offers the filter %q", f.name)
		}
	}
}

// A search from the list puts the cursor on the first match.
func TestListSearchMovesTheCursor(t *testing.T) {
	items := testItems(30)
	m := newTestModel(t, &fakeStore{}, items, []Run{{Info: matchInfo, Verdicts: verdictsFor(items)}}, nil, 120, 30)
	m = press(t, m, ">", "L", "/", "q", "2", "enter")
	if m.sel.pos != m.list.cursor || m.sel.items[m.list.cursor] != m.cur {
		t.Errorf("cursor %d, selection at %d, item %d", m.list.cursor, m.sel.pos, m.cur)
	}
	m = press(t, m, "enter")
	if m.cur != 1 {
		t.Errorf("enter opened item %d, want q2 (index 1)", m.cur)
	}
}

// The statistics on screen are computed again when a judge ends its
// work: those computed while it judged miss its last verdicts.
func TestStatsRecomputedWhenJudgingEnds(t *testing.T) {
	items := testItems(3)
	var mu sync.Mutex
	computed := 0
	statsFn := func() (stats.Report, error) {
		mu.Lock()
		defer mu.Unlock()
		computed++
		return stats.Report{}, nil
	}
	ch := make(chan sessions.Batch)
	close(ch)
	m := update(t, New(Options{Store: &fakeStore{}, Annotator: "tester", Dataset: "test.jsonl", Items: items,
		Runs: []Run{{Info: matchInfo}}, Stats: statsFn}), tea.WindowSizeMsg{Width: 80, Height: 24})
	m.runs[0].streams[0] = &stream{ch: ch, last: sessions.Batch{Total: 3}}
	m = press(t, m, "s")
	mu.Lock()
	before := computed
	mu.Unlock()
	m = update(t, m, batchMsg{run: 0, stream: 0, closed: true})
	mu.Lock()
	defer mu.Unlock()
	if before != 1 || computed != 2 {
		t.Errorf("statistics computed %d times on opening, %d after the judge ended; want 1 and 2", before, computed)
	}
}
