//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// withStdin runs f with standard input reading content from a pipe.
func withStdin(t *testing.T, content string, f func()) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		w.WriteString(content)
		w.Close()
	}()
	old := os.Stdin
	os.Stdin = r
	defer func() {
		os.Stdin = old
		r.Close()
	}()
	f()
}

// TestDatasetReads: a FIFO is refused at once, - reads standard input,
// --max-bytes caps what is read and is named when the cap is hit.
func TestDatasetReads(t *testing.T) {
	dir := t.TempDir()
	rows := categoryRows(100)
	data := writeFile(t, dir, "evals.jsonl", rows)

	fifo := filepath.Join(dir, "rows.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs := run(t, "sample", fifo, "-n", "1")
	if code != 1 || !strings.Contains(errs, "rows.jsonl is a named pipe (FIFO): Gavel reads datasets from regular files. Give - and pipe it in") {
		t.Errorf("FIFO: exit %d, stderr %q", code, errs)
	}

	var out string
	withStdin(t, rows, func() { code, out, errs = run(t, "sample", "-", "-n", "3") })
	if code != 0 || strings.Count(out, "\n") != 3 || !strings.Contains(errs, "Drew 3 of 100 rows") {
		t.Errorf("sample -: exit %d, stdout %q, stderr %q", code, out, errs)
	}

	code, _, errs = run(t, "sample", data, "-n", "1", "--max-bytes", "1KiB")
	if code != 1 || !strings.Contains(errs, "more than the --max-bytes limit of 1 KiB: raise it if the file is genuine (e.g. --max-bytes 1MiB)") {
		t.Errorf("past --max-bytes: exit %d, stderr %q", code, errs)
	}
	if code, _, errs = run(t, "sample", data, "-n", "1", "--max-bytes", "1MiB"); code != 0 {
		t.Errorf("within --max-bytes: exit %d, stderr %q", code, errs)
	}
	if code, _, errs = run(t, "sample", data, "-n", "1", "--max-bytes", "lots"); code != 2 || !strings.Contains(errs, `"lots" is not a size`) {
		t.Errorf("--max-bytes lots: exit %d, stderr %q", code, errs)
	}

	code, _, errs = run(t, "import", "-")
	if code != 2 || !strings.Contains(errs, "give one with --session FILE") {
		t.Errorf("import - without --session: exit %d, stderr %q", code, errs)
	}
	judged := writeFile(t, dir, "judged.csv", judgedCSV)
	csv, err := os.ReadFile(judged)
	if err != nil {
		t.Fatal(err)
	}
	session := filepath.Join(dir, "piped.gavel")
	withStdin(t, string(csv), func() { code, out, errs = run(t, "import", "-", "--session", session, "--format", "csv") })
	if code != 0 || !strings.Contains(out, "4 items") {
		t.Errorf("import -: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
