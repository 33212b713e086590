package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gavel-dev/gavel/sessions"
)

// TestIssue11SampleKeepsRowNumbers: a sample of rows without ids keeps
// each row's number in the dataset as its id, so that it joins back.
func TestIssue11SampleKeepsRowNumbers(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 1; i <= 50; i++ {
		fmt.Fprintf(&b, `{"question":"q%d","prediction":"p%d"}`+"\n", i, i)
	}
	data := writeFile(t, dir, "noids.jsonl", b.String())
	code, out, errs := run(t, "sample", data, "-n", "5", "--seed", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d rows: %s", len(lines), out)
	}
	for _, l := range lines {
		var row struct {
			ID       int    `json:"id"`
			Question string `json:"question"`
		}
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatalf("row %s: %v", l, err)
		}
		if row.Question != fmt.Sprintf("q%d", row.ID) {
			t.Errorf("row %s: id %d is not its row number", l, row.ID)
		}
	}
	if !strings.Contains(errs, `row number in the dataset as "id"`) {
		t.Errorf("stderr %q", errs)
	}
	// The sample, reviewed, has the dataset's ids.
	sample := writeFile(t, dir, "sample.jsonl", out)
	session := filepath.Join(dir, "sample.gavel")
	if code, _, errs := run(t, "review", sample, "--session", session, "--annotator", "ana"); code != 0 {
		t.Fatalf("review of the sample: %s", errs)
	}
	s, err := sessions.Open(session, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	items, _ := s.Items()
	for _, it := range items {
		if it.Question != "q"+it.ID {
			t.Errorf("sample item %s holds %s", it.ID, it.Question)
		}
	}

	// Rows whose "id" field is not their id keep their number beside it.
	row, key := withRowID(json.RawMessage(`{"id":"dup","x":1}`), "7")
	if key != rowNumberKey || string(row) != `{"gavel_row":7,"id":"dup","x":1}` {
		t.Errorf("withRowID: %s %s", row, key)
	}
	if row, key = withRowID(json.RawMessage(`{}`), "3"); string(row) != `{"id":3}` || key != "id" {
		t.Errorf("withRowID of {}: %s %s", row, key)
	}
}

// TestIssue11SighupCheckpoints runs a review in another process (this
// test binary, with a stand-in screen), lets labels reach the session's
// -wal, closes its "terminal" with SIGHUP, and then reads a copy of the
// .gavel file alone: the labels are there because gavel quit through the
// session's Close, which checkpoints.
func TestIssue11SighupCheckpoints(t *testing.T) {
	if os.Getenv("GAVEL_ISSUE11_SIGHUP") != "" {
		return
	}
	dir := t.TempDir()
	data := writeFile(t, dir, "d.jsonl", `{"id":"a","question":"q","gold":"x","prediction":"x"}`+"\n"+
		`{"id":"b","question":"q","gold":"x","prediction":"y"}`+"\n")
	session := filepath.Join(dir, "d.gavel")
	cmd := exec.Command(os.Args[0], "-test.run=^TestIssue11SighupHelper$", "-test.v")
	cmd.Env = append(os.Environ(), "GAVEL_ISSUE11_SIGHUP="+data+"\n"+session)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	go func() {
		buf := make([]byte, 4096)
		var got string
		for {
			n, err := stdout.Read(buf)
			got += string(buf[:n])
			if strings.Contains(got, "LABELLED") || err != nil {
				ready <- got
				return
			}
		}
	}()
	select {
	case got := <-ready:
		if !strings.Contains(got, "LABELLED") {
			t.Fatalf("helper: %s %s", got, errb.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("helper never labelled")
	}
	if st, err := os.Stat(session + "-wal"); err != nil || st.Size() == 0 {
		t.Fatalf("the labels should be in the -wal before SIGHUP: %v", err)
	}
	cmd.Process.Signal(syscall.SIGHUP)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("gavel did not exit cleanly on SIGHUP: %v\n%s", err, errb.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("gavel did not exit on SIGHUP")
	}

	cp := filepath.Join(t.TempDir(), "copy.gavel")
	b, err := os.ReadFile(session)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(cp, b, 0o644)
	s, err := sessions.Open(cp, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	labels, err := s.Labels("")
	if err != nil || len(labels) != 2 {
		t.Errorf("a copy of the .gavel file alone holds %d labels (%v), want 2", len(labels), err)
	}
}

// TestIssue11SighupHelper is the gavel process of
// TestIssue11SighupCheckpoints: `gavel review` whose screen labels both
// items (through a second writer of the session, as another annotator,
// since the screen is not driven here) and then waits, as a person would,
// until the terminal closes.
func TestIssue11SighupHelper(t *testing.T) {
	arg := os.Getenv("GAVEL_ISSUE11_SIGHUP")
	if arg == "" {
		t.Skip("helper process only")
	}
	data, session, _ := strings.Cut(arg, "\n")
	e := newEnv()
	e.stdout, e.stderr = os.Stderr, os.Stderr
	e.runTUI = func(ctx context.Context, m tea.Model) (tea.Model, error) {
		w, err := sessions.Open(session, sessions.Options{Annotator: "bo"})
		if err != nil {
			return m, err
		}
		// w is left open, as the screen's own store would be: only the
		// review's Close may fold the -wal into the file.
		for _, id := range []string{"a", "b"} {
			if _, err := w.Record([]sessions.Action{{Kind: sessions.KindLabel, ItemID: id, Dimension: "correct", Value: 1, Via: "order"}}); err != nil {
				return m, err
			}
		}
		fmt.Println("LABELLED")
		<-ctx.Done()
		return m, fmt.Errorf("%w: %w", tea.ErrProgramKilled, ctx.Err())
	}
	ctx, stop := quitSignals(context.Background())
	defer stop()
	if code := execute(ctx, e, []string{"review", data, "--session", session, "--annotator", "ana"}); code != 0 {
		t.Fatalf("exit %d", code)
	}
}
