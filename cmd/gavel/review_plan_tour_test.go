package main

import (
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/sessions"
)

// The review follows by default the newest plan with labels made on it
// and items left, else the newest with items left (tour finding 9): a
// plan drawn after labelling began on another does not take its place;
// once that one is done, the newer one is followed. The log names the
// plan chosen and how to pick another.
func TestReviewDefaultPlan(t *testing.T) {
	data, session, _ := planReviewSession(t)
	args := []string{data, "--session", session, "--annotator", "ana"}
	if code, _, errs := reviewKeys(t, args, "y", "n"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if code, _, errs := run(t, "plan", session, "--design", "uniform", "-n", "3", "--seed", "9"); code != 0 {
		t.Fatalf("plan 2: exit %d: %s", code, errs)
	}
	code, header, errs := reviewKeys(t, args)
	if code != 0 || !strings.Contains(header, "plan 1 · 2/4") {
		t.Errorf("with plan 1 under way and plan 2 new: exit %d, header %q (%s)", code, header, errs)
	}
	s, err := sessions.Open(session, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	history, err := s.Actions("ana")
	if err != nil {
		t.Fatal(err)
	}
	p, err := defaultPlan(s, history)
	s.Close()
	if err != nil || p == nil || p.ID != 1 || !strings.Contains(p.Chosen, "the newest plan with labels made on it and items left") || !strings.Contains(p.Chosen, "--plan 2") {
		t.Errorf("default plan %+v, %v", p, err)
	}
	// Plan 1 finished: plan 2, the newest with items left.
	if code, _, errs := reviewKeys(t, args, "y", "n"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	code, header, errs = reviewKeys(t, args)
	if code != 0 || !strings.Contains(header, "plan 2 · 0/3") {
		t.Errorf("with plan 1 done: exit %d, header %q (%s)", code, header, errs)
	}
}
