package sessions

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// Environment of a helper child process (see TestHelperProcess).
const (
	helperEnv          = "GAVEL_SESSIONS_HELPER"
	helperPathEnv      = "GAVEL_SESSIONS_PATH"
	helperAnnotatorEnv = "GAVEL_SESSIONS_ANNOTATOR"
)

// TestHelperProcess is not a test: it is the body of a child process that
// other tests start by re-running the test binary. It does nothing in a
// normal run. Modes:
//   - hold: open the session, print "ready", wait for stdin to close,
//     close the session, print "closed".
//   - label: open the session, then Record labels one after another and
//     print "confirmed ID ITEM VALUE" after each Record returns, until
//     killed.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("only runs as a child process")
	}
	os.Exit(helperMain(mode, os.Getenv(helperPathEnv), os.Getenv(helperAnnotatorEnv)))
}

func helperMain(mode, path, annotator string) int {
	s, err := Open(path, Options{Annotator: annotator})
	if err != nil {
		fmt.Printf("error: %v\n", err)
		return 1
	}
	fmt.Println("ready")
	switch mode {
	case "hold":
		io.Copy(io.Discard, os.Stdin)
		if err := s.Close(); err != nil {
			fmt.Printf("error: %v\n", err)
			return 1
		}
		fmt.Println("closed")
		return 0
	case "label":
		items, err := s.Items()
		if err != nil || len(items) == 0 {
			fmt.Printf("error: no items: %v\n", err)
			return 1
		}
		for i := 0; i < 1_000_000; i++ {
			it := items[i%len(items)]
			v := float64(i % 2)
			got, err := s.Record([]Action{{Kind: KindLabel, ItemID: it.ID, Dimension: "correct", Value: v, Via: "order"}})
			if err != nil {
				fmt.Printf("error: %v\n", err)
				return 1
			}
			fmt.Printf("confirmed %d %s %g\n", got[0].ID, it.ID, v)
		}
		return 0
	}
	fmt.Printf("error: unknown mode %q\n", mode)
	return 1
}

// child is a helper process and its output lines.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines *bufio.Scanner
}

// startChild runs TestHelperProcess in mode on the session at path.
func startChild(t *testing.T, mode, path, annotator string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, helperPathEnv+"="+path, helperAnnotatorEnv+"="+annotator)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, stdin: stdin, lines: bufio.NewScanner(stdout)}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return c
}

// expect reads the child's next line and fails unless it starts with want.
func (c *child) expect(t *testing.T, want string) string {
	t.Helper()
	if !c.lines.Scan() {
		t.Fatalf("child ended (%v) while we waited for %q", c.lines.Err(), want)
	}
	line := c.lines.Text()
	if !strings.HasPrefix(line, want) {
		t.Fatalf("child said %q, want %q", line, want)
	}
	return line
}

// labelSession makes a session whose items the label helper cycles through.
func labelSession(t *testing.T, n int) string {
	t.Helper()
	path := sessionPath(t)
	s := openStore(t, path, "setup")
	items := make([]judge.Item, n)
	for i := range items {
		items[i] = judge.Item{Index: i, ID: fmt.Sprintf("item-%03d", i), Question: "q", Gold: "g", Prediction: "p"}
	}
	if err := s.InitDataset(DatasetInfo{Path: "x.jsonl"}, items); err != nil {
		t.Fatal(err)
	}
	s.Close()
	return path
}

func TestSecondWriterRefusedAcrossProcesses(t *testing.T) {
	path := labelSession(t, 3)
	holder := startChild(t, "hold", path, "ann")
	holder.expect(t, "ready")

	_, err := Open(path, Options{Annotator: "ann"})
	var le *LockedError
	if err == nil {
		t.Fatal("a second process could open the session as the same annotator")
	}
	if !errors.As(err, &le) || le.PID != holder.cmd.Process.Pid {
		t.Fatalf("err = %v, want a LockedError naming the child's pid %d", err, holder.cmd.Process.Pid)
	}
	if !lockMessage(path, "ann").MatchString(err.Error()) {
		t.Errorf("message = %q", err.Error())
	}
	other, err := Open(path, Options{Annotator: "bob"})
	if err != nil {
		t.Fatalf("another annotator was refused: %v", err)
	}
	other.Close()
	ro, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only open was refused: %v", err)
	}
	ro.Close()

	// Once the holder closes, the annotator is free.
	holder.stdin.Close()
	holder.expect(t, "closed")
	if err := holder.cmd.Wait(); err != nil {
		t.Fatalf("holder: %v", err)
	}
	s, err := Open(path, Options{Annotator: "ann"})
	if err != nil {
		t.Fatalf("Open after the holder closed: %v", err)
	}
	s.Close()
}
