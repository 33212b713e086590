package main

import (
	"context"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/internal/pgtest"
	"github.com/gavel-dev/gavel/sessions/pg"
)

// A team session is read by stats, export, plan --show and split as its
// file would be, through its local copy; GAVEL_SESSION names it when no
// session is given; commands that write a session file refuse the URL
// with what to do, and no password is printed.
func TestReadCommandsOnATeamSession(t *testing.T) {
	srv := pgtest.Shared(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	file := importedSession(t, dir)
	url := srv.URL(pgtest.Name(t))
	dst, err := pg.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	if _, err := pg.CopyFromSQLite(context.Background(), file, dst, pg.CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, argv := range [][]string{
		{"stats", "--format", "json"},
		{"stats"},
		{"export"},
		{"export", "--format", "csv"},
		{"plan"},
	} {
		want := mustOut(t, append([]string{argv[0], file}, argv[1:]...)...)
		got := mustOut(t, append([]string{argv[0], url}, argv[1:]...)...)
		if got != want {
			t.Errorf("gavel %s on the team session:\n%s\nwant (the file's):\n%s", strings.Join(argv, " "), got, want)
		}
	}

	e, out, errb, _ := testEnv(t)
	e.getenv = func(k string) string {
		if k == envSession {
			return url
		}
		return ""
	}
	if code := execute(context.Background(), e, []string{"stats", "--format", "json"}); code != 0 {
		t.Fatalf("GAVEL_SESSION stats: exit %d: %s", code, errb)
	}
	if want := mustOut(t, "stats", file, "--format", "json"); out.String() != want {
		t.Errorf("GAVEL_SESSION stats:\n%s\nwant:\n%s", out, want)
	}

	secret := strings.Replace(url, "gavel@", "gavel:s3cret@", 1)
	code, _, errs := run(t, "split", secret, "--seed", "3")
	if code == 0 || !strings.Contains(errs, "team session in PostgreSQL") || !strings.Contains(errs, "gavel copy") {
		t.Errorf("split on a URL: exit %d, %q", code, errs)
	}
	if strings.Contains(errs, "s3cret") {
		t.Errorf("the password was printed: %q", errs)
	}
}

// mustOut runs gavel and returns its standard output, failing the test on
// a non-zero exit.
func mustOut(t *testing.T, argv ...string) string {
	t.Helper()
	code, out, errs := run(t, argv...)
	if code != 0 {
		t.Fatalf("gavel %s: exit %d: %s", strings.Join(argv, " "), code, errs)
	}
	return out
}

// GAVEL_SESSION stands in for the SESSION argument of the commands that
// take one, and only where none is given.
func TestGavelSessionStandsIn(t *testing.T) {
	dir := t.TempDir()
	file := importedSession(t, dir)
	withSession := func(argv ...string) (int, string, string) {
		t.Helper()
		e, out, errb, _ := testEnv(t)
		e.getenv = func(k string) string {
			if k == envSession {
				return file
			}
			return ""
		}
		code := execute(context.Background(), e, argv)
		return code, out.String(), errb.String()
	}
	for _, argv := range [][]string{
		{"stats", "--format", "json"},
		{"export"},
		{"export", "--format", "csv"},
		{"compare", "--judge", "gpt4_verdict", "--judge", "gpt4_verdict"},
		{"plan"},
		{"assign"},
	} {
		wantCode, want, wantErr := run(t, append([]string{argv[0], file}, argv[1:]...)...)
		code, got, errs := withSession(argv...)
		if code != wantCode || got != want || errs != wantErr {
			t.Errorf("gavel %s with GAVEL_SESSION: exit %d, %q, %q; with the session given: exit %d, %q, %q",
				strings.Join(argv, " "), code, got, errs, wantCode, want, wantErr)
		}
	}
	// Given, the argument wins.
	other := importedSession(t, t.TempDir())
	if _, got, _ := withSession("export", other); got != mustOut(t, "export", other) {
		t.Error("GAVEL_SESSION replaced the session given")
	}
	// A session file is no dataset: gavel review still needs one.
	if code, _, errs := withSession("review"); code != 2 || !strings.Contains(errs, "review needs DATASET") {
		t.Errorf("review with GAVEL_SESSION a file: exit %d, %s", code, errs)
	}
}
