package sessions

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// labelledSession makes a closed session with one label by "ann".
func labelledSession(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "s.gavel")
	s, err := Open(path, Options{Annotator: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.InitDataset(DatasetInfo{Path: "d.jsonl", SHA256: "abc", Format: "jsonl"}, sampleItems()); err != nil {
		t.Fatal(err)
	}
	record(t, s, "q1", 1)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestIssue11CloseCheckpoints: after Close the .gavel file alone holds
// every label; its -wal is gone or empty.
func TestIssue11CloseCheckpoints(t *testing.T) {
	dir := t.TempDir()
	path := labelledSession(t, dir)
	if st, err := os.Stat(path + "-wal"); err == nil && st.Size() > 0 {
		t.Errorf("-wal holds %d bytes after Close", st.Size())
	}
	cp := filepath.Join(t.TempDir(), "copy.gavel")
	copyFile(t, path, cp)
	s, err := Open(cp, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := currentLabels(t, s); got != "ann:q1=1" {
		t.Errorf("copy of the .gavel file alone has labels %q, want ann:q1=1", got)
	}
}

// TestIssue11BadFiles: each file that is not a usable session gets a
// sentence naming it and what to do, classified for errors.Is.
func TestIssue11BadFiles(t *testing.T) {
	dir := t.TempDir()
	good := labelledSession(t, t.TempDir())
	b, _ := os.ReadFile(good)
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	folder := filepath.Join(dir, "folder.gavel")
	os.Mkdir(folder, 0o755)
	// A session whose tables are gone but whose mark is there.
	gutted := write("gutted.gavel", b)
	db := rawDB(t, gutted)
	if _, err := db.Exec("DROP VIEW IF EXISTS current_labels; DROP TABLE actions"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	cases := []struct {
		name, path string
		kind       error
		want       string
	}{
		{"text file", write("notes.gavel", []byte("hello, not a database\n")), ErrNotSession, "not an SQLite database"},
		{"header only", write("head.gavel", []byte("SQLite format 3\x00")), ErrDamaged, "cut short"},
		{"truncated", write("cut.gavel", b[:3000]), ErrDamaged, "restore it from a backup"},
		{"folder", folder, ErrNotSession, "it is a folder"},
		{"missing tables", gutted, ErrDamaged, "missing part of Gavel's schema"},
	}
	for _, c := range cases {
		for _, ro := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/ro=%v", c.name, ro), func(t *testing.T) {
				s, err := Open(c.path, Options{ReadOnly: ro, Annotator: "ann"})
				if err == nil {
					// Some damage only shows on the first read.
					_, err = s.Labels("")
					s.Close()
				}
				if err == nil {
					t.Fatal("no error")
				}
				if !errors.Is(err, c.kind) {
					t.Errorf("error %q is not %v", err, c.kind)
				}
				if !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.want) {
					t.Errorf("error %q should name %s and say %q", err, c.path, c.want)
				}
			})
		}
	}
}

// TestIssue11ExplainCodes: the raw SQLite errors users met become
// sentences with a fix.
func TestIssue11ExplainCodes(t *testing.T) {
	dir := t.TempDir()
	// A real SQLITE_CANTOPEN: a file in a folder that does not exist.
	db, _ := sql.Open("sqlite", "file:"+filepath.Join(dir, "nope", "x.db")+"?mode=ro")
	defer db.Close()
	err := db.Ping()
	if err == nil {
		_, err = db.Exec("SELECT 1")
	}
	e := explain("x.gavel", err)
	if e == nil || !errors.Is(e, ErrPermission) || !strings.Contains(e.Error(), "x.gavel") || !strings.Contains(e.Error(), "check that the file and its folder exist") {
		t.Errorf("CANTOPEN %v explained as %v", err, e)
	}
	if explain("x.gavel", errors.New("plain")) != nil {
		t.Error("a non-SQLite error was explained")
	}
}

// TestIssue11ImmutableFallback injects an open that fails for every
// mode=ro connection, as in a folder the reader cannot write, and checks
// that the store then reads the file immutable — and says so when a
// -wal file holds changes it cannot see.
func TestIssue11ImmutableFallback(t *testing.T) {
	dir := t.TempDir()
	path := labelledSession(t, dir)
	nowhere := filepath.Join(dir, "missing-folder", "x.gavel")
	var opened []string
	sqlOpen = func(driver, d string) (*sql.DB, error) {
		opened = append(opened, d)
		if !strings.Contains(d, "immutable=1") && strings.Contains(d, "mode=ro") {
			return sql.Open(driver, "file:"+nowhere+"?mode=ro")
		}
		return sql.Open(driver, d)
	}
	defer func() { sqlOpen = sql.Open }()

	s, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only open with the fallback: %v", err)
	}
	if !s.immutable || s.Notice() != "" {
		t.Errorf("immutable %v, notice %q: want immutable, no notice (no -wal)", s.immutable, s.Notice())
	}
	if got := currentLabels(t, s); got != "ann:q1=1" {
		t.Errorf("labels %q", got)
	}
	s.Close()
	if len(opened) != 2 {
		t.Errorf("opened %q, want mode=ro then immutable", opened)
	}

	// A writer holds changes in the -wal: the immutable reader cannot
	// see them, and says so.
	w, err := Open(path, Options{Annotator: "bo"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	record(t, w, "q2", 0)
	s, err = Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := s.Notice(); !strings.Contains(n, "-wal") || !strings.Contains(n, path) {
		t.Errorf("notice %q should tell of the -wal left out", n)
	}
}

// TestIssue11ReadOnlyFolder opens a session in a folder the reader cannot
// write, for real: as root (where chmod does not restrict) the test binary
// runs itself again as user nobody through setpriv; it skips when neither
// is possible.
func TestIssue11ReadOnlyFolder(t *testing.T) {
	if os.Getenv("GAVEL_ISSUE11_RO") != "" {
		return // the helper below runs instead
	}
	base, err := os.MkdirTemp("", "gavel-ro-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	dir := filepath.Join(base, "share")
	os.Mkdir(dir, 0o755)
	path := labelledSession(t, dir)
	for _, p := range []string{path + "-wal", path + "-shm"} {
		os.Remove(p)
	}
	os.Chmod(path, 0o444)
	os.Chmod(dir, 0o555)
	os.Chmod(base, 0o755)
	defer os.Chmod(dir, 0o755)

	var out string
	if os.Geteuid() != 0 {
		out = readOnlyProbe(path)
	} else {
		setpriv, err := exec.LookPath("setpriv")
		if err != nil {
			t.Skip("running as root without setpriv: chmod does not restrict root")
		}
		bin := filepath.Join(base, "sessions.test")
		src, err := os.Open(os.Args[0])
		if err != nil {
			t.Skip(err)
		}
		dst, _ := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
		io.Copy(dst, src)
		src.Close()
		dst.Close()
		cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
			bin, "-test.run=^TestIssue11ReadOnlyFolderHelper$", "-test.v")
		cmd.Env = append(os.Environ(), "GAVEL_ISSUE11_RO="+path, "HOME="+base)
		b, err := cmd.CombinedOutput()
		if err != nil && !strings.Contains(string(b), "PROBE") {
			t.Skipf("cannot run as nobody: %v %s", err, b)
		}
		out = string(b)
	}
	t.Logf("probe:\n%s", out)
	if !strings.Contains(out, "PROBE read-only: ann:q1=1") {
		t.Errorf("read-only open in a read-only folder:\n%s", out)
	}
	if !strings.Contains(out, "PROBE writable: cannot write session") && !strings.Contains(out, "PROBE writable: cannot open session") {
		t.Errorf("writable open in a read-only folder should explain:\n%s", out)
	}
	if strings.Contains(out, "PROBE writable: cannot open session "+path+": attempt to write") {
		t.Errorf("raw SQLite message:\n%s", out)
	}
	if _, err := os.Stat(path + "-shm"); err == nil {
		t.Error("a -shm file appeared in the read-only folder")
	}
}

// TestIssue11ReadOnlyFolderHelper is TestIssue11ReadOnlyFolder's other
// process.
func TestIssue11ReadOnlyFolderHelper(t *testing.T) {
	path := os.Getenv("GAVEL_ISSUE11_RO")
	if path == "" {
		t.Skip("helper process only")
	}
	fmt.Print(readOnlyProbe(path))
}

func readOnlyProbe(path string) string {
	var b strings.Builder
	s, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		fmt.Fprintf(&b, "PROBE read-only: %v\n", err)
	} else {
		labels, err := s.Labels("")
		var got []string
		for _, l := range labels {
			got = append(got, fmt.Sprintf("%s:%s=%v", l.Annotator, l.ItemID, l.Value))
		}
		fmt.Fprintf(&b, "PROBE read-only: %s %v\n", strings.Join(got, " "), err)
		s.Close()
	}
	if w, err := Open(path, Options{Annotator: "x"}); err != nil {
		fmt.Fprintf(&b, "PROBE writable: %v\n", err)
	} else {
		fmt.Fprintln(&b, "PROBE writable: opened")
		w.Close()
	}
	return b.String()
}

var _ = judge.StatusOK
