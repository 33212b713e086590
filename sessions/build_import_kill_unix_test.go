//go:build unix

package sessions

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/internal/perfdata"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// Environment of the labelled import child (see
// TestBuildImportHelperProcess).
const (
	importHelperEnv     = "GAVEL_SESSIONS_IMPORT_HELPER"
	importHelperDataEnv = "GAVEL_SESSIONS_IMPORT_DATA"
	importRowsCount     = 20000
)

// TestBuildImportHelperProcess is not a test: it is the body of a child
// process that TestBuildImportSurvivesKill starts. It imports the
// labelled file in its environment into a new session as `gavel import`
// does (the verdicts and labels written inside the build, the label
// trigger suspended meanwhile), printing "building" before and "built"
// after.
func TestBuildImportHelperProcess(t *testing.T) {
	path := os.Getenv(importHelperEnv)
	if path == "" {
		t.Skip("only runs as a child process")
	}
	fmt.Println("building")
	ds, err := dataset.Load(os.Getenv(importHelperDataEnv), dataset.Options{})
	if err == nil {
		err = BuildDatasetSessionThen(path, ds, func(s *Store) error {
			_, err := ImportDataset(s, ds, nil)
			return err
		})
	}
	if err != nil {
		fmt.Printf("error: %v\n", err)
		os.Exit(1)
	}
	fmt.Println("built")
	os.Exit(0)
}

// TestBuildImportSurvivesKill kills a labelled import into a new session
// at moments spread over it and checks each time that the path holds no
// session, or a whole one: every item, verdict and label, the stored
// current labels complete and the label trigger back in place.
func TestBuildImportSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("imports large files")
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "labelled.jsonl")
	f, err := os.Create(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := perfdata.Write(f, perfdata.Options{Rows: importRowsCount, Labelled: true, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// The first round runs to the end and times the import; the others
	// kill it at tenths of that time.
	delays := []time.Duration{-1}
	whole := 0
	for round := 0; round < len(delays); round++ {
		delay := delays[round]
		path := filepath.Join(dir, "s"+strconv.Itoa(round)+".gavel")
		cmd := exec.Command(os.Args[0], "-test.run=^TestBuildImportHelperProcess$")
		cmd.Env = append(os.Environ(), importHelperEnv+"="+path, importHelperDataEnv+"="+data)
		cmd.Stderr = os.Stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		c := &child{cmd: cmd, lines: bufio.NewScanner(stdout)}
		c.expect(t, "building")
		start := time.Now()
		if delay >= 0 {
			time.Sleep(delay)
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Fatalf("round %d: %v", round, err)
			}
		} else {
			c.expect(t, "built")
			if err := cmd.Wait(); err != nil {
				t.Fatalf("round %d: the import failed: %v", round, err)
			}
			for k := range 10 {
				delays = append(delays, time.Since(start)*time.Duration(k)/10)
			}
		}
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			if delay < 0 {
				t.Fatalf("round %d: the finished import left no session", round)
			}
			continue
		}
		s, err := Open(path, Options{Annotator: "ann"})
		if err != nil {
			t.Fatalf("round %d (killed after %v): a session is there but does not open: %v", round, delay, err)
		}
		var items, verdicts, actions, current, trigger int
		var check string
		err = s.db.QueryRow(`SELECT (SELECT count(*) FROM items), (SELECT count(*) FROM verdicts), (SELECT count(*) FROM actions),
			(SELECT count(*) FROM current_labels), (SELECT count(*) FROM sqlite_schema WHERE name = ?)`, labelTrigger).
			Scan(&items, &verdicts, &actions, &current, &trigger)
		if err != nil || items != importRowsCount || verdicts == 0 || actions == 0 || current != actions || trigger != 1 {
			t.Fatalf("round %d (killed after %v): %d items, %d verdicts, %d labels, %d current labels, label trigger %d (%v)",
				round, delay, items, verdicts, actions, current, trigger, err)
		}
		if err := s.db.QueryRow("PRAGMA quick_check").Scan(&check); err != nil || check != "ok" {
			t.Errorf("round %d: quick_check = %q, %v", round, check, err)
		}
		s.Close()
		whole++
	}
	if whole == 0 {
		t.Fatal("no round produced a session")
	}
	t.Logf("%d of %d rounds left a whole session, the others none", whole, len(delays))
}
