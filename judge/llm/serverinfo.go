package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// ServerInfo is what an OpenAI-compatible server tells of itself, read
// before a run (Client.Probe) or by `gavel models` (ListModels).
type ServerInfo struct {
	// URL is the base URL, without credentials.
	URL string
	// Kind is "llama.cpp", "vLLM" or "Ollama" when the server's endpoints
	// give it away, else "".
	Kind string
	// Context is how many tokens one request may hold for the run's model
	// (prompt and answer), 0 when the server does not say: llama.cpp's
	// GET /props default_generation_settings.n_ctx (its context per slot),
	// vLLM's max_model_len in GET /v1/models. Ollama does not tell the
	// num_ctx it runs a model with.
	Context int
	// ContextFrom says where Context was read, for messages.
	ContextFrom string
	// Models is GET /v1/models' list.
	Models []Model
}

// Model is one entry of a server's GET /v1/models.
type Model struct {
	ID string `json:"id"`
	// OwnedBy is the server's owned_by: "vllm", "llamacpp", "library"…
	OwnedBy string `json:"owned_by"`
	// Context is vLLM's max_model_len, 0 when not given.
	Context int `json:"max_model_len"`
}

// serverState is what the client learned of its server: the limit the
// context check applies (Client.fits) and the kind that names the fix.
type serverState struct {
	mu     sync.Mutex
	kind   string
	limit  int // llama.cpp: one context for every model name
	models map[string]int
	from   string
	// listed caches GET /v1/models for the 404 advice: one listing per run.
	listOnce sync.Once
	list     []Model
	listErr  error
	// v1Once asks once whether the base URL with /v1 added answers.
	v1Once sync.Once
	v1OK   bool
}

// serverKind is the kind learned by Probe, "" when unknown.
func (c *Client) serverKind() string {
	c.server.mu.Lock()
	defer c.server.mu.Unlock()
	return c.server.kind
}

// maxTokensOf is the answer's room a request asked for.
func (c *Client) maxTokensOf(x *exchange) int {
	if x != nil && x.maxTokens > 0 {
		return x.maxTokens
	}
	return c.cfg.MaxTokens
}

// Probe asks the server what it is and how long a context it holds
// (GET /v1/models, llama.cpp's GET /props, Ollama's GET /api/version),
// and from then on the client fails at once, without sending it, an item
// whose prompt cannot fit (Client.fits). The error is the model listing's;
// a server that says nothing of its context leaves the check off. Probe
// never stops a run: a request that fails here is tried by the run as
// usual.
func (c *Client) Probe(ctx context.Context) (ServerInfo, error) {
	var connected atomic.Bool
	info, err := probe(httptrace.WithClientTrace(ctx, connectTrace(&connected)), c.cfg, c.cfg.Model)
	if connected.Load() {
		c.reached.Store(true)
	}
	s := &c.server
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kind = info.Kind
	switch info.Kind {
	case serverLlamaCpp:
		s.limit, s.from = info.Context, info.ContextFrom
	case serverVLLM:
		s.models = map[string]int{}
		for _, m := range info.Models {
			if m.Context > 0 {
				s.models[m.ID] = m.Context
			}
		}
		s.from = "max_model_len, GET /v1/models"
	}
	return info, err
}

// ListModels asks the server at cfg.BaseURL for its models and what it
// tells of itself (`gavel models`). Only BaseURL, APIKey, Model and
// Transport are used.
func ListModels(ctx context.Context, cfg Config) (ServerInfo, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	return probe(ctx, cfg, cfg.Model)
}

const probeTimeout = 10 * time.Second

func probe(ctx context.Context, cfg Config, model string) (ServerInfo, error) {
	info := ServerInfo{URL: displayURL(cfg.BaseURL)}
	hc := &http.Client{Transport: cfg.Transport, Timeout: probeTimeout}
	models, owned, err := getModels(ctx, hc, cfg)
	info.Models = models
	root := serverRoot(cfg.BaseURL)
	switch {
	case owned == "vllm" || anyContext(models):
		info.Kind = serverVLLM
	case owned == "llamacpp":
		info.Kind = serverLlamaCpp
	}
	if info.Kind == "" || info.Kind == serverLlamaCpp {
		var props struct {
			Default *struct {
				NCtx int `json:"n_ctx"`
			} `json:"default_generation_settings"`
			NCtx int `json:"n_ctx"`
		}
		if getJSON(ctx, hc, cfg, root+"/props", &props) == nil && (props.Default != nil || props.NCtx > 0) {
			info.Kind = serverLlamaCpp
			switch {
			case props.Default != nil && props.Default.NCtx > 0:
				info.Context, info.ContextFrom = props.Default.NCtx, "default_generation_settings.n_ctx, GET /props"
			case props.NCtx > 0:
				info.Context, info.ContextFrom = props.NCtx, "n_ctx, GET /props"
			}
		}
	}
	if info.Kind == "" && err == nil {
		var v struct {
			Version string `json:"version"`
		}
		if getJSON(ctx, hc, cfg, root+"/api/version", &v) == nil && v.Version != "" {
			info.Kind = serverOllama
		}
	}
	if info.Kind == serverVLLM {
		for _, m := range models {
			if m.ID == model || model == "" && len(models) == 1 {
				info.Context, info.ContextFrom = m.Context, "max_model_len, GET /v1/models"
			}
		}
	}
	return info, err
}

func anyContext(ms []Model) bool {
	for _, m := range ms {
		if m.Context > 0 {
			return true
		}
	}
	return false
}

// serverRoot is the base URL without its /v1: llama.cpp's /props and
// Ollama's /api live there.
func serverRoot(base string) string {
	base = strings.TrimRight(base, "/")
	return strings.TrimSuffix(base, "/v1")
}

// getModels reads GET {base}/models; owned is the owned_by all entries
// share, "" when they differ.
func getModels(ctx context.Context, hc *http.Client, cfg Config) (models []Model, owned string, err error) {
	var list struct {
		Data []Model `json:"data"`
	}
	if err := getJSON(ctx, hc, cfg, strings.TrimRight(cfg.BaseURL, "/")+"/models", &list); err != nil {
		return nil, "", err
	}
	for i, m := range list.Data {
		if i == 0 {
			owned = m.OwnedBy
		} else if m.OwnedBy != owned {
			owned = ""
		}
	}
	return list.Data, owned, nil
}

// errNotJSON is a listing that answered with something else than JSON.
var errNotJSON = errors.New("the answer is not JSON")

func getJSON(ctx context.Context, hc *http.Client, cfg Config, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	if cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+cfg.APIKey)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		e := parseErrorBody(body)
		return fmt.Errorf("GET %s: HTTP %d: %s", displayURL(url), resp.StatusCode, oneLine(redactKey(e.message, cfg.APIKey)))
	}
	if json.Unmarshal(body, v) != nil {
		return fmt.Errorf("GET %s: %w", displayURL(url), errNotJSON)
	}
	return nil
}

// fits fails a prompt that cannot fit the context the server told (Probe),
// without sending it: its deliberately low estimate (promptEstimate), and
// on vLLM the answer's room (--max-tokens) too, is over the limit. The
// error's text starts "the prompt is too long for the model's context: ".
func (c *Client) fits(k call, req openai.ChatCompletionRequest) error {
	s := &c.server
	s.mu.Lock()
	kind, limit, from := s.kind, s.limit, s.from
	if kind == serverVLLM {
		limit = s.models[req.Model]
	}
	s.mu.Unlock()
	if limit <= 0 {
		return nil
	}
	est := promptEstimate(k.messages)
	room := max(req.MaxTokens, req.MaxCompletionTokens)
	switch {
	case kind == serverVLLM && room >= limit:
		// vLLM counts the answer's room in the context: no prompt fits.
		return c.roomOverContext(room, room, limit, "("+from+"), so no prompt fits")
	case kind == serverLlamaCpp && est >= limit, kind == serverVLLM && est >= limit:
		return fmt.Errorf("the prompt is too long for the model's context: about %d tokens at least (a deliberately low estimate), %s's context holds %d (%s); not sent: %s, or shorten the item",
			est, kind, limit, from, contextFix(kind, est+max(room, answerRoom)))
	case kind == serverVLLM && est+room > limit:
		return fmt.Errorf("the prompt is too long for the model's context: about %d prompt tokens at least (a deliberately low estimate) and %d for the answer (--max-tokens), over %s's %d (%s); not sent: lower --max-tokens to %d or less, or %s",
			est, room, kind, limit, from, limit-est, contextFix(kind, est+max(room, answerRoom)))
	}
	return nil
}

// TooLongPrefix starts the error of every item whose prompt is over the
// server's context, found before sending or told by the server.
const TooLongPrefix = "the prompt is too long for the model's context"

// roomOverContext is the run-stopping error of an answer's room
// (max_tokens) that alone fills the model's context, so that every item
// would fail: found before sending (vLLM's max_model_len) or told by the
// server (room is then the server's count). It names the flag to lower:
// --max-tokens, or the judge file's own max_tokens when the request asked
// for another room than --max-tokens'. how says where the limit came from
// and what follows.
func (c *Client) roomOverContext(asked, room, limit int, how string) *FatalError {
	flag := "--max-tokens"
	if asked != c.cfg.MaxTokens {
		flag = "the judge file's max_tokens"
	}
	return &FatalError{
		Problem: fmt.Sprintf("the answer's room (max_tokens %d) alone is over the model's context of %d tokens %s", room, limit, how),
		Fix:     fmt.Sprintf("lower %s below %d (a judge's answer needs a few hundred tokens)", flag, limit),
	}
}
