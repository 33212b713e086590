package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// gavel models writes the server's text (model ids, owned_by) through the
// sanitiser: an id holding escape sequences is shown inert.
func TestModelsSanitisesServerText(t *testing.T) {
	tests := []struct {
		name, id, model string
	}{
		{"title change and colour", "qwen\x1b]0;PWNED\x07\x1b[31mred", "qwen"},
		{"clipboard write and a line of its own", "m\x1b]52;c;cm0gLXJmIH4K\x07\nllama3: served", "m"},
		{"C1 CSI and bidi override", "m\u009b2J\u202eevil", "m\u009b2J\u202eevil"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if r.URL.Path != "/v1/models" {
					w.WriteHeader(http.StatusNotFound)
					fmt.Fprint(w, `{"detail":"Not Found"}`)
					return
				}
				json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": []any{
					map[string]any{"id": tc.id, "object": "model", "created": 1, "owned_by": "vllm", "max_model_len": 8192},
				}})
			}))
			defer srv.Close()
			e, out, errb, _ := testEnv(t)
			if code := execute(context.Background(), e, []string{"models", "--base-url", srv.URL + "/v1", "--model", tc.model}); code != 0 {
				t.Fatalf("exit %d: %s", code, errb)
			}
			if p := terminalProblem(out.String()); p != "" {
				t.Errorf("stdout holds %s:\n%q", p, out)
			}
			if n := strings.Count(out.String(), "\n"); n != 3 {
				t.Errorf("%d lines, want 3 (the head, the model, --model):\n%s", n, out)
			}
			if !strings.Contains(out.String(), "(context 8192 tokens, max_model_len)") {
				t.Errorf("stdout:\n%s", out)
			}
		})
	}
}

// The list of items too long for the context reaches the real stderr (its
// sanitiser) one line a write, so that it stays a list, not one line
// joined by ⏎.
func TestTooLongListThroughSanitisedStderr(t *testing.T) {
	srv := newLlamaServer(t, 2048)
	dir := t.TempDir()
	long := strings.Repeat("The telescope was launched by the agency in the spring of that year. ", 300)
	rows := []string{
		`{"id":"q1","question":"Question 1: short?","answer":"1","prediction":"1"}`,
		fmt.Sprintf(`{"id":"q2","question":"Question 2: long?","answer":"2","prediction":%q}`, long),
		fmt.Sprintf(`{"id":"q3","question":"Question 3: long?","answer":"3","prediction":%q}`, long),
	}
	data := filepath.Join(dir, "d.jsonl")
	if err := os.WriteFile(data, []byte(strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e, _, _, _ := testEnv(t)
	var raw bytes.Buffer
	e.stderr = terminalSafe(&raw)
	argv := []string{"run", data, "--judge", "docqa", "--base-url", srv.URL + "/v1", "--model", "m", "--session", filepath.Join(dir, "d.gavel"), "--concurrency", "1"}
	if code := execute(context.Background(), e, argv); code != 1 {
		t.Fatalf("exit %d; stderr:\n%s", code, raw.String())
	}
	out := raw.String()
	if strings.Contains(out, "⏎") {
		t.Errorf("a line break was shown as ⏎:\n%s", out)
	}
	for _, want := range []string{
		"\n2 items are too long for the server's context, not judged (the next run tries them again):\n",
		"\n  q2: about ",
		"\n  q3: about ",
		"\nTo judge them: start llama-server with --ctx-size 8192 or more (-c), or shorten the item.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %q:\n%s", want, out)
		}
	}
}

// A server answering GET /v1/models with a 503 that does not say it is
// loading (a proxy's page) is asked a couple of times before the run, not
// for the whole --wait; one that says it is loading is waited for.
func TestServerNoteStopsWaitingOnA503(t *testing.T) {
	llama := newLlamaServer(t, 8192)
	var listings atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			listings.Add(1)
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, "<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")
			return
		}
		llama.Config.Handler.ServeHTTP(w, r)
	}))
	defer srv.Close()
	dir := t.TempDir()
	data := filepath.Join(dir, "d.jsonl")
	os.WriteFile(data, []byte(`{"id":"a","question":"Question 1: short?","answer":"1","prediction":"1"}`+"\n"), 0o644)
	e, _, errb, _ := testEnv(t)
	argv := []string{"run", data, "--judge", "docqa", "--base-url", srv.URL + "/v1", "--model", "m", "--session", filepath.Join(dir, "d.gavel"), "--wait", "10m"}
	start := time.Now()
	if code := execute(context.Background(), e, argv); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errb)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the run took %s: it waited on the listing's 503", d)
	}
	if !strings.Contains(errb.String(), "1 ok") {
		t.Errorf("stderr:\n%s", errb)
	}
	if n := listings.Load(); n > 3*notReadyTries {
		t.Errorf("%d listing requests", n)
	}
}
