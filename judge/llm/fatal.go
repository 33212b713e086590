package llm

import (
	"context"
	"errors"
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

// Error says what went wrong and then what to do.
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
