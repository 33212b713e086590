package tui

import (
	"sync/atomic"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// On the statistics screen, verdicts arriving ask for fresh figures once
// per statsRefreshEvery (not per batch), and only while the screen is on;
// elsewhere they ask nothing.
func TestStatsFollowTheJudge(t *testing.T) {
	items := testItems(4)
	var computed atomic.Int32
	m := New(Options{Store: &fakeStore{}, Annotator: "ana", Dataset: "d.jsonl", Items: items,
		Runs:  []Run{{Info: matchInfo, Key: "match", ID: 1}},
		Stats: func() (stats.Report, error) { computed.Add(1); return stats.Report{}, nil }})
	m = update(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	ch := make(chan sessions.Batch)
	m.runs[0].streams[0] = &stream{ch: ch, last: sessions.Batch{Total: 4}}
	batch := func(k int) batchMsg {
		v := verdictsFor(items[k : k+1])
		return batchMsg{run: 0, stream: 0, batch: sessions.Batch{Verdicts: []judge.Verdict{v[0]}, Done: k + 1, Total: 4}}
	}

	// On the review screen: no refresh asked.
	m.Update(batch(0))
	if m.stats.refreshAsked {
		t.Fatal("a batch on the review screen asked for statistics")
	}
	m = press(t, m, "s")
	before := computed.Load()
	if before == 0 {
		t.Fatal("the statistics screen computed nothing on opening")
	}
	if _, cmd := m.Update(batch(1)); cmd == nil || !m.stats.refreshAsked {
		t.Fatal("a batch on the statistics screen asked for no refresh")
	}
	m.Update(batch(2)) // a second batch meanwhile: the same refresh
	m = update(t, m, statsRefreshMsg{})
	if got := computed.Load() - before; got != 1 {
		t.Errorf("%d reports after two batches and one refresh, want 1", got)
	}
	if m.stats.refreshAsked {
		t.Error("the refresh done is still marked asked")
	}

	// A refresh that comes after the screen was left computes nothing.
	m.Update(batch(3))
	m = press(t, m, "esc")
	before = computed.Load()
	m = update(t, m, statsRefreshMsg{})
	if computed.Load() != before {
		t.Error("a refresh off the statistics screen computed them")
	}
}
