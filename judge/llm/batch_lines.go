package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/gavel-dev/gavel/judge"
)

// batchPlan is a run's tasks and the requests they make.
type batchPlan struct {
	tasks []judge.Task
	// keys are each task's requests, one per sample, by cache key; nil
	// for a task that sends none (its item lacks an input).
	keys [][]string
	// online marks the tasks no batch can carry: their prompt cannot be
	// built, or go-openai refuses the request before sending it. The
	// online path gives them the verdict it gives such tasks.
	online []bool
	// where is a key's first task and sample, to make its line again.
	where map[string]batchRef
}

type batchRef struct{ task, sample int }

// batchCalls returns a task's calls, one per sample, built as
// Judge.sample builds them; nil when the task sends nothing.
func (j *Judge) batchCalls(t judge.Task) ([]call, error) {
	if j.def.missingInput(t) != "" {
		return nil, nil
	}
	msgs, err := j.def.messages(t, j.client.cfg, j.examples)
	if err != nil {
		return nil, err
	}
	calls := make([]call, j.client.cfg.Samples)
	for k := range calls {
		calls[k] = call{messages: msgs, json: j.def.json, logprobs: j.def.binary(), sample: k, over: j.over}
	}
	return calls, nil
}

func (j *Judge) batchPlan(tasks []judge.Task) (*batchPlan, error) {
	p := &batchPlan{tasks: tasks, keys: make([][]string, len(tasks)), online: make([]bool, len(tasks)), where: map[string]batchRef{}}
	validator := openai.NewReasoningValidator()
	for i, t := range tasks {
		calls, err := j.batchCalls(t)
		if err != nil {
			p.online[i] = true
			continue
		}
		keys := make([]string, len(calls))
		for s, k := range calls {
			req := j.client.request(k)
			if validator.Validate(req) != nil {
				p.online[i] = true
				break
			}
			keys[s] = j.client.cacheKey(k, req).String()
			if _, ok := p.where[keys[s]]; !ok {
				p.where[keys[s]] = batchRef{i, s}
			}
		}
		if !p.online[i] {
			p.keys[i] = keys
		}
	}
	return p, nil
}

// batchLine is one line of a batch's input file: the request the online
// path would send (request), with the zero temperature the online path's
// doer puts back (go-openai leaves it out), under the answer's cache key.
func (j *Judge) batchLine(p *batchPlan, key string) ([]byte, error) {
	ref, ok := p.where[key]
	if !ok {
		return nil, nil
	}
	calls, err := j.batchCalls(p.tasks[ref.task])
	if err != nil || ref.sample >= len(calls) {
		return nil, err
	}
	body, err := j.client.batchBody(calls[ref.sample])
	if err != nil {
		return nil, err
	}
	line, err := json.Marshal(struct {
		CustomID string          `json:"custom_id"`
		Method   string          `json:"method"`
		URL      string          `json:"url"`
		Body     json.RawMessage `json:"body"`
	}{key, http.MethodPost, string(openai.BatchEndpointChatCompletions), body})
	if err != nil {
		return nil, err
	}
	return append(line, '\n'), nil
}

// batchBody is the JSON body the online path sends for a call, byte for
// byte: go-openai's encoding of request, and "temperature":0 in front
// where the doer adds it (addZeroTemperature).
func (c *Client) batchBody(k call) ([]byte, error) {
	req := c.request(k)
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	if req.Temperature == 0 && !isReasoningModel(req.Model) {
		const prefix = `{"temperature":0`
		switch {
		case bytes.Equal(b, []byte("{}")):
			b = []byte(prefix + "}")
		case len(b) > 1 && b[0] == '{':
			b = append([]byte(prefix+","), b[1:]...)
		}
	}
	return b, nil
}

// planChunks cuts the requests no answer, chunk or earlier failure
// covers into chunks within o's limits and records them.
func (j *Judge) planChunks(p *batchPlan, o BatchOptions) ([]BatchChunk, error) {
	var todo []string
	seen := map[string]bool{}
	for i, keys := range p.keys {
		if p.online[i] {
			continue
		}
		for _, k := range keys {
			if seen[k] {
				continue
			}
			seen[k] = true
			if _, ok := j.client.cacheGet(k); !ok {
				todo = append(todo, k)
			}
		}
	}
	if len(todo) == 0 {
		return nil, nil
	}
	in, err := o.Store.BatchChunkOf(todo)
	if err != nil {
		return nil, err
	}
	now := j.client.cfg.Clock.Now().UTC()
	var chunks []BatchChunk
	var keys [][]string
	for _, k := range todo {
		if _, ok := in[k]; ok {
			continue
		}
		line, err := j.batchLine(p, k)
		if err != nil {
			return nil, fmt.Errorf("building the batch request of %s: %w", p.tasks[p.where[k].task].Item.ID, err)
		}
		n := int64(len(line))
		last := len(chunks) - 1
		if last < 0 || chunks[last].Requests >= o.MaxRequests || chunks[last].Bytes+n > o.MaxBytes && chunks[last].Requests > 0 {
			chunks = append(chunks, BatchChunk{Key: newChunkKey(), PlannedAt: now, Status: BatchPlanned})
			keys = append(keys, nil)
			last++
		}
		chunks[last].Requests++
		chunks[last].Bytes += n
		keys[last] = append(keys[last], k)
	}
	if len(chunks) == 0 {
		return nil, nil
	}
	if err := o.Store.PlanBatchChunks(chunks, keys); err != nil {
		return nil, err
	}
	o.notify("%s planned: %s in all.", plural(len(chunks), "batch", "batches"), plural(len(todo)-len(in), "request", "requests"))
	return chunks, nil
}

// chunkFile is a chunk's input file, made again from the tasks: the keys
// no task of this run still asks are left out.
func (j *Judge) chunkFile(p *batchPlan, keys []string) ([]byte, int, error) {
	var buf bytes.Buffer
	n := 0
	for _, k := range keys {
		line, err := j.batchLine(p, k)
		if err != nil {
			return nil, 0, err
		}
		if line == nil {
			continue
		}
		buf.Write(line)
		n++
	}
	return buf.Bytes(), n, nil
}

// unixTime is a batch's created_at.
func unixTime(s int) time.Time { return time.Unix(int64(s), 0).UTC() }

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
