package llm

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Server kinds, as Gavel tells them apart by their error bodies and
// endpoints. Each names the setting that raises its context.
const (
	serverLlamaCpp = "llama.cpp"
	serverVLLM     = "vLLM"
	serverOllama   = "Ollama"
	serverOpenAI   = "OpenAI"
	serverTGI      = "TGI"
)

// serverError is what an error body says, whatever the server's dialect:
//
//   - OpenAI, llama.cpp, newer vLLM and Ollama's /v1: {"error":{"message":…,"type":…,"code":…}}
//     (llama.cpp adds n_prompt_tokens and n_ctx to exceed_context_size_error);
//   - older vLLM: {"object":"error","message":…,"type":…,"code":…};
//   - Ollama's native API: {"error":"…"}, and on /v1 a llama.cpp error body
//     carried whole as the message string (double-encoded);
//   - Hugging Face TGI: {"error":"Input validation error: …","error_type":"validation"}
//     (router/src/lib.rs ErrorResponse; HTTP 422 for a validation error);
//   - FastAPI (vLLM) without a route: {"detail":"Not Found"};
//   - anything else: the text itself.
type serverError struct {
	message string
	typ     string
	code    string
	// kind is the server the body's shape or words give away, "" when
	// they do not.
	kind string
	// Token counts the body states; 0 when it does not.
	promptTokens int
	ctxTokens    int
	// completion is the answer's share of requested (vLLM, OpenAI).
	completion int
	requested  int
}

// errorObject is the fields every dialect's error object may hold.
type errorObject struct {
	Message       json.RawMessage `json:"message"`
	Type          string          `json:"type"`
	Code          json.RawMessage `json:"code"`
	Object        string          `json:"object"`
	NPromptTokens int             `json:"n_prompt_tokens"`
	NCtx          int             `json:"n_ctx"`
}

// parseErrorBody reads an error body in any of the dialects above.
func parseErrorBody(body []byte) serverError {
	return parseErrorDepth(body, 0)
}

func parseErrorDepth(body []byte, depth int) serverError {
	text := strings.TrimSpace(string(body))
	var e serverError
	var top struct {
		Error     json.RawMessage `json:"error"`
		Detail    json.RawMessage `json:"detail"`
		ErrorType string          `json:"error_type"`
		errorObject
	}
	if depth > 2 || !strings.HasPrefix(text, "{") || json.Unmarshal([]byte(text), &top) != nil {
		e.message = text
		e.readCounts()
		return e
	}
	obj := top.errorObject
	switch {
	case len(top.Error) > 0 && top.Error[0] == '{':
		_ = json.Unmarshal(top.Error, &obj)
	case len(top.Error) > 0 && top.Error[0] == '"' && top.ErrorType != "":
		// TGI: {"error":"Input validation error: …","error_type":"validation"}.
		obj = errorObject{Message: top.Error, Type: top.ErrorType}
		e.kind = serverTGI
	case len(top.Error) > 0 && top.Error[0] == '"':
		// Ollama's native API: {"error":"model \"x\" not found, try pulling it first"}.
		obj = errorObject{Message: top.Error}
		e.kind = serverOllama
	case len(top.Detail) > 0:
		obj = errorObject{Message: top.Detail}
	case obj.Object == "error":
		// vLLM before its {"error":{…}} shape.
		e.kind = serverVLLM
	}
	e.message = jsonText(obj.Message)
	e.typ = obj.Type
	e.code = jsonText(obj.Code)
	e.promptTokens, e.ctxTokens = obj.NPromptTokens, obj.NCtx
	// Ollama on /v1 carries llama.cpp's own error body as its message.
	if inner := strings.TrimSpace(e.message); depth < 2 && strings.HasPrefix(inner, "{") && json.Valid([]byte(inner)) {
		in := parseErrorDepth([]byte(inner), depth+1)
		in.kind = serverOllama
		return in
	}
	switch {
	case e.typ == "exceed_context_size_error" || obj.NCtx > 0:
		if e.kind == "" {
			e.kind = serverLlamaCpp
		}
	case e.typ == "unavailable_error" || e.typ == "not_found_error" && strings.Contains(e.message, "File Not Found"):
		e.kind = serverLlamaCpp
	case strings.Contains(e.message, "try pulling it first"):
		e.kind = serverOllama
	case e.code == "context_length_exceeded" || e.code == "model_not_found" || e.code == "invalid_api_key" || e.code == "insufficient_quota":
		e.kind = serverOpenAI
	case strings.HasSuffix(e.typ, "Error") && e.typ != "" && e.typ[0] >= 'A' && e.typ[0] <= 'Z':
		// vLLM names its error types after Python's: BadRequestError, NotFoundError.
		e.kind = serverVLLM
	}
	e.readCounts()
	return e
}

// jsonText is a JSON string's text, or a number's or anything else's
// JSON, or "" for null.
func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

var (
	// llama.cpp: "request (1739 tokens) exceeds the available context size (512 tokens), try increasing it".
	llamaCountsRe = regexp.MustCompile(`request \((\d+) tokens\) exceeds the available context size \((\d+) tokens\)`)
	// vLLM and OpenAI: "This model's maximum context length is 4096 tokens. However, you requested
	// 5000 tokens (4000 in the messages, 1000 in the completion)."
	maxContextRe = regexp.MustCompile(`maximum context length is (\d+) tokens`)
	requestedRe  = regexp.MustCompile(`you requested (\d+) tokens(?: \((\d+) in the messages, (\d+) in the completion\))?`)
	// newer vLLM: "your request has 2778 input tokens", "'max_tokens' or 'max_completion_tokens' is too large: 8000".
	inputTokensRe = regexp.MustCompile(`(?:your request has|your messages resulted in) (\d+) (?:input )?tokens`)
	maxTokensRe   = regexp.MustCompile(`'max_tokens'[^:]*is too large: (\d+)`)
	// TGI (router/src/validation.rs, with or without the backquotes of
	// later versions): "`inputs` tokens + `max_new_tokens` must be <= 4096.
	// Given: 4838 `inputs` tokens and 512 `max_new_tokens`", "`inputs` must
	// have less than 4095 tokens. Given: 5000".
	tgiTotalRe = regexp.MustCompile("`?inputs`? tokens \\+ `?max_new_tokens`? must be <= (\\d+)\\. Given: (\\d+) `?inputs`? tokens and (\\d+) `?max_new_tokens`?")
	tgiInputRe = regexp.MustCompile("`?inputs`? must have less than (\\d+) tokens\\. Given: (\\d+)")
)

// readCounts fills the token counts the message states, where the body
// did not give them as fields.
func (e *serverError) readCounts() {
	m := e.message
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	if g := llamaCountsRe.FindStringSubmatch(m); g != nil {
		if e.promptTokens == 0 {
			e.promptTokens = atoi(g[1])
		}
		if e.ctxTokens == 0 {
			e.ctxTokens = atoi(g[2])
		}
	}
	if g := maxContextRe.FindStringSubmatch(m); g != nil && e.ctxTokens == 0 {
		e.ctxTokens = atoi(g[1])
	}
	if g := requestedRe.FindStringSubmatch(m); g != nil {
		e.requested = atoi(g[1])
		if g[2] != "" {
			e.promptTokens, e.completion = atoi(g[2]), atoi(g[3])
		} else if strings.Contains(m, "tokens in the messages") && e.promptTokens == 0 {
			// vLLM without max_tokens: "you requested 2300 tokens in the messages".
			e.promptTokens = e.requested
		}
	}
	if g := inputTokensRe.FindStringSubmatch(m); g != nil && e.promptTokens == 0 {
		e.promptTokens = atoi(g[1])
	}
	if g := maxTokensRe.FindStringSubmatch(m); g != nil {
		e.completion = atoi(g[1])
		e.requested = e.promptTokens + e.completion
	}
	if g := tgiTotalRe.FindStringSubmatch(m); g != nil {
		e.ctxTokens, e.promptTokens, e.completion = atoi(g[1]), atoi(g[2]), atoi(g[3])
		e.requested = e.promptTokens + e.completion
	}
	if g := tgiInputRe.FindStringSubmatch(m); g != nil {
		// The limit on the prompt alone (--max-input-tokens).
		e.ctxTokens, e.promptTokens = atoi(g[1]), atoi(g[2])
	}
}

// tooLong reports whether the body says the prompt (with the answer's
// room) is over the model's context.
func (e serverError) tooLong() bool {
	if e.typ == "exceed_context_size_error" || e.code == "context_length_exceeded" || e.ctxTokens > 0 {
		return true
	}
	return promptTooLong(strings.ToLower(e.message + " " + e.typ + " " + e.code))
}

// loading reports a server that is up but still loading its model
// (llama.cpp's 503 "Loading model", Ollama's and vLLM's while starting).
func (e serverError) loading() bool {
	l := strings.ToLower(e.message)
	return e.typ == "unavailable_error" || strings.Contains(l, "loading model") || strings.Contains(l, "model is loading") || strings.Contains(l, "server is starting")
}

// aboutModel reports a 404 that is about the model asked for rather than
// a route the server does not have.
func (e serverError) aboutModel() bool {
	l := strings.ToLower(e.message)
	return e.code == "model_not_found" || strings.Contains(l, "model") && (strings.Contains(l, "not found") || strings.Contains(l, "does not exist") || strings.Contains(l, "not exist"))
}

// contextFix is how to give the prompt room on a server of this kind;
// need, when known, is the tokens the request needs (prompt and answer),
// and the fix names a size that holds it: the next power of two.
func contextFix(kind string, need int) string {
	size := "a larger"
	n := 8192
	if need > 0 {
		n = 1024
		for n < need {
			n *= 2
		}
		size = fmt.Sprint(n, " (or more)")
	}
	switch kind {
	case serverLlamaCpp:
		if need > 0 {
			return fmt.Sprintf("start llama-server with --ctx-size %d or more (-c)", n)
		}
		return "start llama-server with a larger --ctx-size (-c)"
	case serverVLLM:
		return fmt.Sprintf("start vLLM with --max-model-len %s, up to what the model supports", size)
	case serverOllama:
		return fmt.Sprintf("raise Ollama's num_ctx to %d or more: PARAMETER num_ctx %d in a Modelfile (ollama create), or OLLAMA_CONTEXT_LENGTH=%d for `ollama serve`", n, n, n)
	case serverOpenAI:
		return "use a model with a longer context"
	case serverTGI:
		if need > 0 {
			return fmt.Sprintf("start text-generation-inference with --max-total-tokens %d or more (and --max-input-tokens below it), up to what the model supports", n)
		}
		return "start text-generation-inference with larger --max-input-tokens and --max-total-tokens"
	}
	if need > 0 {
		return fmt.Sprintf("raise the server's context to %d tokens or more (Ollama: PARAMETER num_ctx %d in a Modelfile, or OLLAMA_CONTEXT_LENGTH=%d for `ollama serve`; llama.cpp: --ctx-size %d; vLLM: --max-model-len %d) or use a model with a longer context", n, n, n, n, n)
	}
	return "raise the server's context (llama.cpp --ctx-size, vLLM --max-model-len, Ollama num_ctx or OLLAMA_CONTEXT_LENGTH) or use a model with a longer context"
}

// answerRoom is the answer's share a context size is suggested with when
// the request did not say (no --max-tokens): a judge's answer is short.
const answerRoom = 256

// tooLongMessage is the item's failure for a prompt over the context, with
// the counts the server gave and the fix; detail is the server's own words.
func tooLongMessage(e serverError, kind string, maxTokens int, detail string) string {
	if e.kind != "" {
		kind = e.kind
	}
	who := "the server"
	if kind != "" {
		who = kind
	}
	var b strings.Builder
	b.WriteString(TooLongPrefix)
	prompt, ctx, completion := e.promptTokens, e.ctxTokens, e.completion
	if completion == 0 && e.requested > 0 && prompt > 0 {
		completion = e.requested - prompt
	}
	if completion == 0 && prompt > 0 && prompt < ctx {
		// The server counted the answer's room too (--max-tokens).
		completion = maxTokens
	}
	switch {
	case prompt > 0 && ctx > 0 && completion > 0 && prompt < ctx:
		room := max(ctx-prompt, 0)
		fmt.Fprintf(&b, ": %d prompt tokens and %d for the answer (--max-tokens), over %s's %d; lower --max-tokens to %d or less, or %s",
			prompt, completion, who, ctx, room, contextFix(kind, prompt+max(completion, answerRoom)))
	case prompt > 0 && ctx > 0:
		fmt.Fprintf(&b, ": %d prompt tokens, %s's context holds %d; %s, or shorten the item", prompt, who, ctx, contextFix(kind, prompt+max(completion, answerRoom)))
	case ctx > 0:
		fmt.Fprintf(&b, ": %s's context holds %d tokens; %s, or shorten the item", who, ctx, contextFix(kind, 0))
	default:
		fmt.Fprintf(&b, "; %s, or shorten the item", contextFix(kind, 0))
	}
	if detail != "" {
		b.WriteString(" (" + detail + ")")
	}
	return b.String()
}
