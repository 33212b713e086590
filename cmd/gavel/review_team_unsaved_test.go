package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/gavel-dev/gavel/internal/pgtest"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/tui"
)

// The server stops while bo labels two items of his queue: q does not
// quit at once but asks (how many decisions, on which items, retrying);
// y quits anyway, and stderr names the items whose decisions were lost,
// and says plainly that the items claimed could not be given back (the
// server not answering, the claim's timeout), no driver text.
func TestReviewTeamQuitUnsaved(t *testing.T) {
	srv := pgtest.Start(t)
	url, st := teamURL(t, srv)
	ctx := context.Background()
	if _, err := st.Assign(ctx, sessions.AssignOptions{Annotators: []string{"ana", "bo"}, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	e, _, errb, _ := testEnv(t)
	var final *tui.Model
	e.runTUI = func(_ context.Context, m tea.Model) (tea.Model, error) {
		tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40),
			teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
		waitScreen(t, tm, "Your queue")
		srv.Stop(t)
		tm.Type("y")
		waitScreen(t, tm, "not saved")
		tm.Type("n")
		time.Sleep(300 * time.Millisecond)
		tm.Type("q")
		waitScreen(t, tm, "decisions are not saved yet")
		tm.Type("y")
		fm := tm.FinalModel(t, teatest.WithFinalTimeout(20*time.Second))
		final = fm.(*tui.Model)
		return fm, nil
	}
	code := execute(ctx, e, []string{"review", url, "--annotator", "bo"})
	s := errb.String()
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, s)
	}
	n, ids := final.UnsavedItems()
	if n != 2 || len(ids) != 2 {
		t.Fatalf("UnsavedItems() = %d, %v", n, ids)
	}
	if !strings.Contains(s, "2 decisions could not be saved to "+url+" and are lost") || !strings.Contains(s, "items "+ids[0]+", "+ids[1]+"; label them again") {
		t.Errorf("stderr does not name the lost decisions' items %v:\n%s", ids, s)
	}
	release := regexp.MustCompile(`gavel: could not give back \d+ items claimed for you: PostgreSQL at 127\.0\.0\.1:\d+ is not answering; they return to the queue when the claim times out in 30m\.\n`)
	if !release.MatchString(s) {
		t.Errorf("stderr does not say plainly that the claims were not given back:\n%s", s)
	}
	for _, raw := range []string{"⏎", "dial", "failed to connect"} {
		if strings.Contains(s, raw) {
			t.Errorf("stderr holds the driver's %q:\n%s", raw, s)
		}
	}
}
