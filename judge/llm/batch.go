package llm

// The Batch API path (gavel run --batch): a judge's requests go to the
// server as JSONL files, are answered within a day at a lower price, and
// come back as files. The answers are kept in the response cache under
// the very key the online path would look up, and the tasks are then
// judged as usual: each verdict is made by the same code from the same
// answer (the same body read by answerOf, the same parser, confidence,
// samples and checks), so a batch verdict equals the online one.
//
// A run's requests are cut into chunks within the API's limits. Each
// chunk is recorded in the session (BatchStore) with its requests' keys
// before anything is uploaded, and its batch carries the chunk's random
// key in its metadata: after a crash between creating a batch and saving
// its id, the next run finds the batch in the server's list and adopts it
// instead of creating a second one. A batch whose create failed is looked
// for the same way before the create is tried again.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// The Batch API's limits per batch (OpenAI): requests and input file size.
const (
	BatchMaxRequests = 50_000
	BatchMaxBytes    = 200_000_000
	// batchWindow is the completion window asked for; the only one
	// OpenAI offers.
	batchWindow = "24h"
)

// Metadata keys of every batch Gavel creates: the session and the chunk
// the batch carries, the marker a restart looks for in the server's list.
const (
	BatchMetaSession = "gavel_session"
	BatchMetaChunk   = "gavel_chunk"
)

// Batch statuses: the API's, and BatchPlanned for a chunk recorded but
// not yet created.
const (
	BatchPlanned    = "planned"
	BatchValidating = "validating"
	BatchInProgress = "in_progress"
	BatchFinalizing = "finalizing"
	BatchCompleted  = "completed"
	BatchFailed     = "failed"
	BatchExpired    = "expired"
	BatchCancelling = "cancelling"
	BatchCancelled  = "cancelled"
	// BatchMissing is a chunk whose batch the server no longer knows
	// (GET /batches/ID answered 404): its requests may be sent again.
	BatchMissing = "missing"
)

// batchEnded reports whether a batch status is final: its files can be
// read and nothing more will be answered.
func batchEnded(status string) bool {
	switch status {
	case BatchCompleted, BatchFailed, BatchExpired, BatchCancelled, BatchMissing:
		return true
	}
	return false
}

// ExtraBatch is set (true) on a verdict whose answer came back from a
// Batch API batch (gavel run --batch) rather than from an online request
// or an earlier run's cache.
const ExtraBatch = "batch"

// BatchChunk is one batch of a run as the session records it.
type BatchChunk struct {
	// Key is the chunk's random marker, in its batch's metadata
	// (BatchMetaChunk).
	Key       string
	Requests  int
	Bytes     int64
	PlannedAt time.Time
	// InputFile is the uploaded JSONL file's id, "" until uploaded.
	InputFile string
	// BatchID is "" until the batch is created (or found by its marker).
	BatchID string
	// Status is BatchPlanned, then the batch's status as last seen.
	Status string
	// Answered and Failed count the result lines read (Finished).
	Answered, Failed int
	// Finished is set once the batch ended and its results are kept.
	Finished bool
}

// BatchStore keeps one run's batches in the session. Every method is
// a transaction of its own; PlanBatchChunks records the chunks and their
// requests together, before anything is uploaded.
type BatchStore interface {
	// BatchChunks lists the run's chunks in the order they were planned.
	BatchChunks() ([]BatchChunk, error)
	// PlanBatchChunks records new chunks with their requests' keys
	// (keys[i] are chunks[i]'s).
	PlanBatchChunks(chunks []BatchChunk, keys [][]string) error
	// BatchChunkOf returns the chunk each of keys is recorded in; keys in
	// none are left out.
	BatchChunkOf(keys []string) (map[string]string, error)
	// BatchChunkKeys returns the keys of a chunk's requests.
	BatchChunkKeys(chunk string) ([]string, error)
	// UpdateBatchChunk saves a chunk's file, batch id, status and counts.
	UpdateBatchChunk(c BatchChunk) error
	// ReleaseBatchChunk forgets a chunk's requests (its batch failed
	// before answering: they may be sent again); the chunk stays.
	ReleaseBatchChunk(chunk string) error
	// BatchAnswered returns which of keys have their answer in the
	// response cache, on disk: one look for many keys (answers still in
	// the cache's write buffer, made online a moment ago, count as
	// missing).
	BatchAnswered(keys []string) (map[string]bool, error)
	// SaveBatchAnswers writes answers into the response cache (key →
	// cached response) before returning: they cost money, and the chunk
	// is marked finished only once they are on disk.
	SaveBatchAnswers(answers map[string]string) error
}

// BatchOptions tunes RunBatch.
type BatchOptions struct {
	// Store records the run's batches; required.
	Store BatchStore
	// Session names the session in each batch's metadata; required.
	Session string
	// MaxRequests and MaxBytes bound a batch; 0 means the API's limits.
	MaxRequests int
	MaxBytes    int64
	// PollMin is the first wait between two looks at the running
	// batches; it doubles each round up to PollMax. 0 means 30 s and
	// 10 min.
	PollMin, PollMax time.Duration
	// Notify, when set, gets a line for each step a person would want to
	// see (a batch created, a status changed, results read).
	Notify func(string)

	// crash, when set (tests), is called at named points of a
	// submission; an error stops RunBatch there as a kill would.
	crash func(point string) error
	// clock, when set (tests), times the polling instead of the client's
	// clock, which times each request.
	clock Clock
}

func (o BatchOptions) withDefaults() BatchOptions {
	if o.MaxRequests <= 0 {
		o.MaxRequests = BatchMaxRequests
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = BatchMaxBytes
	}
	if o.PollMin <= 0 {
		o.PollMin = 30 * time.Second
	}
	if o.PollMax <= 0 {
		o.PollMax = 10 * time.Minute
	}
	o.PollMax = max(o.PollMax, o.PollMin)
	return o
}

func (o BatchOptions) notify(format string, a ...any) {
	if o.Notify != nil {
		o.Notify(fmt.Sprintf(format, a...))
	}
}

func (o BatchOptions) at(point string) error {
	if o.crash == nil {
		return nil
	}
	return o.crash(point)
}

// BatchReport is what RunBatch leaves to do.
type BatchReport struct {
	// Ready are the tasks whose every request has its answer in the cache
	// (or that send none, their item lacking an input): judging them
	// sends nothing. Judge them with BatchJudge.
	Ready []judge.Task
	// Online are the tasks a batch that ended before this run left
	// unanswered (expired, cancelled, a request that failed), and those
	// no batch can carry (a prompt that cannot be made, a request
	// go-openai refuses to send): they go as ordinary requests now, which
	// give them the verdict the online path gives.
	Online []judge.Task
	// Left are the tasks a batch that ended during this run left
	// unanswered, or whose batch failed as a whole: the next run sends
	// them (as ordinary requests, or in a new batch when it failed).
	Left []judge.Task
	// Created counts the batches created by this run; Chunks are the
	// run's chunks as they stand.
	Created int
	Chunks  []BatchChunk
	// Errors counts the failed requests of the batches read in this run,
	// by message (redacted).
	Errors map[string]int
	// batched names the Ready tasks a batch answered (taskID).
	batched map[string]bool
}

// ErrNoBatchAPI is wrapped by RunBatch's error when the server has no
// Batch API (llama.cpp, Ollama, vLLM's server: GET /batches is 404).
var ErrNoBatchAPI = errors.New("the server has no Batch API")

// RunBatch sends through the Batch API the tasks' requests that neither
// an answer in the cache nor a batch of an earlier run covers, resumes the
// batches an earlier run left (creating those a crash left uncreated,
// after looking for them in the server's list), polls them with backoff
// until every one has ended, and keeps their answers in the cache. The
// report says which tasks can now be judged without a request and which
// fall back to ordinary requests. Interrupted (ctx), it returns ctx's
// error: the batches run on at the server and the next call resumes them.
func (j *Judge) RunBatch(ctx context.Context, tasks []judge.Task, o BatchOptions) (BatchReport, error) {
	o = o.withDefaults()
	c := j.client
	rep := BatchReport{Errors: map[string]int{}, batched: map[string]bool{}}
	switch {
	case o.Store == nil || o.Session == "":
		return rep, errors.New("llm: RunBatch needs a store and a session name")
	case c.cfg.Cache == nil:
		return rep, errors.New("--batch keeps the answers in the session's response cache, and this client has none")
	}
	if f := c.fatal.Load(); f != nil {
		return rep, f
	}
	plan, err := j.batchPlan(tasks)
	if err != nil {
		return rep, err
	}
	api := newBatchAPI(c, o.Session)
	if o.clock != nil {
		api.clock = o.clock
	}
	// The first look at the list tells whether the server has a Batch
	// API at all, before anything is recorded.
	if err := api.check(ctx); err != nil {
		return rep, err
	}
	chunks, err := o.Store.BatchChunks()
	if err != nil {
		return rep, err
	}
	endedBefore := map[string]bool{}
	for _, ch := range chunks {
		if ch.Finished {
			endedBefore[ch.Key] = true
		}
	}
	// The chunks an earlier run left unsent first (it may have died
	// between creating a batch and saving its id), then the new ones.
	for i := range chunks {
		if chunks[i].Finished || chunks[i].BatchID != "" {
			continue
		}
		created, err := j.submit(ctx, api, plan, &chunks[i], true, o)
		if err != nil {
			return rep, err
		}
		if created {
			rep.Created++
		}
	}
	fresh, created, err := j.sendFresh(ctx, api, plan, o)
	chunks = append(chunks, fresh...)
	rep.Created += created
	if err != nil {
		rep.Chunks = chunks
		return rep, err
	}
	if err := j.pollBatches(ctx, api, chunks, &rep, o); err != nil {
		rep.Chunks = chunks
		return rep, err
	}
	rep.Chunks = chunks
	return rep, j.sortTasks(plan, &rep, endedBefore, o)
}

// sortTasks puts each task in Ready, Online or Left (see BatchReport).
func (j *Judge) sortTasks(plan *batchPlan, rep *BatchReport, endedBefore map[string]bool, o BatchOptions) error {
	var all []string
	for _, keys := range plan.keys {
		all = append(all, keys...)
	}
	missing, err := uncached(o.Store, all)
	if err != nil {
		return err
	}
	in, err := o.Store.BatchChunkOf(missing)
	if err != nil {
		return err
	}
	open := make(map[string]bool, len(missing))
	for _, k := range missing {
		open[k] = true
	}
	for i, t := range plan.tasks {
		if plan.online[i] {
			rep.Online = append(rep.Online, t)
			continue
		}
		var unanswered []string
		for _, k := range plan.keys[i] {
			if open[k] {
				unanswered = append(unanswered, k)
			}
		}
		if len(unanswered) == 0 {
			rep.Ready = append(rep.Ready, t)
			continue
		}
		before := true
		for _, k := range unanswered {
			if ch, ok := in[k]; !ok || !endedBefore[ch] {
				before = false
			}
		}
		if before {
			rep.Online = append(rep.Online, t)
		} else {
			rep.Left = append(rep.Left, t)
		}
	}
	// The Ready tasks a batch answered: their keys are in a chunk.
	batched, err := o.Store.BatchChunkOf(all)
	if err != nil {
		return err
	}
	for i, t := range plan.tasks {
		for _, k := range plan.keys[i] {
			if _, ok := batched[k]; ok {
				rep.batched[taskID(t)] = true
				break
			}
		}
	}
	return nil
}

// taskID tells a run's tasks apart: item, criterion and order.
func taskID(t judge.Task) string {
	return fmt.Sprintf("%s\x00%d\x00%t", t.Item.ID, t.Criterion, t.Swapped)
}

// newChunkKey is a chunk's marker: 128 random bits, so that no two
// chunks of any session share one.
func newChunkKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
