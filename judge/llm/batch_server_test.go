package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// batchServer is an in-process OpenAI server with the files and batches
// endpoints as OpenAI documents them, and chat completions answered by
// the same fake model, so that the online and the batch path can be
// compared on the same items. Its faults are set per test.
type batchServer struct {
	*httptest.Server
	t testing.TB

	mu      sync.Mutex
	files   map[string][]byte
	batches []*fakeBatch // in creation order
	nextID  int
	// online are the bodies of POST /chat/completions, lines the bodies
	// of the batches' requests, by custom_id.
	online []string
	lines  map[string]string
	// creates counts the batches created per chunk marker.
	creates map[string]int
	log     []string

	// Faults.
	noBatchAPI bool
	// fail500 answers the next n requests of a route with a 500
	// (routes: list, create, retrieve, upload, content).
	fail500 map[string]int
	// lostCreates creates the batch, then answers 500 (the answer lost).
	lostCreates int
	// ending is the status a batch ends in (completed by default);
	// answered is the share of its requests answered (1 by default).
	ending   string
	answered float64
	// refuse answers the batch requests whose custom_id it holds with
	// that HTTP status (in the error file).
	refuse map[string]int
	// failWith makes a batch fail validation with this message.
	failWith string
	// oldestFirst lists the batches in the other order.
	oldestFirst bool
	// refuseCreate answers POST /batches with a 400, refuseUpload POST
	// /files with a 413.
	refuseCreate, refuseUpload string
}

// fakeBatch is one batch and how far it got: each look at it moves it
// one status on (validating, in_progress, finalizing, then its end).
type fakeBatch struct {
	id, input, status string
	created           int64
	meta              map[string]any
	steps             int
	total, done, bad  int
	output, errors    string
}

func newBatchServer(t testing.TB) *batchServer {
	bs := &batchServer{t: t, files: map[string][]byte{}, lines: map[string]string{}, creates: map[string]int{}, fail500: map[string]int{}, answered: 1}
	bs.Server = httptest.NewServer(http.HandlerFunc(bs.serve))
	t.Cleanup(bs.Close)
	return bs
}

func (bs *batchServer) baseURL() string { return bs.URL + "/v1" }

// fakeAnswer is the fake model: a verdict and confidence that depend on
// the prompt, the same for the online and the batch path.
func fakeAnswer(req chatRequest) completion {
	h := fnv.New32a()
	for _, m := range req.Messages {
		h.Write([]byte(m.Content))
	}
	n := h.Sum32()
	result := "YES"
	if n%3 == 0 {
		result = "NO"
	}
	return completion{
		content:       fmt.Sprintf("reason: item %d looks %s\nresult: %s", n%97, strings.ToLower(result), result),
		withLogprobs:  true,
		logprob:       -0.01,
		answerLogprob: -float64(n%7) / 10,
	}
}

func (bs *batchServer) route(r *http.Request) string {
	p := strings.TrimPrefix(r.URL.Path, "/v1")
	switch {
	case r.Method == http.MethodPost && p == "/chat/completions":
		return "chat"
	case r.Method == http.MethodGet && p == "/batches":
		return "list"
	case r.Method == http.MethodPost && p == "/batches":
		return "create"
	case r.Method == http.MethodGet && strings.HasPrefix(p, "/batches/"):
		return "retrieve"
	case r.Method == http.MethodPost && p == "/files":
		return "upload"
	case r.Method == http.MethodGet && strings.HasPrefix(p, "/files/") && strings.HasSuffix(p, "/content"):
		return "content"
	}
	return ""
}

func (bs *batchServer) serve(w http.ResponseWriter, r *http.Request) {
	route := bs.route(r)
	bs.mu.Lock()
	defer bs.mu.Unlock()
	bs.log = append(bs.log, route)
	if route == "" || bs.noBatchAPI && route != "chat" {
		writeError(w, http.StatusNotFound, "invalid_request_error", "File Not Found")
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+testKey {
		writeError(w, http.StatusUnauthorized, "invalid_request_error", "no key")
		return
	}
	if bs.fail500[route] > 0 {
		bs.fail500[route]--
		writeError(w, http.StatusInternalServerError, "server_error", "The server had an error while processing your request.")
		return
	}
	switch route {
	case "chat":
		body, _ := io.ReadAll(r.Body)
		bs.online = append(bs.online, string(body))
		var req chatRequest
		if err := json.Unmarshal(body, &req); err != nil {
			writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
			return
		}
		writeCompletion(w, req.Model, fakeAnswer(req))
	case "upload":
		bs.upload(w, r)
	case "create":
		bs.create(w, r)
	case "retrieve":
		id := strings.TrimPrefix(r.URL.Path, "/v1/batches/")
		for _, b := range bs.batches {
			if b.id == id {
				bs.step(b)
				writeJSON(w, bs.batchJSON(b))
				return
			}
		}
		writeError(w, http.StatusNotFound, "invalid_request_error", "No batch with id "+id)
	case "list":
		bs.list(w, r)
	case "content":
		id := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/v1/files/"), "/content")
		data, ok := bs.files[id]
		if !ok {
			writeError(w, http.StatusNotFound, "invalid_request_error", "No such File object: "+id)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(data)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (bs *batchServer) newID(prefix string) string {
	bs.nextID++
	return fmt.Sprintf("%s-%03d", prefix, bs.nextID)
}

func (bs *batchServer) upload(w http.ResponseWriter, r *http.Request) {
	if bs.refuseUpload != "" {
		writeError(w, http.StatusRequestEntityTooLarge, "invalid_request_error", bs.refuseUpload)
		return
	}
	if err := r.ParseMultipartForm(64 << 20); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	if p := r.FormValue("purpose"); p != "batch" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "purpose must be batch, got "+p)
		return
	}
	f, hdr, err := r.FormFile("file")
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	data, _ := io.ReadAll(f)
	id := bs.newID("file")
	bs.files[id] = data
	writeJSON(w, map[string]any{"id": id, "object": "file", "bytes": len(data), "created_at": time.Now().Unix(), "filename": hdr.Filename, "purpose": "batch"})
}

func (bs *batchServer) create(w http.ResponseWriter, r *http.Request) {
	var req struct {
		InputFileID      string         `json:"input_file_id"`
		Endpoint         string         `json:"endpoint"`
		CompletionWindow string         `json:"completion_window"`
		Metadata         map[string]any `json:"metadata"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil || bytes.Contains(body, []byte(`"temperature"`)) {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "bad create body: "+string(body))
		return
	}
	if bs.refuseCreate != "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", bs.refuseCreate)
		return
	}
	data, ok := bs.files[req.InputFileID]
	if !ok || req.Endpoint != "/v1/chat/completions" || req.CompletionWindow != "24h" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "bad batch: "+string(body))
		return
	}
	b := &fakeBatch{id: bs.newID("batch"), input: req.InputFileID, status: "validating", created: time.Now().Unix() + int64(bs.nextID), meta: req.Metadata}
	b.total = bytes.Count(data, []byte("\n"))
	bs.batches = append(bs.batches, b)
	if c, _ := req.Metadata[BatchMetaChunk].(string); c != "" {
		bs.creates[c]++
	}
	if bs.lostCreates > 0 {
		bs.lostCreates--
		writeError(w, http.StatusInternalServerError, "server_error", "The server had an error while processing your request.")
		return
	}
	writeJSON(w, bs.batchJSON(b))
}

// step moves a batch one status on; at its end it answers the requests.
func (bs *batchServer) step(b *fakeBatch) {
	switch b.status {
	case "validating":
		if bs.failWith != "" {
			b.status = "failed"
			return
		}
		b.status = "in_progress"
	case "in_progress":
		if b.done == 0 && b.total > 1 {
			// Half way: the counts move before the status does.
			b.done = b.total / 2
			break
		}
		b.done = 0
		b.status = "finalizing"
	case "finalizing":
		end := bs.ending
		if end == "" {
			end = "completed"
		}
		b.status = end
		bs.answer(b)
	}
	b.steps++
}

// answer runs a batch's requests through the fake model: the first
// share answered of them get an answer, the rest are left as expired or
// cancelled ones are.
func (bs *batchServer) answer(b *fakeBatch) {
	var out, errs bytes.Buffer
	lines := strings.Split(strings.TrimSpace(string(bs.files[b.input])), "\n")
	keep := int(bs.answered*float64(len(lines)) + 0.5)
	for i, l := range lines {
		var line struct {
			CustomID string          `json:"custom_id"`
			Method   string          `json:"method"`
			URL      string          `json:"url"`
			Body     json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal([]byte(l), &line); err != nil || line.Method != "POST" || line.URL != "/v1/chat/completions" {
			bs.t.Errorf("bad batch line %q", l)
			continue
		}
		bs.lines[line.CustomID] = string(line.Body)
		if i >= keep {
			code := "batch_expired"
			if b.status == "cancelled" {
				code = "batch_cancelled"
			}
			fmt.Fprintf(&errs, `{"id":"batch_req_%d","custom_id":%q,"response":null,"error":{"code":%q,"message":"This request could not be executed before the completion window expired."}}`+"\n", i, line.CustomID, code)
			b.bad++
			continue
		}
		if st := bs.refuse[line.CustomID]; st != 0 {
			fmt.Fprintf(&errs, `{"id":"batch_req_%d","custom_id":%q,"response":{"status_code":%d,"request_id":"req_%d","body":{"error":{"message":"Invalid 'messages': sk-test-SECRET-0123456789abcdef","type":"invalid_request_error"}}},"error":null}`+"\n", i, line.CustomID, st, i)
			b.bad++
			continue
		}
		var req chatRequest
		if err := json.Unmarshal(line.Body, &req); err != nil {
			bs.t.Errorf("bad batch body %s", line.Body)
			continue
		}
		rec := httptest.NewRecorder()
		writeCompletion(rec, req.Model, fakeAnswer(req))
		fmt.Fprintf(&out, `{"id":"batch_req_%d","custom_id":%q,"response":{"status_code":200,"request_id":"req_%d","body":%s},"error":null}`+"\n", i, line.CustomID, i, bytes.TrimSpace(rec.Body.Bytes()))
		b.done++
	}
	if out.Len() > 0 {
		b.output = bs.newID("file")
		bs.files[b.output] = out.Bytes()
	}
	if errs.Len() > 0 {
		b.errors = bs.newID("file")
		bs.files[b.errors] = errs.Bytes()
	}
}

func (bs *batchServer) batchJSON(b *fakeBatch) map[string]any {
	m := map[string]any{
		"id": b.id, "object": "batch", "endpoint": "/v1/chat/completions", "errors": nil,
		"input_file_id": b.input, "completion_window": "24h", "status": b.status,
		"output_file_id": nil, "error_file_id": nil, "created_at": b.created,
		"request_counts": map[string]any{"total": b.total, "completed": b.done, "failed": b.bad},
		"metadata":       b.meta,
	}
	if b.output != "" {
		m["output_file_id"] = b.output
	}
	if b.errors != "" {
		m["error_file_id"] = b.errors
	}
	if b.status == "failed" {
		m["errors"] = map[string]any{"object": "list", "data": []any{map[string]any{"code": "token_limit_exceeded", "message": bs.failWith, "param": nil, "line": nil}}}
	}
	return m
}

// list is GET /batches: newest first, limit and after as OpenAI pages.
func (bs *batchServer) list(w http.ResponseWriter, r *http.Request) {
	limit := 20
	if l, err := strconv.Atoi(r.URL.Query().Get("limit")); err == nil {
		limit = l
	}
	all := append([]*fakeBatch(nil), bs.batches...)
	sort.SliceStable(all, func(i, k int) bool { return all[i].created > all[k].created != bs.oldestFirst })
	if after := r.URL.Query().Get("after"); after != "" {
		for i, b := range all {
			if b.id == after {
				all = all[i+1:]
				break
			}
		}
	}
	more := len(all) > limit
	if more {
		all = all[:limit]
	}
	data := []any{}
	for _, b := range all {
		data = append(data, bs.batchJSON(b))
	}
	resp := map[string]any{"object": "list", "data": data, "has_more": more, "first_id": nil, "last_id": nil}
	if len(all) > 0 {
		resp["first_id"], resp["last_id"] = all[0].id, all[len(all)-1].id
	}
	writeJSON(w, resp)
}

// count returns how many requests of a route the server saw.
func (bs *batchServer) count(route string) int {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	n := 0
	for _, r := range bs.log {
		if r == route {
			n++
		}
	}
	return n
}

// maxCreates is the most batches created for any one chunk.
func (bs *batchServer) maxCreates() int {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	m := 0
	for _, n := range bs.creates {
		m = max(m, n)
	}
	return m
}
