package tui

import (
	"bytes"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// blindQueueOptions is a review of four items on a team session whose
// queue is blind, as cy (adjudicate: as lead, adjudicating): yuki
// labelled q1 YES (the judge says YES) and marked q2 can't judge, wren
// labelled q1 NO; the statistics count two items two people labelled.
func blindQueueOptions(store Recorder, team *Team, reports *atomic.Int32, adjudicate bool) Options {
	items := testItems(4)
	annotator := "cy"
	if adjudicate {
		annotator = "lead"
	}
	return Options{Store: store, Annotator: annotator, Dataset: "team", Items: items,
		Runs: []Run{{Info: matchInfo, Key: "match", ID: 1, Verdicts: verdictsFor(items)}},
		Others: []sessions.Label{{ItemID: "q1", Dimension: "correct", Value: 1, Annotator: "yuki", ActionID: 1},
			{ItemID: "q1", Dimension: "correct", Value: 0, Annotator: "wren", ActionID: 2}},
		OthersCantJudge: []sessions.CantJudge{{ItemID: "q2", Annotator: "yuki", Reason: sessions.ReasonAmbiguous}},
		BlindQueue:      true, Adjudicate: adjudicate, Team: team,
		Stats: func() (stats.Report, error) {
			return stats.Report{Humans: []stats.HumanAgreement{{Dimension: "correct", Scale: judge.Binary,
				Annotators: []string{"cy", "yuki", "xeno"}, Labelled: 3, Pairable: 2,
				PercentAgreement: stats.Interval{Value: 0.5, Low: 0.1, High: 0.9}}}}, nil
		},
		Report: func() (string, error) { reports.Add(1); return "team-report.html", nil },
	}
}

// xenosLabel is an update: xeno labelled q1 NO, with the team's progress.
var xenosLabel = TeamUpdate{OthersChanged: true,
	Others: []sessions.Label{
		{ItemID: "q1", Dimension: "correct", Value: 1, Annotator: "yuki", ActionID: 1},
		{ItemID: "q1", Dimension: "correct", Value: 0, Annotator: "wren", ActionID: 2},
		{ItemID: "q1", Dimension: "correct", Value: 0, Annotator: "xeno", ActionID: 3}},
	OthersCantJudge: []sessions.CantJudge{{ItemID: "q2", Annotator: "yuki", Reason: sessions.ReasonAmbiguous}},
	Progress:        []TeamProgress{{Annotator: "cy", Assigned: 3, Claimed: 3, Left: 3}, {Annotator: "xeno", Assigned: 3, Claimed: 1, Done: 2, Left: 1}},
}

// noOthers fails when anything of the others' work on items shows: on
// the screen (their names too, but on the statistics, where the team's
// progress names them), among the filters, in the message log.
func noOthers(t *testing.T, m *Model, when string) {
	t.Helper()
	s := plain(m)
	bad := []string{"human ", "≠ you"}
	if m.screen != screenStats {
		bad = append(bad, "yuki", "wren", "xeno")
	}
	for _, bad := range bad {
		if strings.Contains(s, bad) {
			t.Errorf("%s: the screen shows %q:\n%s", when, bad, s)
		}
	}
	for _, f := range m.filters() {
		if slices.Contains([]string{"annotators-differ", "humans-differ", adjudicationID}, f.id) {
			t.Errorf("%s: filter %q is offered", when, f.name)
		}
	}
	for _, e := range m.log.entries {
		if strings.Contains(e.text, "yuki") || strings.Contains(e.text, "wren") || strings.Contains(e.text, "xeno") {
			t.Errorf("%s: the log says %q", when, e.text)
		}
	}
	if m.others.any() {
		t.Errorf("%s: the screen holds the others' labels", when)
	}
}

// In a blind queue the others' labels and can't judges, given when the
// screen opens or in an update, show nowhere — not before this person
// labels the item, not after; the header says "blind queue"; the
// statistics keep the agreement between people as a figure; w writes no
// report (it lists labels item by item).
func TestBlindQueueHidesOthers(t *testing.T) {
	var reports atomic.Int32
	m := update(t, New(blindQueueOptions(&fakeStore{}, &Team{Where: "postgres://gavel@db/gavel?session=demo"}, &reports, false)),
		tea.WindowSizeMsg{Width: 80, Height: 24})
	if h := header(m); !strings.Contains(h, "blind queue") {
		t.Errorf("header %q", h)
	}
	noOthers(t, m, "on opening")
	m = update(t, m, xenosLabel)
	noOthers(t, m, "after xeno's label")
	m = press(t, m, "y", "left") // label q1 and come back to it
	if m.items[m.cur].ID != "q1" || !m.reviewed[m.cur] {
		t.Fatalf("on %s, reviewed %v", m.items[m.cur].ID, m.reviewed[m.cur])
	}
	noOthers(t, m, "after labelling q1")
	if h := header(m); !strings.Contains(h, "blind queue") {
		t.Errorf("header after labelling %q", h)
	}
	m = press(t, m, "s")
	s := plain(m)
	for _, want := range []string{"between people · correct:", "2 items by two or more, agreement 50.0%", "xeno               3        1      2  67% of their share"} {
		if !strings.Contains(s, want) {
			t.Errorf("the statistics lack %q:\n%s", want, s)
		}
	}
	m = press(t, m, "w")
	if s := plain(m); !strings.Contains(s, "blind queue") || reports.Load() != 0 {
		t.Errorf("w in a blind queue wrote %d reports:\n%s", reports.Load(), s)
	}
	noOthers(t, m, "on the statistics")
	m = press(t, m, "s", "L")
	noOthers(t, m, "on the list")
	checkFits(t, plain(m), 80, 24)
}

// A blind queue's update carrying another annotator's label, through a
// real program at 80x24: nothing of it shows, while the team's progress
// it carried does (so it was read); with --adjudicate both people's
// labels stand beside the verdict.
func TestBlindQueueProgram(t *testing.T) {
	for _, adjudicate := range []bool{false, true} {
		ch := make(chan TeamUpdate, 4)
		var reports atomic.Int32
		tm := teatest.NewTestModel(t, New(blindQueueOptions(&fakeStore{}, &Team{Where: "postgres://gavel@db/gavel?session=demo", Updates: ch}, &reports, adjudicate)),
			teatest.WithInitialTermSize(80, 24), teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
		wait := func(s string) {
			t.Helper()
			teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(s)) }, teatest.WithDuration(10*time.Second))
		}
		wait("Question number 1")
		ch <- xenosLabel
		tm.Type("s")
		wait("67% of their share") // the update was applied
		tm.Type("s")
		wait("Question number 1")
		close(ch)
		tm.Type("q")
		final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
		ls := lines(final)
		checkFits(t, strings.Join(ls, "\n"), 80, 24)
		if !adjudicate {
			if !strings.Contains(ls[0], "blind queue") {
				t.Errorf("header %q", ls[0])
			}
			noOthers(t, final, "blind queue, after the update")
			continue
		}
		if strings.Contains(ls[0], "blind queue") {
			t.Errorf("the adjudicator's header %q", ls[0])
		}
		for _, want := range []string{"human yuki  YES", "human wren  NO", "human xeno  NO"} {
			if !slices.ContainsFunc(ls, func(l string) bool { return strings.Contains(l, want) }) {
				t.Errorf("adjudicating: no line holds %q:\n%s", want, strings.Join(ls, "\n"))
			}
		}
	}
}
