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
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/internal/perfdata"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// streamHelperEnv names the session of the streamed import child (see
// TestBuildStreamHelperProcess); the data file is importHelperDataEnv's.
const streamHelperEnv = "GAVEL_SESSIONS_STREAM_HELPER"

// TestBuildStreamHelperProcess is not a test: it is the body of a child
// process that TestBuildStreamSurvivesKill starts. It imports the
// labelled file in its environment into a new session as `gavel import`
// does a new session's file: read as a stream, the items written as they
// are parsed, then the verdicts and labels inside the build. It prints
// "building" before and "built" after.
func TestBuildStreamHelperProcess(t *testing.T) {
	path := os.Getenv(streamHelperEnv)
	if path == "" {
		t.Skip("only runs as a child process")
	}
	fmt.Println("building")
	st, err := dataset.OpenStream(os.Getenv(importHelperDataEnv), dataset.Options{})
	if err == nil {
		_, _, err = st.Items(1)
	}
	if err == nil {
		st.StoreFields(ImportFieldsEncoder)
		_, err = BuildStreamSessionThen(path, st, func(s *Store, ds *dataset.Dataset) error {
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

// TestBuildStreamSurvivesKill kills an import into a new session that
// writes its items while the file is still parsed, at moments spread over
// it (the first tenths fall while the items are written), and checks each
// time that the path holds no session, or a whole one: every item,
// verdict and label, the stored current labels complete and the label
// trigger back in place. The next build of the same session then removes
// the temporary file a killed one left.
func TestBuildStreamSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("imports large files")
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "labelled.jsonl")
	f, err := os.Create(data)
	if err != nil {
		t.Fatal(err)
	}
	// Several of the stream's 4 MiB chunks (six; three under the race
	// detector, whose children import ten times slower).
	rows := 2 * importRowsCount
	if raceDetector {
		rows = importRowsCount
	}
	if err := perfdata.Write(f, perfdata.Options{Rows: rows, Labelled: true, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	delays := []time.Duration{-1} // the first round runs to the end and times the import
	whole := 0
	for round := 0; round < len(delays); round++ {
		delay := delays[round]
		path := filepath.Join(dir, "s"+strconv.Itoa(round)+".gavel")
		cmd := exec.Command(os.Args[0], "-test.run=^TestBuildStreamHelperProcess$")
		cmd.Env = append(os.Environ(), streamHelperEnv+"="+path, importHelperDataEnv+"="+data)
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
			// Tenths of the whole import; every other one under the
			// race detector (the first ones still fall while the
			// items are written as the file is parsed).
			step := 1
			if raceDetector {
				step = 2
			}
			for k := 0; k < 10; k += step {
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
		var items, verdicts, actions, current, trigger, count int
		var check string
		err = s.db.QueryRow(`SELECT (SELECT count(*) FROM items), (SELECT count(*) FROM verdicts), (SELECT count(*) FROM actions),
			(SELECT count(*) FROM current_labels), (SELECT count(*) FROM sqlite_schema WHERE name = ?), (SELECT items FROM dataset)`, labelTrigger).
			Scan(&items, &verdicts, &actions, &current, &trigger, &count)
		if err != nil || items != rows || count != rows || verdicts == 0 || actions == 0 || current != actions || trigger != 1 {
			t.Fatalf("round %d (killed after %v): %d items (the dataset says %d), %d verdicts, %d labels, %d current labels, label trigger %d (%v)",
				round, delay, items, count, verdicts, actions, current, trigger, err)
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
	// The killed builds left their temporary files; a build of one of
	// their sessions removes them all.
	if left := buildFiles(t, dir); len(left) == 0 {
		t.Log("no kill left a temporary file")
	}
	for round := range delays {
		path := filepath.Join(dir, "s"+strconv.Itoa(round)+".gavel")
		if _, err := os.Stat(path); err == nil {
			continue
		}
		st, err := dataset.OpenStream(data, dataset.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := BuildStreamSessionThen(path, st, nil); err != nil {
			t.Fatal(err)
		}
		for _, f := range buildFiles(t, dir) {
			if strings.HasPrefix(f, ".s"+strconv.Itoa(round)+".gavel.") {
				t.Errorf("%s is left after a new build of its session", f)
			}
		}
	}
	t.Logf("%d of %d rounds left a whole session, the others none", whole, len(delays))
}

// buildFiles lists the temporary files of builds in dir.
func buildFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.Contains(e.Name(), ".building-") {
			out = append(out, e.Name())
		}
	}
	return out
}
