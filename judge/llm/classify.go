package llm

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// failure is why one HTTP request gave no answer, and what to do next.
type failure struct {
	msg   string
	retry bool
	// fatal is set for failures every request would meet.
	fatal *FatalError
	// cancelled is set when the caller's context ended.
	cancelled  bool
	retryAfter time.Duration
	hasRetry   bool
	// silent is set when the server gave no answer at all (a timeout, no
	// connection, 502/503/504): the run pauses while it lasts (health).
	silent bool
	// down is set when the server is down or loading its model (a refused
	// connection after this run reached it, llama.cpp's 503 "Loading
	// model"): no item causes that, so no item's tries pay for it; the run
	// waits, up to --wait.
	down bool
}

// classify sorts a failed request: the caller gave up, a fault worth
// retrying (429, 5xx, timeout, broken connection, malformed body), a
// server that is down or loading (the run waits), a problem with this item
// alone (a prompt too long), or a fatal error.
//
// timeout is the attempt's time limit: --timeout, or less when the item's
// budget (--item-timeout) had less left.
func (c *Client) classify(ctx, attempt context.Context, err error, x *exchange, timeout time.Duration) *failure {
	if ctx.Err() != nil {
		return &failure{cancelled: true}
	}
	if x.status != 0 || x.connected.Load() {
		// The server was there: a refused connection from now on is a
		// server that went down or is restarting, not a wrong URL.
		c.reached.Store(true)
	}
	if errors.Is(err, errBodyTooLarge) {
		// Never retried: a retry would download it all again.
		return &failure{msg: fmt.Sprintf("the server's response (HTTP %d) is larger than %d MB, so it was not read; not retried, as a retry would download it again: lower --max-tokens or check the server", x.status, maxResponseBytes>>20)}
	}
	if attempt.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		flag := "--timeout"
		if timeout < c.cfg.Timeout {
			flag = "--item-timeout"
		}
		return &failure{msg: fmt.Sprintf("no answer within %s (%s)", timeout.Round(time.Millisecond), flag), retry: true, silent: true}
	}
	if x.status == 0 && !c.answered.Load() {
		// No HTTP answer yet from this server: a TLS or protocol error is
		// the URL's scheme or port, which no wait mends.
		if problem, fix, ok := notHTTP(err); ok {
			return &failure{fatal: &FatalError{
				Problem: fmt.Sprintf("%s at %s (%s)", problem, displayURL(c.cfg.BaseURL), oneLine(err.Error())),
				Fix:     fix,
			}}
		}
	}
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case x.status >= 400 && len(x.body) > 0:
		// The doer kept the error body's start: read it even when the
		// rest broke off (a TLS server answering plain HTTP closes at once).
		return c.classifyStatus(ctx, x.status, parseErrorBody(x.body), x)
	case errors.As(err, &apiErr):
		e := serverError{message: apiErr.Message, typ: apiErr.Type, code: fmt.Sprint(apiErr.Code)}
		if apiErr.Code == nil {
			e.code = ""
		}
		e.readCounts()
		return c.classifyStatus(ctx, apiErr.HTTPStatusCode, e, x)
	case errors.As(err, &reqErr):
		return c.classifyStatus(ctx, reqErr.HTTPStatusCode, parseErrorBody(reqErr.Body), x)
	case x.status == 0 && !x.sent:
		// go-openai refused to build the request (its own checks on
		// reasoning models' parameters, for one).
		return &failure{fatal: &FatalError{
			Problem: fmt.Sprintf("the request for model %q could not be made: %v", c.modelOf(x), err),
			Fix:     c.checkModel(x, "check --model, --temperature and --max-tokens"),
		}}
	case x.status != 0:
		return &failure{msg: fmt.Sprintf("the server's response broke off or is not valid JSON (HTTP %d: %s)", x.status, oneLine(err.Error())), retry: true}
	case unreachable(err) && !c.reached.Load():
		return &failure{fatal: &FatalError{
			Problem: fmt.Sprintf("cannot connect to %s (%s)", displayURL(c.cfg.BaseURL), oneLine(err.Error())),
			Fix:     "check --base-url (or OPENAI_BASE_URL) and that the server is running",
		}}
	case unreachable(err):
		// This run has had a connection to it: down or restarting. The
		// run waits for it (--wait), and no item pays for the wait.
		return &failure{msg: fmt.Sprintf("%s, after this run had reached it: down or restarting (%s)", downMsg, oneLine(err.Error())),
			retry: true, silent: true, down: true}
	}
	return &failure{msg: "connection failed: " + oneLine(err.Error()), retry: true, silent: true}
}

func (c *Client) classifyStatus(ctx context.Context, status int, e serverError, x *exchange) *failure {
	msg := oneLine(e.message)
	detail := fmt.Sprintf("HTTP %d", status)
	if msg != "" {
		detail += ": " + msg
	}
	lower := strings.ToLower(msg + " " + e.code + " " + e.typ)
	retry := func(what string) *failure {
		return &failure{msg: what + " (" + detail + ")", retry: true, retryAfter: x.retryAfter, hasRetry: x.hasRetry}
	}
	fatal := func(problem, fix string) *failure {
		return &failure{fatal: &FatalError{StatusCode: status, Problem: problem + " (" + detail + ")", Fix: fix}}
	}
	switch {
	case status == http.StatusUnauthorized && c.cfg.APIKey == "":
		return fatal("the server wants an API key and none was given", "set --api-key or OPENAI_API_KEY")
	case status == http.StatusUnauthorized:
		return fatal("the server refused the API key", "check --api-key or OPENAI_API_KEY")
	case status == http.StatusForbidden:
		return fatal("the API key may not use this model or endpoint", "check the key's permissions, --model and --base-url")
	case status == http.StatusNotFound:
		return c.notFound(ctx, e, x, detail)
	case status == http.StatusTooManyRequests && strings.Contains(lower, "insufficient_quota"):
		return fatal("the account has no quota left", "check the plan and billing of the API key's account")
	case status == http.StatusTooManyRequests:
		return retry("rate limited by the server")
	case status == http.StatusRequestEntityTooLarge:
		// A limit on the body's bytes, most often a proxy's (nginx's
		// client_max_body_size): other items may be smaller.
		return &failure{msg: "the server, or a proxy in front of it, refused the request body as too large (" + detail + "): a limit on the body's size, not the model's context; raise the proxy's limit (nginx: client_max_body_size) or shorten the item"}
	case e.tooLong() && e.ctxTokens > 0 && e.completion >= e.ctxTokens && (status < 500 || e.typ == "exceed_context_size_error"):
		// The answer's room alone fills the context: every item fails so.
		f := c.roomOverContext(c.maxTokensOf(x), e.completion, e.ctxTokens, "("+detail+")")
		f.StatusCode = status
		return &failure{fatal: f}
	case e.tooLong() && (status < 500 || e.typ == "exceed_context_size_error"):
		// llama.cpp said so with HTTP 500 before it said 400 (b6383).
		return &failure{msg: tooLongMessage(e, c.serverKind(), c.maxTokensOf(x), detail)}
	case status == http.StatusRequestTimeout, status == http.StatusConflict, status == http.StatusTooEarly:
		return retry("the server asked to try again")
	case status == http.StatusServiceUnavailable && e.loading():
		// Up, and loading its model (llama.cpp's 503 "Loading model"):
		// the run waits, and no item pays for the wait.
		f := retry(loadingMsg)
		f.silent, f.down = true, true
		return f
	case status == http.StatusBadGateway, status == http.StatusServiceUnavailable, status == http.StatusGatewayTimeout:
		// Down, restarting, or behind a proxy that cannot reach it: the
		// run pauses until it answers.
		f := retry("server error")
		f.silent = true
		return f
	case status >= 500:
		return retry("server error")
	case strings.Contains(lower, "content_filter") || strings.Contains(lower, "content management policy"):
		return &failure{msg: "the server's content filter refused this item (" + detail + ")"}
	case status == http.StatusBadRequest && strings.Contains(lower, "http request to an https server"):
		// Go's and nginx's answer to plain HTTP on a TLS port.
		return fatal("the server speaks TLS", "use https:// in --base-url")
	case strings.Contains(lower, "budget") && (strings.Contains(lower, "exceeded") || strings.Contains(lower, "spent")):
		// LiteLLM's "Budget has been exceeded!" is a 400 by design
		// (BerriAI/litellm#4139): no later request will pass.
		return fatal("the server refused: the key's budget is spent ("+detail+")", "raise the budget on the proxy (or use another key), then run again: the items not judged are still to do")
	case (status == http.StatusBadRequest || status == http.StatusUnprocessableEntity) && x != nil && c.succeeded(x.shape):
		// The server took requests of this model and these settings, so
		// what it refuses now is this item — unless it refuses every item
		// in a row, which is about the server, not the items.
		if n := c.rejected.Add(1); n >= rejectedInARow {
			return fatal(fmt.Sprintf("the server rejected %d requests in a row that it took before (last: %s)", n, detail),
				"check what changed on the server (a proxy's budget or policy, a model reloaded with other limits), then run again: the items not judged are still to do")
		}
		return &failure{msg: "the server rejected this item (" + detail + "); it took requests with the same model and settings, so the run goes on"}
	}
	return fatal("the server rejected the request",
		"check --model, --temperature and --max-tokens; if the message is about response_format or logprobs, run again with --no-response-format or --no-logprobs")
}

// rejectedInARow is how many refusals of items, with no success between,
// stop a run: one or two are items the server will not take; more are the
// server refusing everything.
const rejectedInARow = 3

// succeeded reports whether the server answered a request of this shape
// (shapeOf).
func (c *Client) succeeded(shape string) bool {
	_, ok := c.worked.Load(shape)
	return ok && shape != ""
}

// notHTTP tells a connection that does not speak HTTP as the URL says: TLS
// to a plain-HTTP server, a certificate the system does not trust, or
// something else on the port. ok is false for other errors.
func notHTTP(err error) (problem, fix string, ok bool) {
	var verify *tls.CertificateVerificationError
	var authority x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	var record tls.RecordHeaderError
	msg := err.Error()
	switch {
	case errors.As(err, &verify), errors.As(err, &authority), errors.As(err, &host), errors.As(err, &invalid):
		return "cannot verify the server's TLS certificate", "the certificate is not trusted: add its CA to the system's trust store (or name it in SSL_CERT_FILE), check the host name in --base-url, or use http:// if the server speaks plain HTTP", true
	case errors.Is(err, http.ErrSchemeMismatch), errors.As(err, &record), strings.Contains(msg, "first record does not look like a TLS handshake"):
		return "the server answered a TLS handshake in plain HTTP", "use http://: the server does not speak TLS", true
	case strings.Contains(msg, "malformed HTTP"), strings.Contains(msg, "tls: "),
		// A server that speaks first (SSH, MySQL): the transport drops the
		// connection on its unsolicited bytes before the request is written.
		strings.Contains(msg, "use of closed network connection"):
		return "the server did not answer in HTTP", "check --base-url's scheme and port: use https:// if the server speaks TLS, and the port the server listens on", true
	}
	return "", "", false
}

// The failures of a server down or loading start so (Health.String).
const (
	loadingMsg = "the server is loading its model"
	downMsg    = "the server refused the connection"
)

func promptTooLong(lower string) bool {
	for _, s := range []string{"context_length_exceeded", "exceed_context_size", "context length", "maximum context", "context window", "context size", "too many tokens", "prompt is too long", "input is too long",
		// TGI, with or without its backquotes.
		"`max_new_tokens` must be <=", "max_new_tokens must be <=", "`inputs` must have less than", "inputs must have less than"} {
		if strings.Contains(lower, s) {
			return true
		}
	}
	return false
}

// oneLine flattens a server's message for an error line and cuts it short.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return clip(s, 300)
}

// modelOf is the model a request asked for: a judge file's own, or
// --model.
func (c *Client) modelOf(x *exchange) string {
	if x != nil && x.model != "" {
		return x.model
	}
	return c.cfg.Model
}

// checkModel is the fix for a refused model: fix for --model, or the
// judge file's model key when the request named the file's model.
func (c *Client) checkModel(x *exchange, fix string) string {
	if m := c.modelOf(x); m != c.cfg.Model {
		return fmt.Sprintf("check the model the judge file names (model: %s), its temperature and max_tokens, and --base-url", m)
	}
	return fix
}
