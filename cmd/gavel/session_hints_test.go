package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/internal/pgtest"
	"github.com/gavel-dev/gavel/sessions"
)

// The hints on a team session say what works there: an adjudication is
// reviewed with gavel review URL --adjudicate (no dataset); a labelling
// plan it lacks is named on the team session, not its local copy, with
// how a team session gets one (plans are drawn on files: gavel plan -n
// refuses a URL), while a plan it has is followed; a command that
// refuses a URL lists every command that takes one (run, import and
// label included).
func TestTeamSessionHints(t *testing.T) {
	srv := pgtest.Shared(t)
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	dir := t.TempDir()
	data := writeFile(t, dir, "judged.csv", passwordCSV)
	file := filepath.Join(dir, "judged.gavel")
	mustRun(t, "import", data, "--session", file)
	name := pgtest.Name(t)
	name = name[:min(len(name), 30)]
	bare := srv.URL(name) // no plan
	mustRun(t, "copy", file, bare)
	mustRun(t, "plan", file, "-n", "3", "--seed", "5")
	planned := srv.URL(name + "_p")
	mustRun(t, "copy", file, planned)
	q := "'" + bare + "'"

	check := func(argv []string, code int, want ...string) {
		t.Helper()
		got, _, errs := run(t, argv...)
		if got != code {
			t.Errorf("gavel %s: exit %d, want %d: %s", strings.Join(argv, " "), got, code, errs)
		}
		for _, w := range want {
			if !strings.Contains(errs, w) {
				t.Errorf("gavel %s:\n%s\nwant %s", strings.Join(argv, " "), errs, w)
			}
		}
		for _, bad := range []string{cache, "DATASET --session", "(draw one with gavel plan)"} {
			if strings.Contains(errs, bad) {
				t.Errorf("gavel %s says %q:\n%s", strings.Join(argv, " "), bad, errs)
			}
		}
	}
	check([]string{"label", bare, "a", "yes", "--annotator", "ana", "--via", "adjudication"}, 2,
		"gavel review "+q+" --adjudicate shows the items to adjudicate")
	noPlan := bare + " has no labelling plan 1: it has none yet: plans are drawn on session files: copy it to one (gavel copy " + q + " FILE.gavel), draw the plan there (gavel plan FILE.gavel -n N), then copy it back (gavel copy FILE.gavel " + q + " --replace)"
	check([]string{"review", bare, "--annotator", "ana", "--plan", "1"}, 2, noPlan)
	check([]string{"plan", bare, "--show", "1"}, 2, noPlan)
	check([]string{"stats", bare, "--plan", "1"}, 2, noPlan)
	check([]string{"label", bare, "a", "yes", "--annotator", "ana", "--via", "plan:1"}, 2, noPlan)
	check([]string{"review", planned, "--annotator", "ana", "--plan", "2"}, 2, planned+" has no labelling plan 2: its plans are 1")
	check([]string{"review", planned, "--annotator", "ana", "--plan", "1"}, 0)
	check([]string{"merge", filepath.Join(dir, "m.gavel"), bare, file}, 1, sessions.TeamCommands)
	check([]string{"split", bare}, 2, sessions.TeamCommands)
	for _, cmd := range []string{"run", "label", "import"} {
		if !strings.Contains(sessions.TeamCommands, cmd) {
			t.Errorf("the commands that take a URL leave out %s: %s", cmd, sessions.TeamCommands)
		}
	}
}
