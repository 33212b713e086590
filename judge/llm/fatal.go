package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// FatalError is a failure that no retry can mend and that every other
// request would meet too: a refused API key (401), an unknown model or
// wrong base URL (404), a request the server rejects (400), an exhausted
// quota, a server that cannot be reached at all. The first one stops the
// run: the client keeps it (Client.Fatal), answers every later task with
// it at once, and cancels contexts made by StopOnFatal with it as cause.
type FatalError struct {
	// StatusCode is the HTTP status, 0 when the server was not reached.
	StatusCode int
	// Problem says what went wrong, with the server's own message.
	Problem string
	// Fix says what the user should do.
	Fix string
}

// Error says what went wrong, then what to do.
func (e *FatalError) Error() string { return e.Problem + ": " + e.Fix }

type stopKey struct{}

// StopOnFatal returns a context that LLM judges cancel, with the
// FatalError as its cause, as soon as one of them meets a fatal failure,
// so that judge.RunPool stops the whole run at once. Read the error with
// FatalCause once the pool's channel is closed. Call cancel when done.
func StopOnFatal(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	ctx = context.WithValue(ctx, stopKey{}, cancel)
	return ctx, func() { cancel(context.Canceled) }
}

// FatalCause returns the FatalError that stopped ctx, or nil if ctx was
// not stopped by one.
func FatalCause(ctx context.Context) *FatalError {
	var f *FatalError
	if errors.As(context.Cause(ctx), &f) {
		return f
	}
	return nil
}

// stopRun cancels the run ctx belongs to, if it was made by StopOnFatal.
func stopRun(ctx context.Context, f *FatalError) {
	if cancel, ok := ctx.Value(stopKey{}).(context.CancelCauseFunc); ok {
		cancel(f)
	}
}

// Health says whether the server is answering, for a screen or a log to
// show while a run is paused (Client.Health, Config.OnHealth).
type Health struct {
	// URL is the server's base URL, without credentials.
	URL string
	// NotAnswering is set while the run is paused: a request got no answer
	// (a timeout, no connection, HTTP 502/503/504) and none has succeeded
	// since. Only one request at a time is sent then, to find out when the
	// server is back.
	NotAnswering bool
	// Since is when the first request left unanswered was sent; For is how
	// long ago that is.
	Since time.Time
	For   time.Duration
	// Wait is how long the run pauses before giving up (--wait).
	Wait time.Duration
	// GaveUp is set once the server has not answered for Wait: the client's
	// remaining tasks end api_error without a request, until a success
	// (Client.ResetHealth lets a new run try again).
	GaveUp bool
	// Last is the last unanswered request's failure.
	Last string
}

// String is the line to show, or "" when the server answers: "the server at
// http://… has not answered for 1m30s; waiting up to 10m0s (--wait)".
func (h Health) String() string {
	switch {
	case h.GaveUp:
		return notAnswering(h).Error()
	case h.NotAnswering && strings.HasPrefix(h.Last, loadingMsg):
		return fmt.Sprintf("the server at %s has been loading its model for %s; waiting up to %s (--wait)", h.URL, h.For.Round(time.Second), h.Wait)
	case h.NotAnswering && strings.HasPrefix(h.Last, downMsg):
		return fmt.Sprintf("the server at %s has refused connections for %s (down or restarting); waiting up to %s (--wait)", h.URL, h.For.Round(time.Second), h.Wait)
	case h.NotAnswering:
		return fmt.Sprintf("the server at %s has not answered for %s; waiting up to %s (--wait)", h.URL, h.For.Round(time.Second), h.Wait)
	}
	return ""
}

// notAnswering is the error of every task that ended because the server
// had not answered for --wait.
func notAnswering(h Health) error {
	last := ""
	if h.Last != "" {
		last = " (last: " + h.Last + ")"
	}
	return fmt.Errorf("the server at %s has not answered for %s%s: check that it is running and reachable (and not overloaded), then run again to judge what is left; --wait sets how long a run waits for it",
		h.URL, h.Wait, last)
}

// health is the server's state shared by every request of a client: when
// no request has succeeded since one went unanswered, new requests wait
// (one probe at a time goes out) and once that has lasted Config.Wait they
// all fail with notAnswering. Any success resets it.
type health struct {
	clk  Clock
	url  string
	wait time.Duration
	on   func(Health)

	mu sync.Mutex
	// changed is closed, and replaced, whenever waiters should look again.
	changed chan struct{}
	lastOK  time.Time
	down    bool
	since   time.Time
	probing bool
	gaveUp  bool
	last    string
	// probes is how many probes in a row went unanswered; the next one
	// goes at nextProbe, after a backoff.
	probes    int
	nextProbe time.Time
	spacing   RetryPolicy
	// owner is the call whose failure started the pause, or took it over
	// once that call ended: its tries count as usual, so that an item that
	// alone makes the server time out still ends after its tries. Other
	// calls' probes spend only the run's --wait.
	owner *int
}

// maxProbeSpacing caps the backoff between probes, so that a server that
// is back is noticed soon.
const maxProbeSpacing = 30 * time.Second

func newHealth(cfg Config) *health {
	spacing := cfg.Retry
	spacing.MaxDelay = min(spacing.MaxDelay, maxProbeSpacing)
	return &health{clk: cfg.Clock, url: displayURL(cfg.BaseURL), wait: cfg.Wait, on: cfg.OnHealth, changed: make(chan struct{}), spacing: spacing}
}

func (h *health) stateLocked(now time.Time) Health {
	s := Health{URL: h.url, Wait: h.wait, NotAnswering: h.down || h.gaveUp, GaveUp: h.gaveUp, Last: h.last}
	if s.NotAnswering {
		s.Since, s.For = h.since, now.Sub(h.since)
	}
	return s
}

func (h *health) state() Health {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stateLocked(h.clk.Now())
}

func (h *health) wakeLocked() {
	close(h.changed)
	h.changed = make(chan struct{})
}

// notify calls OnHealth outside the lock.
func (h *health) notify(s Health) {
	if h.on != nil {
		h.on(s)
	}
}

// admit waits until a request may be sent: at once while the server
// answers; while it does not, until this caller may probe it (one probe at
// a time, spaced by a backoff) or it answers again. It returns whether the
// caller is the probe (it must then report), and how long it waited. The
// error is ctx's, or notAnswering once the server has not answered for
// Wait and no probe is out.
func (h *health) admit(ctx context.Context) (probe bool, paused time.Duration, err error) {
	start := h.clk.Now()
	for {
		h.mu.Lock()
		now := h.clk.Now()
		giveUpAt := h.since.Add(h.wait)
		if h.down && !h.gaveUp && !h.probing && !now.Before(giveUpAt) {
			h.gaveUp = true
			h.wakeLocked()
			s := h.stateLocked(now)
			h.mu.Unlock()
			h.notify(s)
			continue
		}
		switch {
		case h.gaveUp:
			s := h.stateLocked(now)
			h.mu.Unlock()
			return false, now.Sub(start), notAnswering(s)
		case !h.down:
			h.mu.Unlock()
			return false, now.Sub(start), nil
		case !h.probing && !now.Before(h.nextProbe):
			h.probing = true
			h.mu.Unlock()
			return true, now.Sub(start), nil
		}
		// Wake at the next probe's time or at the end of the wait, unless
		// a probe is out: its end wakes everyone.
		var timer <-chan time.Time
		if !h.probing {
			at := giveUpAt
			if h.nextProbe.Before(at) {
				at = h.nextProbe
			}
			timer = h.clk.After(at.Sub(now))
		}
		ch := h.changed
		h.mu.Unlock()
		select {
		case <-ch:
		case <-timer:
		case <-ctx.Done():
			return false, h.clk.Now().Sub(start), ctx.Err()
		}
	}
}

// report records how call's request sent at sent ended: nil for an
// answer; f.silent for no answer at all. It returns whether the failure
// is free, not counted against the item: a probe of another call's pause,
// or a server down or loading (f.down), whoever sent it.
func (h *health) report(call *int, probe bool, sent time.Time, f *failure) (free bool) {
	h.mu.Lock()
	now := h.clk.Now()
	if probe {
		h.probing = false
		h.wakeLocked()
	}
	var s *Health
	switch {
	case f == nil:
		if now.After(h.lastOK) {
			h.lastOK = now
		}
		h.probes, h.nextProbe, h.owner = 0, time.Time{}, nil
		if h.down || h.gaveUp {
			h.down, h.gaveUp, h.last = false, false, ""
			h.wakeLocked()
			st := h.stateLocked(now)
			s = &st
		}
	case f.silent && !sent.Before(h.lastOK):
		h.last = f.msg
		if h.owner == nil {
			h.owner = call
		}
		free = probe && h.owner != call
		if probe {
			h.probes++
			h.nextProbe = now.Add(backoff(h.spacing, h.probes))
		}
		if !h.down {
			h.down, h.since, h.owner = true, sent, call
			h.wakeLocked()
			st := h.stateLocked(now)
			s = &st
		}
	}
	if f != nil && f.down && h.down {
		// Down or loading, and the run paused for it: no item's doing, so
		// no item's tries pay. A request sent before the last success
		// does not start the pause: its failure is an ordinary try, with
		// its backoff, rather than a free retry at once.
		free = true
	}
	h.mu.Unlock()
	if s != nil {
		h.notify(*s)
	}
	return free
}

// end says call is over: another may own the pause.
func (h *health) end(call *int) {
	h.mu.Lock()
	if h.owner == call {
		h.owner = nil
	}
	h.mu.Unlock()
}

// reset forgets that the server was not answering.
func (h *health) reset() {
	h.mu.Lock()
	changed := h.down || h.gaveUp
	h.down, h.gaveUp, h.last = false, false, ""
	h.probes, h.nextProbe = 0, time.Time{}
	h.wakeLocked()
	s := h.stateLocked(h.clk.Now())
	h.mu.Unlock()
	if changed {
		h.notify(s)
	}
}
