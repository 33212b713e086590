package tui

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/match"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/dataset"
	"github.com/gavel-dev/gavel/sessions/demo"
	"github.com/gavel-dev/gavel/sessions/stats"
)

// openDemo opens the demo in a session file the way `gavel` does and
// returns the screen, ready to run, with a function that stops judging and
// closes the session.
func openDemo(t *testing.T, path string) (*Model, func()) {
	t.Helper()
	ds, err := dataset.LoadBytes(demo.Name, demo.JSONL, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rv, err := sessions.OpenReview(path, "tester", ds)
	if err != nil {
		t.Fatal(err)
	}
	st, err := rv.StartRun(context.Background(), match.New(), judge.PoolOptions{Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	history, err := rv.Store.Actions("tester")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := rv.Store.Runs()
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{
		Store: rv.Store, Annotator: "tester", Dataset: demo.Name, Items: rv.Items, History: history,
		Runs: []Run{{Info: st.Run.Info, Key: sessions.RunNames(runs)[st.Run.ID], Verdicts: st.Verdicts, Judging: st.Judging, Pending: st.Pending}},
		Stats: func() (stats.Report, error) {
			in, err := rv.Store.StatsInput()
			if err != nil {
				return stats.Report{}, err
			}
			return stats.Compute(in, stats.Options{Seed: 1}), nil
		},
	})
	return m, func() {
		if st.Judging != nil {
			st.Judging.Stop()
		}
		if err := rv.Store.Close(); err != nil {
			t.Error(err)
		}
	}
}

// waitSession polls the session file, read-only as `gavel stats` would
// open it, until cond holds: what the screen confirmed must be in the
// file, not just on screen.
func waitSession(t *testing.T, path, what string, cond func(*sessions.Store) bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s, err := sessions.Open(path, sessions.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		ok := cond(s)
		s.Close()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the session never had %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func labelCount(n int) func(*sessions.Store) bool {
	return func(s *sessions.Store) bool {
		ls, err := s.Labels("tester")
		return err == nil && len(ls) == n
	}
}

// The whole path once, through a real Bubble Tea program and a real
// session file: the demo opens with verdicts streaming in, five labels
// are made with the keys, and after a restart the session shows them and
// opens on the sixth item, whose statistics cover those five.
func TestDemoEndToEnd(t *testing.T) {
	path := filepath.Join(t.TempDir(), "demo.gavel")
	m, closeDemo := openDemo(t, path)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("dq-01")) },
		teatest.WithDuration(20*time.Second))
	waitSession(t, path, "60 verdicts", func(s *sessions.Store) bool {
		runs, err := s.Runs()
		if err != nil || len(runs) != 1 {
			return false
		}
		vs, err := s.Verdicts(runs[0].ID)
		return err == nil && len(vs) == 60
	})
	for i, k := range []string{"y", "n", "a", "y", "a"} {
		tm.Type(k)
		waitSession(t, path, "label "+k, labelCount(i+1))
	}
	tm.Type("q")
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
	if n, err := final.Unsaved(); n != 0 {
		t.Fatalf("%d actions unsaved: %v", n, err)
	}
	if done, total := final.Progress(); done != 5 || total != 60 {
		t.Errorf("final progress %d/%d, want 5/60", done, total)
	}
	if s := plain(final); !strings.Contains(s, "reviewed 5/60") || !strings.Contains(s, "✓ saved") {
		t.Errorf("final screen:\n%s", s)
	}
	closeDemo()

	m, closeDemo = openDemo(t, path)
	defer closeDemo()
	m = update(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	if m.cur != 5 {
		t.Errorf("reopened on item index %d, want 5 (the sixth)", m.cur)
	}
	s := plain(m)
	for _, want := range []string{"item 6/60", "reviewed 5/60"} {
		if !strings.Contains(s, want) {
			t.Errorf("reopened screen lacks %q:\n%s", want, s)
		}
	}
	m = press(t, m, "s")
	m = waitStats(t, m)
	if s := plain(m); !strings.Contains(s, "n = 5") || !strings.Contains(s, "labelled 5 of 60") {
		t.Errorf("statistics do not cover the five labels:\n%s", s)
	}
}

// waitStats makes sure the statistics screen has its report: when the
// command that computes it took longer than update waits (a loaded
// machine, the race detector), the report is computed here and delivered
// as the command would have.
func waitStats(t *testing.T, m *Model) *Model {
	t.Helper()
	if m.stats.report != nil || m.stats.err != nil {
		return m
	}
	r, err := m.stats.statsFn()
	m.stats.loading = false
	return update(t, m, statsMsg{report: r, err: err})
}

// The demo's first screen at 80×24, once every verdict is in. Update with
// go test ./tui -run TestDemoFirstScreen -update.
func TestDemoFirstScreen(t *testing.T) {
	m, closeDemo := openDemo(t, filepath.Join(t.TempDir(), "demo.gavel"))
	defer closeDemo()
	m = update(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	for r := m.run(); r.judging(); {
		for id, st := range r.streams {
			m = update(t, m, waitBatch(0, id, st.ch)())
		}
	}
	golden.RequireEqual(t, plain(m))
}
