package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// submit makes sure a chunk has its batch: one planned by an earlier run
// (earlier) is first looked for in the server's list, since that run may
// have died between creating it and saving its id. The file is uploaded
// once (its id is saved), and the batch created only when no batch
// carries the chunk's marker. created tells whether a batch was made.
func (j *Judge) submit(ctx context.Context, api *batchAPI, p *batchPlan, ch *BatchChunk, earlier bool, o BatchOptions) (created bool, err error) {
	store := o.Store
	if earlier {
		b, ok, err := api.find(ctx, ch.Key, ch.PlannedAt)
		if err != nil {
			return false, err
		}
		if ok {
			ch.BatchID, ch.Status = b.ID, b.Status
			if ch.InputFile == "" {
				ch.InputFile = b.InputFileID
			}
			o.notify("Batch %s was created before the last run stopped: following it.", b.ID)
			return false, store.UpdateBatchChunk(*ch)
		}
	}
	// The file an earlier run uploaded is used again; if the server
	// refuses the batch (the file deleted since, say), it is uploaded
	// afresh, once.
	reused := earlier && ch.InputFile != ""
	var b openai.Batch
	for {
		if ch.InputFile == "" {
			sent, err := j.uploadChunk(ctx, api, p, ch, o)
			if err != nil || !sent {
				return false, err
			}
		}
		var err error
		b, err = api.create(ctx, ch.InputFile, ch.Key)
		var he *batchHTTPError
		switch {
		case err != nil && reused && errors.As(err, &he):
			ch.InputFile, reused = "", false
			continue
		case errors.As(err, &he):
			return false, refused(ch, err, o)
		case err != nil:
			return false, err
		}
		break
	}
	// A kill here is the case the marker is for.
	if err := o.at("created"); err != nil {
		return true, err
	}
	ch.BatchID, ch.Status = b.ID, b.Status
	if err := store.UpdateBatchChunk(*ch); err != nil {
		return true, err
	}
	o.notify("Batch %s created: %s.", b.ID, plural(ch.Requests, "request", "requests"))
	return true, nil
}

// uploadChunk makes a chunk's file again from the tasks and uploads it,
// saving its id; sent is false when no task of this run asks any of its
// requests any more (the dataset changed): the chunk is then finished,
// with nothing sent.
func (j *Judge) uploadChunk(ctx context.Context, api *batchAPI, p *batchPlan, ch *BatchChunk, o BatchOptions) (sent bool, err error) {
	store := o.Store
	keys, err := store.BatchChunkKeys(ch.Key)
	if err != nil {
		return false, err
	}
	data, n, err := j.chunkFile(p, keys)
	if err != nil {
		return false, err
	}
	if n == 0 {
		ch.Status, ch.Finished = BatchMissing, true
		if err := store.ReleaseBatchChunk(ch.Key); err != nil {
			return false, err
		}
		return false, store.UpdateBatchChunk(*ch)
	}
	return true, j.uploadFile(ctx, api, ch, data, o)
}

// refused ends a chunk whose file or batch the server refused (a 4xx:
// it made neither), freeing its requests to go again, and says so.
func refused(ch *BatchChunk, err error, o BatchOptions) error {
	ch.Status, ch.Finished = BatchFailed, true
	if rerr := o.Store.ReleaseBatchChunk(ch.Key); rerr != nil {
		return rerr
	}
	if uerr := o.Store.UpdateBatchChunk(*ch); uerr != nil {
		return uerr
	}
	return fmt.Errorf("%w. Its requests stay to do: run without --batch to send them as ordinary requests", err)
}

// uploadFile uploads a chunk's file and saves its id.
func (j *Judge) uploadFile(ctx context.Context, api *batchAPI, ch *BatchChunk, data []byte, o BatchOptions) error {
	id, err := api.upload(ctx, ch.Key, data)
	var he *batchHTTPError
	if errors.As(err, &he) {
		return refused(ch, err, o)
	}
	if err != nil {
		return err
	}
	if err := o.at("uploaded"); err != nil {
		return err
	}
	ch.InputFile = id
	if err := o.Store.UpdateBatchChunk(*ch); err != nil {
		return err
	}
	return o.at("file saved")
}

// pollBatches looks at every running batch of the run until each has
// ended, waiting PollMin, then twice as long each round up to PollMax;
// an ended batch's results are read at once. A server that has not
// answered a look for the client's Wait (counted from the first look it
// failed) stops the polling with an error: the batches run on, and the
// next run resumes.
func (j *Judge) pollBatches(ctx context.Context, api *batchAPI, chunks []BatchChunk, rep *BatchReport, o BatchOptions) error {
	clk := j.client.cfg.Clock
	if o.clock != nil {
		clk = o.clock
	}
	wait := o.PollMin
	// failing is when the server stopped answering the looks (zero
	// while it answers): a long wait between two looks is no outage.
	var failing time.Time
	seen := map[string]openai.BatchRequestCounts{}
	gone := map[string]*goneSince{}
	for round := 0; ; round++ {
		running := 0
		for i := range chunks {
			ch := &chunks[i]
			if ch.Finished || ch.BatchID == "" {
				continue
			}
			b, err := api.retrieve(ctx, ch.BatchID)
			var he *batchHTTPError
			if errors.As(err, &he) && he.status == http.StatusNotFound {
				// One 404 may be a proxy's or a replica's passing fault:
				// freeing the requests of a batch still alive would pay
				// for them twice. It is missing only once the list does
				// not show its marker either, after missingLooks 404s
				// over missingFor.
				b, err = j.confirmGone(ctx, api, ch, gone, clk)
				if err == nil && b.ID == "" {
					running++
					continue
				}
			} else if err == nil {
				delete(gone, ch.Key)
			}
			switch {
			case err != nil && ctx.Err() != nil:
				return ctx.Err()
			case err != nil:
				if failing.IsZero() {
					failing = clk.Now()
				}
				if clk.Now().Sub(failing) >= j.client.cfg.Wait {
					return fmt.Errorf("%w; the batches run on at the server: run the same command again to go on waiting for them", err)
				}
				running++
				continue
			}
			failing = time.Time{}
			if err := o.at("polled"); err != nil {
				return err
			}
			if err := j.follow(ctx, api, ch, b, rep, o, seen); err != nil {
				return err
			}
			if !ch.Finished {
				running++
			}
		}
		if running == 0 {
			return nil
		}
		if err := sleep(ctx, clk, wait); err != nil {
			return err
		}
		wait = min(2*wait, o.PollMax)
	}
}

// A batch GET /batches/ID no longer knows is taken for gone (its requests
// freed, BatchMissing) only after missingLooks such answers spread over
// missingFor at least, and when the server's list does not show its
// marker either.
const (
	missingLooks = 3
	missingFor   = 5 * time.Minute
)

// goneSince is when a chunk's batch was first answered 404, and how
// many looks since.
type goneSince struct {
	first time.Time
	looks int
}

// confirmGone takes a 404 on a chunk's batch: the batch the list shows
// under the chunk's marker (another id: adopted), a BatchMissing batch
// once its absence is confirmed, or a zero batch (ID "") while it is not
// yet: still running. The batch the list shows under the chunk's marker
// is taken as it is listed (under another id: adopted).
func (j *Judge) confirmGone(ctx context.Context, api *batchAPI, ch *BatchChunk, gone map[string]*goneSince, clk Clock) (openai.Batch, error) {
	g := gone[ch.Key]
	if g == nil {
		g = &goneSince{first: clk.Now()}
		gone[ch.Key] = g
	}
	g.looks++
	if g.looks < missingLooks || clk.Now().Sub(g.first) < missingFor {
		return openai.Batch{}, nil
	}
	api.relist()
	b, ok, err := api.find(ctx, ch.Key, ch.PlannedAt)
	switch {
	case err != nil:
		return openai.Batch{}, err
	case ok:
		// Listed: not gone. The list's copy says its status (and a
		// batch under another id is adopted).
		ch.BatchID = b.ID
		delete(gone, ch.Key)
		return b, nil
	}
	delete(gone, ch.Key)
	return openai.Batch{ID: ch.BatchID, Status: BatchMissing}, nil
}

// follow takes a batch's news: its status and counts are saved when they
// change, and an ended batch's results are read.
func (j *Judge) follow(ctx context.Context, api *batchAPI, ch *BatchChunk, b openai.Batch, rep *BatchReport, o BatchOptions, seen map[string]openai.BatchRequestCounts) error {
	counts := b.RequestCounts
	// A day-long wait says how far each batch got whenever it moved.
	if b.Status == ch.Status && b.Status == BatchInProgress && counts.Total > 0 && counts != seen[ch.Key] {
		o.notify("Batch %s: %d of %d requests done, %d failed.", ch.BatchID, counts.Completed, counts.Total, counts.Failed)
	}
	seen[ch.Key] = counts
	if b.Status != ch.Status {
		if counts.Total > 0 {
			o.notify("Batch %s: %s (%d of %d requests done, %d failed).", ch.BatchID, statusText(b.Status), counts.Completed, counts.Total, counts.Failed)
		} else {
			o.notify("Batch %s: %s.", ch.BatchID, statusText(b.Status))
		}
		ch.Status = b.Status
		if !batchEnded(b.Status) {
			if err := o.Store.UpdateBatchChunk(*ch); err != nil {
				return err
			}
		}
	}
	if !batchEnded(b.Status) {
		return nil
	}
	if err := j.readResults(ctx, api, ch, b, rep, o); err != nil {
		return err
	}
	if b.Status == BatchFailed || b.Status == BatchMissing {
		// Nothing ran: the requests may go in a batch again.
		if b.Errors != nil {
			for _, e := range b.Errors.Data {
				rep.Errors[j.client.redact(strings.TrimSpace(e.Code+" "+e.Message))]++
			}
		}
		if err := o.Store.ReleaseBatchChunk(ch.Key); err != nil {
			return err
		}
	}
	ch.Finished = true
	if err := o.Store.UpdateBatchChunk(*ch); err != nil {
		return err
	}
	o.notify("Batch %s: %s answered, %d failed or left unanswered.", ch.BatchID, plural(ch.Answered, "request", "requests"), ch.Requests-ch.Answered)
	return nil
}

func statusText(s string) string {
	switch s {
	case BatchValidating:
		return "validating its file"
	case BatchInProgress:
		return "in progress"
	case BatchFinalizing:
		return "finalizing"
	case BatchCancelling:
		return "being cancelled"
	case BatchMissing:
		return "unknown to the server (deleted?)"
	}
	return s
}

// answersAtOnce is how many answers are saved in one transaction.
const answersAtOnce = 500

// readResults reads an ended batch's output and error files: each answer
// is made by answerOf from its body, as an online response is, and kept
// in the cache (SaveBatchAnswers) under its request's key; the lines of
// keys the chunk did not send are ignored.
func (j *Judge) readResults(ctx context.Context, api *batchAPI, ch *BatchChunk, b openai.Batch, rep *BatchReport, o BatchOptions) error {
	keys, err := o.Store.BatchChunkKeys(ch.Key)
	if err != nil {
		return err
	}
	mine := make(map[string]bool, len(keys))
	for _, k := range keys {
		mine[k] = true
	}
	answered := map[string]bool{}
	failed := map[string]string{}
	pending := map[string]string{}
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		err := o.Store.SaveBatchAnswers(pending)
		pending = map[string]string{}
		return err
	}
	line := func(l []byte) error {
		key, value, problem := j.client.batchResult(l)
		if !mine[key] || answered[key] {
			return nil
		}
		if problem != "" {
			failed[key] = problem
			return nil
		}
		answered[key] = true
		delete(failed, key)
		pending[key] = value
		if len(pending) >= answersAtOnce {
			return flush()
		}
		return nil
	}
	for _, id := range []*string{b.OutputFileID, b.ErrorFileID} {
		if id == nil || *id == "" {
			continue
		}
		if err := api.download(ctx, *id, line); err != nil {
			return err
		}
	}
	if err := flush(); err != nil {
		return err
	}
	for _, msg := range failed {
		rep.Errors[msg]++
	}
	ch.Answered, ch.Failed = len(answered), len(failed)
	return nil
}
