package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/sessions"
)

// lead adjudicated q1, then ana changed her label on it: q1 is back in
// the queue. --adjudicate opens on it (the first item waiting, in the
// queue's order), not past it on q2 (the first item lead has not
// labelled), and nothing on screen calls it settled: the header's ✓ of a
// reviewed item is "↺ again", the verdict pane says why. Settled again,
// the review moves on to q2, and g finds the first waiting.
func TestAdjudicationOpensOnAnItemBackInTheQueue(t *testing.T) {
	items := testItems(4)
	others := []sessions.Label{
		{ItemID: "q1", Dimension: "correct", Value: 0, Annotator: "bo", Via: "random", ActionID: 2},
		{ItemID: "q1", Dimension: "correct", Value: 1, Annotator: "ana", Via: "random", ActionID: 4}, // after lead's 3
		{ItemID: "q2", Dimension: "correct", Value: 1, Annotator: "ana", Via: "random", ActionID: 5},
		{ItemID: "q2", Dimension: "correct", Value: 0, Annotator: "bo", Via: "random", ActionID: 6},
		{ItemID: "q3", Dimension: "correct", Value: 1, Annotator: "ana", Via: "random", ActionID: 7},
		{ItemID: "q3", Dimension: "correct", Value: 1, Annotator: "bo", Via: "random", ActionID: 8},
	}
	history := []sessions.Action{{ID: 3, Group: 3, Kind: sessions.KindLabel, ItemID: "q1", Dimension: "correct", Value: 0, Via: sessions.ViaAdjudication}}
	m := update(t, New(Options{Store: &fakeStore{}, Annotator: "lead", Dataset: "team.jsonl", Items: items,
		Runs:    []Run{{Info: matchInfo, Key: "match", ID: 1, Verdicts: verdictsFor(items)}},
		History: history, Others: others, Adjudicate: true}), tea.WindowSizeMsg{Width: 100, Height: 30})
	h := header(m)
	if m.items[m.cur].ID != "q1" || !strings.Contains(h, "1/2 adjudicate · 2 left") {
		t.Fatalf("opens on %s: %q; want q1, 1/2 · 2 left", m.items[m.cur].ID, h)
	}
	if strings.Contains(h, "✓") || !strings.HasSuffix(strings.TrimRight(h, " "), "↺ again") {
		t.Errorf("q1 back in the queue looks settled: %q", h)
	}
	if s := plain(m); !strings.Contains(s, "waits for your decision again") {
		t.Errorf("the verdict pane does not say q1 waits again:\n%s", s)
	}
	m = press(t, m, "y") // settled YES: on to q2
	if m.items[m.cur].ID != "q2" || !strings.Contains(header(m), "1 left") {
		t.Errorf("after settling q1: on %s, %q", m.items[m.cur].ID, header(m))
	}
	m = press(t, m, "G") // the last item of the queue (q2), then g: the first waiting
	m = press(t, m, "g")
	if m.items[m.cur].ID != "q2" {
		t.Errorf("g goes to %s, want q2 (q1 is settled)", m.items[m.cur].ID)
	}
}
