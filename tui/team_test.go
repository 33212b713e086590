package tui

import (
	"bytes"
	"errors"
	"slices"
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

// teamModel is a review of items on a team session without a queue:
// the match judge's verdicts on the first half of the items only.
func teamModel(t *testing.T, store Recorder, items []judge.Item, team *Team, st func() (stats.Report, error)) *Model {
	t.Helper()
	vs := verdictsFor(items)[:len(items)/2]
	m := New(Options{Store: store, Annotator: "cy", Dataset: "team", Items: items,
		Runs: []Run{{Info: matchInfo, Key: "match", ID: 1, Verdicts: vs}}, Team: team, Stats: st})
	return update(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
}

// Others' labels and new verdicts arrive as updates: the verdict pane
// shows the other person's label beside the verdict, and a verdict saved
// elsewhere on an item that had none.
func TestTeamUpdateShowsOthersAndVerdicts(t *testing.T) {
	items := testItems(4)
	m := teamModel(t, &fakeStore{}, items, &Team{Where: "postgres://gavel@db/gavel?session=demo"}, nil)
	if s := plain(m); strings.Contains(s, "human ") {
		t.Fatalf("others shown before any update:\n%s", s)
	}
	m = update(t, m, TeamUpdate{OthersChanged: true, Others: []sessions.Label{
		{ItemID: "q1", Dimension: "correct", Value: 0, Annotator: "bo"},
	}})
	s := plain(m)
	if !strings.Contains(s, "human bo") || !strings.Contains(s, "NO") {
		t.Errorf("bo's label is not beside the verdict:\n%s", s)
	}
	// A verdict on q3 (which had none) comes from a gavel run elsewhere.
	m = press(t, m, "right", "right")
	if m.items[m.cur].ID != "q3" {
		t.Fatalf("on %s, want q3", m.items[m.cur].ID)
	}
	if _, ok := m.run().verdict(m.cur, 0); ok {
		t.Fatal("q3 has a verdict before the update")
	}
	m = update(t, m, TeamUpdate{Verdicts: []RunVerdicts{{RunID: 1, Verdicts: []judge.Verdict{
		{ItemID: "q3", Status: judge.StatusOK, Values: map[string]float64{"correct": 1}, At: time.Unix(0, 0)},
	}}}})
	if v, ok := m.run().verdict(m.cur, 0); !ok || v.Values["correct"] != 1 {
		t.Errorf("q3's verdict after the update: %+v, %v", v, ok)
	}
	if !strings.Contains(plain(m), "YES") {
		t.Errorf("the new verdict is not on screen:\n%s", plain(m))
	}
	// An update replaces the others' labels: bo undid his.
	m = press(t, m, "left", "left")
	m = update(t, m, TeamUpdate{OthersChanged: true})
	if strings.Contains(plain(m), "human bo") {
		t.Errorf("bo's undone label still shows:\n%s", plain(m))
	}
	// A new judge run elsewhere joins the screen's judges.
	m = update(t, m, TeamUpdate{Runs: []Run{{Info: judge.Info{Name: "docqa", Model: "m", Dimensions: matchInfo.Dimensions}, Key: "docqa · m", ID: 7}}})
	if len(m.runs) != 2 || m.runs[1].id != 7 {
		t.Errorf("runs after a new judge: %d", len(m.runs))
	}
	m = update(t, m, TeamUpdate{Runs: []Run{{Info: judge.Info{Name: "docqa"}, Key: "docqa · m", ID: 7}}})
	if len(m.runs) != 2 {
		t.Errorf("the same run added twice: %d runs", len(m.runs))
	}
}

// The statistics screen shows each person's progress and the agreement
// between people so far, and computes the statistics again when the
// others' labels change.
func TestTeamProgressOnStatistics(t *testing.T) {
	items := testItems(4)
	var mu sync.Mutex
	computed := 0
	st := func() (stats.Report, error) {
		mu.Lock()
		defer mu.Unlock()
		computed++
		return stats.Report{Humans: []stats.HumanAgreement{{Dimension: "correct", Scale: judge.Binary,
			Annotators: []string{"bo", "cy"}, Labelled: 3, Pairable: 2,
			PercentAgreement: stats.Interval{Value: 0.5, Low: 0.1, High: 0.9}}}}, nil
	}
	m := teamModel(t, &fakeStore{}, items, &Team{Where: "postgres://gavel@db/gavel?session=demo"}, st)
	m = press(t, m, "s")
	s := plain(m)
	if !strings.Contains(s, "Team · postgres://gavel@db/gavel?session=demo") || !strings.Contains(s, "Reading the team's progress") {
		t.Errorf("stats before any update:\n%s", s)
	}
	m = update(t, m, TeamUpdate{OthersChanged: true, Others: []sessions.Label{{ItemID: "q1", Dimension: "correct", Value: 1, Annotator: "bo"}},
		Progress: []TeamProgress{{Annotator: "bo", Assigned: 3, Claimed: 1, Done: 2, Left: 1}, {Annotator: "cy", Assigned: 3, Claimed: 3, Done: 0, Left: 3}}})
	s = plain(m)
	for _, want := range []string{"assigned", "claimed", "bo", "cy (you)", "67% of their share",
		"between people · correct: 2 items by two or more, agreement 50.0% [10.0%, 90.0%]"} {
		if !strings.Contains(s, want) {
			t.Errorf("stats screen lacks %q:\n%s", want, s)
		}
	}
	mu.Lock()
	n := computed
	mu.Unlock()
	if n < 2 {
		t.Errorf("statistics computed %d times, want again after the others' labels changed", n)
	}
	checkFits(t, s, 100, 30)
	// Progress alone (no queue): decided counts.
	m = update(t, m, TeamUpdate{Progress: []TeamProgress{{Annotator: "bo", Done: 4}}})
	if s := plain(m); !strings.Contains(s, "decided") || strings.Contains(s, "assigned") {
		t.Errorf("progress without a queue:\n%s", s)
	}
	// The session cannot be read: said once, and on the statistics.
	m = update(t, m, TeamUpdate{Err: errors.New("connection refused")})
	m = update(t, m, TeamUpdate{Err: errors.New("connection refused")})
	if s := plain(m); !strings.Contains(s, "not up to date") {
		t.Errorf("a failing update is not said on the statistics:\n%s", s)
	}
	warned := 0
	for _, e := range m.log.entries {
		if strings.Contains(e.text, "cannot be read") {
			warned++
		}
	}
	if warned != 1 {
		t.Errorf("the failure is logged %d times, want once", warned)
	}
	m = update(t, m, TeamUpdate{})
	if s := plain(m); strings.Contains(s, "not up to date") {
		t.Errorf("still not up to date after an update worked:\n%s", s)
	}
}

// Judging is gavel run's on a team session: r, R and E say so.
func TestTeamRefusesJudging(t *testing.T) {
	m := teamModel(t, &fakeStore{}, testItems(4), &Team{}, nil)
	for _, k := range []string{"r", "R", "E"} {
		m = press(t, m, k)
		if s := plain(m); !strings.Contains(s, "Only gavel run judges a team session") {
			t.Errorf("%s on a team session:\n%s", k, s)
		}
		if m.top() != nil {
			t.Errorf("%s opened a dialog", k)
			m.closeDialog()
		}
	}
}

// claims is a queue handing out ids in batches.
type claims struct {
	mu    sync.Mutex
	left  []string
	calls int
}

func (c *claims) claim(n int) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	n = min(n, len(c.left), 2) // two at a time, to see the next claims
	out := c.left[:n]
	c.left = c.left[n:]
	return out, nil
}

// With a queue the review opens on the items claimed, in the order
// claimed, claims more as they are decided, and leaves the undecided ones
// for the caller to release.
func TestTeamQueue(t *testing.T) {
	items := testItems(8)
	store := &fakeStore{}
	q := &claims{left: []string{"q5", "q2", "q7", "q4", "q8"}}
	m := teamModel(t, store, items, &Team{Claim: q.claim}, nil)
	m = runCmd(t, m, m.teamInit(), 0)
	if m.sel.filter.id != viaQueue || m.items[m.cur].ID != "q5" {
		t.Fatalf("opened on %s through %q, want q5 through the queue", m.items[m.cur].ID, m.sel.filter.id)
	}
	if s := plain(m); !strings.Contains(s, "your queue") {
		t.Errorf("the header does not say the queue:\n%s", s)
	}
	// Label q5: one claimed item is left, under claimLow: a claim
	// brings q7 and q4; after q2 two are left: q8 comes.
	m = press(t, m, "y")
	if m.items[m.cur].ID != "q2" {
		t.Errorf("after q5 on %s, want q2", m.items[m.cur].ID)
	}
	if got := m.team.q.ids; !slices.Equal(got, []string{"q5", "q2", "q7", "q4"}) {
		t.Errorf("claimed %v after deciding one", got)
	}
	m = press(t, m, "n")
	if got := m.team.q.ids; !slices.Equal(got, []string{"q5", "q2", "q7", "q4", "q8"}) {
		t.Errorf("claimed %v after deciding two", got)
	}
	if m.items[m.cur].ID != "q7" {
		t.Errorf("after q2 on %s, want q7 (claimed next)", m.items[m.cur].ID)
	}
	for _, g := range store.groups {
		if g[0].Via != viaQueue {
			t.Errorf("label via %q, want %q", g[0].Via, viaQueue)
		}
	}
	if got := m.Claimed(); !slices.Equal(got, []string{"q7", "q4", "q8"}) {
		t.Errorf("Claimed() = %v, want the undecided q7 q4 q8", got)
	}
	// The queue runs dry: said once.
	m = press(t, m, "y", "y")
	m = press(t, m, "y")
	if got := m.Claimed(); len(got) != 0 {
		t.Errorf("Claimed() = %v after deciding every claimed item", got)
	}
	done := 0
	for _, e := range m.log.entries {
		if strings.Contains(e.text, "Your queue is done") {
			done++
		}
	}
	if done != 1 {
		t.Errorf("'queue is done' said %d times; log: %v", done, m.log.entries)
	}
	if s := plain(m); !strings.Contains(s, "reviewed 5/8") {
		t.Errorf("status:\n%s", s)
	}
}

// A person who moved before the first claim answered keeps their place;
// f then reaches the queue.
func TestTeamQueueAfterMoving(t *testing.T) {
	items := testItems(6)
	q := &claims{left: []string{"q4", "q6"}}
	m := teamModel(t, &fakeStore{}, items, &Team{Claim: q.claim}, nil)
	m.team.q.start, m.team.q.gen = m.cur, m.labelsGen
	m = press(t, m, "right")
	m = update(t, m, claimedMsg{ids: []string{"q4", "q6"}})
	if m.sel.filter.id == viaQueue || m.items[m.cur].ID != "q2" {
		t.Errorf("moved to %s (%s): the claim took the person away", m.items[m.cur].ID, m.sel.filter.id)
	}
	var names []string
	for _, f := range m.filters() {
		names = append(names, f.name)
	}
	if !slices.Contains(names, "your queue") {
		t.Errorf("filters %v lack the queue", names)
	}
}

// Through a real program: updates sent on the channel while the person
// labels show within the run, and a failing store shows "✗ not saved"
// until it works again, as on any session.
func TestTeamLiveProgram(t *testing.T) {
	items := testItems(4)
	store := &fakeStore{}
	ch := make(chan TeamUpdate, 4)
	m := New(Options{Store: store, Annotator: "cy", Dataset: "team", Items: items,
		Runs: []Run{{Info: matchInfo, Key: "match", ID: 1, Verdicts: verdictsFor(items)}}, Team: &Team{Updates: ch}})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("q1")) }, teatest.WithDuration(10*time.Second))
	ch <- TeamUpdate{OthersChanged: true, Others: []sessions.Label{{ItemID: "q1", Dimension: "correct", Value: 0, Annotator: "ana"}}}
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("human ana")) }, teatest.WithDuration(10*time.Second))
	store.mu.Lock()
	store.fail = errors.New("session postgres://gavel@db/gavel?session=demo: saving labels: connection refused")
	store.mu.Unlock()
	tm.Type("y")
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("✗ not saved")) }, teatest.WithDuration(10*time.Second))
	store.mu.Lock()
	store.fail = nil
	store.mu.Unlock()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("✓ saved")) }, teatest.WithDuration(10*time.Second))
	close(ch)
	tm.Type("q")
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
	if n, err := final.Unsaved(); n != 0 {
		t.Errorf("%d unsaved: %v", n, err)
	}
	if got := store.labels(); !slices.Equal(got, []string{"q1=1"}) {
		t.Errorf("store holds %v", got)
	}
}

// A team session nobody has judged yet says what brings verdicts (only
// gavel run judges a team session), and a judge that then appears takes
// its place.
func TestTeamWithoutAJudgeSaysWhatToDo(t *testing.T) {
	items := testItems(2)
	m := New(Options{Store: &fakeStore{}, Annotator: "cy", Dataset: "team", Items: items, Team: &Team{}})
	m = update(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	if s := plain(m); !strings.Contains(s, "gavel run") || strings.Contains(s, "No judge in this session.") {
		t.Fatalf("a team session without a judge:\n%s", s)
	}
	m = update(t, m, TeamUpdate{Runs: []Run{{Info: matchInfo, Key: "match", ID: 1, Verdicts: verdictsFor(items)}}})
	if m.run() == nil {
		t.Fatal("the judge that appeared is not on screen")
	}
	if s := plain(m); strings.Contains(s, "nothing to label") {
		t.Errorf("the judge's verdicts arrived, yet:\n%s", s)
	}
}
