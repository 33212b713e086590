package judge

import "time"

// Status says whether a verdict holds values.
type Status string

const (
	// StatusOK means the judge's output was read and Values is filled.
	StatusOK Status = "ok"
	// StatusParseError means the judge answered but its output could not
	// be read; Raw holds what it wrote.
	StatusParseError Status = "parse_error"
	// StatusAPIError means no usable answer came back from the model
	// server after every retry; Error says why.
	StatusAPIError Status = "api_error"
	// StatusTruncated means the judge answered, but the server read only
	// part of the prompt (it cut it to its context without saying so):
	// the judge never saw the whole task. Its values, when the answer
	// could be read, are kept, yet left out of agreement by default;
	// Error says how much of the prompt the server read.
	StatusTruncated Status = "truncated"
)

// Verdict is one judge run on one task.
type Verdict struct {
	ItemID string `json:"item_id"`
	// Criterion is 0 for a whole-item verdict, k for rubric criterion k.
	Criterion int `json:"criterion"`
	// Swapped marks a verdict made with the pair's responses shown in the
	// other order. Its values are written in the original A/B terms; it is
	// the second order of the same judgment, never a re-judge.
	Swapped bool `json:"swapped,omitempty"`
	// Values holds one value per dimension name; empty unless Status is
	// ok or truncated.
	Values map[string]float64 `json:"values,omitempty"`
	Reason string             `json:"reason,omitempty"`
	// Extra holds judge-specific fields worth showing and counting, such
	// as bbh's extracted_answer, reasoning_score and error_type.
	Extra map[string]any `json:"extra,omitempty"`
	// Raw is the model's whole output (or, for offline judges, nothing).
	Raw    string `json:"raw,omitempty"`
	Status Status `json:"status"`
	// Error explains an api_error, parse_error or truncated verdict in
	// one sentence.
	Error            string        `json:"error,omitempty"`
	Model            string        `json:"model,omitempty"`
	PromptTokens     int           `json:"prompt_tokens,omitempty"`
	CompletionTokens int           `json:"completion_tokens,omitempty"`
	Latency          time.Duration `json:"latency,omitempty"`
	// Retries counts the requests the judge had to repeat for this
	// verdict (rate limits, server errors, timeouts), over all its
	// samples. It feeds the live counters and is not kept in a session.
	Retries int       `json:"retries,omitempty"`
	At      time.Time `json:"at"`
	// Confidence is the probability the model gave its answer, from
	// logprobs, when the server returned them and they can describe the
	// answer (else nil, and the judge may say why in Extra).
	Confidence *float64 `json:"confidence,omitempty"`
}

// OK reports whether the verdict holds values.
func (v Verdict) OK() bool { return v.Status == StatusOK }
