package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Counts read "1 task", "2 tasks"; an LLM judge sends nothing for items
// lacking the gold answer its prompt needs, and `gavel run` says how many.
func TestRunMessagesCountAndSkip(t *testing.T) {
	// Each row asks its own question: two identical prompts may share one
	// cached answer when the first returns before the second is sent.
	row := func(id, gold string) string {
		return `{"id":"` + id + `","question":"q` + id + `","gold":"` + gold + `","prediction":"p"}` + "\n"
	}
	for _, tt := range []struct {
		name, rows string
		calls      int64
		want       []string
	}{
		{"one item", row("a", "g"), 1, []string{"1 of 1 task judged — 1 ok, 0 parse errors, 0 API errors"}},
		{"two items", row("a", "g") + row("b", "g"), 2, []string{"2 of 2 tasks judged — 2 ok, 0 parse errors"}},
		{"one without gold", row("a", "g") + row("b", ""), 1, []string{
			`gold (mapped "gold") is empty on 1 of 2 items (the first: "b")`,
			"2 of 2 tasks judged — 1 ok, 1 parse error (1 item skipped, not sent: the item lacks the gold answer or prediction the prompt needs), 0 API errors",
		}},
		{"none with gold", row("a", "") + row("b", " "), 0, []string{
			`gold (mapped "gold") is empty on both items: --map gold=FIELD`,
			"2 of 2 tasks judged — 0 ok, 2 parse errors (2 items skipped, not sent",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, calls := fakeServer(t)
			dir := t.TempDir()
			data := filepath.Join(dir, "d.jsonl")
			if err := os.WriteFile(data, []byte(tt.rows), 0o644); err != nil {
				t.Fatal(err)
			}
			e, _, errb, _ := testEnv(t)
			e.getenv = func(k string) string {
				if k == "OPENAI_API_KEY" {
					return testKey
				}
				return ""
			}
			argv := []string{"run", data, "--judge", "docqa", "--base-url", srv.URL + "/v1", "--model", "m", "--session", filepath.Join(dir, "d.gavel")}
			if code := execute(context.Background(), e, argv); code != 0 {
				t.Fatalf("exit %d: %s", code, errb)
			}
			for _, w := range tt.want {
				if !strings.Contains(errb.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, errb)
				}
			}
			if calls.Load() != tt.calls {
				t.Errorf("%d requests, want %d", calls.Load(), tt.calls)
			}
		})
	}
}

func TestCount(t *testing.T) {
	for _, tt := range []struct {
		n          int
		noun, want string
	}{{1, "task", "1 task"}, {2, "task", "2 tasks"}, {0, "bad row", "0 bad rows"}, {1, "bad row", "1 bad row"}, {1, "retry", "1 retry"}, {3, "retry", "3 retries"}, {2, "day", "2 days"}} {
		if got := count(tt.n, tt.noun); got != tt.want {
			t.Errorf("count(%d, %q) = %q, want %q", tt.n, tt.noun, got, tt.want)
		}
	}
}
