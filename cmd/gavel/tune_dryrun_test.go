package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/sessions"
)

// gavel tune --dry-run sends nothing, writes no candidate, needs no
// --budget, and counts the original's first phase as the tuning then
// sends it.
func TestTuneDryRun(t *testing.T) {
	withFastRetries(t)
	const n = 60
	dir := t.TempDir()
	session := tuneSession(t, dir, n)
	srv := newTuneServer(t, 0)
	out := filepath.Join(dir, "cands")
	args := []string{"tune", session, "--judge", "docqa", "--model", "gpt-4o-mini", "--base-url", srv.URL + "/v1", "--api-key", testKey, "--rounds", "2", "--out", out}
	code, stdout, stderr := run(t, append(args, "--dry-run")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if srv.hits.Load() != 0 {
		t.Errorf("the dry run sent %d requests", srv.hits.Load())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the dry run made %s", out)
	}
	ids, _ := partCounts(n)
	calVal := len(ids[sessions.PartCalibration]) + len(ids[sessions.PartValidation])
	for _, want := range []string{
		fmt.Sprintf("The original on the calibration and validation parts (%d items):\n  requests: %d for %d tasks", calVal, calVal, calVal),
		fmt.Sprintf("Each of the 2 rounds, at most: a proposal (1 request), the candidate on the validation part (%d requests · about ", len(ids[sessions.PartValidation])),
		fmt.Sprintf("the new best on the calibration part (%d requests · about ", len(ids[sessions.PartCalibration])),
		fmt.Sprintf("In all, at most: %d requests · about ", calVal+2*len(ids[sessions.PartEvaluation])+2*len(ids[sessions.PartValidation])+len(ids[sessions.PartCalibration])+2),
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in:\n%s", want, stdout)
		}
	}
	// The real tuning's first phase sends what the dry run counted.
	code, _, stderr = run(t, append(args, "--budget", "400")...)
	if code != 0 {
		t.Fatalf("tune: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "Tuning may send at most ") || !strings.Contains(stderr, "--budget 400 caps it") {
		t.Errorf("the tuning does not say what it may send before it starts:\n%s", stderr)
	}
	m := regexp.MustCompile(`original · calibration and validation: (\d+) items \((\d+) requests\)`).FindStringSubmatch(stderr)
	if m == nil || m[2] != fmt.Sprint(calVal) {
		t.Errorf("the tuning's first phase: %q, want %d requests\n%s", m, calVal, stderr)
	}
}
