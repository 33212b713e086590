package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// wrap puts h in front of the batch server's own handler: h answers
// what it wants and passes the rest on (next).
func (bs *batchServer) wrap(h func(w http.ResponseWriter, r *http.Request, next http.Handler)) {
	inner := bs.Config.Handler
	bs.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h(w, r, inner) })
}

// A list that ignores "after" and always says has_more (the same page
// again and again) is read until a page brings nothing new: looking for
// a chunk an earlier run planned does not page for ever.
func TestBatchListIgnoresAfter(t *testing.T) {
	r := newBatchRig(t)
	j := r.judge("docqa", nil)
	tasks := batchTasks(j, 3)
	o := r.options()
	killed := errors.New("killed")
	o.crash = func(p string) error {
		if p == "file saved" {
			return killed
		}
		return nil
	}
	if _, err := j.RunBatch(context.Background(), tasks, o); !errors.Is(err, killed) {
		t.Fatal(err)
	}
	var lists atomic.Int64
	r.srv.wrap(func(w http.ResponseWriter, q *http.Request, next http.Handler) {
		if q.Method == http.MethodGet && q.URL.Path == "/v1/batches" {
			n := lists.Add(1)
			if n > 50 {
				// The unfixed client would page on for ever: stop it.
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			writeJSON(w, map[string]any{"object": "list", "has_more": true, "first_id": "batch-other", "last_id": "batch-other",
				"data": []any{map[string]any{"id": "batch-other", "object": "batch", "status": "completed", "created_at": time.Now().Unix(), "metadata": map[string]any{}}}})
			return
		}
		next.ServeHTTP(w, q)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rep, err := r.judge("docqa", nil).RunBatch(ctx, tasks, r.options())
	if err != nil || len(rep.Ready) != 3 {
		t.Fatalf("%v, ready %d", err, len(rep.Ready))
	}
	if n := lists.Load(); n > 3 {
		t.Errorf("%d looks at a list that ignores after", n)
	}
}

// LM Studio answers an unknown route with 200 and an error: no list of
// batches is no Batch API.
func TestBatchLMStudio(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"error":"Unexpected endpoint or method. (%s %s)"}`, r.Method, r.URL.Path)
	}))
	defer srv.Close()
	r := newBatchRig(t)
	j := r.judge("docqa", func(c *Config) { c.BaseURL = srv.URL + "/v1" })
	_, err := j.RunBatch(context.Background(), batchTasks(j, 2), r.options())
	if !errors.Is(err, ErrNoBatchAPI) || !strings.Contains(err.Error(), "LM Studio") {
		t.Fatalf("err = %v", err)
	}
	if len(r.store.chunks) != 0 || hits.Load() != 1 {
		t.Errorf("chunks %v, %d requests", r.store.chunks, hits.Load())
	}
	if err := j.client.CheckBatchAPI(context.Background()); !errors.Is(err, ErrNoBatchAPI) {
		t.Errorf("CheckBatchAPI = %v", err)
	}
}

// An upload answered 200 without a file id made nothing: the chunk is
// freed, as after a 4xx, and its requests stay to do.
func TestBatchUploadWithoutID(t *testing.T) {
	r := newBatchRig(t)
	r.srv.wrap(func(w http.ResponseWriter, q *http.Request, next http.Handler) {
		if q.Method == http.MethodPost && q.URL.Path == "/v1/files" {
			writeJSON(w, map[string]any{"object": "file"})
			return
		}
		next.ServeHTTP(w, q)
	})
	j := r.judge("docqa", nil)
	tasks := batchTasks(j, 2)
	if _, err := j.RunBatch(context.Background(), tasks, r.options()); err == nil || !strings.Contains(err.Error(), "names no file") {
		t.Fatalf("err = %v", err)
	}
	if len(r.store.chunks) != 1 || !r.store.chunks[0].Finished || r.store.chunks[0].Status != BatchFailed || len(r.store.keys) != 0 {
		t.Errorf("the chunk is not freed: %+v, %d keys held", r.store.chunks, len(r.store.keys))
	}
	toBatch, _, err := j.BatchSpend(tasks, r.store)
	if err != nil || len(toBatch) != 2 {
		t.Errorf("after the refusal: %d to batch, %v", len(toBatch), err)
	}
}

// A 404 on GET /batches/ID that passes (a proxy's fault) does not free
// the batch's requests; a batch the server keeps answering 404 for, and
// whose marker its list does not show, is missing after a few looks over
// minutes.
func TestBatchRetrieve404(t *testing.T) {
	for _, gone := range []bool{false, true} {
		t.Run(fmt.Sprint("gone ", gone), func(t *testing.T) {
			r := newBatchRig(t)
			var notFound atomic.Int64
			r.srv.wrap(func(w http.ResponseWriter, q *http.Request, next http.Handler) {
				if q.Method == http.MethodGet && strings.HasPrefix(q.URL.Path, "/v1/batches/") && (gone || notFound.Load() < 2) {
					notFound.Add(1)
					if gone {
						r.srv.mu.Lock()
						r.srv.batches = nil
						r.srv.mu.Unlock()
					}
					writeError(w, http.StatusNotFound, "invalid_request_error", "No batch with id")
					return
				}
				next.ServeHTTP(w, q)
			})
			j := r.judge("docqa", nil)
			tasks := batchTasks(j, 3)
			rep, err := j.RunBatch(context.Background(), tasks, r.options())
			if err != nil {
				t.Fatal(err)
			}
			ch := rep.Chunks[0]
			if gone {
				if ch.Status != BatchMissing || len(rep.Left) != 3 || notFound.Load() < missingLooks {
					t.Errorf("status %s, left %d, %d looks", ch.Status, len(rep.Left), notFound.Load())
				}
				var span time.Duration
				for _, w := range r.clock.waits {
					span += w
				}
				if span < missingFor {
					t.Errorf("missing after %s", span)
				}
				return
			}
			if ch.Status != BatchCompleted || len(rep.Ready) != 3 || len(r.srv.batches) != 1 {
				t.Errorf("status %s, ready %d, %d batches", ch.Status, len(rep.Ready), len(r.srv.batches))
			}
		})
	}
}

// A result file whose download stops sending is dropped after
// batchStall without a byte, and read again.
func TestBatchDownloadStall(t *testing.T) {
	defer func(d time.Duration) { batchStall = d }(batchStall)
	batchStall = 300 * time.Millisecond
	r := newBatchRig(t)
	var downloads atomic.Int64
	r.srv.wrap(func(w http.ResponseWriter, q *http.Request, next http.Handler) {
		if q.Method == http.MethodGet && strings.HasSuffix(q.URL.Path, "/content") && downloads.Add(1) == 1 {
			w.Header().Set("Content-Type", "application/octet-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-q.Context().Done()
			return
		}
		next.ServeHTTP(w, q)
	})
	j := r.judge("docqa", nil)
	tasks := batchTasks(j, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rep, err := j.RunBatch(ctx, tasks, r.options())
	if err != nil || len(rep.Ready) != 3 || downloads.Load() < 2 {
		t.Fatalf("%v, ready %d, %d downloads", err, len(rep.Ready), downloads.Load())
	}
}
