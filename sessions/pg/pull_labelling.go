package pg

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/gavel-dev/gavel/sessions"
)

// What a review of a team session adds to the session besides actions —
// the guidelines version it opens with, the tags named on the command
// line — is written to the team session first and pulled into the
// replica, as its actions are: a row the replica numbered itself would
// take an id the team session gives to someone else.

// stampLayout is how sessions store times (UTC, milliseconds, fixed
// width).
const stampLayout = "2006-01-02T15:04:05.000Z"

// AddGuidelines stores a guidelines text in the team session, unless a
// version with the same text is there, pulls it into the replica, and
// returns whether it is new to the session.
func (r *Replica) AddGuidelines(ctx context.Context, text string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	typed, odd, err := EncodeValue(TypeText, text)
	if err != nil {
		return false, err
	}
	var oddJSON []byte
	if odd != nil {
		if oddJSON, err = OddJSON(map[string]*Odd{"text": odd}); err != nil {
			return false, err
		}
	}
	isNew := false
	err = r.src.writeTx(ctx, "storing the guidelines", func(tx pgx.Tx) error {
		var id int64
		err := tx.QueryRow(ctx, `INSERT INTO `+r.src.table("guidelines")+` (sha256, text, first_seen, `+quote(OddColumn)+`)
			VALUES ($1, $2, $3, $4) ON CONFLICT (sha256) DO NOTHING RETURNING id`,
			sessions.GuidelinesSHA256(text), typed, sessions.Now().Format(stampLayout), oddJSON).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		isNew = true
		return notify(ctx, tx, r.src.target.Session, "guidelines", id)
	})
	if err != nil {
		return false, r.src.explain(ctx, err)
	}
	if _, err := r.p.pull(ctx); err != nil {
		return false, r.src.explain(ctx, err)
	}
	return isNew, nil
}

// AddTags adds tags to the team session's tag set (those it has are
// left as they are) and pulls them into the replica.
func (r *Replica) AddTags(ctx context.Context, names []string) error {
	if len(names) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	for _, n := range names {
		if err := sessions.CheckTagName(n); err != nil {
			return err
		}
	}
	err := r.src.writeTx(ctx, "adding tags", func(tx pgx.Tx) error {
		at := sessions.Now()
		for i, n := range names {
			_, err := tx.Exec(ctx, `INSERT INTO `+r.src.table("session_tags")+` (name, added_at) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`,
				n, at.Add(timeStep*time.Duration(i)).Format(stampLayout))
			if err != nil {
				return err
			}
		}
		return notify(ctx, tx, r.src.target.Session, "session_tags", 0)
	})
	if err != nil {
		return r.src.explain(ctx, err)
	}
	if _, err := r.p.pull(ctx); err != nil {
		return r.src.explain(ctx, err)
	}
	return nil
}

// timeStep keeps the tags added together in their order.
const timeStep = time.Millisecond
