package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// maxResponseBytes bounds a response body; a bigger one is a server fault.
const maxResponseBytes = 32 << 20

// exchange records what go-openai does not tell: the HTTP status and the
// Retry-After of the last response to one request. The doer fills the
// exchange found in the request's context.
type exchange struct {
	// sent is set once the request reached the doer.
	sent       bool
	status     int
	retryAfter time.Duration
	hasRetry   bool
	// zeroTemperature, when decided, says whether this request's body
	// gets "temperature":0 (a judge file may set its own temperature and
	// model), instead of the doer's setting.
	zeroTemperature bool
	decided         bool
	// model is the model asked for: a judge file may name its own.
	model string
	// shape is the request's model and settings (shapeOf); maxTokens its
	// answer's room.
	shape     string
	maxTokens int
	// connected is set once the request has a TCP connection to the
	// server (a new one or one kept alive): the server was there, so a
	// refused connection later is a server that went down, not a wrong URL.
	connected atomic.Bool
	// body is the start of an error response's body (status >= 400), read
	// for the token counts and words go-openai's error does not keep.
	body []byte
}

type exchangeKey struct{}

func withExchange(ctx context.Context, x *exchange) context.Context {
	return context.WithValue(ctx, exchangeKey{}, x)
}

// doer is the openai.HTTPDoer the client hands go-openai. It sends a zero
// temperature that go-openai's omitempty would drop, reads the headers
// go-openai hides, bounds and drains response bodies (a drained body lets
// the connection be reused).
type doer struct {
	http *http.Client
	// zeroTemperature adds "temperature":0 to request bodies.
	zeroTemperature bool
}

func newDoer(rt http.RoundTripper, concurrency int, zeroTemperature bool) *doer {
	if rt == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		// Keep one idle connection per worker, so that a steady run does
		// not open a new connection per request.
		t.MaxIdleConnsPerHost = max(concurrency, 2) * 2
		t.MaxIdleConns = max(t.MaxIdleConns, t.MaxIdleConnsPerHost)
		rt = t
	}
	return &doer{http: &http.Client{Transport: rt}, zeroTemperature: zeroTemperature}
}

func (d *doer) Do(req *http.Request) (*http.Response, error) {
	x, _ := req.Context().Value(exchangeKey{}).(*exchange)
	if x != nil {
		x.sent = true
	}
	zero := d.zeroTemperature
	if x != nil && x.decided {
		zero = x.zeroTemperature
	}
	if zero && req.Body != nil {
		if err := addZeroTemperature(req); err != nil {
			return nil, err
		}
	}
	if x != nil {
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), connectTrace(&x.connected)))
	}
	resp, err := d.http.Do(req)
	if err != nil {
		return nil, err
	}
	var body io.Reader = resp.Body
	if x != nil {
		x.status = resp.StatusCode
		x.retryAfter, x.hasRetry = retryAfter(resp.Header, time.Now())
		if resp.StatusCode >= 400 {
			x.body, _ = io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
			body = io.MultiReader(bytes.NewReader(x.body), resp.Body)
		}
	}
	resp.Body = &boundedBody{r: io.LimitReader(body, maxResponseBytes+1), c: resp.Body}
	return resp, nil
}

// maxErrorBody is how much of an error body is kept for classify.
const maxErrorBody = 64 << 10

// connectTrace sets connected once the request has a connection (a dial
// may end on the transport's goroutine after Do returned, hence atomic).
func connectTrace(connected *atomic.Bool) *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		GotConn: func(httptrace.GotConnInfo) { connected.Store(true) },
		ConnectDone: func(_, _ string, err error) {
			if err == nil {
				connected.Store(true)
			}
		},
	}
}

// addZeroTemperature rewrites a JSON request body that has no temperature
// to start with "temperature":0. go-openai never writes a zero temperature
// (omitempty), so the key cannot be there twice. The body is read straight
// into the new one, leaving room for the key in front.
func addZeroTemperature(req *http.Request) error {
	const prefix = `{"temperature":0`
	buf := make([]byte, len(prefix), len(prefix)+max(int(req.ContentLength), 0)+1)
	copy(buf, prefix)
	w := bytes.NewBuffer(buf)
	_, err := w.ReadFrom(req.Body)
	req.Body.Close()
	if err != nil {
		return err
	}
	const space = " \t\r\n"
	out := w.Bytes()
	body := out[len(prefix):]
	obj := bytes.TrimLeft(body, space)
	var rest []byte
	if len(obj) > 0 {
		rest = bytes.TrimLeft(obj[1:], space)
	}
	switch {
	case len(rest) == 0 || obj[0] != '{' || bytes.Contains(body, []byte(`"temperature":`)):
		// Not an object, or it has a temperature: sent as it is.
	case rest[0] == '}':
		body = append(out[:len(prefix)], rest...)
	case len(obj) == len(body):
		// The body's '{' becomes the comma after the new key.
		body = out
		body[len(prefix)] = ','
	default:
		body = append(append(out[:len(prefix):len(prefix)], ','), obj[1:]...)
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return nil
}

// boundedBody fails a body that is larger than maxResponseBytes and, on
// Close, drains a little of what is left so the connection can be reused.
type boundedBody struct {
	r io.Reader
	c io.Closer
	n int64
}

var errBodyTooLarge = fmt.Errorf("response body larger than %d MB", maxResponseBytes>>20)

func (b *boundedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.n += int64(n)
	if b.n > maxResponseBytes {
		return n, errBodyTooLarge
	}
	return n, err
}

func (b *boundedBody) Close() error {
	_, _ = io.CopyN(io.Discard, b.r, 64<<10)
	return b.c.Close()
}

// retryAfter reads how long the server asks the client to wait: OpenAI's
// retry-after-ms, else Retry-After in seconds or as an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if ms := strings.TrimSpace(h.Get("Retry-After-Ms")); ms != "" {
		if f, err := strconv.ParseFloat(ms, 64); err == nil && f >= 0 && f < 1e12 {
			return time.Duration(f * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if f < 0 || f > 1e9 {
			return 0, false
		}
		return time.Duration(f * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// unreachable reports a failure to reach the server at all (no such host,
// connection refused), as opposed to a connection that broke.
func unreachable(err error) bool {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
