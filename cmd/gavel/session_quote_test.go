package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/internal/pgtest"
)

// unquotedURL is a command line shown with a team session's URL as a bare
// word: its ? (a glob in zsh) and & (a background job) would break it.
var unquotedURL = regexp.MustCompile(`(gavel [a-z]+|--session) postgres(ql)?://\S+`)

// The commands printed in hints and summaries quote a team session's
// URL for the shell, as gavel plan and scripts/postgres-local do: the
// import summary's gavel stats, its gavel run for a dataset without
// verdicts, gavel label's, compare's, assign's, run's and review's hints.
func TestHintsQuoteTeamURLs(t *testing.T) {
	srv := pgtest.Shared(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	data := writeFile(t, dir, "judged.csv", passwordCSV)
	bare := writeFile(t, dir, "bare.csv", "id,question,answer,prediction\na,2+2?,4,four\nb,3+3?,6,6\n")
	file := filepath.Join(dir, "judged.gavel")
	mustRun(t, "import", data, "--session", file)
	mustRun(t, "plan", file, "-n", "2", "--seed", "5")
	name := pgtest.Name(t)
	name = name[:min(len(name), 30)]
	url := srv.URL(name)
	mustRun(t, "copy", file, url)
	fresh := srv.URL(name + "_new")
	q := "'" + url + "'"

	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"import", bare, "--session", fresh}, "judge it with `gavel run '" + fresh + "' --judge NAME`"},
		{[]string{"import", data, "--session", srv.URL(name + "_imp")}, "See the agreement with: gavel stats '" + srv.URL(name+"_imp") + "'\n"},
		{[]string{"label", url, "zz", "yes", "--annotator", "ana"}, "gavel export " + q + " --only all lists every item's id"},
		{[]string{"label", url, "a", "yes", "--annotator", "ana", "--via", "adjudication"}, q},
		{[]string{"assign", url}, "gavel assign " + q + " --annotators ana,bo,… deals its items"},
		{[]string{"compare", url, "--judge", "a", "--judge", "b"}, "run another judge on it (gavel run " + q + " --judge NAME)"},
		{[]string{"compare", url}, "gavel stats " + q + " lists the session's judges"},
		{[]string{"run", data, "--session", url}, "judge them with gavel run " + q + " --judge NAME"},
		{[]string{"run", url, "--session", file}, "gavel run " + q + " judges the team session"},
		{[]string{"review", data, "--session", url}, "review it with gavel review " + q + " (no dataset file)"},
		{[]string{"plan", url, "--show", "1"}, "gavel label " + q + " ID VALUE --via plan:1"},
	} {
		_, out, errs := run(t, tc.argv...)
		if !strings.Contains(out+errs, tc.want) {
			t.Errorf("gavel %s:\n%s%s\nwant %s", strings.Join(tc.argv, " "), out, errs, tc.want)
		}
		if m := unquotedURL.FindString(out + errs); m != "" {
			t.Errorf("gavel %s shows a URL unquoted: %s", strings.Join(tc.argv, " "), m)
		}
	}
}
