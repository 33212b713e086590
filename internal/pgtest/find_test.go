package pgtest

import (
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB whose Skipf and Fatalf are recorded.
type recorder struct {
	testing.TB
	skipped, fatal string
}

func (r *recorder) Helper() {}
func (r *recorder) Skipf(format string, args ...any) {
	r.skipped = format
	runtime.Goexit()
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = format
	runtime.Goexit()
}

func (r *recorder) run(f func(testing.TB)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
}

// TestMissingBinaries: without the binaries a test is skipped with what
// to install, but fails under CI=true.
func TestMissingBinaries(t *testing.T) {
	t.Setenv("GAVEL_PGTEST_BIN", t.TempDir())
	t.Setenv("CI", "")
	r := &recorder{TB: t}
	r.run(func(tb testing.TB) { Start(tb) })
	if r.skipped == "" || r.fatal != "" {
		t.Fatalf("without binaries: skipped %q, fatal %q; want a skip", r.skipped, r.fatal)
	}
	if _, err := FindBinaries(); err == nil || !strings.Contains(err.Error(), "does not hold initdb") {
		t.Fatalf("FindBinaries = %v", err)
	}
	t.Setenv("CI", "true")
	r = &recorder{TB: t}
	r.run(func(tb testing.TB) { Shared(tb) })
	if r.fatal == "" || r.skipped != "" {
		t.Fatalf("without binaries under CI=true: skipped %q, fatal %q; want a failure", r.skipped, r.fatal)
	}
}

// TestFindBinariesMessage: the message says which package to install.
func TestFindBinariesMessage(t *testing.T) {
	t.Setenv("GAVEL_PGTEST_BIN", "")
	t.Setenv("PATH", t.TempDir())
	dir, err := FindBinaries()
	if err != nil {
		if !strings.Contains(err.Error(), "apt-get install postgresql") {
			t.Fatalf("FindBinaries error names no package: %v", err)
		}
		return
	}
	if !strings.Contains(dir, "postgresql") && !strings.Contains(dir, "pgsql") {
		t.Fatalf("with an empty PATH FindBinaries found %s", dir)
	}
}

// TestVersionOrder: the newest of /usr/lib/postgresql/*/bin comes first.
func TestVersionOrder(t *testing.T) {
	for dir, want := range map[string]float64{
		"/usr/lib/postgresql/9.6/bin": 9.6,
		"/usr/lib/postgresql/16/bin":  16,
		"/usr/pgsql-13/bin":           13,
		"/usr/local/pgsql/bin":        -1,
	} {
		if got := versionOf(dir); got != want {
			t.Errorf("versionOf(%s) = %v, want %v", dir, got, want)
		}
	}
}

// TestDiedOnItsOwn: a server stopped behind the Server's back is started
// again by StartErr (and so by Shared), and StopErr takes it as stopped.
func TestDiedOnItsOwn(t *testing.T) {
	s := Start(t)
	die := func() {
		t.Helper()
		if _, err := s.run("pg_ctl", "stop", "-D", s.data(), "-m", "immediate", "-w"); err != nil {
			t.Fatal(err)
		}
	}
	die()
	if err := s.StartErr(); err != nil {
		t.Fatalf("StartErr on a dead server: %v", err)
	}
	if !s.alive() {
		t.Fatal("StartErr left the dead server dead")
	}
	die()
	if err := s.StopErr(); err != nil {
		t.Fatalf("StopErr on a dead server: %v", err)
	}
	if err := s.StartErr(); err != nil || !s.alive() {
		t.Fatalf("StartErr after StopErr: %v, alive %v", err, s.alive())
	}
}
