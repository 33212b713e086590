package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/internal/pgtest"
	"github.com/gavel-dev/gavel/sessions/pg"
)

// gavel label URL started while the server is down waits for it, saying
// so on stderr, as its write does (README: "retrying for up to a minute
// while the server is away"), and records the decision once the server
// is back: it failed at once with "is not answering".
func TestLabelTeamWaitsForTheServer(t *testing.T) {
	srv := pgtest.Start(t)
	url, st := teamURL(t, srv)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	srv.Stop(t)
	started := make(chan error, 1)
	go func() {
		time.Sleep(time.Second)
		started <- srv.StartErr()
	}()
	begin := time.Now()
	code, _, errs := run(t, "label", url, "q1", "YES", "--annotator", "ana")
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	if code != 0 {
		t.Fatalf("gavel label while the server is down: exit %d after %s: %s", code, time.Since(begin).Round(time.Millisecond), errs)
	}
	if !strings.Contains(errs, "is not answering: waiting for it, up to a minute (Ctrl-C gives up)") || !strings.Contains(errs, "Recorded on q1 for ana: correct = YES.") {
		t.Errorf("stderr: %s", errs)
	}
	back := filepath.Join(t.TempDir(), "back.gavel")
	if _, err := pg.CopyToSQLite(context.Background(), st, back); err != nil {
		t.Fatal(err)
	}
	if rows := maskedRows(t, back, "actions"); len(rows) != 1 {
		t.Errorf("the team session holds %d actions:\n%s", len(rows), strings.Join(rows, "\n"))
	}
}
