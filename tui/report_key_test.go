package tui

import (
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/sessions/stats"
)

// reportModel is statsModel with a report function.
func reportModel(t *testing.T, report func() (string, error)) *Model {
	t.Helper()
	in := statsFixture()
	m := New(Options{Store: &fakeStore{}, Annotator: "tester", Dataset: "test.jsonl", Items: testItems(len(in.Units)), Runs: []Run{{Info: matchInfo, Key: "match"}},
		Stats:  func() (stats.Report, error) { return stats.Compute(in, stats.Options{Seed: 1}), nil },
		Report: report})
	m = update(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	return waitStats(t, press(t, m, "s"))
}

// w on the statistics screen writes the report and says where, on the
// hint line and in the message log; a failure says why.
func TestStatsReportKey(t *testing.T) {
	calls := 0
	m := reportModel(t, func() (string, error) {
		calls++
		return "/tmp/evals-report.html\x1b[31m", nil
	})
	if !strings.Contains(plain(m), "w report") {
		t.Errorf("the hint line does not offer w:\n%s", plain(m))
	}
	m = press(t, m, "w")
	if calls != 1 {
		t.Fatalf("the report was written %d times", calls)
	}
	screen := plain(m)
	if !strings.Contains(screen, "Report written to /tmp/evals-report.html") || strings.Contains(screen, "\x1b[31m") {
		t.Errorf("the screen does not say where, inertly:\n%s", screen)
	}
	if last := m.log.entries[len(m.log.entries)-1]; !strings.HasPrefix(last.text, "Report written to /tmp/evals-report.html") || last.sev != sevInfo {
		t.Errorf("the log's last entry: %+v", last)
	}
	if m.screen != screenStats || m.stats.writing {
		t.Errorf("screen %v, writing %v after the report", m.screen, m.stats.writing)
	}

	m = reportModel(t, func() (string, error) { return "", errors.New("disk full") })
	m = press(t, m, "w")
	if last := m.log.entries[len(m.log.entries)-1]; last.text != "The report could not be written: disk full" || last.sev != sevError {
		t.Errorf("the log's last entry: %+v", last)
	}

	m = reportModel(t, nil)
	if strings.Contains(plain(m), "w report") {
		t.Error("the hint line offers w without a report")
	}
	m = press(t, m, "w")
	if !strings.Contains(plain(m), "No report can be written from here") {
		t.Errorf("w without a report:\n%s", plain(m))
	}
}

// A second w while the report is written is refused, not queued.
func TestStatsReportKeyOnce(t *testing.T) {
	m := reportModel(t, func() (string, error) { return "r.html", nil })
	next, cmd := m.Update(keyMsg("w"))
	m = next.(*Model)
	if cmd == nil || !m.stats.writing {
		t.Fatal("w started nothing")
	}
	next, again := m.Update(keyMsg("w"))
	m = next.(*Model)
	if again != nil || !strings.Contains(plain(m), "being written") {
		t.Errorf("a second w: cmd %v\n%s", again != nil, plain(m))
	}
	m = runCmd(t, m, cmd, 0)
	if m.stats.writing {
		t.Error("still writing after the report came")
	}
}
