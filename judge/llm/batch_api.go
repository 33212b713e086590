package llm

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// batchAPI calls the files and batches endpoints through the client's
// go-openai client (its doer, key and base URL), retrying what can be
// retried, and remembers the server's list of batches as far as it has
// read it.
type batchAPI struct {
	c       *Client
	session string
	// mine are the batches of this session read from the list so far,
	// by chunk key; oldest is the creation time of the last batch read
	// (the list is newest first), done is set at its end.
	mine   map[string]openai.Batch
	after  string
	oldest time.Time
	done   bool
	// unordered is set once the list was seen out of newest-first order:
	// then no creation time ends the search, the whole list is read.
	unordered bool
	// files reads file contents; go-openai would hold a whole file in
	// memory, and the doer bounds a body to 32 MB.
	files *http.Client
	// pages counts the pages read since the last relist, seen the
	// batch ids they brought: a list that ignores "after" (the same
	// page again and again, has_more always true) is read to its end
	// once nothing new comes, and never past maxListPages.
	pages int
	seen  map[string]bool
	// clock spaces the pages (listPause): the polling's clock.
	clock Clock
}

func newBatchAPI(c *Client, session string) *batchAPI {
	rt := c.cfg.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	return &batchAPI{c: c, session: session, mine: map[string]openai.Batch{}, seen: map[string]bool{}, files: &http.Client{Transport: rt}, clock: c.cfg.Clock}
}

// maxListPages bounds one reading of the server's list: 100,000 batches
// back. listPause spaces two pages, so that a long read is no burst.
const (
	maxListPages = 1000
	listPause    = 200 * time.Millisecond
)

// batchStall is how long a file's upload or download may go without a
// byte (or the server's answer) before it is dropped and tried again: a
// connection that hangs would otherwise hold the run for ever.
var batchStall = 10 * time.Minute

// uploadRate is the slowest upload trusted to be alive, in bytes a
// second: an upload's deadline is batchStall plus its size at this rate
// (go-openai writes the body itself, so it is a deadline, not a stall
// timer).
const uploadRate = 50 << 10

// batchPage is how many batches one look at the list asks for (the
// API's most).
const batchPage = 100

// maxBatchLine bounds one line of a result file.
const maxBatchLine = 64 << 20

// httpStatus is the HTTP status of a go-openai error, 0 when the server
// gave none.
func httpStatus(err error) int {
	var ae *openai.APIError
	if errors.As(err, &ae) {
		return ae.HTTPStatusCode
	}
	var re *openai.RequestError
	if errors.As(err, &re) {
		return re.HTTPStatusCode
	}
	var se statusError
	if errors.As(err, &se) {
		return se.status
	}
	return 0
}

// statusError is a file download's refusal.
type statusError struct {
	status int
	body   string
}

func (e statusError) Error() string {
	return fmt.Sprintf("HTTP %d: %s", e.status, e.body)
}

// do runs one request (f) with retries on 429, 5xx and transport
// failures, on the client's retry policy and clock; timeout bounds each
// try (0: none). The error names what was being done and the fix.
func (a *batchAPI) do(ctx context.Context, what string, timeout time.Duration, f func(ctx context.Context) error) error {
	c := a.c
	for try := 1; ; try++ {
		x := &exchange{decided: true} // no "temperature" in these bodies
		tctx, cancel := ctx, context.CancelFunc(func() {})
		if timeout > 0 {
			tctx, cancel = withTimeout(ctx, c.cfg.Clock, timeout)
		}
		err := f(withExchange(tctx, x))
		cancel()
		if err == nil {
			c.reached.Store(true)
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		status := httpStatus(err)
		if status == 0 {
			status = x.status
		}
		msg := c.redact(err.Error())
		switch {
		case status == http.StatusUnauthorized || status == http.StatusForbidden:
			return fmt.Errorf("%s: the server refused the API key (HTTP %d: %s): check --api-key or %s", what, status, msg, EnvAPIKey)
		case status != 0 && status != http.StatusTooManyRequests && status < 500:
			return &batchHTTPError{what: what, status: status, msg: msg}
		case try >= c.cfg.Retry.Attempts:
			return fmt.Errorf("%s: %s (gave up after %d tries)", what, msg, try)
		}
		wait := backoff(c.cfg.Retry, try)
		if x.hasRetry {
			wait = min(max(wait, retryWait(x.retryAfter)), c.cfg.Retry.MaxDelay)
		}
		if err := sleep(ctx, c.cfg.Clock, wait); err != nil {
			return err
		}
	}
}

// batchHTTPError is a request the server refused for good (a 4xx but
// 401, 403 and 429).
type batchHTTPError struct {
	what   string
	status int
	msg    string
}

func (e *batchHTTPError) Error() string { return fmt.Sprintf("%s: %s", e.what, e.msg) }

// check reads the list's first page: a server without the Batch API
// answers 404 (llama.cpp, Ollama) or 405/501, or 200 with an error and no
// list (LM Studio: {"error":"Unexpected endpoint or method. (GET
// /v1/batches)"}), and gets a refusal.
func (a *batchAPI) check(ctx context.Context) error {
	resp, err := a.first(ctx)
	var he *batchHTTPError
	if errors.As(err, &he) && (he.status == http.StatusNotFound || he.status == http.StatusMethodNotAllowed || he.status == http.StatusNotImplemented) {
		return fmt.Errorf("%w: GET %s/batches answered HTTP %d. %s", ErrNoBatchAPI, displayURL(a.c.cfg.BaseURL), he.status, noBatchAPIFix)
	}
	if err == nil && resp.Object != "list" && resp.Data == nil {
		return fmt.Errorf("%w: GET %s/batches answered no list of batches (object %q). %s", ErrNoBatchAPI, displayURL(a.c.cfg.BaseURL), a.c.redact(resp.Object), noBatchAPIFix)
	}
	return err
}

const noBatchAPIFix = "--batch sends requests through OpenAI's Batch API (files and batches endpoints), which llama.cpp, Ollama, LM Studio and vLLM's server do not offer: run without --batch (or, if this is OpenAI or a proxy that has it, check that --base-url is the API's root, ending in /v1)"

// first reads the list's first page (page), returning it.
func (a *batchAPI) first(ctx context.Context) (openai.ListBatchResponse, error) {
	a.relist()
	var resp openai.ListBatchResponse
	err := a.readPage(ctx, &resp)
	return resp, err
}

// Check asks the server whether it has the Batch API (the first page of
// its list of batches), before a run announces what its batches cost: a
// server without one gets the refusal RunBatch gives (ErrNoBatchAPI),
// and no cost line for batches never made.
func (c *Client) CheckBatchAPI(ctx context.Context) error {
	return newBatchAPI(c, "").check(ctx)
}

// page reads the next page of the server's list of batches.
func (a *batchAPI) page(ctx context.Context) error {
	var resp openai.ListBatchResponse
	return a.readPage(ctx, &resp)
}

func (a *batchAPI) readPage(ctx context.Context, out *openai.ListBatchResponse) error {
	if a.done {
		return nil
	}
	if a.pages > 0 {
		if err := sleep(ctx, a.clock, listPause); err != nil {
			return err
		}
	}
	var resp openai.ListBatchResponse
	limit := batchPage
	err := a.do(ctx, "listing the server's batches", a.c.cfg.Timeout, func(ctx context.Context) error {
		var after *string
		if a.after != "" {
			after = &a.after
		}
		var err error
		resp, err = a.c.api.ListBatch(ctx, after, &limit)
		return err
	})
	if err != nil {
		return err
	}
	*out = resp
	a.pages++
	fresh := 0
	for _, b := range resp.Data {
		if !a.seen[b.ID] {
			a.seen[b.ID] = true
			fresh++
		}
		if meta(b, BatchMetaSession) == a.session && meta(b, BatchMetaChunk) != "" {
			// A batch already seen keeps its newest copy.
			if _, ok := a.mine[meta(b, BatchMetaChunk)]; !ok {
				a.mine[meta(b, BatchMetaChunk)] = b
			}
		}
		at := unixTime(b.CreatedAt)
		if !a.oldest.IsZero() && at.After(a.oldest) {
			a.unordered = true
		}
		a.oldest = at
	}
	// A page that brings no batch not seen before, or does not move
	// the cursor, is a list that ignores "after": reading on would bring
	// the same page for ever.
	stuck := fresh == 0 || resp.LastID == a.after
	a.after = resp.LastID
	if !resp.HasMore || len(resp.Data) == 0 || a.after == "" || stuck || a.pages >= maxListPages {
		a.done = true
	}
	return nil
}

func meta(b openai.Batch, k string) string {
	s, _ := b.Metadata[k].(string)
	return s
}

// find looks for the batch carrying a chunk's marker, reading the list
// back to a little before the chunk was planned.
func (a *batchAPI) find(ctx context.Context, chunk string, planned time.Time) (openai.Batch, bool, error) {
	// The server's clock may differ from ours.
	const slack = time.Hour
	for {
		if b, ok := a.mine[chunk]; ok {
			return b, true, nil
		}
		// OpenAI lists the newest first: once past the chunk's planning
		// time, the rest is older.
		if a.done || !a.unordered && !a.oldest.IsZero() && a.oldest.Before(planned.Add(-slack)) {
			return openai.Batch{}, false, nil
		}
		if err := a.page(ctx); err != nil {
			return openai.Batch{}, false, err
		}
	}
}

// relist forgets the list read so far: a batch may have been created
// since (a create whose answer was lost).
func (a *batchAPI) relist() {
	a.mine, a.after, a.oldest, a.done, a.unordered = map[string]openai.Batch{}, "", time.Time{}, false, false
	a.pages, a.seen = 0, map[string]bool{}
}

// upload sends a chunk's input file (purpose batch).
func (a *batchAPI) upload(ctx context.Context, chunk string, data []byte) (string, error) {
	var f openai.File
	deadline := batchStall + time.Duration(len(data)/uploadRate)*time.Second
	err := a.do(ctx, "uploading a batch's requests", deadline, func(ctx context.Context) error {
		var err error
		f, err = a.c.api.CreateFileBytes(ctx, openai.FileBytesRequest{Name: "gavel-" + chunk + ".jsonl", Bytes: data, Purpose: openai.PurposeBatch})
		return err
	})
	if err == nil && f.ID == "" {
		// Refused as a 4xx is: nothing was made, the chunk is freed.
		err = &batchHTTPError{what: "uploading a batch's requests", status: http.StatusOK, msg: "the server's answer names no file"}
	}
	return f.ID, err
}

// create creates a chunk's batch, carrying its marker; a failed try is
// followed by a look at the list before the next, so that a batch the
// server made before failing to answer is adopted, not made twice.
func (a *batchAPI) create(ctx context.Context, fileID, chunk string) (openai.Batch, error) {
	var b openai.Batch
	tried := false
	err := a.do(ctx, "creating a batch", a.c.cfg.Timeout, func(ctx context.Context) error {
		if tried {
			a.relist()
			found, ok, err := a.find(ctx, chunk, a.c.cfg.Clock.Now())
			if err != nil {
				return err
			}
			if ok {
				b = found
				return nil
			}
		}
		tried = true
		resp, err := a.c.api.CreateBatch(ctx, openai.CreateBatchRequest{
			InputFileID:      fileID,
			Endpoint:         openai.BatchEndpointChatCompletions,
			CompletionWindow: batchWindow,
			Metadata:         map[string]any{BatchMetaSession: a.session, BatchMetaChunk: chunk},
		})
		b = resp.Batch
		return err
	})
	if err == nil && b.ID == "" {
		err = errors.New("creating a batch: the server's answer names no batch")
	}
	return b, err
}

// retrieve reads a batch's status.
func (a *batchAPI) retrieve(ctx context.Context, id string) (openai.Batch, error) {
	var b openai.Batch
	err := a.do(ctx, "reading batch "+id, a.c.cfg.Timeout, func(ctx context.Context) error {
		resp, err := a.c.api.RetrieveBatch(ctx, id)
		b = resp.Batch
		return err
	})
	return b, err
}

// download reads a result file line by line. A download that breaks
// is started again (line must bear seeing a line twice).
func (a *batchAPI) download(ctx context.Context, fileID string, line func([]byte) error) error {
	c := a.c
	u := c.cfg.BaseURL + "/files/" + url.PathEscape(fileID) + "/content"
	return a.do(ctx, "reading result file "+fileID, 0, func(ctx context.Context) error {
		// No byte for batchStall drops the download (tried again).
		ctx, stall := watchStall(ctx, c.cfg.Clock, batchStall)
		defer stall.stop()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return err
		}
		if c.cfg.APIKey != "" {
			req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
		}
		resp, err := a.files.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
			return statusError{status: resp.StatusCode, body: string(bytes.TrimSpace(body))}
		}
		err = readLines(stall.reader(resp.Body), line)
		if stall.stalled() {
			return fmt.Errorf("no byte of the file for %s", batchStall)
		}
		return err
	})
}

// stallWatch cancels a context once no byte came through its reader for
// a while (counted from its start): a deadline that each byte pushes on.
type stallWatch struct {
	clk    Clock
	last   atomic.Int64 // clk's UnixNano of the last byte
	cancel context.CancelCauseFunc
	done   chan struct{}
	fired  atomic.Bool
}

var errStalled = errors.New("stalled")

func watchStall(ctx context.Context, clk Clock, d time.Duration) (context.Context, *stallWatch) {
	sctx, cancel := context.WithCancelCause(ctx)
	w := &stallWatch{clk: clk, cancel: cancel, done: make(chan struct{})}
	w.last.Store(clk.Now().UnixNano())
	go func() {
		wait := d
		for {
			select {
			case <-clk.After(wait):
			case <-w.done:
				return
			case <-sctx.Done():
				return
			}
			idle := clk.Now().Sub(time.Unix(0, w.last.Load()))
			if idle >= d {
				w.fired.Store(true)
				cancel(errStalled)
				return
			}
			wait = d - idle
		}
	}()
	return sctx, w
}

func (w *stallWatch) stop()                        { close(w.done); w.cancel(context.Canceled) }
func (w *stallWatch) stalled() bool                { return w.fired.Load() }
func (w *stallWatch) reader(r io.Reader) io.Reader { return stallReader{r, w} }

type stallReader struct {
	r io.Reader
	w *stallWatch
}

func (s stallReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		s.w.last.Store(s.w.clk.Now().UnixNano())
	}
	return n, err
}

// readLines calls f on each non-blank line of r (without its end).
func readLines(r io.Reader, f func([]byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	for {
		part, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, part...)
			if len(long) > maxBatchLine {
				return fmt.Errorf("a result line is longer than %d MB", maxBatchLine>>20)
			}
			continue
		}
		if err != nil && err != io.EOF {
			return err
		}
		l := part
		if long != nil {
			l = append(long, part...)
			long = nil
		}
		if l = bytes.TrimSpace(l); len(l) > 0 {
			if ferr := f(l); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}
