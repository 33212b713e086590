package llm

import (
	"context"
	"errors"
	"maps"
	"strings"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// Keys of Verdict.Extra that every LLM judge may set, beside the judge's
// own fields (bbh's extracted_answer, quality's factual_errors…).
const (
	// ExtraCached is true when the answer came from the response cache.
	ExtraCached = "cached"
	// ExtraTries is the number of HTTP requests made, when more than one.
	ExtraTries = "tries"
	// ExtraSamples lists every sample of a task judged with Samples > 1:
	// each a map with status, values, reason, raw, error and confidence.
	ExtraSamples = "samples"
	// ExtraAgreement is the share of readable samples whose values all
	// equal the majority verdict: the judge's self-consistency.
	ExtraAgreement = "agreement"
	// ExtraSamplesOK is how many samples could be read.
	ExtraSamplesOK = "samples_ok"
)

// Keys of Verdict.Extra set by bbh (seed 002's output fields) and quality
// (seed 003's), when the model wrote them.
const (
	// ExtraExtractedAnswer is the short answer the judge found in the
	// prediction (a string), for highlighting.
	ExtraExtractedAnswer = "extracted_answer"
	// ExtraReasoningScore rates the prediction's reasoning, 1 to 5
	// (float64), kept only when it is on that scale.
	ExtraReasoningScore = "reasoning_score"
	// ExtraErrorType is none, format_error, hallucination, wrong_logic or
	// no_answer (lower-cased as written).
	ExtraErrorType = "error_type"
	// ExtraComment is bbh's brief explanation, also the verdict's Reason.
	ExtraComment = "comment"
	// ExtraKeyMissingInfo and ExtraFactualErrors are quality's lists
	// ([]string); the two reasonings are under completeness_reasoning and
	// correctness_reasoning.
	ExtraKeyMissingInfo = "key_missing_info"
	ExtraFactualErrors  = "factual_errors"
)

// Judge is an LLM judge: a definition (built-in or custom) bound to a
// Client. It implements judge.Judge and is safe for concurrent use.
type Judge struct {
	def    *definition
	client *Client
	info   judge.Info
	// over holds the judge file's model, temperature and max_tokens,
	// when it sets any.
	over *override
	// examples are what {examples} shows (WithExamples).
	examples []judge.Example
}

func newJudge(def *definition, c *Client) *Judge {
	cfg := c.cfg
	var over *override
	if def.model != "" || def.temperature != nil || def.maxTokens != nil {
		if def.model != "" {
			cfg.Model = def.model
		}
		if def.temperature != nil {
			cfg.Temperature = *def.temperature
		}
		if def.maxTokens != nil {
			cfg.MaxTokens = *def.maxTokens
		}
		over = &override{model: cfg.Model, temperature: cfg.Temperature, maxTokens: cfg.MaxTokens}
	}
	info := judge.Info{
		Name:         def.name,
		Description:  def.description,
		Dimensions:   def.dims,
		PerCriterion: def.perCriterion,
		Model:        cfg.Model,
		Params:       cfg.params(),
		Definition:   def.text,
	}
	if def.source == builtinSource {
		if text, err := ExportBuiltin(def.name); err == nil {
			info.Definition = string(text)
		}
	}
	if def.json && c.cfg.NoResponseFormat {
		info.Params["response_format"] = "off"
	}
	if (def.name == "same-event" || def.parser == "same-event") && c.cfg.SwapSnippets {
		info.Params["swap_snippets"] = true
	}
	if def.version != "" {
		info.Params["definition"] = def.version
	}
	return &Judge{def: def, client: c, info: info, over: over}
}

// Info describes the judge; Params hold the settings that change its
// answers (temperature, max tokens, samples…), never credentials.
func (j *Judge) Info() judge.Info {
	info := j.info
	info.Params = maps.Clone(j.info.Params)
	return info
}

// Client returns the client the judge calls, for its Fatal error.
func (j *Judge) Client() *Client { return j.client }

// Messages returns the prompt the judge sends for a task.
func (j *Judge) Messages(t judge.Task) ([]Message, error) {
	return j.def.messages(t, j.client.cfg, j.examples)
}

// Judge rates one task. It never fails: an unreadable output gives a
// parse_error verdict with the raw text, an answer still empty after
// emptyRetries more requests a parse_error "empty answer", a server that
// gives no usable answer an api_error verdict. The verdict's texts are
// as stored: the API key redacted, an oversized answer cut (see
// judge.RawHead) after the parser read all of it. A swapped task's
// verdict is marked Swapped and its preferences are in the original A/B
// terms (see unswapVerdict). With Config.Samples > 1 the task is judged
// that many times and the majority wins. Tokens and Retries add up over
// samples; Latency is the wall time, retries included.
func (j *Judge) Judge(ctx context.Context, t judge.Task) judge.Verdict {
	start := time.Now()
	v := j.judge(ctx, t)
	v.ItemID, v.Criterion, v.Model = t.Item.ID, t.Criterion, j.info.Model
	if t.Swapped {
		unswapVerdict(&v, j.info.Dimensions)
	}
	v.Latency = time.Since(start)
	v.At = time.Now()
	return storable(v, j.client.cfg.APIKey)
}

func (j *Judge) judge(ctx context.Context, t judge.Task) judge.Verdict {
	if missing := j.def.missingInput(t); missing != "" {
		return j.def.skipped(missing)
	}
	msgs, err := j.def.messages(t, j.client.cfg, j.examples)
	if err != nil {
		return judge.Verdict{Status: judge.StatusAPIError, Error: "cannot build the prompt: " + err.Error()}
	}
	n := j.client.cfg.Samples
	samples := make([]judge.Verdict, 0, n)
	retries := 0
	for k := range n {
		s, stop := j.sample(ctx, msgs, k)
		retries += s.Retries
		if stop {
			// A fatal error or a cancelled run: no partial majority.
			s.Retries = retries
			return s
		}
		samples = append(samples, s)
	}
	if n == 1 {
		return samples[0]
	}
	v := combineSamples(j.info.Dimensions, samples)
	v.Retries = retries
	return v
}

// sample judges once; stop is set when no further sample should be tried.
func (j *Judge) sample(ctx context.Context, msgs []Message, k int) (v judge.Verdict, stop bool) {
	c := call{messages: msgs, json: j.def.json, logprobs: j.def.binary(), sample: k, over: j.over}
	var (
		a                  answer
		err                error
		tries, prompt, out int
	)
	for range 1 + emptyRetries {
		a, err = j.client.complete(ctx, c)
		tries += a.tries
		if err != nil || !emptyAnswer(a) {
			break
		}
		prompt += a.promptTokens
		out += a.completionTokens
	}
	if err == nil && !emptyAnswer(a) {
		prompt += a.promptTokens
		out += a.completionTokens
	}
	a.tries, a.promptTokens, a.completionTokens = tries, prompt, out
	v.Retries = max(a.tries-1, 0)
	if err != nil {
		v.Status = judge.StatusAPIError
		v.Error = err.Error()
		var f *FatalError
		switch {
		case errors.As(err, &f):
			return v, true
		case ctx.Err() != nil:
			v.Error = "cancelled before the server answered"
			return v, true
		}
		return v, false
	}
	v.Raw = a.content
	v.PromptTokens, v.CompletionTokens = a.promptTokens, a.completionTokens
	p, err := readOutput(j.def.parse, a.content)
	if emptyAnswer(a) {
		v.Status = judge.StatusParseError
		v.Error = "empty answer"
		if a.finish == "length" {
			v.Error += "; the token limit was reached before any answer: raise --max-tokens"
		}
	} else if err != nil {
		v.Status = judge.StatusParseError
		v.Error = "expected " + j.def.format + ": " + err.Error()
		if a.finish == "length" {
			v.Error += "; the answer was cut off at the token limit: raise --max-tokens"
		}
	} else {
		v.Status = judge.StatusOK
		v.Values, v.Reason, v.Extra = p.values, p.reason, p.extra
		if p.hasSpan {
			var withheld string
			if v.Confidence, withheld = confidence(a, p.start, p.end); withheld != "" {
				v.Extra = setExtra(v.Extra, ExtraConfidenceWithheld, withheld)
			}
		}
	}
	// A prompt the server cut: the judge did not see the whole task,
	// whatever it answered (an empty answer stays one: it is asked again).
	if a.truncated() && !emptyAnswer(a) {
		msg := truncatedError(a)
		if v.Status == judge.StatusParseError {
			msg = strings.TrimSuffix(msg, ".") + "; and its answer could not be read: " + v.Error
		}
		v.Status, v.Error = judge.StatusTruncated, msg
	}
	if a.cached {
		v.Extra = setExtra(v.Extra, ExtraCached, true)
	}
	if a.tries > 1 {
		v.Extra = setExtra(v.Extra, ExtraTries, a.tries)
	}
	return v, false
}

// emptyRetries is how many more times an empty answer (empty, null or
// white space) is asked for before the verdict is a parse_error "empty
// answer". An empty answer is never cached, so each ask reaches the
// server.
const emptyRetries = 2

func setExtra(m map[string]any, k string, v any) map[string]any {
	if m == nil {
		m = map[string]any{}
	}
	m[k] = v
	return m
}
