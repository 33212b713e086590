package llm

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
)

// hostileKey has characters JSON and URLs escape ('/', '+').
const hostileKey = "sk-live/Ab+Cd_0123456789XYZ"

// jsonEscapedKey writes every character of key as a \u escape.
func jsonEscapedKey(key string) string {
	var b strings.Builder
	for _, r := range key {
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.String()
}

// hostileSession is a session file with items 1…n and a run of j.
type hostileSession struct {
	path  string
	store *sessions.Store
	run   sessions.Run
	tasks []judge.Task
}

func newHostileSession(t *testing.T, n int) *hostileSession {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hostile.gavel")
	s, err := sessions.Open(path, sessions.Options{Annotator: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	items := make([]judge.Item, n)
	tasks := make([]judge.Task, n)
	for i := range items {
		items[i] = testItem(fmt.Sprint(i + 1))
		items[i].Index = i
		items[i].Prediction += fmt.Sprintf(" (answer %d)", i+1)
		tasks[i] = judge.Task{Item: items[i]}
	}
	if err := s.InitDataset(sessions.DatasetInfo{Path: "d.jsonl", SHA256: "x", Format: "jsonl"}, items); err != nil {
		t.Fatal(err)
	}
	return &hostileSession{path: path, store: s, tasks: tasks}
}

// judgeAll runs j over every task into the session and waits.
func (h *hostileSession) judgeAll(t *testing.T, j *Judge) {
	t.Helper()
	run, err := h.store.EnsureRun(j.Info())
	if err != nil {
		t.Fatal(err)
	}
	h.run = run
	jg := sessions.StartJudging(context.Background(), h.store, run, j, h.tasks, judge.PoolOptions{Concurrency: 2})
	for range jg.Batches() {
	}
	<-jg.Done()
}

// fileBytes is every byte of the session: the file, its WAL and journal.
func fileBytes(t *testing.T, path string) []byte {
	t.Helper()
	var all []byte
	for _, p := range []string{path, path + "-wal", path + "-journal", path + "-shm"} {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}

// assertKeyNowhere fails when the key, or a long piece of it, is in b in any
// form: as is, escaped in any way redactText knows, or once unescaped.
func assertKeyNowhere(t *testing.T, what string, b []byte, key string) {
	t.Helper()
	s := string(b)
	forms := []string{s, unescape(s)}
	for i, f := range forms {
		if strings.Contains(f, key) {
			t.Errorf("%s (form %d) holds the key", what, i)
		}
		if loc := patternsFor(key).escaped.FindStringIndex(f); loc != nil {
			t.Errorf("%s (form %d) holds the key escaped: %q", what, i, f[max(loc[0]-20, 0):min(loc[1]+20, len(f))])
		}
		if strings.Contains(f, key[:minRedactLen+2]) {
			t.Errorf("%s (form %d) holds the key's first %d characters", what, i, minRedactLen+2)
		}
	}
}

func TestIssue11EchoedKeyNeverReachesTheSession(t *testing.T) {
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
		auth := r.Header.Get("Authorization")
		if strings.Contains(req.Messages[len(req.Messages)-1].Content, "Item-error") ||
			strings.Contains(req.Messages[0].Content, "Item-error") {
			// An error body that echoes the header, the key escaped
			// and the key cut short.
			msg := "unauthorized header " + auth + " key " + hostileKey + " cut Bearer " + hostileKey[:14] + "…"
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, `{"error":{"message":%q,"type":"server_error","escaped":"%s"}}`, msg, jsonEscapedKey(hostileKey))
			return
		}
		content := "reason: the header was " + auth +
			"; escaped " + strings.ReplaceAll(hostileKey, "/", `\u002f`) +
			"; all escaped " + jsonEscapedKey(hostileKey) +
			"; in JSON {\"auth\": \"Bearer " + strings.ReplaceAll(hostileKey, "/", `\/`) + "\"}" +
			"; percent " + strings.ReplaceAll(strings.ReplaceAll(hostileKey, "/", "%2F"), "+", "%2B") +
			"; cut Bearer " + hostileKey[:12] + "…" +
			"\nresult: YES"
		writeCompletion(w, req.Model, completion{content: content, withLogprobs: true, logprob: -0.01, answerLogprob: -0.05})
	})
	h := newHostileSession(t, 4)
	h.tasks[3].Item.Prediction = "Item-error"
	cfg := testConfig(fs)
	cfg.APIKey = hostileKey
	cfg.Cache = h.store.ResponseCache()
	j := mustJudge(t, "docqa", cfg)
	h.judgeAll(t, j)

	vs, err := h.store.Verdicts(h.run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 4 {
		t.Fatalf("%d verdicts, want 4", len(vs))
	}
	for _, v := range vs {
		want := judge.StatusOK
		if v.ItemID == "4" {
			want = judge.StatusAPIError
		}
		if v.Status != want || !strings.Contains(v.Raw+v.Error, redacted) {
			t.Errorf("item %s: %s, raw %q, error %q; want %s with the key redacted", v.ItemID, v.Status, v.Raw, v.Error, want)
		}
	}
	// The fake server did receive the key: the test tests something.
	if !strings.Contains(strings.Join(fs.auth, ""), hostileKey) {
		t.Fatal("the server never saw the key")
	}

	// A second run from the cache, then a re-judge, in the same file.
	j2 := mustJudge(t, "docqa", cfg)
	h.judgeAll(t, j2)
	vs, _ = h.store.Verdicts(h.run.ID)
	cached := 0
	for _, v := range vs {
		if v.Extra[ExtraCached] == true {
			cached++
		}
	}
	if cached != 3 {
		t.Errorf("%d verdicts from the cache, want 3", cached)
	}
	if err := h.store.Close(); err != nil {
		t.Fatal(err)
	}
	assertKeyNowhere(t, "the session file", fileBytes(t, h.path), hostileKey)
}

func TestIssue11OversizedAnswerIsCutInTheSession(t *testing.T) {
	const size = 10 << 20
	filler := strings.Repeat("trace line ✓ with words\n", size/26)
	answer := "reason: HEAD-START " + filler + "TAIL-END\nresult: YES"
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
		writeCompletion(w, req.Model, completion{content: answer})
	})
	const n = 3
	h := newHostileSession(t, n)
	before := len(fileBytes(t, h.path))
	cfg := testConfig(fs)
	cfg.Cache = h.store.ResponseCache()
	cfg.Timeout = 20 * time.Second
	h.judgeAll(t, mustJudge(t, "docqa", cfg))
	vs, err := h.store.Verdicts(h.run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != n {
		t.Fatalf("%d verdicts", len(vs))
	}
	for _, v := range vs {
		// The parser read the whole answer: the result is at its end.
		if !v.OK() || v.Values["correct"] != 1 {
			t.Fatalf("verdict %s %q", v.Status, v.Error)
		}
		checkCut(t, "raw", v.Raw, "reason: HEAD-START", "TAIL-END\nresult: YES", judge.RawHead+judge.RawTail+64)
		checkCut(t, "reason", v.Reason, "HEAD-START", "TAIL-END", judge.TextHead+judge.TextTail+64)
	}
	if err := h.store.Close(); err != nil {
		t.Fatal(err)
	}
	grown := len(fileBytes(t, h.path)) - before
	if per := grown / n; per > 1<<20 {
		t.Errorf("the session grew by %d bytes per 10 MB answer, want under 1 MB", per)
	}
	t.Logf("session grew by %d KB per answer", grown/n>>10)

	// Reopened, from the cache, the cut answer still gives the same
	// verdict: its head and tail were kept.
	s, err := sessions.Open(h.path, sessions.Options{Annotator: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	h.store = s
	cfg.Cache = s.ResponseCache()
	h.judgeAll(t, mustJudge(t, "docqa", cfg))
	vs, _ = h.store.Verdicts(h.run.ID)
	for _, v := range vs {
		if !v.OK() || v.Values["correct"] != 1 || v.Extra[ExtraCached] != true {
			t.Errorf("cached verdict %s %q %v", v.Status, v.Error, v.Extra)
		}
		checkCut(t, "raw from the cache", v.Raw, "reason: HEAD-START", "TAIL-END\nresult: YES", judge.RawHead+judge.RawTail+64)
	}
	if fs.hits.Load() != n {
		t.Errorf("%d requests, want %d", fs.hits.Load(), n)
	}
}

func checkCut(t *testing.T, what, s, head, tail string, limit int) {
	t.Helper()
	if len(s) > limit || !strings.HasPrefix(s, head) || !strings.HasSuffix(s, tail) || !strings.Contains(s, " bytes cut]") {
		t.Errorf("%s: %d bytes, head %q, tail %q; want at most %d bytes, head and tail kept, marked as cut",
			what, len(s), s[:min(len(s), 30)], s[max(len(s)-30, 0):], limit)
	}
}
