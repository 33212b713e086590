package cost

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// Tally records the requests a counting client was asked to send (see
// llm.Client.Counting): it is the http.RoundTripper of that client. Each
// request is read, its prompt tokens counted with the model's tokenizer,
// and refused without a byte leaving the process. Safe for concurrent
// use: the judge pool's workers count in parallel.
type Tally struct {
	mu       sync.Mutex
	models   map[string]*ModelCost
	counters map[string]*Counter
	// unread counts requests whose body could not be read as a chat
	// request: counted as requests, their tokens unknown.
	unread int
}

// NewTally returns an empty tally.
func NewTally() *Tally {
	return &Tally{models: map[string]*ModelCost{}, counters: map[string]*Counter{}}
}

// refusal is how a counted request is answered: 413 is a status the LLM
// client neither retries nor takes as fatal, so the sample ends at once
// and the judge goes on with its next sample or task (as gavel tune's
// probe does).
const refusal = http.StatusRequestEntityTooLarge

// marker is in each refusal's message, to tell it from other failures.
const marker = "gavel_cost"

// chatRequest is the part of a chat completion request that costs.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		Name    string          `json:"name"`
	} `json:"messages"`
	MaxTokens           int `json:"max_tokens"`
	MaxCompletionTokens int `json:"max_completion_tokens"`
}

// RoundTrip counts req and answers it with a refusal; nothing is sent.
func (t *Tally) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body.Close()
	}
	t.add(body)
	msg := fmt.Sprintf(`{"error":{"message":"not sent: gavel counts the requests a run needs","type":%q}}`, marker)
	return &http.Response{
		StatusCode:    refusal,
		Status:        fmt.Sprintf("%d %s", refusal, http.StatusText(refusal)),
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(strings.NewReader(msg)),
		ContentLength: int64(len(msg)),
		Request:       req,
	}, nil
}

// add counts one request's body.
func (t *Tally) add(body []byte) {
	var r chatRequest
	if json.Unmarshal(body, &r) != nil || r.Model == "" {
		t.mu.Lock()
		t.unread++
		t.mu.Unlock()
		return
	}
	msgs := make([]Message, len(r.Messages))
	names := 0
	for i, m := range r.Messages {
		msgs[i] = Message{Role: m.Role, Content: contentText(m.Content)}
		if m.Name != "" {
			names++
		}
	}
	c := t.counter(r.Model)
	tokens := c.Chat(msgs) + names // a name costs a token (OpenAI's format)
	out := max(r.MaxTokens, r.MaxCompletionTokens)

	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.models[r.Model]
	if m == nil {
		enc, exact := Encoding(r.Model)
		m = &ModelCost{Model: r.Model, Encoding: enc, Exact: exact}
		t.models[r.Model] = m
	}
	m.Requests++
	m.PromptTokens += int64(tokens)
	if out > 0 {
		m.MaxOutput += int64(out)
	} else {
		m.Unbounded++
	}
}

// counter returns the counter of model's encoding.
func (t *Tally) counter(model string) *Counter {
	enc, _ := Encoding(model)
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.counters[enc]
	if c == nil {
		var err error
		if c, err = NewCounter(enc); err != nil {
			// Only a name outside Encoding's list fails, never given.
			panic(err)
		}
		t.counters[enc] = c
	}
	return c
}

// contentText is a message's text: a string, or the text parts of a list
// of parts (images and audio are not counted).
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// Models returns what was counted per model, by name.
func (t *Tally) Models() []ModelCost {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]ModelCost, 0, len(t.models))
	for _, m := range t.models {
		out = append(out, *m)
	}
	slices.SortFunc(out, func(a, b ModelCost) int { return strings.Compare(a.Model, b.Model) })
	return out
}

// Requests is how many requests were counted, readable or not.
func (t *Tally) Requests() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.unread
	for _, m := range t.models {
		n += m.Requests
	}
	return n
}

// Unread is how many requests could not be read as chat requests.
func (t *Tally) Unread() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.unread
}
