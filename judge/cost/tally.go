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
	models   map[string]*tallied
	counters map[string]*Counter
	// every, when above 1, counts the contents' tokens of one request in
	// every (chosen by a hash of its body, so whatever the order of the
	// dataset) and scales the others' by their length (SampleEvery).
	every uint64
	// unread counts requests whose body could not be read as a chat
	// request: counted as requests, their tokens unknown.
	unread int
}

// tallied is a ModelCost being counted.
type tallied struct {
	ModelCost
	// fixed is the tokens counted exactly: the chat format's, the roles',
	// and the contents of the requests counted; counted is how many of
	// those, countedBytes and countedTokens their contents' bytes and
	// tokens; scaledBytes are the contents' bytes of the others.
	fixed, countedBytes, countedTokens, scaledBytes int64
	counted                                         int
}

// NewTally returns an empty tally that counts every prompt's tokens.
func NewTally() *Tally {
	return &Tally{models: map[string]*tallied{}, counters: map[string]*Counter{}}
}

// SampleEvery makes the tally count the contents' tokens of about one
// request in k (k > 1), chosen by a hash of the request, and scale the
// others' by their length in bytes: a million prompts take a tokenizer
// minutes. The count of requests stays exact; the tokens become an
// estimate (ModelCost.Counted says of how many prompts). Call it before
// the first request.
func (t *Tally) SampleEvery(k int) {
	t.every = uint64(max(k, 1))
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
	c := t.counter(r.Model)
	count := t.every <= 1 || pick(body, t.every) || t.firstOf(r.Model)
	// The chat format's tokens, the roles' and a name's (a token each,
	// OpenAI's format) are counted for every request; the contents' when
	// count says so.
	fixed := int64(perReply)
	var bytes, tokens int64
	for _, m := range r.Messages {
		fixed += int64(perMessage + c.Text(m.Role))
		if m.Name != "" {
			fixed++
		}
		text := contentText(m.Content)
		bytes += int64(len(text))
		if count {
			tokens += int64(c.Text(text))
		}
	}
	out := max(r.MaxTokens, r.MaxCompletionTokens)

	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.models[r.Model]
	if m == nil {
		enc, exact := Encoding(r.Model)
		m = &tallied{ModelCost: ModelCost{Model: r.Model, Encoding: enc, Exact: exact}}
		t.models[r.Model] = m
	}
	m.Requests++
	m.fixed += fixed
	if count {
		m.counted++
		m.fixed += tokens
		m.countedBytes += bytes
		m.countedTokens += tokens
	} else {
		m.scaledBytes += bytes
	}
	if out > 0 {
		m.MaxOutput += int64(out)
	} else {
		m.Unbounded++
	}
}

// firstOf reports whether no prompt of model was counted yet: the first
// is always counted, so that a model the sample missed still has its
// tokens per byte measured rather than guessed.
func (t *Tally) firstOf(model string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.models[model]
	return m == nil || m.counted == 0
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

// fnv64 is the FNV-1a hash of b, to choose the requests counted.
func fnv64(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// pick reports whether b is one of the about one in k chosen. FNV-1a's
// low bits are poor: its last step multiplies by an odd prime, so
// h mod k for a small even k is a function of the last bytes alone, and
// ids that end alike ("q5-q5", "row-10") fall all in or all out — a
// sample of none or of all. splitmix64's finalizer spreads every bit of
// h over the low ones first.
func pick(b []byte, k uint64) bool {
	return mix(fnv64(b))%k == 0
}

// mix is splitmix64's finalizer (Steele, Lea and Flood 2014): a bijection
// whose every output bit depends on every input bit.
func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
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
		mc := m.ModelCost
		mc.Counted = m.counted
		mc.PromptTokens = m.fixed
		if m.scaledBytes > 0 {
			// The counted prompts' tokens per byte; none counted (a
			// sample that missed every prompt of a model): 4 bytes a
			// token, the usual for English text.
			ratio := 0.25
			if m.countedBytes > 0 {
				ratio = float64(m.countedTokens) / float64(m.countedBytes)
			}
			mc.PromptTokens += int64(float64(m.scaledBytes)*ratio + 0.5)
			mc.Exact = false
		}
		out = append(out, mc)
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
