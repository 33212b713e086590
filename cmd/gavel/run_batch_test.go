package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/judge/llm"
	"github.com/gavel-dev/gavel/sessions"
)

// batchAPI is an OpenAI-like server with chat completions and the files
// and batches endpoints: a batch moves one status on each time it is
// read and, at its end, answers its requests as chat completions would.
type batchAPI struct {
	*httptest.Server
	mu      sync.Mutex
	files   map[string][]byte
	batches []map[string]any
	inputs  map[string]string // batch id → input file
	creates map[string]int    // per chunk marker
	chats   int
	next    int
	// noBatches answers 404 to every batch and file route (llama.cpp).
	noBatches bool
	// half leaves the second half of each batch unanswered (expired).
	half bool
	// onRetrieve is called before each GET /batches/ID; onCreate once a
	// batch is made, before the answer is written.
	onRetrieve func()
	onCreate   func()
}

// answerFor is the fake model: YES or NO by the prompt, so the online and
// the batch path answer the same prompt the same way.
func answerFor(body []byte) map[string]any {
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(body, &req)
	h := fnv.New32a()
	for _, m := range req.Messages {
		h.Write([]byte(m.Content))
	}
	result := "YES"
	if h.Sum32()%3 == 0 {
		result = "NO"
	}
	return map[string]any{
		"id": "cmpl", "object": "chat.completion", "created": 1, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": "reason: checked.\nresult: " + result}}},
		"usage": map[string]any{"prompt_tokens": 3000, "completion_tokens": 10, "total_tokens": 3010},
	}
}

func newBatchAPI(t *testing.T) *batchAPI {
	b := &batchAPI{files: map[string][]byte{}, inputs: map[string]string{}, creates: map[string]int{}}
	b.Server = httptest.NewServer(http.HandlerFunc(b.serve))
	t.Cleanup(b.Close)
	return b
}

func (b *batchAPI) id(prefix string) string {
	b.next++
	return fmt.Sprintf("%s-%d", prefix, b.next)
}

// setHooks sets onCreate and onRetrieve under the lock: a test sets them
// while the server answers the gavel process it runs.
func (b *batchAPI) setHooks(create, retrieve func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.onCreate, b.onRetrieve = create, retrieve
}

func (b *batchAPI) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/batches/") {
		b.mu.Lock()
		retrieve := b.onRetrieve
		b.mu.Unlock()
		if retrieve != nil {
			retrieve()
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "Bearer "+testKey {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":{"message":"Incorrect API key provided"}}`)
		return
	}
	p := r.URL.Path
	if b.noBatches && p != "/v1/chat/completions" {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":{"code":404,"message":"File Not Found","type":"not_found_error"}}`)
		return
	}
	switch {
	case r.Method == http.MethodPost && p == "/v1/chat/completions":
		body, _ := io.ReadAll(r.Body)
		b.chats++
		json.NewEncoder(w).Encode(answerFor(body))
	case r.Method == http.MethodPost && p == "/v1/files":
		r.ParseMultipartForm(32 << 20)
		f, _, err := r.FormFile("file")
		if err != nil || r.FormValue("purpose") != "batch" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		data, _ := io.ReadAll(f)
		id := b.id("file")
		b.files[id] = data
		json.NewEncoder(w).Encode(map[string]any{"id": id, "object": "file", "bytes": len(data), "purpose": "batch"})
	case r.Method == http.MethodPost && p == "/v1/batches":
		var req struct {
			InputFileID string            `json:"input_file_id"`
			Metadata    map[string]string `json:"metadata"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		batch := map[string]any{"id": b.id("batch"), "object": "batch", "endpoint": "/v1/chat/completions", "input_file_id": req.InputFileID,
			"completion_window": "24h", "status": "validating", "created_at": time.Now().Unix() + int64(b.next), "metadata": req.Metadata,
			"request_counts": map[string]any{"total": 0, "completed": 0, "failed": 0}}
		b.batches = append(b.batches, batch)
		b.creates[req.Metadata[llm.BatchMetaChunk]]++
		if b.onCreate != nil {
			b.onCreate()
		}
		json.NewEncoder(w).Encode(batch)
	case r.Method == http.MethodGet && p == "/v1/batches":
		data := []any{}
		for i := len(b.batches) - 1; i >= 0; i-- {
			data = append(data, b.batches[i])
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "has_more": false})
	case r.Method == http.MethodGet && strings.HasPrefix(p, "/v1/batches/"):
		for _, batch := range b.batches {
			if batch["id"] == strings.TrimPrefix(p, "/v1/batches/") {
				b.step(batch)
				json.NewEncoder(w).Encode(batch)
				return
			}
		}
		w.WriteHeader(http.StatusNotFound)
	case r.Method == http.MethodGet && strings.HasPrefix(p, "/v1/files/"):
		data, ok := b.files[strings.TrimSuffix(strings.TrimPrefix(p, "/v1/files/"), "/content")]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.Write(data)
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

func (b *batchAPI) step(batch map[string]any) {
	switch batch["status"] {
	case "validating":
		batch["status"] = "in_progress"
	case "in_progress":
		lines := strings.Split(strings.TrimSpace(string(b.files[batch["input_file_id"].(string)])), "\n")
		var out, errs bytes.Buffer
		done := 0
		for i, l := range lines {
			var line struct {
				CustomID string          `json:"custom_id"`
				Body     json.RawMessage `json:"body"`
			}
			json.Unmarshal([]byte(l), &line)
			if b.half && i >= len(lines)/2 {
				fmt.Fprintf(&errs, `{"custom_id":%q,"response":null,"error":{"code":"batch_expired","message":"This request could not be executed before the completion window expired."}}`+"\n", line.CustomID)
				continue
			}
			resp, _ := json.Marshal(answerFor(line.Body))
			fmt.Fprintf(&out, `{"id":"r%d","custom_id":%q,"response":{"status_code":200,"body":%s},"error":null}`+"\n", i, line.CustomID, resp)
			done++
		}
		batch["status"] = "completed"
		if b.half {
			batch["status"] = "expired"
		}
		batch["request_counts"] = map[string]any{"total": len(lines), "completed": done, "failed": len(lines) - done}
		if out.Len() > 0 {
			id := b.id("file")
			b.files[id] = out.Bytes()
			batch["output_file_id"] = id
		}
		if errs.Len() > 0 {
			id := b.id("file")
			b.files[id] = errs.Bytes()
			batch["error_file_id"] = id
		}
	}
}

func (b *batchAPI) counts() (chats, batches, maxCreates int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, n := range b.creates {
		maxCreates = max(maxCreates, n)
	}
	return b.chats, len(b.batches), maxCreates
}

func batchEnv(t *testing.T) (env, *bytes.Buffer) {
	e, _, errb, _ := testEnv(t)
	get := e.getenv
	e.getenv = func(k string) string {
		if k == "OPENAI_API_KEY" {
			return testKey
		}
		return get(k)
	}
	batchPollMin, batchPollMax = time.Millisecond, time.Millisecond
	t.Cleanup(func() { batchPollMin, batchPollMax = 0, 0 })
	return e, errb
}

// sessionValues reads a session's verdicts: item → status and value.
func sessionValues(t *testing.T, path string) map[string]string {
	t.Helper()
	st, err := sessions.Open(path, sessions.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, _ := st.Runs()
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	vs, _ := st.Verdicts(runs[0].ID)
	out := map[string]string{}
	for _, v := range vs {
		out[v.ItemID] = fmt.Sprintf("%s %v %s %d", v.Status, v.Values, v.Reason, v.PromptTokens)
		if v.Status == judge.StatusOK && v.Extra[llm.ExtraBatch] != true && !strings.Contains(path, "online") {
			t.Errorf("%s: verdict not marked batch: %v", v.ItemID, v.Extra)
		}
	}
	return out
}

func keysOf(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// TestRunBatch: gavel run --batch interrupted while its batch runs, then
// run again: the batch is followed, not sent again, and the verdicts equal
// an online run's on the same items.
func TestRunBatch(t *testing.T) {
	srv := newBatchAPI(t)
	dir := t.TempDir()
	data := writeDataset(t, dir, 12)
	e, errb := batchEnv(t)
	base := []string{"run", data, "--judge", "docqa", "--base-url", srv.URL + "/v1", "--model", "gpt-4o-mini"}
	online := filepath.Join(dir, "online.gavel")
	if code := execute(context.Background(), e, append(base, "--session", online)); code != 0 {
		t.Fatalf("online run: exit %d: %s", code, errb)
	}
	want := sessionValues(t, online)
	chats, _, _ := srv.counts()

	batch := filepath.Join(dir, "batch.gavel")
	argv := append(base, "--session", batch, "--batch")
	ctx, cancel := context.WithCancel(context.Background())
	srv.setHooks(nil, cancel) // interrupted during the first look at the batch
	errb.Reset()
	if code := execute(ctx, e, argv); code != 1 {
		t.Fatalf("interrupted run: exit %d: %s", code, errb)
	}
	if !strings.Contains(errb.String(), "run the same command again") {
		t.Errorf("interrupted run says: %s", errb)
	}
	srv.setHooks(nil, nil)
	errb.Reset()
	if code := execute(context.Background(), e, argv); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, errb)
	}
	if !strings.Contains(errb.String(), "12 of 12 tasks judged from the batches' answers — 12 ok") {
		t.Errorf("summary: %s", errb)
	}
	got := sessionValues(t, batch)
	if strings.Join(keysOf(got), ",") != strings.Join(keysOf(want), ",") {
		t.Fatalf("items %v, want %v", keysOf(got), keysOf(want))
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: batch %q, online %q", k, got[k], w)
		}
	}
	c2, batches, most := srv.counts()
	if c2 != chats || batches != 1 || most != 1 {
		t.Errorf("%d chat requests by the batch runs, %d batches, a chunk created %d times", c2-chats, batches, most)
	}
	errb.Reset()
	if code := execute(context.Background(), e, argv); code != 0 || !strings.Contains(errb.String(), "every item already has a verdict") {
		t.Errorf("third run: exit %d: %s", code, errb)
	}
}

// TestRunBatchExpired: an expired batch's answered half is judged; the
// rest is named, and the next run sends it as ordinary requests.
func TestRunBatchExpired(t *testing.T) {
	srv := newBatchAPI(t)
	srv.half = true
	dir := t.TempDir()
	data := writeDataset(t, dir, 10)
	e, errb := batchEnv(t)
	argv := []string{"run", data, "--judge", "docqa", "--base-url", srv.URL + "/v1", "--model", "gpt-4o-mini", "--session", filepath.Join(dir, "s.gavel"), "--batch"}
	if code := execute(context.Background(), e, argv); code != 1 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if !regexp.MustCompile(`10 requests · [0-9,]+ prompt tokens( · [^;]*)? in new batches`).MatchString(errb.String()) || strings.Contains(errb.String(), "as ordinary requests;") {
		t.Errorf("first run's cost: %s", errb)
	}
	if !strings.Contains(errb.String(), "5 tasks the batches left unanswered") || !strings.Contains(errb.String(), "5 requests: batch_expired") {
		t.Errorf("first run says: %s", errb)
	}
	errb.Reset()
	if code := execute(context.Background(), e, argv); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, errb)
	}
	if chats, batches, _ := srv.counts(); chats != 5 || batches != 1 {
		t.Errorf("%d chat requests, %d batches; want 5 and 1", chats, batches)
	}
	if !regexp.MustCompile(`5 requests · [0-9,]+ prompt tokens( · [^;]*)? as ordinary requests`).MatchString(errb.String()) || strings.Contains(errb.String(), "in new batches") {
		t.Errorf("second run's cost: %s", errb)
	}
	if !strings.Contains(errb.String(), "5 of 5 tasks judged as ordinary requests") {
		t.Errorf("second run says: %s", errb)
	}
}

func TestRunBatchRefusedWithoutBatchAPI(t *testing.T) {
	srv := newBatchAPI(t)
	srv.noBatches = true
	dir := t.TempDir()
	data := writeDataset(t, dir, 3)
	e, errb := batchEnv(t)
	argv := []string{"run", data, "--judge", "docqa", "--base-url", srv.URL + "/v1", "--model", "qwen", "--session", filepath.Join(dir, "s.gavel"), "--batch"}
	if code := execute(context.Background(), e, argv); code != 2 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if !strings.Contains(errb.String(), "no Batch API") || !strings.Contains(errb.String(), "run without --batch") {
		t.Errorf("refusal: %s", errb)
	}
	if chats, batches, _ := srv.counts(); chats != 0 || batches != 0 {
		t.Errorf("%d chats, %d batches", chats, batches)
	}
}

// TestRunWithoutBatchWarns: a run without --batch while a --batch run's
// batch is still at the server says its tasks are paid twice.
func TestRunWithoutBatchWarns(t *testing.T) {
	srv := newBatchAPI(t)
	dir := t.TempDir()
	data := writeDataset(t, dir, 4)
	e, errb := batchEnv(t)
	argv := []string{"run", data, "--judge", "docqa", "--base-url", srv.URL + "/v1", "--model", "gpt-4o-mini", "--session", filepath.Join(dir, "s.gavel")}
	ctx, cancel := context.WithCancel(context.Background())
	srv.setHooks(nil, cancel)
	if code := execute(ctx, e, append(argv, "--batch")); code != 1 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	srv.setHooks(nil, nil)
	errb.Reset()
	if code := execute(context.Background(), e, argv); code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if !strings.Contains(errb.String(), "a batch of this run sent with --batch is not collected") || !strings.Contains(errb.String(), "paid twice") {
		t.Errorf("no warning: %s", errb)
	}
	// Every item has its verdict now: nothing can be paid twice.
	errb.Reset()
	if code := execute(context.Background(), e, argv); code != 0 || strings.Contains(errb.String(), "not collected") {
		t.Errorf("exit %d: %s", code, errb)
	}
}
