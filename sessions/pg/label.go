package pg

import (
	"context"
	"strings"
	"time"

	"github.com/gavel-dev/gavel/sessions"
)

// A headless decision on a team session (`gavel label URL ID …`): one
// call records one group, written to the team session and then into the
// replica under the same ids, as a key press on the review screen is.
// While the server is away the same rows, under the ids reserved for
// them, are tried again (for retryFor), so a commit whose answer was lost
// is not written twice and a short restart loses nothing.

// OpenReviewWaiting opens the review of src as OpenReview does, trying
// again while the server is away, until ctx ends or retryFor has passed:
// gavel label's way in, which then writes with RecordWaiting. waited,
// when not nil, is called once, before the first wait, with the error
// that made it wait.
func OpenReviewWaiting(ctx context.Context, src *Store, annotator string, waited func(error)) (*sessions.Review, *Replica, error) {
	type opened struct {
		rv  *sessions.Review
		rep *Replica
	}
	said := false
	o, err := waitFor(ctx, func() (opened, error) {
		rv, rep, err := OpenReview(ctx, src, annotator)
		if err != nil && unavailable(err) && !said && waited != nil {
			said = true
			waited(err)
		}
		return opened{rv, rep}, err
	})
	return o.rv, o.rep, err
}

// RecordWaiting records acts as Record does, trying again while the
// server is away, until ctx ends or retryFor has passed.
func (r *Replica) RecordWaiting(ctx context.Context, acts []sessions.Action) ([]sessions.Action, error) {
	return waiting(ctx, func() ([]sessions.Action, error) { return r.Record(acts) })
}

// UndoItem takes back the annotator's latest decision on itemID that is
// not undone — the live actions on itemID of its group, as sessions'
// UndoItem does on a file — in the team session, then in the replica,
// and returns the actions undone (nil, nil when none is left). It tries
// again while the server is away, with the same undo rows.
func (r *Replica) UndoItem(ctx context.Context, itemID string) ([]sessions.Action, error) {
	hist, err := r.review.Store.Actions(r.annotator)
	if err != nil {
		return nil, err
	}
	group := liveGroupOn(hist, itemID)
	if len(group) == 0 {
		return nil, nil
	}
	undos := make([]sessions.Action, len(group))
	for i, a := range group {
		undos[i] = sessions.Action{Kind: sessions.KindUndo, Undoes: a.ID, Sitting: r.sitting}
	}
	_, err = waiting(ctx, func() ([]sessions.Action, error) {
		wctx, cancel := context.WithTimeout(ctx, r.timeout)
		defer cancel()
		// undos keeps the ids RecordUndo reserves: a retry writes the
		// same rows.
		stored, err := r.src.RecordUndo(wctx, r.annotator, undos)
		if err != nil {
			return nil, r.src.explain(wctx, err)
		}
		if _, err := r.review.Store.ApplyActions(stored); err != nil {
			return nil, err
		}
		return stored, nil
	})
	if err != nil {
		return nil, err
	}
	return group, nil
}

// liveGroupOn is, of an annotator's history (oldest first), the live
// actions on itemID of the group of the latest live action on it.
func liveGroupOn(hist []sessions.Action, itemID string) []sessions.Action {
	undone := map[int64]bool{}
	for _, a := range hist {
		if a.Kind == sessions.KindUndo {
			undone[a.Undoes] = true
		}
	}
	live := func(a sessions.Action) bool {
		return a.Kind != sessions.KindUndo && !undone[a.ID] && a.ItemID == itemID
	}
	for i := len(hist) - 1; i >= 0; i-- {
		if !live(hist[i]) {
			continue
		}
		var out []sessions.Action
		for _, a := range hist {
			if a.Group == hist[i].Group && live(a) {
				out = append(out, a)
			}
		}
		return out
	}
	return nil
}

// waiting calls write until it succeeds or fails otherwise than for want
// of the server, for retryFor at most.
func waiting(ctx context.Context, write func() ([]sessions.Action, error)) ([]sessions.Action, error) {
	return waitFor(ctx, write)
}

// waitFor calls try until it succeeds or fails otherwise than for want of
// the server, for retryFor at most.
func waitFor[T any](ctx context.Context, try func() (T, error)) (T, error) {
	deadline := time.Now().Add(retryFor)
	wait := 100 * time.Millisecond
	for {
		out, err := try()
		if err == nil || !unavailable(err) || ctx.Err() != nil || time.Now().After(deadline) {
			return out, err
		}
		select {
		case <-ctx.Done():
			var zero T
			return zero, err
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// unavailable reports whether err says the server is away (as the
// store's messages tell it) rather than that it refused the write.
func unavailable(err error) bool {
	if lost(err) {
		return true
	}
	msg := err.Error()
	for _, w := range []string{"is not answering", "stopped answering", "is restarting or shutting down", "is starting or shutting down"} {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}
