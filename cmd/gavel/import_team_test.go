package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/internal/pgtest"
)

// gavel import DATA --session URL makes a team session holding what the
// file import holds: the same summary, and gavel export and stats give
// the same output; an existing team session, or --join, is refused with
// what to do; the URL's password is never printed.
func TestImportTeam(t *testing.T) {
	srv := pgtest.Shared(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	data := writeFile(t, dir, "judged.csv", judgedCSV)
	file := filepath.Join(dir, "judged.gavel")
	wantOut := mustRun(t, "import", data, "--session", file)
	url := strings.Replace(srv.URL(pgtest.Name(t)), "gavel@", "gavel:s3cret@", 1)

	code, out, errs := run(t, "import", data, "--session", url)
	if code != 0 {
		t.Fatalf("import into a team session: exit %d: %s", code, errs)
	}
	shown := strings.Replace(url, "s3cret", "xxxxx", 1)
	if want := strings.Replace(wantOut, file, shown, 1); out != want {
		t.Errorf("stdout\n got %q\nwant %q", out, want)
	}
	if !strings.Contains(errs, "See the agreement with: gavel stats '"+shown+"'") {
		t.Errorf("stderr: %s", errs)
	}
	for _, argv := range [][]string{
		{"export"},
		{"export", "--format", "csv"},
		{"stats", "--format", "json"},
	} {
		want := mustOut(t, append([]string{argv[0], file}, argv[1:]...)...)
		got := mustOut(t, append([]string{argv[0], url}, argv[1:]...)...)
		if got != want {
			t.Errorf("gavel %s of the team session:\n%s\nwant (the file's):\n%s", strings.Join(argv, " "), got, want)
		}
	}

	for _, tc := range []struct {
		argv []string
		code int
		want string
	}{
		{[]string{"import", data, "--session", url}, 1, "exists already, and gavel import only makes new ones"},
		{[]string{"import", data, "--session", url, "--join"}, 2, "gavel import writes a team session only when it is new"},
	} {
		code, out, errs := run(t, tc.argv...)
		if code != tc.code || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("gavel %s: exit %d, want %d with %q: %s%s", strings.Join(tc.argv, " "), code, tc.code, tc.want, out, errs)
		}
		if strings.Contains(errs, "s3cret") {
			t.Errorf("the password was printed: %s", errs)
		}
	}
	if strings.Contains(out+errs, "s3cret") {
		t.Errorf("the password was printed: %s%s", out, errs)
	}
}
