package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/gavel-dev/gavel/internal/pgtest"
	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/pg"
	"github.com/gavel-dev/gavel/tui"
)

// teamURL puts a session of 6 items judged by match into PostgreSQL and
// returns its URL and store.
func teamURL(t *testing.T, srv *pgtest.Server) (string, *pg.Store) {
	t.Helper()
	dir := t.TempDir()
	var rows strings.Builder
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&rows, `{"id":"q%d","question":"%d+%d?","gold":"%d","prediction":"%d"}`+"\n", i, i, i, 2*i, 2*i+i%2)
	}
	data := writeFile(t, dir, "team.jsonl", rows.String())
	file := filepath.Join(dir, "team.gavel")
	if code, _, errs := run(t, "run", data, "--session", file); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	url := srv.URL(pgtest.Name(t))
	ctx := context.Background()
	st, err := pg.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	if _, err := pg.CopyFromSQLite(ctx, file, st, pg.CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	return url, st
}

// liveTUI runs the screen as a real program in a test terminal, driven
// by drive.
func liveTUI(t *testing.T, e *env, drive func(tm *teatest.TestModel)) {
	t.Helper()
	e.runTUI = func(_ context.Context, m tea.Model) (tea.Model, error) {
		tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40),
			teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
		drive(tm)
		return tm.FinalModel(t, teatest.WithFinalTimeout(20*time.Second)), nil
	}
}

// waitScreen waits until the screen shows what.
func waitScreen(t *testing.T, tm *teatest.TestModel, what string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(what)) },
		teatest.WithDuration(20*time.Second), teatest.WithCheckInterval(50*time.Millisecond))
}

// gavel review URL: bo reviews the team session while ana labels
// elsewhere; ana's label shows beside the verdict within seconds. The
// server then stops: bo's next label shows "✗ not saved", and "✓ saved"
// once the server is back; the team session holds it once.
func TestReviewTeamLive(t *testing.T) {
	srv := pgtest.Start(t)
	url, st := teamURL(t, srv)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	e, _, errb, _ := testEnv(t)
	ctx := context.Background()
	liveTUI(t, &e, func(tm *teatest.TestModel) {
		waitScreen(t, tm, "Team session")
		// ana labels q1 NO from another machine.
		if _, err := st.RecordAs(ctx, "ana", []sessions.Action{{Kind: sessions.KindLabel, ItemID: "q1", Dimension: "correct", Value: 0, Via: "queue"}}); err != nil {
			t.Error(err)
		}
		start := time.Now()
		waitScreen(t, tm, "human ana")
		t.Logf("ana's label on bo's screen after %v", time.Since(start).Round(time.Millisecond))
		// The statistics show the team's progress.
		tm.Type("s")
		waitScreen(t, tm, "decided")
		tm.Type("s")
		// A judge run elsewhere saves a new judge's verdict: J reaches it.
		run, err := st.EnsureRun(ctx, judge.Info{Name: "strict", Dimensions: []judge.Dimension{{Name: "correct", Scale: judge.Binary}}})
		if err != nil {
			t.Error(err)
		}
		if err := st.SaveVerdicts(ctx, run.ID, []judge.Verdict{{ItemID: "q1", Status: judge.StatusOK, Values: map[string]float64{"correct": 0}, Reason: "too loose", At: time.Now()}}); err != nil {
			t.Error(err)
		}
		// J, until the new judge has arrived and is on screen.
		var seen []byte
		for deadline := time.Now().Add(20 * time.Second); !bytes.Contains(seen, []byte("too loose")); {
			if time.Now().After(deadline) {
				t.Fatal("the new judge's verdict never came on screen")
			}
			tm.Type("J")
			time.Sleep(300 * time.Millisecond)
			b, _ := io.ReadAll(tm.Output())
			seen = append(seen, b...)
		}
		tm.Type("J")
		srv.Stop(t)
		tm.Type("y") // bo labels q1 YES
		waitScreen(t, tm, "✗ not saved")
		srv.Start(t)
		waitScreen(t, tm, "✓ saved")
		tm.Type("q")
	})
	if code := execute(ctx, e, []string{"review", url, "--annotator", "bo"}); code != 0 {
		t.Fatalf("review: exit %d: %s", code, errb)
	}
	if s := errb.String(); !strings.Contains(s, "1 of 6") || strings.Contains(s, "could not be saved") {
		t.Errorf("stderr: %s", s)
	}
	acts, err := st.Actions(ctx, "bo")
	if err != nil {
		t.Fatal(err)
	}
	if len(acts) != 1 || acts[0].ItemID != "q1" || acts[0].Value != 1 || acts[0].Sitting == "" {
		t.Errorf("the team session holds bo's %+v, want q1 = YES once", acts)
	}
}

// With a queue, bo's review opens on the items claimed for him, labels
// there record via queue, and quitting gives back the ones left.
func TestReviewTeamQueue(t *testing.T) {
	url, st := teamURL(t, pgtest.Shared(t))
	ctx := context.Background()
	if _, err := st.Assign(ctx, sessions.AssignOptions{Annotators: []string{"ana", "bo"}, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	e, _, errb, _ := testEnv(t)
	var opened *tui.Model
	e.runTUI = func(_ context.Context, m tea.Model) (tea.Model, error) {
		m = send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
		m = runCommand(t, m, m.Init(), 0) // the first claim (the updates wait)
		m = send(t, m, screenKey("y"))
		opened = m.(*tui.Model)
		return m, nil
	}
	if code := execute(ctx, e, []string{"review", url, "--annotator", "bo"}); code != 0 {
		t.Fatalf("review: exit %d: %s", code, errb)
	}
	if opened == nil {
		t.Fatal("no screen")
	}
	acts, err := st.Actions(ctx, "bo")
	if err != nil {
		t.Fatal(err)
	}
	if len(acts) != 1 || acts[0].Via != "queue" {
		t.Fatalf("bo's actions %+v, want one label via queue", acts)
	}
	prog, err := st.Progress(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prog {
		if p.Annotator == "bo" && (p.Done != 1 || p.Claimed != 0) {
			t.Errorf("bo's progress after quitting %+v: want 1 done, nothing claimed", p)
		}
	}
	// ana is not asked about bo's items; someone outside the team sees
	// every item.
	e2, _, errb2, shown := testEnv(t)
	if code := execute(ctx, e2, []string{"review", url, "--annotator", "zed"}); code != 0 {
		t.Fatalf("review as zed: exit %d: %s", code, errb2)
	}
	if m := (*shown)[0].(*tui.Model); m == nil {
		t.Fatal("no screen for zed")
	}
}

// A review of a team session whose server is not there says so, without
// the password.
func TestReviewTeamNoServer(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	e, _, errb, _ := testEnv(t)
	code := execute(context.Background(), e, []string{"review", "postgres://ana:s3cret@127.0.0.1:1/gavel?sslmode=disable&session=demo"})
	if code == 0 || !strings.Contains(errb.String(), "not answering") || strings.Contains(errb.String(), "s3cret") {
		t.Errorf("exit %d: %s", code, errb)
	}
	e, _, errb, _ = testEnv(t)
	if code := execute(context.Background(), e, []string{"review", "x.jsonl", "--session", "postgres://ana:s3cret@db/gavel?session=demo"}); code != 2 || strings.Contains(errb.String(), "s3cret") {
		t.Errorf("a dataset with a team session: exit %d: %s", code, errb)
	}
}

// --adjudicate on a team session opens the adjudication queue for
// someone outside the team, and claims nothing.
func TestReviewTeamAdjudicate(t *testing.T) {
	url, st := teamURL(t, pgtest.Shared(t))
	ctx := context.Background()
	if _, err := st.Assign(ctx, sessions.AssignOptions{Annotators: []string{"ana", "bo"}, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	for _, who := range []struct {
		name  string
		value float64
	}{{"ana", 1}, {"bo", 0}} {
		if _, err := st.RecordAs(ctx, who.name, []sessions.Action{{Kind: sessions.KindLabel, ItemID: "q2", Dimension: "correct", Value: who.value, Via: "queue"}}); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	e, _, errb, _ := testEnv(t)
	e.runTUI = func(_ context.Context, m tea.Model) (tea.Model, error) {
		m = send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
		m = runCommand(t, m, m.Init(), 0)
		m = send(t, m, screenKey("y"))
		return m, nil
	}
	if code := execute(ctx, e, []string{"review", url, "--annotator", "lead", "--adjudicate"}); code != 0 {
		t.Fatalf("review --adjudicate: exit %d: %s", code, errb)
	}
	acts, err := st.Actions(ctx, "lead")
	if err != nil {
		t.Fatal(err)
	}
	if len(acts) != 1 || acts[0].ItemID != "q2" || acts[0].Via != sessions.ViaAdjudication {
		t.Errorf("the adjudicator's actions %+v, want q2 via adjudication", acts)
	}
	slots, err := st.QueueSlots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range slots {
		if q.ClaimedBy != "" {
			t.Errorf("slot %+v claimed during adjudication", q)
		}
	}
}
