package llm

import (
	"bytes"
	"context"
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
	return batchLineOf(key, body), nil
}

// batchLineOf writes an input file's line: custom_id, method, url and body
// (written as it is: json.Marshal would scan a RawMessage again).
func batchLineOf(key string, body []byte) []byte {
	id, _ := json.Marshal(key)
	line := make([]byte, 0, len(id)+len(body)+len(linePrefix)+len(lineMiddle)+2)
	line = append(line, linePrefix...)
	line = append(line, id...)
	line = append(line, lineMiddle...)
	line = append(line, body...)
	return append(line, '}', '\n')
}

const (
	linePrefix = `{"custom_id":`
	lineMiddle = `,"method":"` + http.MethodPost + `","url":"` + string(openai.BatchEndpointChatCompletions) + `","body":`
)

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

// uncached returns, once each and in order, the keys whose answer the
// session's cache does not hold (BatchStore.BatchAnswered: one look for
// many keys, where the cache answers one at a time).
func uncached(store BatchStore, keys []string) ([]string, error) {
	seen := make(map[string]bool, len(keys))
	var uniq []string
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			uniq = append(uniq, k)
		}
	}
	have, err := store.BatchAnswered(uniq)
	if err != nil {
		return nil, err
	}
	out := uniq[:0]
	for _, k := range uniq {
		if !have[k] {
			out = append(out, k)
		}
	}
	return out, nil
}

// freshKeys are the requests of the plan that no answer and no chunk
// covers: those new batches carry.
func (j *Judge) freshKeys(p *batchPlan, o BatchOptions) ([]string, error) {
	var all []string
	for i, keys := range p.keys {
		if !p.online[i] {
			all = append(all, keys...)
		}
	}
	todo, err := uncached(o.Store, all)
	if err != nil || len(todo) == 0 {
		return nil, err
	}
	in, err := o.Store.BatchChunkOf(todo)
	if err != nil {
		return nil, err
	}
	fresh := todo[:0]
	for _, k := range todo {
		if _, ok := in[k]; !ok {
			fresh = append(fresh, k)
		}
	}
	return fresh, nil
}

// sendFresh cuts the fresh requests into chunks within o's limits and
// sends each as soon as it is full: recorded with its keys, uploaded,
// created. Each line is made once, and no more than one chunk's file is
// held. The chunks sent are returned, with how many batches were
// created, also when an error stops it midway.
func (j *Judge) sendFresh(ctx context.Context, api *batchAPI, p *batchPlan, o BatchOptions) (sent []BatchChunk, created int, err error) {
	todo, err := j.freshKeys(p, o)
	if err != nil || len(todo) == 0 {
		return nil, 0, err
	}
	var (
		cur  BatchChunk
		keys []string
		buf  bytes.Buffer
	)
	flush := func() error {
		if len(keys) == 0 {
			return nil
		}
		cur.Key, cur.PlannedAt, cur.Status = newChunkKey(), j.client.cfg.Clock.Now().UTC(), BatchPlanned
		if err := o.Store.PlanBatchChunks([]BatchChunk{cur}, [][]string{keys}); err != nil {
			return err
		}
		sent = append(sent, cur)
		ch := &sent[len(sent)-1]
		cur, keys = BatchChunk{}, nil
		if err := o.at("planned"); err != nil {
			return err
		}
		data := buf.Bytes()
		buf = bytes.Buffer{}
		if err := j.uploadFile(ctx, api, ch, data, o); err != nil {
			return err
		}
		made, err := j.submit(ctx, api, p, ch, false, o)
		if made {
			created++
		}
		return err
	}
	for _, k := range todo {
		line, err := j.batchLine(p, k)
		if err != nil {
			return sent, created, fmt.Errorf("building the batch request of %s: %w", p.tasks[p.where[k].task].Item.ID, err)
		}
		n := int64(len(line))
		if cur.Requests >= o.MaxRequests || cur.Requests > 0 && cur.Bytes+n > o.MaxBytes {
			if err := flush(); err != nil {
				return sent, created, err
			}
		}
		cur.Requests++
		cur.Bytes += n
		keys = append(keys, k)
		buf.Write(line)
	}
	return sent, created, flush()
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
