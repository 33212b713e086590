package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/pg"
)

// `gavel label postgres://…?session=NAME ID …`, the review screen's
// headless twin on a team session: the decision is checked and made on
// the session's local copy (brought up to date first) exactly as on a
// file, then written to PostgreSQL first — the same action rows, under
// ids the team session gives — and into the local copy under the same
// ids (pg.Replica), so the team's screens show it within seconds. While
// the server is away the write is tried again with the same rows for up
// to a minute. --undo takes back the annotator's latest decision on the
// item there; --guidelines FILE is stored in the team session first.

// labelWriter is where gavel label writes a decision: the session file
// itself (*sessions.Store), or the team session first (teamLabels).
type labelWriter interface {
	Record(acts []sessions.Action) ([]sessions.Action, error)
	UndoItem(itemID string) ([]sessions.Action, error)
}

// teamLabels writes to the team session, then into its local copy.
type teamLabels struct {
	ctx context.Context
	rep *pg.Replica
}

func (w teamLabels) Record(acts []sessions.Action) ([]sessions.Action, error) {
	return w.rep.RecordWaiting(w.ctx, acts)
}

func (w teamLabels) UndoItem(itemID string) ([]sessions.Action, error) {
	return w.rep.UndoItem(w.ctx, itemID)
}

// runLabelTeam records the decision in the team session at raw.
func runLabelTeam(e env, raw, id string, value *string, o labelFlags) error {
	annotator := strings.TrimSpace(o.annotator)
	if annotator == "" {
		var err error
		if annotator, err = e.annotatorDefault(); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	src, err := pg.Connect(ctx, raw)
	if err != nil {
		return err
	}
	defer src.Close()
	// As the write does (RecordWaiting), opening waits for a server that
	// is away, for up to a minute, and says so.
	rv, rep, err := pg.OpenReviewWaiting(ctx, src, annotator, func(err error) {
		fmt.Fprintf(e.stderr, "gavel: %s: waiting for it, up to a minute (Ctrl-C gives up)…\n", releaseWhy(err))
	})
	if err != nil {
		return err
	}
	defer rv.Store.Close()
	if o.guidelines != "" && !o.undo {
		// Stored there first: the local copy then finds the version it
		// pulled, and the decision records the team session's id.
		if text, err := readGuidelines(o.guidelines); err == nil {
			if _, err := rep.AddGuidelines(ctx, text); err != nil {
				return err
			}
		} // else labelOn says why the file is not used
	}
	err = labelOn(e, rv.Store, teamLabels{ctx: ctx, rep: rep}, raw, annotator, id, value, o)
	return namingTeam(err, rv.Store.Path(), raw)
}
