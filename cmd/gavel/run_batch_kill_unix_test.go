//go:build unix

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/sessions"
)

// TestRunBatchKilled kills a `gavel run --batch` process (SIGKILL, this
// test binary as gavel) at the two moments the issue names: after the
// server made its batch and before the answer with the batch's id came
// back (so the session holds the chunk without its id), and while it
// polls. The same command run again follows that batch: one batch in
// all, no request sent twice, every item judged from its answers.
func TestRunBatchKilled(t *testing.T) {
	if os.Getenv("GAVEL_BATCH_KILL") != "" {
		return
	}
	for _, at := range []string{"create", "poll"} {
		t.Run(at, func(t *testing.T) {
			srv := newBatchAPI(t)
			dir := t.TempDir()
			data := writeDataset(t, dir, 12)
			session := filepath.Join(dir, "s.gavel")
			cmd := exec.Command(os.Args[0], "-test.run=^TestRunBatchKillHelper$")
			cmd.Env = append(os.Environ(), "GAVEL_BATCH_KILL="+data+"\n"+session+"\n"+srv.URL+"/v1",
				"OPENAI_API_KEY="+testKey, "XDG_CONFIG_HOME="+dir, "XDG_STATE_HOME="+dir)
			var errb strings.Builder
			cmd.Stderr = &errb
			// The hook runs on the server's goroutine, which learns of the
			// process only through its requests: started orders cmd.Start's
			// write of cmd.Process before the hook's read.
			var once sync.Once
			started := make(chan struct{})
			kill := func() { once.Do(func() { <-started; cmd.Process.Kill() }) }
			if at == "create" {
				srv.setHooks(kill, nil)
			} else {
				srv.setHooks(nil, kill)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			close(started)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "killed") {
					t.Fatalf("the gavel process was not killed: %v\n%s", err, errb.String())
				}
			case <-time.After(2 * time.Minute):
				cmd.Process.Kill()
				t.Fatalf("the gavel process never reached the %s:\n%s", at, errb.String())
			}
			srv.setHooks(nil, nil)

			// What the killed process left in the session.
			st, err := sessions.Open(session, sessions.Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			runs, _ := st.Runs()
			if len(runs) != 1 {
				t.Fatalf("%d runs", len(runs))
			}
			chunks, err := st.APIBatches(runs[0].ID).Chunks()
			st.Close()
			if err != nil || len(chunks) != 1 || chunks[0].Finished || (chunks[0].BatchID == "") != (at == "create") {
				t.Fatalf("chunks after the kill: %+v %v", chunks, err)
			}

			e, out := batchEnv(t)
			argv := []string{"run", data, "--judge", "docqa", "--base-url", srv.URL + "/v1", "--model", "gpt-4o-mini", "--session", session, "--batch"}
			if code := execute(context.Background(), e, argv); code != 0 {
				t.Fatalf("the run after the kill: exit %d: %s", code, out)
			}
			if at == "create" && !strings.Contains(out.String(), "was created before the last run stopped: following it") {
				t.Errorf("the batch was not found by its marker: %s", out)
			}
			chats, batches, most := srv.counts()
			if chats != 0 || batches != 1 || most != 1 {
				t.Errorf("%d chat requests, %d batches, a chunk created %d times; want 0, 1, 1", chats, batches, most)
			}
			if vs := sessionValues(t, session); len(vs) != 12 {
				t.Errorf("%d verdicts, want 12", len(vs))
			}
		})
	}
}

// TestRunBatchKillHelper is the gavel process TestRunBatchKilled kills.
func TestRunBatchKillHelper(t *testing.T) {
	arg := os.Getenv("GAVEL_BATCH_KILL")
	if arg == "" {
		t.Skip("helper process only")
	}
	parts := strings.Split(arg, "\n")
	batchPollMin, batchPollMax = time.Millisecond, time.Millisecond
	e := newEnv()
	e.stdout, e.stderr = os.Stderr, os.Stderr
	code := execute(context.Background(), e, []string{"run", parts[0], "--judge", "docqa", "--base-url", parts[2], "--model", "gpt-4o-mini", "--session", parts[1], "--batch"})
	t.Fatalf("gavel run --batch ended (exit %d) before it was killed", code)
}
