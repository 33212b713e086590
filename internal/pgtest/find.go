package pgtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
)

// binDir is the directory of the PostgreSQL binaries. Without them the
// test is skipped, or fails under CI=true.
func binDir(t testing.TB) string {
	t.Helper()
	dir, err := FindBinaries()
	if err == nil {
		return dir
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("pgtest: %v (CI=true: PostgreSQL tests must run)", err)
	}
	t.Skipf("pgtest: %v", err)
	return ""
}

// FindBinaries returns the directory holding initdb, pg_ctl and postgres:
// $GAVEL_PGTEST_BIN when set, else the directory of the initdb on PATH
// (symbolic links followed), else the newest of /usr/lib/postgresql/*/bin,
// /usr/pgsql-*/bin and /usr/local/pgsql/bin. Its error says what to
// install.
func FindBinaries() (string, error) {
	if !supported {
		return "", fmt.Errorf("throwaway PostgreSQL servers are made on Unix only")
	}
	if dir := os.Getenv("GAVEL_PGTEST_BIN"); dir != "" {
		if !complete(dir) {
			return "", fmt.Errorf("GAVEL_PGTEST_BIN=%s does not hold initdb, pg_ctl and postgres", dir)
		}
		return dir, nil
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil && complete(filepath.Dir(real)) {
			return filepath.Dir(real), nil
		}
		if complete(filepath.Dir(p)) {
			return filepath.Dir(p), nil
		}
	}
	var dirs []string
	for _, pattern := range []string{"/usr/lib/postgresql/*/bin", "/usr/pgsql-*/bin", "/usr/local/pgsql/bin"} {
		m, _ := filepath.Glob(pattern)
		dirs = append(dirs, m...)
	}
	sort.SliceStable(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, dir := range dirs {
		if complete(dir) {
			return dir, nil
		}
	}
	return "", fmt.Errorf("the PostgreSQL server programs (initdb, pg_ctl, postgres) are not on PATH nor in /usr/lib/postgresql/*/bin: install them to run this test (Debian/Ubuntu: apt-get install postgresql; Fedora: dnf install postgresql-server; macOS: brew install postgresql), or set GAVEL_PGTEST_BIN to their directory")
}

// complete says whether dir holds the three programs, executable.
func complete(dir string) bool {
	for _, name := range []string{"initdb", "pg_ctl", "postgres"} {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil || info.IsDir() || info.Mode().Perm()&0o111 == 0 {
			return false
		}
	}
	return true
}
