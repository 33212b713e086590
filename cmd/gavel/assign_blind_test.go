package main

import (
	"context"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/internal/pgtest"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/pg"
)

// gavel assign --blind records a blind queue, says so when dealing and
// when showing the queue, names it when a second deal is refused; a
// --replace keeps it unless --blind or --blind=false says otherwise;
// --blind without --annotators is refused.
func TestAssignBlind(t *testing.T) {
	path := assignSession(t, 20)
	blindSaid := "Blind queue: nobody sees the others' labels on the review screen until adjudication (gavel review --adjudicate shows them all)."
	code, out, errs := runAssignCmd(t, "assign", path, "--annotators", "ana,bo", "--overlap", "0.5", "--seed", "4", "--blind")
	if code != 0 || !strings.Contains(out, blindSaid) {
		t.Fatalf("assign --blind: exit %d:\n%s%s", code, out, errs)
	}
	blind := func(want bool) {
		t.Helper()
		s, err := sessions.Open(path, sessions.Options{Annotator: "lead"})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if st, err := s.QueueSettings(); err != nil || st.Blind != want {
			t.Errorf("settings %+v %v: blind, want %v", st, err, want)
		}
	}
	blind(true)
	if code, out, errs = runAssignCmd(t, "assign", path); code != 0 || !strings.Contains(out, "; seed 4; a claim lasts 30m.\n"+blindSaid+"\n") {
		t.Errorf("show: exit %d:\n%s%s", code, out, errs)
	}
	if code, _, errs = runAssignCmd(t, "assign", path, "--annotators", "ana,bo"); code != 1 || !strings.Contains(errs, "seed 4; blind;") {
		t.Errorf("second deal: exit %d: %s", code, errs)
	}
	// --replace alone keeps it blind.
	if code, out, errs = runAssignCmd(t, "assign", path, "--annotators", "ana,bo,cy", "--seed", "4", "--replace"); code != 0 || !strings.Contains(out, blindSaid) {
		t.Errorf("replace: exit %d:\n%s%s", code, out, errs)
	}
	blind(true)
	// --blind=false lifts it, and says so.
	code, out, errs = runAssignCmd(t, "assign", path, "--annotators", "ana,bo,cy", "--seed", "4", "--replace", "--blind=false")
	if code != 0 || strings.Contains(out, "Blind queue") || !strings.Contains(out, "Not a blind queue: each person's review shows the others' labels") {
		t.Errorf("replace --blind=false: exit %d:\n%s%s", code, out, errs)
	}
	blind(false)
	if _, out, _ = runAssignCmd(t, "assign", path); strings.Contains(out, "Blind queue") {
		t.Errorf("show after lifting it:\n%s", out)
	}
	// And --replace --blind puts it back.
	if code, out, errs = runAssignCmd(t, "assign", path, "--annotators", "ana,bo", "--replace", "--blind"); code != 0 || !strings.Contains(out, blindSaid) {
		t.Errorf("replace --blind: exit %d:\n%s%s", code, out, errs)
	}
	blind(true)
	if code, _, errs = runAssignCmd(t, "assign", path, "--blind"); code != 2 || !strings.Contains(errs, "--blind deals a queue: name the team with --annotators") {
		t.Errorf("--blind alone: exit %d: %s", code, errs)
	}
}

// The same on a PostgreSQL session.
func TestAssignBlindPostgres(t *testing.T) {
	t.Parallel() // long: beside the other long tests once the short ones are done
	srv := pgtest.Shared(t)
	ctx := context.Background()
	raw := srv.URL(pgtest.Name(t))
	st, err := pg.Connect(ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := pg.CopyFromSQLite(ctx, assignSession(t, 10), st, pg.CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runAssignCmd(t, "assign", raw, "--annotators", "ana,bo", "--seed", "3", "--blind")
	if code != 0 || !strings.Contains(out, "Blind queue: nobody sees") {
		t.Fatalf("assign --blind: exit %d:\n%s%s", code, out, errs)
	}
	if qs, err := st.QueueSettings(ctx); err != nil || !qs.Blind {
		t.Errorf("settings in PostgreSQL %+v %v: not blind", qs, err)
	}
	if code, out, errs = runAssignCmd(t, "assign", raw); code != 0 || !strings.Contains(out, "Blind queue: nobody sees") {
		t.Errorf("show: exit %d:\n%s%s", code, out, errs)
	}
	if code, _, errs = runAssignCmd(t, "assign", raw, "--annotators", "ana,bo", "--replace", "--blind=false"); code != 0 {
		t.Fatalf("replace --blind=false: exit %d: %s", code, errs)
	}
	if qs, err := st.QueueSettings(ctx); err != nil || qs.Blind {
		t.Errorf("settings in PostgreSQL after --blind=false %+v %v: blind", qs, err)
	}
}
