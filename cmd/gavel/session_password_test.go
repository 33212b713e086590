package main

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/internal/pgtest"
)

// passwordCSV is a judged dataset of eight items with people's labels,
// enough for a split and a labelling plan.
const passwordCSV = `id,question,answer,prediction,gpt4_verdict,human_label
a,2+2?,4,four,True,yes
b,Capital of France?,Paris,Lyon,False,no
c,Largest planet?,Jupiter,Jupiter,True,yes
d,Boiling point?,100,212,True,no
e,3+3?,6,6,True,yes
f,Capital of Spain?,Madrid,Madrid,False,yes
g,Smallest prime?,2,2,True,yes
h,Colour of the sky?,blue,green,True,no
`

// Every command that takes a session, given a team session's URL with a
// password (in the user info, or a password= parameter), prints the URL
// with the password replaced, on standard output and standard error
// alike, whether it works, refuses or fails: the summaries and hints on
// the way (plan's list and summary, the notes on a plan read on one part
// of a split, report's default file) as well as the final error.
func TestNoCommandPrintsThePassword(t *testing.T) {
	srv := pgtest.Shared(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	t.Chdir(dir) // gavel report writes its default file here
	data := writeFile(t, dir, "judged.csv", passwordCSV)
	file := filepath.Join(dir, "judged.gavel")
	mustRun(t, "import", data, "--session", file)
	mustRun(t, "run", data, "--session", file, "--judge", "match")
	mustRun(t, "split", file, "--seed", "3")
	mustRun(t, "plan", file, "-n", "4", "--judge", "match", "--seed", "5")

	// A port nothing listens on, for a server that is away.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().(*net.TCPAddr).Port
	l.Close()

	name := pgtest.Name(t)
	name = name[:min(len(name), 30)] // room for the suffixes below
	for i, secret := range []func(string) string{
		func(u string) string { return strings.Replace(u, "gavel@", "gavel:secret@", 1) },
		func(u string) string { return u + "&password=secret" },
	} {
		url := secret(srv.URL(name + strconv.Itoa(i)))
		fresh := secret(srv.URL(name + strconv.Itoa(i) + "_new"))
		missing := secret(srv.URL(name + strconv.Itoa(i) + "_none"))
		away := strings.Replace(url, ":"+strconv.Itoa(srv.Port())+"/", ":"+strconv.Itoa(closed)+"/", 1)
		back := filepath.Join(dir, "back"+strconv.Itoa(i)+".gavel")
		for _, argv := range [][]string{
			{"copy", file, url},
			{"copy", file, url},
			{"copy", url, back},
			{"import", data, "--session", fresh},
			{"import", data, "--session", fresh},
			{"import", data, "--session", fresh, "--join"},
			{"stats", url},
			{"stats", url, "--split", "evaluation"},
			{"stats", url, "--plan", "9"},
			{"stats", missing},
			{"stats", away},
			{"export", url},
			{"export", url, "--tag", "nosuch"},
			{"report", url},
			{"report", url, "--format", "markdown", "-o", "-"},
			{"report", url, "--split", "evaluation", "-o", "-"},
			{"compare", url},
			{"compare", url, "--judge", "imported", "--judge", "match"},
			{"compare", fresh, "--judge", "a", "--judge", "b"},
			{"plan", url},
			{"plan", fresh},
			{"plan", url, "--show", "1"},
			{"plan", url, "--show", "9"},
			{"plan", url, "-n", "2"},
			{"split", url},
			{"tune", url, "--judge", "match", "--model", "m", "--budget", "5"},
			{"assign", url},
			{"assign", url, "--annotators", "ana,bo"},
			{"assign", url},
			{"assign", url, "--annotators", "ana,bo"},
			{"label", url, "a", "yes", "--annotator", "ana"},
			{"label", url, "zz", "yes", "--annotator", "ana"},
			{"label", url, "a", "yes", "--annotator", "ana", "--via", "adjudication"},
			{"label", url, "a", "--undo", "--annotator", "zed"},
			{"label", url, "a", "yes", "--annotator", "ana", "--via", "plan:9"},
			{"label", url, "b", "no", "--annotator", "ana", "--via", "plan:1"},
			{"run", url, "--judge", "match"},
			{"run", fresh, "--judge", "match"},
			{"run", url, "--judge", "match", "--dry-run"},
			{"run", data, "--session", url},
			{"run", url, "--session", file},
			{"review", url, "--plan", "9"},
			{"review", url, "--annotator", "ana"},
			{"review", data, "--session", url},
			{"merge", filepath.Join(dir, "merged.gavel"), url, file},
		} {
			code, out, errs := run(t, argv...)
			if strings.Contains(out+errs, "secret") {
				t.Errorf("gavel %s (exit %d) printed the password:\n%s", strings.Join(argv, " "), code, linesWith(out+errs, "secret"))
			}
		}
	}
	// A team session's report goes in the working directory, named
	// after the session; plan says how a team session gets a plan.
	if _, err := os.Stat(filepath.Join(dir, name+"0-report.html")); err != nil {
		t.Errorf("gavel report URL: %v", err)
	}
	fresh := strings.Replace(srv.URL(name+"0_new"), "gavel@", "gavel:secret@", 1)
	_, _, errs := run(t, "plan", fresh)
	shown := strings.Replace(fresh, "secret", "xxxxx", 1)
	if want := shown + " has no labelling plan yet: plans are drawn on session files: copy it to one (gavel copy '" + shown + "' FILE.gavel)"; !strings.Contains(errs, want) {
		t.Errorf("gavel plan URL without a plan:\n%s\nwant %s", errs, want)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range entries {
		if b, err := os.ReadFile(filepath.Join(dir, en.Name())); err == nil && strings.Contains(string(b), "secret") {
			t.Errorf("%s holds the password", en.Name())
		}
	}
}

// linesWith are the lines of text that hold what.
func linesWith(text, what string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, what) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// The last guard on error messages finds the password in a URL made a
// file path (its // cleaned to /) too.
func TestRedactURLs(t *testing.T) {
	for in, want := range map[string]string{
		"at postgres://ana:secret@db/x?session=a": "at postgres://ana:xxxxx@db/x?session=a",
		"open postgres:/ana:secret@db/x.gavel":    "open postgres:/ana:xxxxx@db/x.gavel",
		"postgresql://db/x?password=secret&a=b":   "postgresql://db/x?password=xxxxx&a=b",
	} {
		if got := redactURLs(in); got != want {
			t.Errorf("redactURLs(%q) = %q, want %q", in, got, want)
		}
	}
}
